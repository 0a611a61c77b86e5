//! The machine-readable report: one entry per (scenario, target), and the documents built from
//! them (the JSON report, JUnit XML, the HTML page).

use serde::{Deserialize, Serialize};

use crate::check::CheckOutcome;

pub mod changelog;
pub mod doc;
pub mod html;
pub mod junit;
pub mod repeats;

pub use doc::Doc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    /// The word a line for a person shows: `PASS`, `FAIL`, `SKIP`.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub id: String,
    pub target: String,
    pub status: Status,
    pub checks: Vec<CheckOutcome>,
    pub duration_ms: u64,
    /// How this run's trace compares with the reference's, where both ran. Not read back: a
    /// merge compares the traces again, since the reference's run may come from another shard.
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub parity: Option<crate::parity::Comparison>,
    /// The normalized trace (what the snapshot holds), for comparing runs after the fact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The run as a person reads it: the transcript, and the Brief main view where the run
    /// delivered messages through Brief (seed 001).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brief_view: Option<String>,
    /// The built-in tools' parameters the target offered in this run (`coverage`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub offered: crate::coverage::Params,
}

impl Report {
    pub fn skipped(id: &str, target: &str, why: &str) -> Self {
        Report {
            id: id.into(),
            target: target.into(),
            status: Status::Skip,
            checks: vec![CheckOutcome::new("applies", true, why)],
            duration_ms: 0,
            parity: None,
            trace: None,
            transcript: None,
            brief_view: None,
            offered: Default::default(),
        }
    }

    pub fn from_checks(
        id: &str,
        target: &str,
        checks: Vec<CheckOutcome>,
        duration_ms: u64,
    ) -> Self {
        let status = if checks.iter().all(|c| c.ok) {
            Status::Pass
        } else {
            Status::Fail
        };
        Report {
            id: id.into(),
            target: target.into(),
            status,
            checks,
            duration_ms,
            parity: None,
            trace: None,
            transcript: None,
            brief_view: None,
            offered: Default::default(),
        }
    }

    /// Adds a check decided after the probe (e.g. the snapshot), keeping the status in step.
    pub fn push(&mut self, check: CheckOutcome) {
        if !check.ok && self.status == Status::Pass {
            self.status = Status::Fail;
        }
        self.checks.push(check);
    }

    /// The status its checks give (a skip stays a skip).
    pub fn settle_status(&mut self) {
        if self.status != Status::Skip {
            self.status = if self.checks.iter().all(|c| c.ok) {
                Status::Pass
            } else {
                Status::Fail
            };
        }
    }

    pub fn expected_differences(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.expected_difference.is_some())
            .count()
    }

    /// The failed checks, each with its detail indented under its name.
    pub fn failure_text(&self) -> String {
        let mut out = String::new();
        for check in self.checks.iter().filter(|c| !c.ok) {
            out.push_str(&format!("  ✗ {}\n", check.name));
            for line in check.detail.lines() {
                out.push_str(&format!("      {line}\n"));
            }
        }
        out
    }
}
