//! `cargo xtask probe`: every scenario against every target, in parallel and longest first, a
//! line per scenario as it finishes, a summary, where several targets run how their traces
//! differ, and the reports asked for (JSON, JUnit, HTML).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::report::{Doc, Report, Status};
use probes::snapshot;
use probes::{Scenario, Target};

use crate::outputs::Outputs;
use crate::progress::Progress;

#[derive(Args)]
pub struct ProbeArgs {
    /// `reference` (default), `claude@VERSION` (installed with npm into a cache once),
    /// `claude@A..B` (every published version from A to B), `claude@A,B` or `claude:PATH`.
    #[arg(long = "target")]
    targets: Vec<String>,
    /// Only scenarios whose id contains this text (repeatable: any of them).
    #[arg(long)]
    filter: Vec<String>,
    #[command(flatten)]
    outputs: Outputs,
    /// Print the scenario ids and exit.
    #[arg(long)]
    list: bool,
    /// Write changed or new trace snapshots instead of `.snap.new` files.
    #[arg(long)]
    accept: bool,
    /// Scenarios run at once (default: twice the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run everything N times and report each scenario whose status or trace was not the same
    /// every time, with what moved: a flake seen before CI sees it. On the reference each
    /// scripted session is also split as the test suite splits it (every byte, random cuts).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Run N times the CPUs' worth of scenarios at once (instead of `--jobs`): the suite under
    /// load, where a race that a quiet machine always wins shows.
    #[arg(long, conflicts_with = "jobs", value_parser = clap::value_parser!(u32).range(1..))]
    load: Option<u32>,
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
    if args.accept && args.repeat > 1 {
        bail!("--accept takes one run's traces: drop --repeat");
    }
    let specs = expand_targets(&args.targets, &root.join("snapshots"))?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = match args.load {
        Some(n) => n as usize * cpus,
        None => args.jobs.unwrap_or_else(probes::schedule::default_jobs),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    end_cleanly_on_signals(&runtime)?;
    let started = Instant::now();
    // A scenario that does not name a target's kind is no run of it (not even a skip).
    // A repeat looks for what CI would see: on the reference, the splits the test suite adds.
    let suite_splits = args.repeat > 1;
    let applicable = |spec: &str| -> Vec<Scenario> {
        scenarios
            .iter()
            .filter(|s| s.applies_to(probes::version::family(spec)))
            .cloned()
            .map(|s| {
                if suite_splits && spec == "reference" {
                    s.with_suite_splits()
                } else {
                    s
                }
            })
            .collect()
    };
    let once: usize = specs.iter().map(|spec| applicable(spec).len()).sum();
    let repeats = args.repeat as usize;
    let total = once * repeats;
    eprintln!(
        "{} scenarios on {} target{} ({total} runs{}, {jobs} at once on {cpus} CPUs, longest first)",
        scenarios.len(),
        specs.len(),
        if specs.len() == 1 { "" } else { "s" },
        if repeats > 1 {
            format!(": everything {repeats} times")
        } else {
            String::new()
        }
    );
    // Snapshots belong to the suite; an experiment from elsewhere is judged by its checks alone.
    let snapshots = args.scenarios.is_none().then(|| root.join("snapshots"));
    let suite = probes::scenario::load_suite(&dir).map_err(anyhow::Error::msg)?;
    // One target at a time: a range installs each version just before it runs, so the cache's
    // budget can remove versions already done. A repeat runs them all again.
    let mut done = 0;
    let mut all: Vec<Vec<Report>> = Vec::new();
    // Built once: a repeat runs the same binary again (a real binary is resolved per repeat, as
    // a range may have let the cache remove it).
    let mut reference: Option<Target> = None;
    for repeat in 1..=repeats {
        // Each repeat keeps its own records, so an unsteady run can be read in each form.
        let records = match repeat {
            1 => root.join("target/probes"),
            n => root.join(format!("target/probes/repeat-{n}")),
        };
        let mut results = Vec::new();
        for spec in &specs {
            let target = match (spec.as_str(), &reference) {
                ("reference", Some(built)) => built.clone(),
                _ => resolve(spec, &root)?,
            };
            if spec == "reference" {
                reference = Some(target.clone());
            }
            let batch = run_target(
                &records,
                &runtime,
                &target,
                &applicable(spec),
                jobs,
                snapshots.as_deref(),
                args.accept,
                (done, total),
            );
            done += batch.len();
            results.extend(batch);
        }
        all.push(results);
    }
    let unsteady = probes::report::repeats::unsteady(&all);
    // The report is the first repeat's; what moved between repeats is beside it.
    let first = all.swap_remove(0);
    let (mut doc, mut parity_ok) = Doc::assemble(first, &scenarios, &suite);
    let listed = probes::coverage::load_listed(&dir).map_err(anyhow::Error::msg)?;
    doc.cover(&scenarios, &listed);
    let whole_suite = args.filter.is_empty() && args.scenarios.is_none();
    parity_ok &= print_outcome(&doc, &suite, whole_suite);
    if whole_suite {
        // A part of the suite leaves parameters unexercised that the rest exercises.
        crate::coverage::print_summary(&doc.coverage, &listed);
    }
    if repeats > 1 {
        print_unsteady(&unsteady, repeats);
    }
    doc.unsteady = unsteady;
    println!("finished in {:.1}s", started.elapsed().as_secs_f64());
    args.outputs.write(&doc)?;
    Ok(parity_ok && doc.unsteady.is_empty() && doc.runs.iter().all(|r| r.status != Status::Fail))
}

/// The runs that did not do the same thing every time, each with what moved.
fn print_unsteady(unsteady: &[probes::report::repeats::Unsteady], repeats: usize) {
    if unsteady.is_empty() {
        println!(
            "
every run did the same {repeats} times: same status, same trace"
        );
        return;
    }
    println!(
        "
{} run{} did not do the same {repeats} times:",
        unsteady.len(),
        if unsteady.len() == 1 { "" } else { "s" }
    );
    for u in unsteady {
        print!("{}", u.text());
    }
    println!("each repeat's records: target/probes/<target>/<id>.json (1), target/probes/repeat-N/… (N ≥ 2)");
}

/// The targets named on the command line, ranges and lists expanded (`reference` by default).
fn expand_targets(targets: &[String], snapshots: &Path) -> Result<Vec<String>> {
    if targets.is_empty() {
        return Ok(vec!["reference".to_owned()]);
    }
    let mut published = None;
    let mut specs = Vec::new();
    for spec in targets {
        // `claude@latest`: what changed since the newest adopted baseline, nothing to configure.
        let tag = spec
            .strip_prefix("claude@")
            .filter(|t| !t.contains("..") && !t.contains(',') && !probes::registry::is_version(t));
        if let Some(tag) = tag {
            let tagged = probes::registry::tagged(tag)?;
            specs.extend(probes::registry::expand_tag(
                tag,
                &tagged,
                &adopted(snapshots),
            ));
            continue;
        }
        specs.extend(probes::registry::expand(spec, || match &published {
            Some(v) => Ok(Vec::clone(v)),
            None => {
                eprintln!("asking the npm registry which versions are published");
                let v = probes::registry::published()?;
                published = Some(v.clone());
                Ok(v)
            }
        })?);
    }
    Ok(specs)
}

/// The versions with baseline snapshots (`snapshots/claude@VERSION`).
fn adopted(snapshots: &Path) -> Vec<semver::Version> {
    std::fs::read_dir(snapshots)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            semver::Version::parse(name.strip_prefix("claude@")?).ok()
        })
        .collect()
}

