//! Drop-in parity: a scenario's normalized trace on the reference compared with another target's,
//! line by line. A scenario (or the suite, in `scenarios/trace-differences.toml`) names the trace
//! differences it accepts, each with a reason, exactly like a check's expected difference: a
//! differing line one of them matches is accepted, a line none matches makes the traces differ,
//! and a scenario's own named difference that matches nothing fails, because the difference it
//! explained is gone.

use std::path::Path;

use serde::Serialize;

use crate::scenario::TraceDifference;

/// The check a run gets when its trace differs from the reference's beyond what is named.
pub const PARITY_CHECK: &str = "trace matches the reference's";

/// The version the reference is a drop-in for, so the one whose traces are compared with its
/// own. A newer version's trace changes are what the changelog between versions reports, and a
/// newer adopted baseline is held to its own snapshots, not to the reference's trace.
pub const CONTRACT: &str = "claude@2.1.235";

/// How one scenario's trace on a target compares with the reference's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Line for line the same.
    Equal,
    /// Different only in lines named differences accept, none of them pending.
    EqualExceptNamed,
    /// Every differing line is named, but some by a difference the reference has not built yet.
    DiffersPending,
    /// Lines no named difference accepts.
    Differs,
}

/// A named difference that accepted lines in this comparison.
#[derive(Debug, Clone, Serialize)]
pub struct NamedUse {
    pub lines: String,
    pub reason: String,
    pub pending: bool,
    /// Whether the scenario names it (else the suite file does).
    pub own: bool,
    pub matched: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The target compared against (the reference).
    pub against: String,
    pub outcome: Outcome,
    /// Every line of the line diff (`-` the reference's, `+` this target's).
    pub diff_lines: usize,
    /// The differing lines no named difference accepts.
    pub unexplained: Vec<String>,
    pub named: Vec<NamedUse>,
    /// The scenario's own named differences that matched no line: the difference is gone.
    pub gone: Vec<String>,
}

impl Comparison {
    /// Whether this comparison fails the run: an unexplained line, or a named difference gone.
    pub fn failed(&self) -> bool {
        self.outcome == Outcome::Differs || !self.gone.is_empty()
    }

    /// One line for a terminal: `trace = reference`, `trace ≠ reference (N lines, …)`.
    pub fn summary(&self) -> String {
        let named: usize = self.named.iter().map(|n| n.matched).sum();
        match self.outcome {
            Outcome::Equal => format!("trace = {}", self.against),
            Outcome::EqualExceptNamed => {
                format!("trace = {} except {named} named lines", self.against)
            }
            Outcome::DiffersPending => format!(
                "trace ≠ {} in {named} lines named as not built yet",
                self.against
            ),
            Outcome::Differs => format!(
                "trace ≠ {} in {} unexplained of {} diff lines",
                self.against,
                self.unexplained.len(),
                self.diff_lines
            ),
        }
    }
}

