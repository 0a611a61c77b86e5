//! Repeat runs: the same scenarios run several times, and every scenario whose status or
//! normalized trace was not the same each time. A flake found here is found before CI finds it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Report, Status};

/// A scenario on a target that did not do the same thing every time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unsteady {
    pub id: String,
    pub target: String,
    /// Its status in each repeat, in order.
    pub statuses: Vec<Status>,
    /// Each repeat's failed checks, by name (empty where it passed).
    pub failed: Vec<Vec<String>>,
    /// The first trace that differed from the first repeat's, as a diff (first `-`, that repeat
    /// `+`), with the repeat it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_diff: Option<(usize, String)>,
}

impl Unsteady {
    /// What a person reads: the statuses, the failed checks per repeat, the trace lines that moved.
    pub fn text(&self) -> String {
        let words: Vec<&str> = self.statuses.iter().map(|s| s.word()).collect();
        let mut out = format!("{} [{}]: {}\n", self.id, self.target, words.join(" "));
        for (i, failed) in self.failed.iter().enumerate() {
            if !failed.is_empty() {
                out.push_str(&format!("  repeat {}: ✗ {}\n", i + 1, failed.join("; ✗ ")));
            }
        }
        if let Some((repeat, diff)) = &self.trace_diff {
            out.push_str(&format!("  trace of repeat {repeat} against repeat 1:\n"));
            for line in diff.lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        out
    }
}

/// Every (scenario, target) that ran in each of `repeats` and whose status or trace varied.
pub fn unsteady(repeats: &[Vec<Report>]) -> Vec<Unsteady> {
    let mut by_run: BTreeMap<(&str, &str), Vec<&Report>> = BTreeMap::new();
    for reports in repeats {
        for r in reports {
            by_run.entry((&r.id, &r.target)).or_default().push(r);
        }
    }
    by_run
        .into_iter()
        .filter_map(|((id, target), runs)| {
            let statuses: Vec<Status> = runs.iter().map(|r| r.status).collect();
            let first = runs[0].trace.as_deref().unwrap_or_default();
            let trace_diff = runs.iter().enumerate().skip(1).find_map(|(i, r)| {
                let seen = r.trace.as_deref().unwrap_or_default();
                (seen != first).then(|| (i + 1, crate::check::text_diff(first, seen)))
            });
            let steady = statuses.iter().all(|s| *s == statuses[0]) && trace_diff.is_none();
            (!steady).then(|| Unsteady {
                id: id.to_owned(),
                target: target.to_owned(),
                failed: runs
                    .iter()
                    .map(|r| {
                        r.checks
                            .iter()
                            .filter(|c| !c.ok)
                            .map(|c| c.name.clone())
                            .collect()
                    })
                    .collect(),
                statuses,
                trace_diff,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CheckOutcome;

    fn run(id: &str, ok: bool, trace: &str) -> Report {
        let mut r = Report::from_checks(
            id,
            "reference",
            vec![CheckOutcome::new(
                "the gap",
                ok,
                if ok { "" } else { "7205 ms" },
            )],
            10,
        );
        r.trace = Some(trace.to_owned());
        r
    }

    #[test]
    fn a_run_whose_status_or_trace_moved_is_named_with_what_moved() {
        let repeats = vec![
            vec![
                run("a", true, "x\ny\n"),
                run("b", true, "t\n"),
                run("c", false, "f\n"),
            ],
            vec![
                run("a", false, "x\ny\n"),
                run("b", true, "t\n"),
                run("c", false, "f\n"),
            ],
            vec![
                run("a", true, "x\ny\n"),
                run("b", true, "t\nz\n"),
                run("c", false, "f\n"),
            ],
        ];
        let found = unsteady(&repeats);
        let ids: Vec<&str> = found.iter().map(|u| u.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"], "c fails every time: steady, if red");
        assert_eq!(
            found[0].statuses,
            [Status::Pass, Status::Fail, Status::Pass]
        );
        assert!(
            found[0].text().contains("repeat 2: ✗ the gap"),
            "{}",
            found[0].text()
        );
        assert_eq!(found[1].trace_diff.as_ref().map(|d| d.0), Some(3));
        let text = found[1].text();
        assert!(
            text.contains("trace of repeat 3 against repeat 1"),
            "{text}"
        );
        assert!(text.contains("+z"), "the line that moved: {text}");
    }
}