/// The summary, each real binary's parity with the reference, and what changed between
/// versions; returns whether parity held (a merge prints the same).
pub fn print_outcome(
    doc: &Doc,
    suite: &[probes::scenario::TraceDifference],
    whole_suite: bool,
) -> bool {
    print_summary(doc);
    let targets = doc.targets();
    let others: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|t| *t != "reference")
        .collect();
    let reference_ran = others.len() < targets.len();
    let mut parity_ok = true;
    for target in others.iter().filter(|_| reference_ran) {
        let rows: Vec<(&str, Option<&probes::parity::Comparison>)> = doc
            .runs
            .iter()
            .filter(|r| r.target == *target && r.status != Status::Skip)
            .map(|r| (r.id.as_str(), r.parity.as_ref()))
            .collect();
        parity_ok &= crate::parity::print(target, &rows, suite, whole_suite, false);
    }
    if others.len() > 1 {
        crate::changes::print_history(&doc.runs, &others, &doc.changelogs);
        // Over a range, the history lines carry the trace moves; a changelog in full only
        // where a check changed (the JSON report has every one).
        let range = others.len() > 2;
        for log in doc
            .changelogs
            .iter()
            .filter(|l| !range || !l.checks.is_empty())
        {
            crate::changes::print(log);
        }
    }
    parity_ok
}

/// On Ctrl-C or SIGTERM: ends every target still running and removes every run's directory, then
/// exits as the signal would have (130, 143). Targets run in process groups of their own, which a
/// terminal's Ctrl-C does not reach, and `exit` runs no destructor.
fn end_cleanly_on_signals(runtime: &tokio::runtime::Runtime) -> Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let _entered = runtime.enter();
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    runtime.spawn(async move {
        let (name, code) = tokio::select! {
            _ = interrupt.recv() => ("SIGINT", 130),
            _ = terminate.recv() => ("SIGTERM", 143),
        };
        let aborted = probes::process::interrupt::abort_all();
        eprintln!(
            "\n{name}: ended {} running target{} and removed {} run director{}",
            aborted.groups,
            if aborted.groups == 1 { "" } else { "s" },
            aborted.roots,
            if aborted.roots == 1 { "y" } else { "ies" },
        );
        std::process::exit(code);
    });
    Ok(())
}