/// Compares `theirs` (a trace of `target`) with the reference's `ours`, for scenario `id`.
pub fn compare(
    id: &str,
    target: &str,
    ours: &str,
    theirs: &str,
    own: &[TraceDifference],
    suite: &[TraceDifference],
) -> Comparison {
    let changed = changed_lines(ours, theirs);
    let candidates: Vec<(&TraceDifference, bool)> = own
        .iter()
        .map(|d| (d, true))
        .chain(suite.iter().map(|d| (d, false)))
        .filter(|(d, _)| d.holds_for(target) && d.applies_to(id))
        .collect();
    // Each named difference erases what it matches from both traces; what still differs then is
    // unexplained. So `"DesignSync", ` names one entry of a list line without excusing the rest
    // of that line, and a pattern that matches a whole line drops it.
    let erase = |trace: &str| -> String {
        let mut out = String::new();
        for line in trace.lines() {
            let mut line = line.to_owned();
            for (d, _) in &candidates {
                line = d.erase(&line);
            }
            if !line.trim().is_empty() {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    };
    let (ours_left, theirs_left) = (erase(ours), erase(theirs));
    let unexplained = changed_lines(&ours_left, &theirs_left);
    let matched: Vec<usize> = candidates
        .iter()
        .map(|(d, _)| changed.iter().filter(|l| d.matches(&l[1..])).count())
        .collect();
    let named: Vec<NamedUse> = candidates
        .iter()
        .zip(&matched)
        .filter(|(_, n)| **n > 0)
        .map(|((d, own), n)| NamedUse {
            lines: d.lines.clone(),
            reason: d.reason.clone(),
            pending: d.pending,
            own: *own,
            matched: *n,
        })
        .collect();
    let gone = candidates
        .iter()
        .zip(&matched)
        .filter(|((_, own), n)| *own && **n == 0)
        .map(|((d, _), _)| format!("{} ({})", d.lines, d.reason))
        .collect();
    let outcome = if changed.is_empty() {
        Outcome::Equal
    } else if !unexplained.is_empty() {
        Outcome::Differs
    } else if named.iter().any(|n| n.pending) {
        Outcome::DiffersPending
    } else {
        Outcome::EqualExceptNamed
    };
    Comparison {
        against: "reference".into(),
        outcome,
        diff_lines: changed.len(),
        unexplained,
        named,
        gone,
    }
}

/// The lines of a line diff: `-` ours, `+` theirs.
fn changed_lines(ours: &str, theirs: &str) -> Vec<String> {
    similar::TextDiff::from_lines(ours, theirs)
        .iter_all_changes()
        .filter_map(|c| {
            let mark = match c.tag() {
                similar::ChangeTag::Equal => return None,
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            Some(format!("{mark}{}", c.value().trim_end_matches('\n')))
        })
        .collect()
}

/// Compares the stored snapshots of `target` (kept in `snapshots/<target_dir>/`) with the
/// reference's, for every scenario that runs on both; `None` where either snapshot is missing (a
/// target skipped the scenario, or it was never accepted).
pub fn compare_snapshots(
    scenarios: &[crate::Scenario],
    suite: &[TraceDifference],
    snapshots: &Path,
    target: &str,
    target_dir: &str,
) -> Vec<(String, Option<Comparison>)> {
    scenarios
        .iter()
        .filter(|s| {
            s.targets.iter().any(|t| t == "reference") && s.targets.iter().any(|t| t == "claude")
        })
        .map(|s| {
            let ours = crate::snapshot::read(&crate::snapshot::path(snapshots, "reference", &s.id));
            let theirs =
                crate::snapshot::read(&crate::snapshot::path(snapshots, target_dir, &s.id));
            let comparison = ours.zip(theirs).map(|(ours, theirs)| {
                compare(&s.id, target, &ours, &theirs, &s.trace_differences, suite)
            });
            (s.id.clone(), comparison)
        })
        .collect()
}

/// The suite's named differences that accepted no line in any of `comparisons`: the difference
/// they explained is gone (meaningful only when the whole suite was compared).
pub fn unused_suite_differences<'a>(
    suite: &'a [TraceDifference],
    target: &str,
    comparisons: &[&Comparison],
) -> Vec<&'a TraceDifference> {
    suite
        .iter()
        .filter(|d| d.holds_for(target))
        .filter(|d| {
            !comparisons
                .iter()
                .any(|c| c.named.iter().any(|n| !n.own && n.lines == d.lines))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(target: &str, lines: &str, pending: bool) -> TraceDifference {
        let mut d: TraceDifference = toml::from_str(&format!(
            "target = {target:?}\nlines = {lines:?}\nreason = \"because\"\npending = {pending}"
        ))
        .unwrap();
        d.prepare("test").unwrap();
        d
    }

    const OURS: &str = "exit: 0\n  Agent(cwd: string, prompt*: string)\n  Bash(command*: string)\n";
    const THEIRS: &str = "exit: 0\n  Agent(prompt*: string)\n  Bash(command*: string)\n";

    #[test]
    fn equal_traces_are_equal() {
        let c = compare("x", "claude@2.1.235", OURS, OURS, &[], &[]);
        assert_eq!(c.outcome, Outcome::Equal);
        assert!(!c.failed());
    }

    #[test]
    fn an_unnamed_line_makes_the_traces_differ_and_is_listed() {
        let c = compare("x", "claude@2.1.235", OURS, THEIRS, &[], &[]);
        assert_eq!(c.outcome, Outcome::Differs);
        assert_eq!(
            c.unexplained,
            vec![
                "-  Agent(cwd: string, prompt*: string)",
                "+  Agent(prompt*: string)"
            ]
        );
        assert!(c.failed());
    }

    #[test]
    fn a_named_difference_accepts_the_lines_it_matches_on_both_sides() {
        let suite = [named("claude", r"^\s*Agent\(.*", false)];
        let c = compare("x", "claude@2.1.235", OURS, THEIRS, &[], &suite);
        assert_eq!(c.outcome, Outcome::EqualExceptNamed);
        assert_eq!(c.named[0].matched, 2);
        assert!(!c.failed());
    }

    #[test]
    fn a_named_difference_holds_only_for_the_versions_its_target_names() {
        let suite = [named("claude@>=2.1.235, <2.1.300", r"^\s*Agent\(.*", false)];
        let inside = compare("x", "claude@2.1.299", OURS, THEIRS, &[], &suite);
        assert_eq!(inside.outcome, Outcome::EqualExceptNamed);
        let outside = compare("x", "claude@2.1.300", OURS, THEIRS, &[], &suite);
        assert!(outside.failed(), "{outside:?}");
    }

    #[test]
    fn a_named_entry_of_a_list_line_does_not_excuse_the_rest_of_the_line() {
        let ours = "tools: Bash, Read\n";
        let theirs = "tools: Bash, DesignSync, Read\n";
        let suite = [named("claude", "DesignSync, ", false)];
        let c = compare("x", "claude@2.1.235", ours, theirs, &[], &suite);
        assert_eq!(c.outcome, Outcome::EqualExceptNamed);
        let theirs = "tools: Bash, DesignSync, Read, Write\n";
        let c = compare("x", "claude@2.1.235", ours, theirs, &[], &suite);
        assert_eq!(c.outcome, Outcome::Differs);
        assert_eq!(
            c.unexplained,
            ["-tools: Bash, Read", "+tools: Bash, Read, Write"]
        );
    }

    #[test]
    fn a_pending_difference_still_counts_as_differing_without_failing() {
        let suite = [named("claude@2.1.235", r"^  Agent\(.*", true)];
        let c = compare("x", "claude@2.1.235", OURS, THEIRS, &[], &suite);
        assert_eq!(c.outcome, Outcome::DiffersPending);
        assert!(!c.failed());
    }

    #[test]
    fn a_difference_for_another_version_or_scenario_does_not_apply() {
        let other = [named("claude@2.1.300", "Agent", false)];
        let c = compare("x", "claude@2.1.235", OURS, THEIRS, &[], &other);
        assert_eq!(c.outcome, Outcome::Differs);
        let mut scoped = named("claude", "Agent", false);
        scoped.scenarios = Some("^tools\\.".into());
        scoped.prepare("test").unwrap();
        let c = compare("core.x", "claude@2.1.235", OURS, THEIRS, &[], &[scoped]);
        assert_eq!(c.outcome, Outcome::Differs);
    }

    #[test]
    fn a_scenarios_own_difference_that_matches_nothing_is_gone_and_fails() {
        let own = [
            named("claude", "Agent", false),
            named("claude", "Glob", false),
        ];
        let c = compare("x", "claude@2.1.235", OURS, THEIRS, &own, &[]);
        assert_eq!(c.gone, vec!["Glob (because)"]);
        assert!(c.failed());
        let c = compare("x", "claude@2.1.235", OURS, OURS, &own[..1], &[]);
        assert!(c.failed(), "equal traces make a named difference stale");
    }

    #[test]
    fn a_difference_without_reason_or_with_a_bad_pattern_is_refused() {
        let mut d = named("claude", "x", false);
        d.reason = " ".into();
        assert!(d
            .prepare("f.toml")
            .unwrap_err()
            .contains("`reason` is empty"));
        let mut d = named("claude", "x", false);
        d.lines = "(".into();
        assert!(d
            .prepare("f.toml")
            .unwrap_err()
            .contains("not a regular expression"));
    }
}
