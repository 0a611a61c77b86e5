//! The machine-readable report: one entry per (scenario, target).

use serde::Serialize;

use crate::check::CheckOutcome;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub id: String,
    pub target: String,
    pub status: Status,
    pub checks: Vec<CheckOutcome>,
    pub duration_ms: u64,
    /// How this run's trace compares with the reference's, where both ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parity: Option<crate::parity::Comparison>,
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
        }
    }

    /// Adds a check decided after the probe (e.g. the snapshot), keeping the status in step.
    pub fn push(&mut self, check: CheckOutcome) {
        if !check.ok && self.status == Status::Pass {
            self.status = Status::Fail;
        }
        self.checks.push(check);
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
