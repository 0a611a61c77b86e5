//! One run of one scenario against one target: fixtures, stub, process, timeout, and everything
//! recorded. Nothing here interprets the target; checks and traces read the [`RunOutcome`].
//!
//! A run is its steps: the private directories and fixtures (`fixtures`), the fake MCP servers,
//! the fake backends (`backends`), the command line and environment (`command`), the user's
//! state at a terminal and a planted login, the target driven through its channel
//! (`crate::host`), and the outcome assembled from what every wire recorded.

mod backends;
mod command;
mod fixtures;

use std::time::Instant;

use anyhow::{Context, Result};
use stubs::claude_ai::ProjectScript;
use stubs::cues::{Cues, Served};
use stubs::messages::Split;

use backends::Backends;
use fixtures::Dirs;

use crate::host::{Decisions, Driven};
use crate::mcp::McpSetup;
use crate::outcome::{RunOutcome, StepRun};
use crate::scenario::{Channel, Scenario, Step};
use crate::secrets::Redact;
use crate::target::Target;

/// Runs `scenario` on `target` with the target's [`crate::Secrets`]. What comes back, the run or
/// the error chain, holds none of them: each is replaced by its name before anything reads it.
pub async fn run_scenario(
    scenario: &Scenario,
    target: &Target,
    split: Split,
    channel: Channel,
) -> Result<RunOutcome> {
    let redactor = target.secrets.redactor();
    match run_unredacted(scenario, target, split, channel).await {
        Ok(mut run) => {
            crate::process::cpu_bound(|| run.redact(&redactor));
            Ok(run)
        }
        Err(e) => Err(redactor.error(e)),
    }
}

async fn run_unredacted(
    scenario: &Scenario,
    target: &Target,
    split: Split,
    channel: Channel,
) -> Result<RunOutcome> {
    let secrets = &target.secrets;
    let in_file = |what: &str| format!("{}: {what}", scenario.path.display());
    let dirs = Dirs::make(scenario)?;
    dirs.fill(scenario).await?;
    // The run's board of events: what every stub announces and what a scripted `after` waits on.
    let board =
        Served::at(dirs.base.join("cues.sock")).with_context(|| in_file("the board of events"))?;
    let servers: Vec<_> = scenario
        .mcp_servers
        .iter()
        .map(|s| crate::scenario::server_for(s, &target.name))
        .collect();
    let mcp = crate::mcp::setup(
        &servers,
        &dirs.base,
        &dirs.places,
        (&dirs.cwd, &dirs.home),
        &board,
    )
    .await
    .with_context(|| in_file("MCP servers"))?;
    let backends =
        backends::start(scenario, &target.name, &dirs, split, secrets, &board.cues).await?;

    let env = command::environment(scenario, channel, &dirs.places, &backends, secrets);
    if channel == Channel::Pty {
        // A returning user of this project: no onboarding, the key and the folder already trusted.
        crate::host::terminal::prepare_home(&dirs.home, &dirs.cwd, env.get("ANTHROPIC_API_KEY"))
            .with_context(|| in_file("terminal user state"))?;
    }
    if let Some(account) = &scenario.account {
        account
            .plant(&dirs.home, secrets)
            .with_context(|| in_file("account"))?;
    }

    let mut decisions = Decisions::new(scenario.decisions(), &target.name);
    let mut steps: Vec<StepRun> = Vec::new();
    let mut last: Option<(Vec<String>, Driven)> = None;
    let started = Instant::now();
    let one = [Step {
        name: String::new(),
        prompt: None,
        args: Vec::new(),
        kill: None,
    }];
    let declared = if scenario.steps.is_empty() {
        &one[..]
    } else {
        &scenario.steps[..]
    };
    for step in declared {
        // An earlier step's session id, as it printed it (`{session_id:NAME}`).
        let sessions = |text: &str| {
            crate::scenario::expand_session_ids(text, |name| {
                steps.iter().find(|s| s.name == name)?.session_id()
            })
        };
        let prompt = sessions(
            &dirs
                .places
                .expand(step.prompt.as_deref().unwrap_or(&scenario.prompt)),
        );
        let mut args = command::arguments(scenario, channel, &dirs.places, &prompt);
        args.extend(step.args.iter().map(|a| sessions(&dirs.places.expand(a))));
        let process =
            command::command(target, (scenario, channel), (&args, &env), &dirs, &backends)?;
        let kill = match &step.kill {
            Some(k) => Some(crate::host::Kill {
                step: step.name.clone(),
                signal: k.number().expect("validated at load"),
                // A file it waits on may be in the run's places (`{home}/.claude/…`).
                after: k
                    .after
                    .filled(|path| Ok(dirs.places.expand(path)))
                    .map_err(anyhow::Error::msg)?,
            }),
            None => None,
        };
        // The host's own requests may name the run's places (`{cwd}/file`).
        let requests: Vec<serde_json::Value> = scenario
            .control_requests
            .iter()
            .map(|r| dirs.places.expand_json(r))
            .collect();
        let driven = drive(
            channel,
            process,
            (scenario, &prompt, kill, &requests),
            &mut decisions,
            &backends,
            (&mcp, &board.cues),
        )
        .await
        .with_context(|| format!("cannot start {}", target.program.display()))?;
        let mut command_line = vec![match &scenario.argv0 {
            Some(argv0) => format!("{} (as {argv0})", target.program.display()),
            None => target.program.display().to_string(),
        }];
        command_line.extend(args);
        if !scenario.steps.is_empty() {
            steps.push(StepRun {
                name: step.name.clone(),
                command: command_line.clone(),
                exit_code: driven.exited.code,
                timed_out: driven.exited.timed_out,
                stdout: driven.stdout.clone(),
                stderr: driven.stderr.clone(),
                stdin: driven.stdin.clone(),
            });
        }
        let mut driven = driven;
        if let Some((_, earlier)) = last.take() {
            // What an earlier start flooded or left running stays a finding of the run.
            driven.flooded.splice(0..0, earlier.flooded);
            driven.mcp_survivors.splice(0..0, earlier.mcp_survivors);
        }
        last = Some((command_line, driven));
    }
    let duration = started.elapsed();
    let (command, driven) = last.expect("at least one step");
    let recorded = Recorded {
        command,
        env: command::shown(&env),
        decisions,
        driven,
        duration,
        steps,
    };
    Ok(outcome(
        scenario,
        target,
        (split, channel),
        recorded,
        dirs,
        backends,
        (&mcp, &board.cues),
    ))
}

