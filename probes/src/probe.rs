//! The one entry point both `cargo xtask probe` and the test suite use: run a scenario on a
//! target (once per split), evaluate its checks, build the trace, write the probe record.

use std::fmt::Write as _;

use std::path::Path;

use stubs::messages::Split;

use crate::check::{evaluate, CheckOutcome};
use crate::outcome::RunOutcome;
use crate::report::Report;
use crate::run::run_scenario;
use crate::scenario::CheckSpec;
use crate::scenario::Scenario;
use crate::target::Target;
use crate::{mutate, record, trace};

pub struct Probe {
    pub report: Report,
    /// The normalized trace of the first (whole) run.
    pub trace: String,
}

/// Runs `scenario` against `target`, writing its record under `records` when given.
pub async fn probe(scenario: &Scenario, target: &Target, records: Option<&Path>) -> Probe {
    if !scenario.applies_to(target.kind) {
        let why = format!(
            "targets {:?} do not include `{}`",
            scenario.targets, target.kind
        );
        return Probe {
            report: Report::skipped(&scenario.id, &target.name, &why),
            trace: String::new(),
        };
    }
    if scenario.network == crate::scenario::Network::Isolated {
        // Skipped, never passed: the behaviour was not observed.
        if let Some(why) = crate::isolation::unavailable() {
            return Probe {
                report: Report::skipped(&scenario.id, &target.name, why),
                trace: String::new(),
            };
        }
    }
    if scenario
        .requires
        .contains(&crate::scenario::Requirement::Bubblewrap)
    {
        if let Some(why) = crate::bubblewrap::unavailable() {
            return Probe {
                report: Report::skipped(&scenario.id, &target.name, why),
                trace: String::new(),
            };
        }
    }
    let channels = scenario.channels();
    let many = channels.len() > 1;
    let mut checks = Vec::new();
    let mut traces = Vec::new();
    let mut duration_ms = 0;
    let mut views = None;
    let mut offered = crate::coverage::Params::new();
    for (c, &channel) in channels.iter().enumerate() {
        // The SSE splits exercise the client's decoder; once, on the first channel, is enough.
        let mut splits = if c == 0 {
            scenario.splits().expect("validated at load")
        } else {
            Vec::new()
        };
        if splits.is_empty() {
            splits.push(Split::Whole);
        }
        let label = |name: String| {
            if many {
                format!("[{channel}] {name}")
            } else {
                name
            }
        };
        let mut first_trace: Option<(Split, String)> = None;
        let first_channel = c == 0;
        // The splits are independent runs (own stubs, HOME, cwd): run together, a scenario that
        // waits out a timeout costs it once, not once per split. Compared in order afterwards.
        let runs = futures_util::future::join_all(
            splits
                .iter()
                .map(|&split| run_scenario(scenario, target, split, channel)),
        )
        .await;
        for (split, run) in splits.into_iter().zip(runs) {
            let run = match run {
                Ok(run) => run,
                Err(e) => {
                    checks.push(CheckOutcome::new(
                        label(format!("run ({split})")),
                        false,
                        format!("{e:#}"),
                    ));
                    continue;
                }
            };
            duration_ms += run.duration.as_millis() as u64;
            crate::coverage::add_offered(&run.requests, &mut offered);
            if first_channel && views.is_none() {
                views = Some(views_of(&run));
            }
            let trace = trace::normalize(&run, &scenario.prompt);
            let mut run_checks = builtin_checks(scenario, &run);
            if let Some((first_split, first)) = &first_trace {
                let same = *first == trace;
                run_checks.push(CheckOutcome::new(
                    format!("split {split} gives the same trace as {first_split}"),
                    same,
                    if same {
                        String::new()
                    } else {
                        crate::check::text_diff(first, &trace)
                    },
                ));
            } else {
                let specs: Vec<&CheckSpec> = scenario
                    .checks
                    .iter()
                    .map(|c| c.get_ref())
                    .filter(|c| c.applies_to(channel))
                    .collect();
                let outcomes: Vec<CheckOutcome> = specs
                    .iter()
                    .map(|c| evaluate(c, &target.name, &run))
                    .collect();
                let passed: Vec<&CheckSpec> = specs
                    .iter()
                    .zip(&outcomes)
                    .filter(|(_, o)| o.ok)
                    .map(|(s, _)| *s)
                    .collect();
                run_checks.extend(outcomes);
                if !passed.is_empty() {
                    let survey =
                        crate::process::cpu_bound(|| mutate::survey(&passed, &target.name, &run));
                    run_checks.push(mutation_check(&survey));
                }
                first_trace = Some((split, trace));
            }
            for check in &mut run_checks {
                check.name = label(std::mem::take(&mut check.name));
            }
            if let Some(dir) = records {
                let mut id = scenario.id.clone();
                if many {
                    id = format!("{id}[{channel}]");
                }
                if split != Split::Whole {
                    id = format!("{id}@{split}");
                }
                let _ = record::write(dir, &id.replace(':', "-"), &run, &run_checks);
            }
            checks.extend(run_checks);
        }
        if let Some((_, trace)) = first_trace {
            traces.push(if many {
                format!("channel {channel}:\n{trace}")
            } else {
                trace
            });
        }
    }
    let mut report = Report::from_checks(&scenario.id, &target.name, checks, duration_ms);
    let trace = traces.join("\n");
    report.trace = Some(trace.clone());
    report.offered = offered;
    if let Some((transcript, brief)) = views {
        report.transcript = Some(transcript);
        report.brief_view = brief;
    }
    Probe { report, trace }
}

