//! One run of one scenario against one target: fixtures, stub, process, timeout, and everything
//! recorded. Nothing here interprets the target; checks and traces read the [`RunOutcome`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use stubs::claude_ai::{ClaudeAi, DesignScript, ProjectScript, Tokens};
use stubs::messages::{AgentScript, Block, FileWrite, MessagesStub, Split, StubConfig, Turn};

use crate::account::{Account, ORGANIZATION_UUID};
use crate::host::{Decisions, Driven};
use crate::isolation::IsolatedNetwork;
use crate::outcome::RunOutcome;
use crate::placeholders::Places;
use crate::scenario::{Channel, Fixture, FixtureKind, Network, Scenario};
use crate::secrets::Redact;
use crate::target::Target;

/// Environment variables that may carry secrets; their values never reach a record.
const SECRET_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
];

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
    let root = crate::process::interrupt::Root::new(
        tempfile::Builder::new().prefix("conformance-").tempdir()?,
    );
    let base = root.path().canonicalize()?;
    let home = base.join("home");
    let cwd = base.join("work");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&cwd)?;
    let places = Places {
        cwd: cwd.display().to_string(),
        home: home.display().to_string(),
        mcp_config: base.join("mcp-config.json").display().to_string(),
        fake_lsp: if scenario.source.contains("{fake_lsp}") {
            crate::mcp::fake_lsp_binary()?.display().to_string()
        } else {
            String::new()
        },
    };
    for fixture in &scenario.files {
        write_fixture(fixture, &places, &cwd, &home)
            .with_context(|| format!("{}: fixture `{}`", scenario.path.display(), fixture.path))?;
    }
    if scenario.git_init {
        crate::git::init_repo(&cwd, &home)
            .await
            .with_context(|| format!("{}: git_init", scenario.path.display()))?;
    }
    let mcp = crate::mcp::setup(&scenario.mcp_servers, &base, &places, &cwd, &home)
        .await
        .with_context(|| format!("{}: MCP servers", scenario.path.display()))?;

    let turns = scenario
        .turns
        .iter()
        .map(|t| expand_turn(t, &places, &cwd))
        .collect();
    let mut claude_ai = ClaudeAi::with_oauth(
        scenario.uploads.clone(),
        scenario.account.as_ref().map(|a| a.oauth_script(secrets)),
    );
    if let Some(design) = &scenario.design {
        let design: DesignScript = places.expand_script(design)?;
        claude_ai = claude_ai.with_design(design.with_account_token(secrets.access_token.clone()));
    }
    let project = match &scenario.project {
        Some(project) => {
            // The organization and tokens are the harness's, never the scenario's.
            let mut project: ProjectScript = places.expand_script(project)?;
            project.organization = Some(ORGANIZATION_UUID.into());
            project.tokens = Tokens {
                account: Some(secrets.access_token.clone()),
                session: Some(secrets.session_token.clone()),
            };
            claude_ai = claude_ai.with_project(project.clone());
            Some(project)
        }
        None => None,
    };
    if let Some(artifacts) = &scenario.artifacts {
        let artifacts: stubs::claude_ai::ArtifactsScript = places.expand_script(artifacts)?;
        claude_ai = claude_ai.with_artifacts(artifacts, Some(secrets.access_token.clone()));
    }
    let config = StubConfig {
        main_model: scenario.model().to_owned(),
        turns,
        agents: scenario
            .agents
            .iter()
            .map(|a| AgentScript {
                name: a.name.clone(),
                matches: places.expand(&a.matches),
                turns: a
                    .turns
                    .iter()
                    .map(|t| expand_turn(t, &places, &cwd))
                    .collect(),
            })
            .collect(),
        split,
    };
    // Isolated: the first-party hosts are the mock on TLS 443, the Messages stub listens inside
    // the same namespace, and the target starts there.
    let sites = stubs::site::Sites::new(
        scenario
            .sites
            .iter()
            .map(|s| places.expand_script(s))
            .collect::<serde_json::Result<Vec<_>>>()?,
    );
    let mut isolated = match scenario.network {
        Network::Isolated => Some(
            IsolatedNetwork::with_names(
                &base,
                &sites.hosts(),
                &scenario
                    .artifacts
                    .as_ref()
                    .map(|a| a.frame_hosts())
                    .unwrap_or_default(),
            )
            .with_context(|| format!("{}: isolated network", scenario.path.display()))?,
        ),
        Network::Loopback => None,
    };
    let stub = match &mut isolated {
        Some(net) => {
            let stub = MessagesStub::start_on(net.listener()?, config, claude_ai.router())?;
            // A first-party session: the Messages API too is api.anthropic.com.
            net.serve_first_party(
                first_party_routes(scenario, stub.app()).merge(sites.preflight_router()),
            )?;
            if !sites.is_empty() {
                net.serve_sites(&sites)
                    .with_context(|| format!("{}: [[site]] hosts", scenario.path.display()))?;
            }
            stub
        }
        None => MessagesStub::start_with(config, claude_ai.router()).await?,
    };

    let prompt = places.expand(&scenario.prompt);
    let mut args = match (&scenario.argv, channel) {
        (Some(argv), _) => argv.iter().map(|a| places.expand(a)).collect(),
        (None, Channel::Print) => vec![
            "-p".into(),
            prompt.clone(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ],
        // An SDK host: the prompt arrives on stdin, permission questions come back as control
        // requests (`--permission-prompt-tool stdio`).
        (None, Channel::Control) => [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-prompt-tool",
            "stdio",
        ]
        .map(String::from)
        .to_vec(),
        // A person at a terminal types the prompt.
        (None, Channel::Pty) => Vec::new(),
    };
    if scenario.argv.is_none() {
        args.extend(["--model".to_owned(), scenario.model().to_owned()]);
    }
    args.extend(scenario.args.iter().map(|a| places.expand(a)));

    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert(
        "PATH".into(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
    );
    env.insert("HOME".into(), places.home.clone());
    env.insert("LANG".into(), "C.UTF-8".into());
    env.insert("SHELL".into(), "/bin/bash".into());
    env.insert(
        "TERM".into(),
        if channel == Channel::Pty {
            "xterm-256color"
        } else {
            "dumb"
        }
        .into(),
    );
    if isolated.is_none() {
        env.insert("ANTHROPIC_BASE_URL".into(), stub.base_url());
    }
    if scenario.oauth {
        // real-binary.md: with an API key set there is no OAuth token, and the nonessential
        // traffic switch also turns every claude.ai path off.
        env.insert(
            "CLAUDE_CODE_OAUTH_TOKEN".into(),
            secrets.oauth_token.clone(),
        );
        for key in ["DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING"] {
            env.insert(key.into(), "1".into());
        }
    } else {
        env.insert("ANTHROPIC_API_KEY".into(), secrets.api_key.clone());
        env.insert(
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        );
    }
    if let Some(account) = &scenario.account {
        for (k, v) in account.env() {
            env.insert(k.into(), v.into());
        }
        env.remove("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC");
    }
    if let Some(project) = &project {
        if project.attached {
            env.insert("CLAUDE_PROJECT_UUID".into(), project.uuid.clone());
        }
        if project.session_token {
            env.insert(
                "CLAUDE_CODE_SESSION_ACCESS_TOKEN".into(),
                secrets.session_token.clone(),
            );
        }
    }
    if let Some(net) = &isolated {
        env.insert("NODE_EXTRA_CA_CERTS".into(), net.ca().display().to_string());
    }
    env.insert("DISABLE_AUTOUPDATER".into(), "1".into());
    // As root the real binary refuses the permission-bypass flags without it.
    env.insert("IS_SANDBOX".into(), "1".into());
    for (k, v) in &scenario.env {
        // `{base_url}`: the stubs' address, for settings that name it under another variable.
        env.insert(
            k.clone(),
            places.expand(v).replace("{base_url}", &stub.base_url()),
        );
    }
    // An empty value in a scenario unsets a default (e.g. no API key for an OAuth run).
    env.retain(|_, v| !v.is_empty());
    if project.as_ref().is_some_and(|p| p.empty_uuid) {
        env.insert("CLAUDE_PROJECT_UUID".into(), String::new());
    }
    if channel == Channel::Pty {
        // A returning user of this project: no onboarding, the key and the folder already trusted.
        crate::host::terminal::prepare_home(&home, &cwd, env.get("ANTHROPIC_API_KEY"))
            .with_context(|| format!("{}: terminal user state", scenario.path.display()))?;
    }

    if let Some(account) = &scenario.account {
        account
            .plant(&home, secrets)
            .with_context(|| format!("{}: account", scenario.path.display()))?;
    }

    let mut command = std::process::Command::new(&target.program);
    if let Some(net) = &isolated {
        net.enter(&mut command)?;
    }
    if let Some(argv0) = &scenario.argv0 {
        // The same program under another name (`rg`: the embedded ripgrep).
        std::os::unix::process::CommandExt::arg0(&mut command, argv0);
    }
    command.args(&args).env_clear().envs(&env).current_dir(&cwd);
    let started = Instant::now();
    let mut decisions = Decisions::new(scenario.decisions(), &target.name);
    let driven = match channel {
        Channel::Print => crate::host::print::drive(command, scenario.timeout(), &mcp).await,
        Channel::Control => {
            crate::host::control::drive(command, &prompt, &mut decisions, scenario.timeout(), &mcp)
                .await
        }
        Channel::Pty => {
            crate::host::terminal::drive(
                command,
                &prompt,
                &scenario.then_type,
                &mut decisions,
                &stub,
                scenario.timeout(),
                &mcp,
            )
            .await
        }
    }
    .with_context(|| format!("cannot start {}", target.program.display()))?;
    let Driven {
        exited,
        stdout,
        stderr,
        stdin,
        screens,
        mcp_survivors,
        flooded,
    } = driven;
    let duration = started.elapsed();

    let mut shown_env = env.clone();
    for key in SECRET_ENV {
        if let Some(v) = shown_env.get_mut(*key) {
            *v = "[redacted]".into();
        }
    }
    let mut command_line = vec![match &scenario.argv0 {
        Some(argv0) => format!("{} (as {argv0})", target.program.display()),
        None => target.program.display().to_string(),
    }];
    command_line.extend(args);
    Ok(RunOutcome {
        target: target.name.clone(),
        split,
        command: command_line,
        env: shown_env,
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
        duration,
        places,
        cwd,
        home,
        mcp: mcp.records(),
        mcp_survivors,
        flooded,
        uploads: claude_ai.uploads(),
        design: claude_ai.design_requests(),
        token_requests: claude_ai.token_requests(),
        project: claude_ai.project_requests(),
        artifact: claude_ai.artifact_requests(),
        project_seeded: project.as_ref().map(ProjectScript::seeded_state),
        project_state: claude_ai.project_state(),
        network: scenario.network,
        site: sites.requests(),
        _root: std::sync::Arc::new(root),
    })
}

/// What the first-party hosts serve in an isolated run: the Messages stub with the mock claude.ai
/// merged in, and the account's organization policy (fetched by 2.1.235 at start when the API is
/// first-party).
fn first_party_routes(scenario: &Scenario, messages: axum::Router) -> axum::Router {
    let policy = scenario
        .account
        .as_ref()
        .map(Account::policy_limits)
        .unwrap_or_default();
    axum::Router::new()
        .route(
            "/api/claude_code/policy_limits",
            axum::routing::get(move || async move { axum::Json(policy) }),
        )
        .merge(messages)
}

fn resolve(path: &str, places: &Places, cwd: &Path, home: &Path) -> PathBuf {
    let path = places.expand(path);
    match path.strip_prefix("~/") {
        Some(rel) => home.join(rel),
        None => cwd.join(path),
    }
}

fn write_fixture(fixture: &Fixture, places: &Places, cwd: &Path, home: &Path) -> Result<()> {
    let path = resolve(&fixture.path, places, cwd, home);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match fixture.kind {
        FixtureKind::File => match fixture.size {
            // Sparse: a 25 MiB fixture costs nothing to make.
            Some(size) => std::fs::File::create(&path)?.set_len(size)?,
            None => match &fixture.image {
                Some(picture) => {
                    std::fs::write(&path, picture.encode(&path).map_err(anyhow::Error::msg)?)?
                }
                None => {
                    std::fs::write(&path, stubs::mcp::expand(&places.expand(&fixture.content)))?
                }
            },
        },
        FixtureKind::Dir => std::fs::create_dir_all(&path)?,
        FixtureKind::Fifo => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())?;
            // SAFETY: a valid NUL-terminated path; mkfifo only reads it.
            if unsafe { libc::mkfifo(c.as_ptr(), 0o644) } != 0 {
                return Err(std::io::Error::last_os_error().into());
            }
        }
        FixtureKind::Symlink => {
            let target = places.expand(fixture.target.as_deref().unwrap_or_default());
            std::os::unix::fs::symlink(target, &path)?;
        }
    }
    if let Some(age) = fixture.age_s {
        let now = std::time::SystemTime::now();
        let when = match u64::try_from(age) {
            Ok(past) => now - Duration::from_secs(past),
            Err(_) => now + Duration::from_secs(age.unsigned_abs()),
        };
        // A directory opens only for reading; its owner may still set its times.
        let dir = matches!(fixture.kind, FixtureKind::Dir);
        std::fs::File::options()
            .read(dir)
            .write(!dir)
            .open(&path)?
            .set_modified(when)?;
    }
    if let Some(mode) = fixture.mode {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn expand_turn(turn: &Turn, places: &Places, cwd: &Path) -> Turn {
    let home = Path::new(&places.home);
    Turn {
        text: turn.text.as_deref().map(|t| places.expand(t)),
        blocks: turn
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => Block::Text {
                    text: places.expand(text),
                },
                Block::ToolUse { id, name, input } => Block::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: places.expand_json(input),
                },
                other => other.clone(),
            })
            .collect(),
        touch: turn
            .touch
            .iter()
            .map(|w| FileWrite {
                path: resolve(&w.path, places, cwd, home).display().to_string(),
                content: places.expand(&w.content),
            })
            .collect(),
        ..turn.clone()
    }
}
