//! `cargo xtask coverage`: the parameter coverage of the last probe of each target, from its
//! records (`target/probes/<target>/*.json`) and the scenario files. Per tool and target, how
//! many of the parameters offered some scenario exercised there, and which not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::coverage::{self, Coverage, Listed, Params, Sample};
use serde::Deserialize;
use serde_json::Value;

#[derive(Args)]
pub struct CoverageArgs {
    /// The records to read: one folder per target, as `cargo xtask probe` writes them.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Write the coverage as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Fail when a parameter a target offers is exercised on it by no scenario and not listed in
    /// `scenarios/coverage.toml`.
    #[arg(long)]
    check: bool,
}

pub fn run(args: CoverageArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dir = root.join("scenarios");
    let scenarios = probes::load_dir(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let listed = coverage::load_listed(&dir).map_err(anyhow::Error::msg)?;
    let records = args.records.unwrap_or_else(|| root.join("target/probes"));
    let runs = read_records(&records, &scenarios)?;
    if runs.is_empty() {
        bail!(
            "no probe records in {}: run `cargo xtask probe` (and `--target claude@VERSION`) first",
            records.display()
        );
    }
    let samples: Vec<Sample> = runs
        .iter()
        .map(|((id, target), offered)| Sample {
            id,
            target,
            offered,
        })
        .collect();
    let coverage = Coverage::of(&samples, &scenarios, &listed);
    print!("{}", coverage.text());
    let ok = print_summary(&coverage, &listed);
    if let Some(path) = args.json {
        std::fs::write(&path, serde_json::to_vec_pretty(&coverage)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ok || !args.check)
}

/// One line per target, then what the suite must never have (`Coverage::suite_problems`). True
/// when every target's offer is exercised or listed and the suite holds.
pub fn print_summary(coverage: &Coverage, listed: &[Listed]) -> bool {
    let mut ok = true;
    println!();
    for target in &coverage.targets {
        let (offered, exercised) = coverage.counts(target);
        let gaps = coverage.gaps(target).len();
        println!(
            "parameters on {target}: {exercised}/{offered} exercised, {} listed, {gaps} missing",
            offered - exercised - gaps
        );
        ok &= gaps == 0;
    }
    for problem in coverage.suite_problems(listed) {
        println!("{problem}");
        ok = false;
    }
    ok
}

#[derive(Deserialize)]
struct Record {
    id: String,
    target: String,
    #[serde(default)]
    requests: Vec<Request>,
}

#[derive(Deserialize)]
struct Request {
    #[serde(default)]
    body: Value,
}

/// (scenario id, target) → what the target offered over every split and channel of its run.
/// Records of scenarios no longer in the suite, and repeats' records, are left out.
fn read_records(
    dir: &Path,
    scenarios: &[probes::Scenario],
) -> Result<BTreeMap<(String, String), Params>> {
    let mut runs: BTreeMap<(String, String), Params> = BTreeMap::new();
    let Ok(targets) = std::fs::read_dir(dir) else {
        return Ok(runs);
    };
    for target in targets.flatten() {
        let name = target.file_name().to_string_lossy().into_owned();
        if !target.path().is_dir() || name.starts_with("repeat-") {
            continue;
        }
        for file in std::fs::read_dir(target.path())?.flatten() {
            let path = file.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read(&path)?;
            let record: Record = serde_json::from_slice(&text)
                .with_context(|| format!("cannot read the record {}", path.display()))?;
            // `ID[channel]@split` names one run of the scenario `ID`.
            let id = record.id.split(['[', '@']).next().unwrap_or_default();
            if !scenarios.iter().any(|s| s.id == id) {
                continue;
            }
            let offered = runs.entry((id.to_owned(), record.target)).or_default();
            for request in &record.requests {
                coverage::offered_in(&request.body, offered);
            }
        }
    }
    Ok(runs)
}