/// The target driven through `channel` until it exits or its time is up.
async fn drive(
    channel: Channel,
    command: std::process::Command,
    (scenario, prompt, kill, requests): (
        &Scenario,
        &str,
        Option<crate::host::Kill>,
        &[serde_json::Value],
    ),
    decisions: &mut Decisions,
    backends: &Backends,
    (mcp, cues): (&McpSetup, &Cues),
) -> Result<Driven> {
    match channel {
        Channel::Print => {
            crate::host::print::drive(command, scenario.timeout(), mcp, cues, kill).await
        }
        // The SDK host script speaks to the harness as the target would.
        Channel::Control | Channel::Sdk => {
            let prompts: Vec<String> = std::iter::once(prompt.to_owned())
                .chain(scenario.then_type.iter().cloned())
                .collect();
            crate::host::control::drive(
                command,
                crate::host::control::Script {
                    prompts: &prompts,
                    sdk_hooks: &scenario.sdk_hooks,
                    sdk_mcp: &scenario.sdk_mcp_servers,
                    agents: scenario.sdk_agents.as_ref(),
                    json_schema: scenario.sdk_json_schema.as_ref(),
                    requests,
                },
                decisions,
                scenario.timeout(),
                (mcp, cues),
            )
            .await
        }
        Channel::Pty => {
            crate::host::terminal::drive(
                command,
                prompt,
                &scenario.then_type,
                decisions,
                &backends.stub,
                scenario.timeout(),
                mcp,
            )
            .await
        }
    }
}

/// What the harness itself recorded of the process: how it was started and what it did.
struct Recorded {
    command: Vec<String>,
    env: std::collections::BTreeMap<String, String>,
    decisions: Decisions,
    driven: Driven,
    duration: std::time::Duration,
    /// Each start, when the scenario has `[[step]]`s; `driven` is the last one's.
    steps: Vec<StepRun>,
}

/// The outcome: the process's record, then what every fake and mock saw.
fn outcome(
    scenario: &Scenario,
    target: &Target,
    (split, channel): (Split, Channel),
    recorded: Recorded,
    dirs: Dirs,
    backends: Backends,
    (mcp, cues): (&McpSetup, &Cues),
) -> RunOutcome {
    let Recorded {
        command,
        env,
        decisions,
        driven,
        duration,
        steps,
    } = recorded;
    let Driven {
        exited,
        stdout,
        stderr,
        stdin,
        screens,
        mcp_survivors,
        flooded,
    } = driven;
    let Backends {
        stub,
        claude_ai,
        project,
        sites,
        isolated: _,
    } = backends;
    let sessions = crate::sessions::read(&dirs.home);
    RunOutcome {
        target: target.name.clone(),
        split,
        command,
        env,
        channel,
        exit_code: exited.code,
        timed_out: exited.timed_out,
        peak_rss_kib: exited.peak_rss_kib,
        stdout,
        stderr,
        stdin,
        screens,
        decisions_verdict: decisions.verdict(),
        decision_differences: decisions.differences(),
        asked: decisions.asked,
        requests: stub.requests(),
        exhausted_at: stub.exhausted_at(),
        agents_exhausted: stub.agents_exhausted(),
        turns_left: stub.turns_left(),
        cues_missed: cues.missed(),
        duration,
        places: dirs.places,
        cwd: dirs.cwd,
        home: dirs.home,
        mcp: mcp.records(),
        mcp_survivors,
        flooded,
        uploads: claude_ai.uploads(),
        design: claude_ai.design_requests(),
        token_requests: claude_ai.token_requests(),
        project: claude_ai.project_requests(),
        artifact: claude_ai.artifact_requests(),
        directory: claude_ai.directory_requests(),
        project_seeded: project.as_ref().map(ProjectScript::seeded_state),
        project_state: claude_ai.project_state(),
        network: scenario.network,
        site: sites.requests(),
        hooks: crate::hooks::read(&dirs.base),
        step: steps.last().map(|s| s.name.clone()),
        steps,
        sessions,
        _root: std::sync::Arc::new(dirs.root),
    }
}
