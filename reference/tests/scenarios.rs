//! The scenario suite on the reference target: every `scenarios/**/*.toml` is one test. Each runs
//! through the same `probes::probe` as `cargo xtask probe`, must pass all its checks, and its trace
//! must match `snapshots/reference/<id>.snap` (through insta). Every scripted session is also
//! served a byte at a time and at random cut points, and must give the same trace
//! (`core.sse-split`, applied to the whole suite).

use std::path::{Path, PathBuf};

use probes::report::Status;
use probes::{Scenario, Target};

fn run(path: &Path) -> datatest_stable::Result<()> {
    // The suite's named trace differences sit beside the scenarios; here they only need to load.
    if path
        .file_name()
        .is_some_and(|n| n == probes::parity::SUITE_FILE)
    {
        probes::parity::load_suite(path.parent().expect("has a parent"))?;
        return Ok(());
    }
    let mut scenario = Scenario::load(path)?;
    let target = Target::reference(PathBuf::from(env!("CARGO_BIN_EXE_claude-reference")));
    if !scenario.applies_to(target.kind) {
        return Ok(());
    }
    // Every scripted session is served whole first (its checks and snapshot use that run), then
    // split: the probe fails if a split changes a byte of the trace.
    if scenario.argv.is_none() && scenario.splits.is_empty() && !scenario.turns.is_empty() {
        scenario.splits = ["whole", "every-byte", "random:99"]
            .map(String::from)
            .to_vec();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let probe = runtime.block_on(probes::probe(&scenario, &target, None));
    if probe.report.status == Status::Skip {
        // Only an isolated run skips on an applicable target: reported, never a snapshot.
        let why = probe
            .report
            .checks
            .first()
            .map(|c| c.detail.as_str())
            .unwrap_or("");
        eprintln!("{}: skipped: {why}", scenario.id);
        return Ok(());
    }
    if probe.report.status == Status::Fail {
        return Err(format!(
            "{} failed on reference:\n{}",
            scenario.id,
            probe.report.failure_text()
        )
        .into());
    }
    insta::with_settings!({
        snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/reference"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(scenario.id.replace('/', "__"), probe.trace);
    });
    Ok(())
}

datatest_stable::harness! {
    { test = run, root = "../scenarios", pattern = r"\.toml$" },
}