/// The name of the builtin check that the scenario's checks can fail.
pub const MUTATION_CHECK: &str = "every passing check fails on some mutation of the run";

/// The survey as a check: it fails when a check passed whatever was changed, or failed without
/// saying why; when it passes, its detail still says how many mutations it took.
fn mutation_check(survey: &mutate::Survey) -> CheckOutcome {
    let mut detail = format!(
        "{} of {} passing checks failed on some of {} mutations",
        survey.killed.len(),
        survey.checked,
        survey.mutants
    );
    for name in &survey.survivors {
        write!(
            detail,
            "\nno mutation fails `{name}`: it would pass whatever the run showed"
        )
        .unwrap();
    }
    for name in &survey.mute {
        write!(detail, "\n`{name}` failed on a mutation without saying why").unwrap();
    }
    CheckOutcome::new(
        MUTATION_CHECK,
        survey.survivors.is_empty() && survey.mute.is_empty(),
        detail,
    )
}

/// The first run as a person reads it (with the run's temp paths and tokens replaced as in the
/// trace): its transcript, and its Brief main view when it delivered anything through Brief.
fn views_of(run: &RunOutcome) -> (String, Option<String>) {
    let stdout = trace::redact(run, &run.stdout);
    let brief = stdout
        .contains(r#""name":"SendUserMessage""#)
        .then(|| crate::render::brief_view(&stdout));
    (crate::render::transcript(&stdout), brief)
}

/// Checks every run gets: it finished in time, and the script was played exactly.
/// How much of each stdout/stderr line a timeout's detail shows.
const TAIL_LINE_CHARS: usize = 400;

fn builtin_checks(scenario: &Scenario, run: &RunOutcome) -> Vec<CheckOutcome> {
    let mut out = Vec::new();
    // The last lines, each cut to a screen's width: a target that printed one endless line must
    // not make the report as large as its output.
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(8)..]
            .iter()
            .map(|l| match l.char_indices().nth(TAIL_LINE_CHARS) {
                Some((cut, _)) => format!("{}… ({} bytes)", &l[..cut], l.len()),
                None => (*l).to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Any start of the run: an earlier step's timeout is the run's too.
    let timed_out = run
        .steps
        .iter()
        .find(|s| s.timed_out)
        .map(|s| {
            (
                format!("step `{}` ", s.name),
                s.stdout.as_str(),
                s.stderr.as_str(),
            )
        })
        .or_else(|| {
            run.timed_out
                .then(|| (String::new(), run.stdout.as_str(), run.stderr.as_str()))
        });
    out.push(CheckOutcome::new(
        "finished before the timeout",
        timed_out.is_none(),
        match timed_out {
            Some((which, stdout, stderr)) => format!(
                "{which}killed after {} ms with {} main-loop requests recorded\nstdout tail:\n{}\nstderr tail:\n{}",
                scenario.timeout().as_millis(),
                run.main_requests().len(),
                tail(stdout),
                tail(stderr)
            ),
            None => String::new(),
        },
    ));
    out.push(CheckOutcome::new(
        "output within the harness's bound",
        run.flooded.is_empty(),
        run.flooded.join("\n"),
    ));
    let scripted =
        scenario.turns.len() + scenario.agents.iter().map(|a| a.turns.len()).sum::<usize>();
    let mut detail = match (run.exhausted_at, run.turns_left) {
        (Some(n), _) => format!(
            "the script was exhausted at main-loop request {n} ({} turns scripted)",
            scenario.turns.len()
        ),
        (None, 0) => String::new(),
        (None, left) => format!("{left} of {scripted} scripted turns were never requested"),
    };
    for (agent, n) in &run.agents_exhausted {
        if !detail.is_empty() {
            detail.push('\n');
        }
        write!(
            detail,
            "the script of agent `{agent}` was exhausted at its request {n} ({} turns scripted)",
            scenario
                .agents
                .iter()
                .find(|a| a.label() == agent)
                .map_or(0, |a| a.turns.len())
        )
        .unwrap();
    }
    out.push(CheckOutcome::new(
        "script played exactly",
        detail.is_empty(),
        detail,
    ));
    if !run.cues_missed.is_empty() {
        // An answer held for an event that never came went out late and out of its order.
        out.push(CheckOutcome::new(
            "every awaited event happened",
            false,
            run.cues_missed.join("\n"),
        ));
    }
    if run.channel != crate::scenario::Channel::Print {
        // Whatever the target asked must be what the scenario's user expects, in order.
        let mut check = match &run.decisions_verdict {
            Ok(()) => CheckOutcome::new("decisions answered as scripted", true, ""),
            Err(detail) => CheckOutcome::new(
                "decisions answered as scripted",
                false,
                run.places.redact(detail),
            ),
        };
        if check.ok && !run.decision_differences.is_empty() {
            // Several decisions for one target usually share their reason: said once.
            let mut reasons: Vec<&str> = Vec::new();
            for r in &run.decision_differences {
                if !reasons.contains(&r.as_str()) {
                    reasons.push(r);
                }
            }
            check.expected_difference = Some(reasons.join("; "));
        }
        out.push(check);
    }
    let unwritten = crate::mcp::log_failures(&run.mcp);
    if !unwritten.is_empty() {
        // A server whose log is incomplete may have received what no check saw.
        out.push(CheckOutcome::new(
            "every fake server's log was written",
            false,
            unwritten.join("\n"),
        ));
    }
    if !run.mcp.is_empty() && !run.timed_out {
        // Servers whose survival a scenario states itself (with a per-target difference) are
        // judged by that check.
        let stated: Vec<&str> = scenario
            .checks
            .iter()
            .filter(|c| c.get_ref().survives.is_some())
            .filter_map(|c| c.get_ref().server.as_deref())
            .collect();
        let left: Vec<String> = run
            .mcp_survivors
            .iter()
            .filter(|(name, _)| !stated.contains(&name.as_str()))
            .map(|(name, pid)| format!("{name} (pid {pid})"))
            .collect();
        out.push(CheckOutcome::new(
            "no MCP server process outlived the target",
            left.is_empty(),
            format!("still running after the target exited: {}", left.join(", ")),
        ));
    }
    out
}
