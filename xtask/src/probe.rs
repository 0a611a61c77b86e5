//! `cargo xtask probe`: every scenario against every target, in parallel, a line per scenario as
//! it finishes, a summary, a JSON report, and where several targets run, how their traces differ.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::report::{Report, Status};
use probes::snapshot::{self, Verdict};
use probes::{CheckOutcome, Scenario, Target};

#[derive(Args)]
pub struct ProbeArgs {
    /// `reference` (default), `claude@VERSION` (installed with npm into a cache once),
    /// `claude@A..B` (every published version from A to B), `claude@A,B` or `claude:PATH`.
    #[arg(long = "target")]
    targets: Vec<String>,
    /// Only scenarios whose id contains this text (repeatable: any of them).
    #[arg(long)]
    filter: Vec<String>,
    /// Write the JSON report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Print the scenario ids and exit.
    #[arg(long)]
    list: bool,
    /// Write changed or new trace snapshots instead of `.snap.new` files.
    #[arg(long)]
    accept: bool,
    /// Scenarios run at once (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Scenario files from another directory (an experiment); their traces are not compared with
    /// snapshots.
    #[arg(long)]
    scenarios: Option<PathBuf>,
}

pub fn run(args: ProbeArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dir = args
        .scenarios
        .clone()
        .unwrap_or_else(|| root.join("scenarios"));
    let mut scenarios = probes::load_dir(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    if !args.filter.is_empty() {
        scenarios.retain(|s| args.filter.iter().any(|f| s.id.contains(f.as_str())));
    }
    if args.list {
        for s in &scenarios {
            println!("{:<32} {}", s.id, s.targets.join(","));
        }
        return Ok(true);
    }
    if scenarios.is_empty() {
        bail!("no scenario matches");
    }
    let specs = if args.targets.is_empty() {
        vec!["reference".to_owned()]
    } else {
        let mut published = None;
        let mut specs = Vec::new();
        for spec in &args.targets {
            specs.extend(probes::registry::expand(spec, || match &published {
                Some(v) => Ok(Vec::clone(v)),
                None => {
                    let v = probes::registry::published()?;
                    published = Some(v.clone());
                    Ok(v)
                }
            })?);
        }
        specs
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let started = Instant::now();
    let total = scenarios.len() * specs.len();
    eprintln!(
        "running {} scenarios on {} target{} ({total} runs, {jobs} at once)",
        scenarios.len(),
        specs.len(),
        if specs.len() == 1 { "" } else { "s" }
    );
    // Snapshots belong to the suite; an experiment from elsewhere is judged by its checks alone.
    let snapshots = args.scenarios.is_none().then(|| root.join("snapshots"));
    let suite = probes::parity::load_suite(&dir).map_err(anyhow::Error::msg)?;
    // One target at a time: a range installs each version just before it runs, so the cache's
    // budget can remove versions already done.
    let mut targets = Vec::new();
    let mut results = Vec::new();
    for spec in &specs {
        let target = resolve(spec, &root)?;
        let batch = run_target(
            &root,
            &runtime,
            &target,
            &scenarios,
            jobs,
            snapshots.as_deref(),
            args.accept,
            (results.len(), total),
        );
        results.extend(batch);
        targets.push(target);
    }
    results.sort_by(|a, b| (&a.0.id, &a.0.target).cmp(&(&b.0.id, &b.0.target)));
    let mut parity_ok = compare_with_reference(&mut results, &scenarios, &suite);

    let reports: Vec<&Report> = results.iter().map(|(r, _)| r).collect();
    print_summary(&reports, &targets, started.elapsed().as_secs_f64());
    let whole_suite = args.filter.is_empty() && args.scenarios.is_none();
    let others: Vec<&Target> = targets.iter().filter(|t| t.name != "reference").collect();
    let reference_ran = others.len() < targets.len();
    for target in others.iter().filter(|_| reference_ran) {
        let rows: Vec<(&str, Option<&probes::parity::Comparison>)> = results
            .iter()
            .filter(|(r, _)| r.target == target.name && r.status != Status::Skip)
            .map(|(r, _)| (r.id.as_str(), r.parity.as_ref()))
            .collect();
        parity_ok &= crate::parity::print(&target.name, &rows, &suite, whole_suite, false);
    }
    let changelogs = crate::changes::between_versions(&results, &others);
    if others.len() > 1 {
        crate::changes::print_history(&results, &others, &changelogs);
        // Over a range, the history lines carry the trace moves; a changelog in full only
        // where a check changed (the JSON report has every one).
        let range = others.len() > 2;
        for log in changelogs.iter().filter(|l| !range || !l.checks.is_empty()) {
            crate::changes::print(log);
        }
    }
    if let Some(path) = &args.report {
        let json = serde_json::json!({"runs": reports, "changelogs": changelogs});
        std::fs::write(path, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    Ok(parity_ok && reports.iter().all(|r| r.status != Status::Fail))
}

/// Runs every scenario on one target, comparing traces with its snapshots when it has a baseline.
#[allow(clippy::too_many_arguments)]
fn run_target(
    root: &Path,
    runtime: &tokio::runtime::Runtime,
    target: &Target,
    scenarios: &[Scenario],
    jobs: usize,
    snapshots: Option<&Path>,
    accept: bool,
    progress: (usize, usize),
) -> Vec<(Report, String)> {
    let baseline = snapshots.filter(|dir| has_baseline(dir, target, accept));
    if snapshots.is_some() && baseline.is_none() {
        eprintln!(
            "{}: no baseline snapshots, so traces are not compared with any \
             (`cargo xtask adopt {}` makes this run its baseline)",
            target.name, target.name
        );
    }
    runtime.block_on(run_all(
        root,
        scenarios.to_vec(),
        target.clone(),
        jobs,
        baseline.map(Path::to_owned),
        accept,
        progress,
    ))
}

/// Every scenario of `scenarios` on the target `spec`, for tasks built on a probe run (adopt).
pub fn run_one_target(
    root: &Path,
    spec: &str,
    scenarios: &[Scenario],
    jobs: Option<usize>,
    accept: bool,
) -> Result<Vec<(Report, String)>> {
    let target = resolve(spec, root)?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    eprintln!(
        "running {} scenarios on {} ({jobs} at once)",
        scenarios.len(),
        target.name
    );
    let snapshots = root.join("snapshots");
    Ok(run_target(
        root,
        &runtime,
        &target,
        scenarios,
        jobs,
        Some(&snapshots),
        accept,
        (0, scenarios.len()),
    ))
}

/// Whether `target`'s traces have snapshots to compare with. The reference and the contract
/// version always do; a version never adopted has none, and "no snapshot yet" on every scenario
/// would bury what actually changed (`--accept` writes them).
fn has_baseline(dir: &Path, target: &Target, accept: bool) -> bool {
    accept || target.name == "reference" || dir.join(target.dir_name()).is_dir()
}

/// Where the reference ran beside a real binary, compares each scenario's two traces and records
/// the outcome on the real binary's report; a line no named difference accepts, or a scenario's
/// named difference that is gone, fails that report. Returns whether every comparison held.
fn compare_with_reference(
    results: &mut [(Report, String)],
    scenarios: &[Scenario],
    suite: &[probes::parity::TraceDifference],
) -> bool {
    let mut ok = true;
    for scenario in scenarios {
        let ours = results
            .iter()
            .find(|(r, _)| {
                r.id == scenario.id && r.target == "reference" && r.status != Status::Skip
            })
            .map(|(_, trace)| trace.clone());
        let Some(ours) = ours else { continue };
        for (report, theirs) in results.iter_mut().filter(|(r, _)| {
            r.id == scenario.id && r.target != "reference" && r.status != Status::Skip
        }) {
            let c = probes::parity::compare(
                &scenario.id,
                &report.target,
                &ours,
                theirs,
                &scenario.trace_differences,
                suite,
            );
            if c.failed() {
                ok = false;
                let mut detail = c.summary();
                for line in &c.unexplained {
                    detail.push_str(&format!("\n{line}"));
                }
                for gone in &c.gone {
                    detail.push_str(&format!("\nnamed difference no longer observed: {gone}"));
                }
                report.push(CheckOutcome::new(
                    "trace matches the reference's",
                    false,
                    detail,
                ));
            }
            report.parity = Some(c);
        }
    }
    ok
}

/// Runs every scenario on `target`, `jobs` at a time; `progress` is (runs done before this
/// target, runs in the whole invocation) for the counter.
async fn run_all(
    root: &Path,
    scenarios: Vec<Scenario>,
    target: Target,
    jobs: usize,
    snapshots: Option<PathBuf>,
    accept: bool,
    progress: (usize, usize),
) -> Vec<(Report, String)> {
    let gate = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let records = root.join("target/probes");
    let mut set = tokio::task::JoinSet::new();
    let scenarios = Arc::new(scenarios);
    for i in 0..scenarios.len() {
        let (gate, scenarios, target, records, snapshots) = (
            gate.clone(),
            scenarios.clone(),
            target.clone(),
            records.clone(),
            snapshots.clone(),
        );
        set.spawn(async move {
            let _slot = gate.acquire().await.expect("the semaphore is never closed");
            let scenario = &scenarios[i];
            let mut probe = probes::probe(scenario, &target, Some(&records)).await;
            if let Some(dir) = snapshots.filter(|_| probe.report.status != Status::Skip) {
                let check = snapshot_check(&dir, &target, scenario, &probe.trace, accept);
                probe.report.push(check);
            }
            (probe.report, probe.trace)
        });
    }
    let mut done = Vec::new();
    while let Some(joined) = set.join_next().await {
        let (report, trace) = joined.expect("a probe task does not panic");
        print_line(&report, progress.0 + done.len() + 1, progress.1);
        done.push((report, trace));
    }
    done
}

fn snapshot_check(
    dir: &Path,
    target: &Target,
    scenario: &Scenario,
    trace: &str,
    accept: bool,
) -> CheckOutcome {
    let path = snapshot::path(dir, &target.dir_name(), &scenario.id);
    let (ok, detail) = match snapshot::compare(&path, &scenario.id, trace, accept) {
        Ok(Verdict::Same) => (true, String::new()),
        Ok(Verdict::New(p)) if accept => (true, format!("new snapshot written: {}", p.display())),
        Ok(Verdict::New(p)) => (
            false,
            format!(
                "no snapshot yet; review {} (cargo insta review, or --accept)",
                p.display()
            ),
        ),
        Ok(Verdict::Changed(_, p)) if accept => {
            (true, format!("snapshot updated: {}", p.display()))
        }
        Ok(Verdict::Changed(diff, p)) => (
            false,
            format!(
                "trace differs from {}:\n{diff}new trace: {}",
                path.display(),
                p.display()
            ),
        ),
        Err(e) => (
            false,
            format!("cannot compare with {}: {e}", path.display()),
        ),
    };
    CheckOutcome::new("trace matches snapshot", ok, detail)
}

fn print_line(report: &Report, n: usize, total: usize) {
    let status = match report.status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Skip => "SKIP",
    };
    let diffs = match report.expected_differences() {
        0 => String::new(),
        n => format!(
            "  ({n} expected difference{})",
            if n == 1 { "" } else { "s" }
        ),
    };
    println!(
        "[{n:>3}/{total}] {status} {:<34} {:<16} {:>6.1}s{diffs}",
        report.id,
        report.target,
        report.duration_ms as f64 / 1000.0
    );
    if report.status == Status::Fail {
        print!("{}", report.failure_text());
    }
}

fn print_summary(reports: &[&Report], targets: &[Target], secs: f64) {
    println!(
        "\n{:<18} {:>5} {:>5} {:>5} {:>10}",
        "target", "pass", "fail", "skip", "expected≠"
    );
    for target in targets {
        let mine: Vec<_> = reports.iter().filter(|r| r.target == target.name).collect();
        let count = |s: Status| mine.iter().filter(|r| r.status == s).count();
        let diffs: usize = mine.iter().map(|r| r.expected_differences()).sum();
        println!(
            "{:<18} {:>5} {:>5} {:>5} {:>10}",
            target.name,
            count(Status::Pass),
            count(Status::Fail),
            count(Status::Skip),
            diffs
        );
    }
    for r in reports.iter().filter(|r| r.expected_differences() > 0) {
        for c in r
            .checks
            .iter()
            .filter_map(|c| c.expected_difference.as_ref().map(|why| (&c.name, why)))
        {
            println!(
                "  expected difference: {} [{}] {}: {}",
                r.id, r.target, c.0, c.1
            );
        }
    }
    println!("finished in {secs:.1}s");
}

fn resolve(spec: &str, root: &Path) -> Result<Target> {
    if spec == "reference" {
        return Ok(Target::reference(build_reference(root)?));
    }
    Target::resolve_claude(spec, &probes::target::default_cache())
}

/// Builds `claude-reference` (debug profile, as the tests do) and returns its path.
fn build_reference(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "claude-reference",
            "--bin",
            "claude-reference",
        ])
        .current_dir(root)
        .status()
        .context("cannot run cargo build")?;
    if !status.success() {
        bail!("building claude-reference failed");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target_dir.join("debug/claude-reference"))
}