/// Runs every scenario on one target, comparing traces with its snapshots when it has a baseline.
#[allow(clippy::too_many_arguments)]
fn run_target(
    records: &Path,
    runtime: &tokio::runtime::Runtime,
    target: &Target,
    scenarios: &[Scenario],
    jobs: usize,
    snapshots: Option<&Path>,
    accept: bool,
    progress: (usize, usize),
) -> Vec<Report> {
    let baseline = snapshots.filter(|dir| snapshot::has_baseline(dir, target, accept));
    if snapshots.is_some() && baseline.is_none() {
        eprintln!(
            "{}: no baseline snapshots, so traces are not compared with any \
             (`cargo xtask adopt {}` makes this run its baseline)",
            target.name, target.name
        );
    }
    runtime.block_on(run_all(
        records,
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
) -> Result<Vec<Report>> {
    let target = resolve(spec, root)?;
    let scenarios: Vec<Scenario> = scenarios
        .iter()
        .filter(|s| s.applies_to(target.kind))
        .cloned()
        .collect();
    let scenarios = &scenarios[..];
    let jobs = jobs.unwrap_or_else(probes::schedule::default_jobs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    end_cleanly_on_signals(&runtime)?;
    eprintln!(
        "running {} scenarios on {} ({jobs} at once)",
        scenarios.len(),
        target.name
    );
    let snapshots = root.join("snapshots");
    Ok(run_target(
        &root.join("target/probes"),
        &runtime,
        &target,
        scenarios,
        jobs,
        Some(&snapshots),
        accept,
        (0, scenarios.len()),
    ))
}

/// Runs every scenario on `target`, `jobs` at a time, the longest expected first; `progress` is
/// (runs done before this target, runs in the whole invocation) for the counter.
async fn run_all(
    records: &Path,
    scenarios: Vec<Scenario>,
    target: Target,
    jobs: usize,
    snapshots: Option<PathBuf>,
    accept: bool,
    progress: (usize, usize),
) -> Vec<Report> {
    let gate = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let records = records.to_owned();
    let order = probes::schedule::longest_first(&scenarios, Some(&records), &target.name);
    let shown = Progress::new(progress.0, progress.1);
    let ticker = {
        let shown = shown.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                every.tick().await;
                shown.tick();
            }
        })
    };
    let mut set = tokio::task::JoinSet::new();
    let scenarios = Arc::new(scenarios);
    for i in order {
        // Taken here, not in the task, so runs start in exactly this order.
        let slot = gate
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let (scenarios, target, records, snapshots, shown) = (
            scenarios.clone(),
            target.clone(),
            records.clone(),
            snapshots.clone(),
            shown.clone(),
        );
        set.spawn(async move {
            let _slot = slot;
            let scenario = &scenarios[i];
            shown.started(&scenario.id, &target.name);
            let mut probe = probes::probe(scenario, &target, Some(&records)).await;
            if let Some(dir) = snapshots.filter(|_| probe.report.status != Status::Skip) {
                let check = snapshot::check(&dir, &target, &scenario.id, &probe.trace, accept);
                probe.report.push(check);
            }
            shown.finished(&scenario.id, &target.name, |n, total| {
                line(&probe.report, n, total)
            });
            probe.report
        });
    }
    let mut done = Vec::new();
    while let Some(joined) = set.join_next().await {
        done.push(joined.expect("a probe task does not panic"));
    }
    ticker.abort();
    shown.finish();
    done
}

/// A finished run's line, with its failed checks under it.
fn line(report: &Report, n: usize, total: usize) -> String {
    let status = report.status.word();
    let diffs = match report.expected_differences() {
        0 => String::new(),
        n => format!(
            "  ({n} expected difference{})",
            if n == 1 { "" } else { "s" }
        ),
    };
    let mut out = format!(
        "[{n:>3}/{total}] {status} {:<34} {:<16} {:>6.1}s{diffs}\n",
        report.id,
        report.target,
        report.duration_ms as f64 / 1000.0
    );
    if report.status == Status::Fail {
        out.push_str(&report.failure_text());
    }
    out
}

fn print_summary(doc: &Doc) {
    println!(
        "\n{:<18} {:>5} {:>5} {:>5} {:>10}",
        "target", "pass", "fail", "skip", "expected≠"
    );
    for target in doc.targets() {
        let c = doc.counts(target);
        println!(
            "{:<18} {:>5} {:>5} {:>5} {:>10}",
            target, c.pass, c.fail, c.skip, c.expected_differences
        );
    }
    for r in doc.runs.iter().filter(|r| r.expected_differences() > 0) {
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
}

fn resolve(spec: &str, root: &Path) -> Result<Target> {
    if spec == "reference" {
        return Ok(Target::reference(build_reference(root)?));
    }
    Target::resolve_claude(spec, &probes::target::default_cache())
}

/// Builds `claude-reference` (debug profile, as the tests do) and returns its path. Cargo's own
/// progress shows: on a fresh checkout this is minutes of compiling.
fn build_reference(root: &Path) -> Result<PathBuf> {
    eprintln!("building the reference agent (cargo build -p claude-reference)");
    let status = crate::cargo()
        .args([
            "build",
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
