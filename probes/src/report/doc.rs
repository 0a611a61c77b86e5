//! A whole report: every run of one invocation (or of many shards merged), and the changelogs
//! between consecutive versions of a real binary. Written as the JSON report, read back by
//! `cargo xtask merge`, and rendered as JUnit XML and HTML.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::{Report, Status};
use crate::check::CheckOutcome;
use crate::parity::PARITY_CHECK;
use crate::report::changelog::Changelog;
use crate::scenario::{Scenario, TraceDifference};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Doc {
    pub runs: Vec<Report>,
    pub changelogs: Vec<Changelog>,
    /// With `--repeat`: each run whose status or trace was not the same every time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsteady: Vec<crate::report::repeats::Unsteady>,
    /// Which offered tool parameters the runs exercised, per target.
    #[serde(skip_serializing_if = "crate::coverage::Coverage::is_empty")]
    pub coverage: crate::coverage::Coverage,
}

/// One target's counts, as the terminal summary, the JUnit suite and the HTML matrix show them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub pass: usize,
    pub fail: usize,
    pub skip: usize,
    /// Checks that held only as a named difference from the seed.
    pub expected_differences: usize,
}

impl Doc {
    /// The report of `runs` (from one invocation or many shards): runs in (id, target) order,
    /// each real binary's trace compared with the reference's where both ran, and changelogs
    /// between consecutive versions. Returns the document and whether every comparison held.
    pub fn assemble(
        mut runs: Vec<Report>,
        scenarios: &[Scenario],
        suite: &[TraceDifference],
    ) -> (Doc, bool) {
        runs.sort_by(|a, b| (&a.id, &a.target).cmp(&(&b.id, &b.target)));
        let parity_ok = compare_with_reference(&mut runs, scenarios, suite);
        let mut doc = Doc {
            runs,
            ..Doc::default()
        };
        let versions: Vec<String> = doc
            .targets()
            .into_iter()
            .filter(|t| *t != "reference")
            .map(str::to_owned)
            .collect();
        let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
        doc.changelogs = crate::report::changelog::between_versions(&doc.runs, &versions);
        (doc, parity_ok)
    }

    /// Computes the parameter coverage of the runs (`listed`: `scenarios/coverage.toml`).
    pub fn cover(&mut self, scenarios: &[Scenario], listed: &[crate::coverage::Listed]) {
        let samples: Vec<crate::coverage::Sample> = self
            .runs
            .iter()
            .filter(|r| r.status != Status::Skip)
            .map(|r| crate::coverage::Sample {
                id: &r.id,
                target: &r.target,
                offered: &r.offered,
            })
            .collect();
        self.coverage = crate::coverage::Coverage::of(&samples, scenarios, listed);
    }

    /// The targets in the order their runs first appear (the reference first when it ran).
    pub fn targets(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for run in &self.runs {
            if !names.contains(&run.target.as_str()) {
                names.push(&run.target);
            }
        }
        names.sort_by_key(|n| *n != "reference");
        names
    }

    pub fn counts(&self, target: &str) -> Counts {
        let mut c = Counts::default();
        for run in self.runs.iter().filter(|r| r.target == target) {
            match run.status {
                Status::Pass => c.pass += 1,
                Status::Fail => c.fail += 1,
                Status::Skip => c.skip += 1,
            }
            c.expected_differences += run.expected_differences();
        }
        c
    }

    pub fn to_json(&self) -> Result<Vec<u8>> {
        Ok(serde_json::to_vec_pretty(self)?)
    }
}

/// The runs in a JSON report (`{runs, changelogs}`, changelogs not read: they are computed again
/// from the runs) or in one run's file, as the scenario suite writes per test.
pub fn read_runs(path: &Path) -> Result<Vec<Report>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let runs = if let Some(runs) = value.get("runs") {
        serde_json::from_value::<Vec<Report>>(runs.clone())
    } else if value.get("id").is_some() && value.get("target").is_some() {
        serde_json::from_value::<Report>(value).map(|r| vec![r])
    } else {
        bail!(
            "{}: neither a report (`runs`) nor one run (`id`, `target`)",
            path.display()
        );
    };
    let mut runs =
        runs.with_context(|| format!("{}: not a run this harness wrote", path.display()))?;
    // The comparison with the reference is made again where the runs are assembled.
    for run in &mut runs {
        run.checks.retain(|c| c.name != PARITY_CHECK);
        run.settle_status();
    }
    Ok(runs)
}

/// Whether the run was compared with snapshots of its target's own (an adopted baseline).
fn held_to_own_snapshots(r: &Report) -> bool {
    r.checks
        .iter()
        .any(|c| c.name == crate::snapshot::SNAPSHOT_CHECK)
}

/// Where the reference ran beside a real binary, compares each scenario's two traces and records
/// the outcome on the real binary's report, for the contract version (`parity::CONTRACT`) and a
/// version with no snapshots of its own (an adopted newer baseline is held to its own): a line
/// no named difference accepts, or a scenario's named difference that is gone, fails that
/// report. Returns whether every comparison held.
fn compare_with_reference(
    runs: &mut [Report],
    scenarios: &[Scenario],
    suite: &[TraceDifference],
) -> bool {
    let mut ok = true;
    for scenario in scenarios {
        let ours = runs
            .iter()
            .find(|r| r.id == scenario.id && r.target == "reference" && r.status != Status::Skip)
            .and_then(|r| r.trace.clone());
        let Some(ours) = ours else { continue };
        for report in runs.iter_mut().filter(|r| {
            r.id == scenario.id
                && r.target != "reference"
                && r.status != Status::Skip
                && (r.target == crate::parity::CONTRACT || !held_to_own_snapshots(r))
        }) {
            let c = crate::parity::compare(
                &scenario.id,
                &report.target,
                &ours,
                report.trace.as_deref().unwrap_or(""),
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
                report.push(CheckOutcome::new(PARITY_CHECK, false, detail));
            }
            report.parity = Some(c);
        }
    }
    ok
}
