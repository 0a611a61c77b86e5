//! `cargo xtask merge`: one report from runs made apart, the shards of a nextest run
//! (`cargo nextest run --partition hash:K/N`, each writing a file per run into
//! `$CLAUDE_CONFORMANCE_RESULTS`) or several `cargo xtask probe --report` files. Traces are
//! compared with the reference's and versions with each other here, after the fact, since a
//! scenario's runs on two targets may come from two machines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::report::{doc, Doc, Report, Status};

use crate::outputs::Outputs;

#[derive(Args)]
pub struct MergeArgs {
    /// Report files, or directories searched for them (`*.json`, recursively).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The scenarios the runs came from (for their named trace differences).
    #[arg(long)]
    scenarios: Option<PathBuf>,
    #[command(flatten)]
    outputs: Outputs,
}

pub fn run(args: MergeArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dir = args.scenarios.unwrap_or_else(|| root.join("scenarios"));
    let scenarios = probes::load_dir(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let suite = probes::scenario::load_suite(&dir).map_err(anyhow::Error::msg)?;
    let mut files = Vec::new();
    for input in &args.inputs {
        collect(input, &mut files)?;
    }
    let runs = read_all(&files)?;
    if runs.is_empty() {
        bail!("no runs in {} file(s)", files.len());
    }
    eprintln!("{} runs from {} file(s)", runs.len(), files.len());
    let (mut doc, mut ok) = Doc::assemble(runs, &scenarios, &suite);
    let listed = probes::coverage::load_listed(&dir).map_err(anyhow::Error::msg)?;
    doc.cover(&scenarios, &listed);
    ok &= crate::probe::print_outcome(&doc, &suite, false);
    args.outputs.write(&doc)?;
    Ok(ok && doc.runs.iter().all(|r| r.status != Status::Fail))
}

/// Every run of `files`; the same scenario on the same target twice is an error naming both
/// files, since which one counts would be a guess.
fn read_all(files: &[PathBuf]) -> Result<Vec<Report>> {
    let mut seen: BTreeMap<(String, String), &Path> = BTreeMap::new();
    let mut runs = Vec::new();
    for file in files {
        for run in doc::read_runs(file)? {
            let key = (run.id.clone(), run.target.clone());
            if let Some(first) = seen.insert(key, file) {
                bail!(
                    "{} on {} is in both {} and {}",
                    run.id,
                    run.target,
                    first.display(),
                    file.display()
                );
            }
            runs.push(run);
        }
    }
    Ok(runs)
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_file() {
        out.push(path.to_owned());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {}", path.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect(&entry, out)?;
        } else if entry.extension().is_some_and(|e| e == "json") {
            out.push(entry);
        }
    }
    Ok(())
}
