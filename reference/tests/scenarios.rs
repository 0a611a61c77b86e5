//! The scenario suite: every scenario × target is one test, named `TARGET/ID`, through the same
//! `probes::probe` as `cargo xtask probe`. It must pass all its checks (a target's named
//! differences hold as expected differences), and its trace must match
//! `snapshots/<target>/<id>.snap` where the target has snapshots.
//!
//! The targets are the reference (by default) or those `$CLAUDE_CONFORMANCE_TARGETS` names,
//! separated by spaces (`reference claude@2.1.235`, ranges as in `cargo xtask probe`). Each test
//! is its own process under nextest, so a suite spreads over machines with
//! `cargo nextest run --partition hash:K/N` or a nextest archive; with
//! `$CLAUDE_CONFORMANCE_RESULTS` set, each test writes its run there and `cargo xtask merge`
//! makes one report of the shards (traces compared across targets happen there).
//!
//! On the reference, every scripted session is also served a byte at a time and at random cut
//! points, and must give the same trace (`core.sse-split`, applied to the whole suite).

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use probes::report::Status;
use probes::{Scenario, Target};

fn main() {
    // One test per CPU at once (libtest's default), not `cargo xtask probe`'s two: on the
    // reference each test is three runs at once (whole and two splits), and at twice the CPUs
    // the pty driver's typing raced a loaded target (seen: tools.ask-user/other).
    let args = Arguments::from_args();
    let root = workspace_root();
    let dir = root.join("scenarios");
    let mut trials = vec![Trial::test("suite/trace-differences", {
        let dir = dir.clone();
        move || {
            probes::scenario::load_suite(&dir)?;
            Ok(())
        }
    })];
    match (probes::load_dir(&dir), targets()) {
        (Ok(scenarios), Ok(targets)) => {
            // Longest first, as libtest starts them in this order (nextest keeps its own).
            let records = root.join("target/probes");
            for target in targets {
                let order = probes::schedule::longest_first(&scenarios, Some(&records), &target);
                for i in order {
                    let scenario = scenarios[i].clone();
                    if !scenario.applies_to(probes::version::family(&target)) {
                        continue;
                    }
                    let target = target.clone();
                    let name = format!("{target}/{}", scenario.id);
                    trials.push(Trial::test(name, move || run(&scenario, &target)));
                }
            }
        }
        (Err(e), _) => trials.push(Trial::test("suite/load", move || Err(e.to_string().into()))),
        (_, Err(e)) => trials.push(Trial::test("suite/targets", move || {
            Err(format!("{e:#}").into())
        })),
    }
    let whole = args.filter.is_none() && args.skip.is_empty() && !args.list;
    let conclusion = libtest_mimic::run(&args, trials);
    if whole && !parameters_covered(&dir) {
        std::process::exit(101);
    }
    conclusion.exit();
}

/// What each run offered, for the parameter coverage checked once the whole suite ran.
static OFFERED: std::sync::Mutex<Vec<(String, String, probes::coverage::Params)>> =
    std::sync::Mutex::new(Vec::new());

/// `core.parameter-coverage`: every input parameter of a built-in tool the reference offered
/// is scripted by some scenario (on any target) or listed in `scenarios/coverage.toml` with a
/// reason. Checked after the whole suite, since one test sees one scenario's offer.
fn parameters_covered(dir: &Path) -> bool {
    let runs = OFFERED.lock().unwrap_or_else(|e| e.into_inner());
    if !runs.iter().any(|(_, target, _)| target == "reference") {
        return true;
    }
    let outcome = probes::load_dir(dir)
        .map_err(|e| e.to_string())
        .and_then(|scenarios| Ok((scenarios, probes::coverage::load_listed(dir)?)));
    let (scenarios, listed) = match outcome {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("suite/parameter-coverage: {e}");
            return false;
        }
    };
    let samples: Vec<probes::coverage::Sample> = runs
        .iter()
        .map(|(id, target, offered)| probes::coverage::Sample {
            id,
            target,
            offered,
        })
        .collect();
    let coverage = probes::coverage::Coverage::of(&samples, &scenarios, &listed);
    let problems = coverage.suite_problems(&listed);
    if problems.is_empty() {
        println!("suite/parameter-coverage ... ok");
        return true;
    }
    for problem in problems {
        eprintln!("suite/parameter-coverage FAILED: {problem}");
    }
    false
}

/// `$CLAUDE_CONFORMANCE_TARGETS`, ranges expanded; the reference when unset.
fn targets() -> anyhow::Result<Vec<String>> {
    let Ok(list) = std::env::var("CLAUDE_CONFORMANCE_TARGETS") else {
        return Ok(vec!["reference".to_owned()]);
    };
    let mut out = Vec::new();
    for spec in list.split_whitespace() {
        out.extend(probes::registry::expand(spec, probes::registry::published)?);
    }
    Ok(out)
}

fn run(scenario: &Scenario, spec: &str) -> Result<(), Failed> {
    let root = workspace_root();
    let mut scenario = scenario.clone();
    let target = if spec == "reference" {
        // Every scripted session is served whole first (its checks and snapshot use that run),
        // then split: the probe fails if a split changes a byte of the trace.
        scenario = scenario.with_suite_splits();
        Target::reference(reference_binary())
    } else {
        Target::resolve_claude(spec, &probes::target::default_cache())
            .map_err(|e| format!("{e:#}"))?
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut probe = runtime.block_on(probes::probe(&scenario, &target, None));
    let snapshots = root.join("snapshots");
    OFFERED.lock().unwrap_or_else(|e| e.into_inner()).push((
        scenario.id.clone(),
        target.name.clone(),
        probe.report.offered.clone(),
    ));
    if probe.report.status == Status::Skip {
        // Only an isolated run skips on an applicable target: reported, never a snapshot.
        let why = probe
            .report
            .checks
            .first()
            .map_or("", |c| c.detail.as_str());
        eprintln!("{}: skipped: {why}", scenario.id);
    } else if probes::snapshot::has_baseline(&snapshots, &target, accept()) {
        let check =
            probes::snapshot::check(&snapshots, &target, &scenario.id, &probe.trace, accept());
        probe.report.push(check);
    }
    if let Some(dir) = std::env::var_os("CLAUDE_CONFORMANCE_RESULTS") {
        // Relative to the workspace root, where the suite is started from (tests themselves
        // run in the crate's folder).
        write_result(&root.join(dir), &target, &probe.report)?;
    }
    if probe.report.status == Status::Fail {
        return Err(format!(
            "{} failed on {}:\n{}",
            scenario.id,
            target.name,
            probe.report.failure_text()
        )
        .into());
    }
    Ok(())
}

/// Snapshots are written instead of `.snap.new` files as insta does it: `INSTA_UPDATE=always`.
fn accept() -> bool {
    std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always")
}

fn write_result(dir: &Path, target: &Target, report: &probes::Report) -> Result<(), Failed> {
    let path = dir
        .join(target.dir_name())
        .join(format!("{}.json", report.id.replace('/', "__")));
    std::fs::create_dir_all(path.parent().expect("has a parent"))?;
    std::fs::write(&path, serde_json::to_vec_pretty(report)?)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// Under nextest the paths come from its environment (an archive run elsewhere remaps them);
/// under cargo test they are where this binary was built.
fn reference_binary() -> PathBuf {
    std::env::var_os("NEXTEST_BIN_EXE_claude-reference")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_claude-reference")))
}

fn workspace_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .parent()
        .expect("the reference crate sits in the workspace root")
        .to_owned()
}
