//! What changed between two runs of the suite on two versions of a target, check by check, and
//! how their traces changed, grouped by what a host or the model sees (tools, schemas, event keys
//! and values, requests), so a new release reads as a list of behaviour changes instead of one
//! long diff per scenario.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Report, Status};
use crate::check::CheckOutcome;

/// Checks that compare traces, not behaviour against the seed; the trace part covers them.
const TRACE_CHECKS: [&str; 2] = [crate::snapshot::SNAPSHOT_CHECK, crate::parity::PARITY_CHECK];

#[derive(Debug, Clone, Serialize)]
pub struct Changelog {
    pub from: String,
    pub to: String,
    /// Scenarios that ran on both versions.
    pub compared: usize,
    pub checks: Vec<CheckChange>,
    /// Each trace change with the scenarios it shows in, most widespread first.
    pub trace: Vec<TraceChange>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckChange {
    pub scenario: String,
    pub check: String,
    pub change: ChangeKind,
    /// `passed`, `failed` or `expected difference: REASON`, on `from` and on `to`.
    pub before: String,
    pub after: String,
    /// The failure's first line on `to`, when it failed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Passed, now fails: a regression against the seed.
    Regression,
    /// A named difference no longer holds: the newer version behaves as the seed says.
    DifferenceGone,
    /// Passed before, differs now in a way a difference names for this version.
    NewDifference,
    /// Named for the older version only, and the same difference is still there.
    DifferenceNotNamedForThisVersion,
    /// A named difference whose reason changed.
    DifferenceChanged,
    /// Failed, now passes.
    Fixed,
    /// A failure that reads differently.
    FailureChanged,
    /// The check ran on one version only.
    OnlyOnOne,
}

impl ChangeKind {
    /// Every kind, in the order a report groups them (the HTML page takes its labels from here).
    pub const ALL: [ChangeKind; 8] = [
        ChangeKind::Regression,
        ChangeKind::DifferenceGone,
        ChangeKind::NewDifference,
        ChangeKind::DifferenceNotNamedForThisVersion,
        ChangeKind::DifferenceChanged,
        ChangeKind::Fixed,
        ChangeKind::FailureChanged,
        ChangeKind::OnlyOnOne,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::Regression => "passed → failed",
            ChangeKind::DifferenceGone => "expected difference → gone",
            ChangeKind::NewDifference => "new difference",
            ChangeKind::DifferenceNotNamedForThisVersion => {
                "difference persists, not named for this version"
            }
            ChangeKind::DifferenceChanged => "expected difference changed",
            ChangeKind::Fixed => "failed → passed",
            ChangeKind::FailureChanged => "failure changed",
            ChangeKind::OnlyOnOne => "ran on one version only",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct TraceChange {
    /// `tool added`, `tool removed`, `tool renamed`, `schema changed`, `event keys added`,
    /// `event keys removed`, `event value changed`, `request added`, `request removed`,
    /// `request body changed`, `MCP traffic changed`, `other`.
    pub group: String,
    pub what: String,
    pub scenarios: Vec<String>,
}

/// One scenario's outcome on one version: its report and normalized trace.
pub struct Run<'a> {
    pub report: &'a Report,
    pub trace: &'a str,
}

/// Target names in version order (a name that is not `family@semver` keeps its place at the end).
pub fn by_version<'a>(targets: &[&'a str]) -> Vec<&'a str> {
    let mut sorted = targets.to_vec();
    sorted.sort_by_key(|t| {
        let v = t
            .split_once('@')
            .and_then(|(_, v)| semver::Version::parse(v).ok());
        (v.is_none(), v)
    });
    sorted
}

/// One changelog per pair of consecutive versions among `targets`.
pub fn between_versions(runs: &[Report], targets: &[&str]) -> Vec<Changelog> {
    let of = |target: &str| -> Vec<Run<'_>> {
        runs.iter()
            .filter(|r| r.target == target)
            .map(|report| Run {
                report,
                trace: report.trace.as_deref().unwrap_or(""),
            })
            .collect()
    };
    by_version(targets)
        .windows(2)
        .map(|pair| between(pair[0], pair[1], &of(pair[0]), &of(pair[1])))
        .collect()
}

/// Compares the runs of `from` with those of `to`, scenario by scenario (by id).
pub fn between(from: &str, to: &str, before: &[Run], after: &[Run]) -> Changelog {
    let mut checks = Vec::new();
    let mut trace: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut compared = 0;
    for a in before.iter().filter(|r| r.report.status != Status::Skip) {
        let Some(b) = after
            .iter()
            .find(|r| r.report.id == a.report.id && r.report.status != Status::Skip)
        else {
            continue;
        };
        compared += 1;
        checks.extend(check_changes(a.report, b.report));
        for (group, what) in trace_changes(a.trace, b.trace) {
            trace
                .entry((group, what))
                .or_default()
                .push(a.report.id.clone());
        }
    }
    checks.sort_by(|x, y| (x.change, &x.scenario).cmp(&(y.change, &y.scenario)));
    let mut trace: Vec<TraceChange> = trace
        .into_iter()
        .map(|((group, what), scenarios)| TraceChange {
            group,
            what,
            scenarios,
        })
        .collect();
    trace.sort_by(|x, y| y.scenarios.len().cmp(&x.scenarios.len()).then(x.cmp(y)));
    Changelog {
        from: from.into(),
        to: to.into(),
        compared,
        checks,
        trace,
    }
}

/// The first `lines` lines of a failure that say something (a text diff's `---`, `+++` and `@@`
/// headers and its no-newline notes do not), joined with ` / `.
pub fn gist(detail: &str, lines: usize) -> String {
    detail
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !["---", "+++", "@@", "\\ No newline"]
                    .iter()
                    .any(|h| l.starts_with(h))
        })
        .take(lines)
        .collect::<Vec<_>>()
        .join(" / ")
}

fn state(c: &CheckOutcome) -> String {
    match (&c.expected_difference, c.ok) {
        (Some(why), _) => format!("expected difference: {why}"),
        (None, true) => "passed".into(),
        (None, false) => "failed".into(),
    }
}

fn check_changes(a: &Report, b: &Report) -> Vec<CheckChange> {
    let keyed = |r: &Report| -> BTreeMap<String, CheckOutcome> {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        r.checks
            .iter()
            .filter(|c| !TRACE_CHECKS.contains(&c.name.as_str()))
            .map(|c| {
                // Two checks may share a description; the n-th of a name pairs with the n-th.
                let n = seen.entry(c.name.clone()).or_default();
                *n += 1;
                let key = if *n == 1 {
                    c.name.clone()
                } else {
                    format!("{} #{n}", c.name)
                };
                (key, c.clone())
            })
            .collect()
    };
    let (before, after) = (keyed(a), keyed(b));
    let mut out = Vec::new();
    for name in before
        .keys()
        .chain(after.keys().filter(|k| !before.contains_key(*k)))
    {
        let change = match (before.get(name), after.get(name)) {
            (Some(x), Some(y)) => classify(x, y),
            _ => Some(ChangeKind::OnlyOnOne),
        };
        let Some(change) = change else { continue };
        let show = |c: Option<&CheckOutcome>| c.map(state).unwrap_or_else(|| "absent".into());
        out.push(CheckChange {
            scenario: a.id.clone(),
            check: name.clone(),
            change,
            before: show(before.get(name)),
            after: show(after.get(name)),
            detail: after
                .get(name)
                .filter(|c| !c.ok)
                .map(|c| gist(&c.detail, 2))
                .unwrap_or_default(),
        });
    }
    out
}

fn classify(x: &CheckOutcome, y: &CheckOutcome) -> Option<ChangeKind> {
    use ChangeKind::*;
    let gone = |c: &CheckOutcome| {
        c.detail
            .starts_with("expected difference no longer observed")
    };
    Some(
        match (&x.expected_difference, x.ok, &y.expected_difference, y.ok) {
            (None, true, None, true) => return None,
            (None, true, None, false) => Regression,
            (None, true, Some(_), _) => NewDifference,
            (None, false, None, true) => Fixed,
            (None, false, Some(_), _) => NewDifference,
            (None, false, None, false) if x.detail == y.detail => return None,
            (None, false, None, false) => FailureChanged,
            (Some(r), _, Some(s), _) if r == s => return None,
            (Some(_), _, Some(_), _) => DifferenceChanged,
            (Some(_), _, None, true) => DifferenceGone,
            (Some(_), _, None, false) if gone(y) => DifferenceGone,
            (Some(_), _, None, false) if y.named_for_other_versions.is_some() => {
                DifferenceNotNamedForThisVersion
            }
            (Some(_), _, None, false) => Regression,
        },
    )
}

/// The changes between two traces of one scenario, each as (group, what).
pub fn trace_changes(a: &str, b: &str) -> Vec<(String, String)> {
    if a == b {
        return Vec::new();
    }
    let (x, y) = (Sections::of(a), Sections::of(b));
    let mut out = Vec::new();
    let mut push = |group: &str, what: String| out.push((group.to_owned(), what));

    let removed: Vec<(&String, &String)> = x
        .tools
        .iter()
        .filter(|(n, _)| !y.tools.contains_key(*n))
        .collect();
    let added: Vec<(&String, &String)> = y
        .tools
        .iter()
        .filter(|(n, _)| !x.tools.contains_key(*n))
        .collect();
    let mut renamed_to = Vec::new();
    // A rename is one removed and one added tool with the same, non-empty parameters; tools
    // without parameters look alike and are listed as removed and added.
    let only_one = |list: &[(&String, &String)], params: &String| {
        list.iter().filter(|(_, p)| *p == params).count() == 1
    };
    for (old, params) in &removed {
        let twin = added.iter().find(|(_, p)| p == params).filter(|_| {
            !params.is_empty() && only_one(&removed, params) && only_one(&added, params)
        });
        match twin {
            Some((new, _)) => {
                renamed_to.push(*new);
                push("tool renamed", format!("{old} → {new}"));
            }
            None => push("tool removed", (*old).clone()),
        }
    }
    for (new, params) in &added {
        if !renamed_to.contains(new) {
            push("tool added", format!("{new}({params})"));
        }
    }
    for (name, params) in &x.tools {
        if let Some(now) = y.tools.get(name).filter(|p| *p != params) {
            push(
                "schema changed",
                format!("{name}({params}) → {name}({now})"),
            );
        }
    }
    for (group, from, other) in [("event keys removed", &x, &y), ("event keys added", &y, &x)] {
        for (kind, keys) in &from.event_keys {
            let there = other.event_keys.get(kind);
            let only: Vec<&str> = keys
                .iter()
                .filter(|k| there.is_none_or(|t| !t.contains(*k)))
                .map(String::as_str)
                .collect();
            if !only.is_empty() {
                push(group, format!("{kind}: {}", only.join(", ")));
            }
        }
    }
    // The version a binary reports always changes between versions; it says nothing.
    for (key, value) in x
        .event_values
        .iter()
        .filter(|(k, _)| !k.ends_with(" claude_code_version"))
    {
        if let Some(now) = y.event_values.get(key).filter(|v| *v != value) {
            push("event value changed", format!("{key}: {value} → {now}"));
        }
    }
    for (was, now, gone, new) in [
        (&x.requests, &y.requests, "request removed", "request added"),
        (&x.mcp, &y.mcp, "MCP traffic changed", "MCP traffic changed"),
    ] {
        for line in was.iter().filter(|l| !now.contains(*l)) {
            push(gone, format!("- {line}"));
        }
        for line in now.iter().filter(|l| !was.contains(*l)) {
            push(new, format!("+ {line}"));
        }
    }
    let body_gone: Vec<&String> = x.body.iter().filter(|l| !y.body.contains(*l)).collect();
    let body_new: Vec<&String> = y.body.iter().filter(|l| !x.body.contains(*l)).collect();
    for line in body_gone {
        push("request body changed", format!("- {line}"));
    }
    for line in body_new {
        push("request body changed", format!("+ {line}"));
    }
    let other = x.other.iter().filter(|l| !y.other.contains(*l)).count()
        + y.other.iter().filter(|l| !x.other.contains(*l)).count();
    if other > 0 {
        push(
            "other",
            "lines of the conversation or results changed".into(),
        );
    }
    out
}

/// A trace cut into the parts a changelog groups by.
#[derive(Default)]
struct Sections {
    /// Tool name → its parameter list, from `tool schemas`.
    tools: BTreeMap<String, String>,
    /// `system/init` → its keys (every variant of the event together).
    event_keys: BTreeMap<String, Vec<String>>,
    /// `system/init model` → its value.
    event_values: BTreeMap<String, String>,
    /// `other requests: …` and each request's method and path.
    requests: Vec<String>,
    /// `betas:` and `body …` lines, without their request number.
    body: Vec<String>,
    mcp: Vec<String>,
    other: Vec<String>,
}

impl Sections {
    fn of(trace: &str) -> Sections {
        let mut s = Sections::default();
        let mut in_schemas = false;
        let mut in_mcp = false;
        for line in trace.lines() {
            let top = !line.starts_with(' ');
            if top {
                in_schemas = line.starts_with("tool schemas");
                in_mcp = line.starts_with("mcp ");
            }
            let t = line.trim();
            if in_schemas && !top {
                if let Some((name, rest)) = t.split_once('(') {
                    let params = rest.strip_suffix(')').unwrap_or(rest);
                    s.tools.insert(name.to_owned(), params.to_owned());
                }
            } else if in_mcp {
                s.mcp.push(t.to_owned());
            } else if let Some((kind, keys)) = t.split_once(" keys: ") {
                let all = s.event_keys.entry(kind.to_owned()).or_default();
                for variant in keys.split(" | ") {
                    for key in top_level(variant) {
                        if !all.contains(&key) {
                            all.push(key);
                        }
                    }
                }
            } else if let Some(rest) = event_value(t) {
                let (key, value) = rest;
                s.event_values.insert(key, value);
            } else if t.starts_with("other requests")
                || t.starts_with("POST ")
                || t.starts_with("GET ")
                || t.starts_with("HEAD ")
            {
                s.requests.push(t.to_owned());
            } else if t.starts_with("betas:") || t.starts_with("body ") {
                if !s.body.contains(&t.to_owned()) {
                    s.body.push(t.to_owned());
                }
            } else if !t.starts_with("request ") {
                s.other.push(t.to_owned());
            }
        }
        s
    }
}

/// `system/init model: "x"` → (`system/init model`, `"x"`), for the init, result and rate-limit
/// value lines.
fn event_value(line: &str) -> Option<(String, String)> {
    let (head, value) = line.split_once(": ")?;
    let mut words = head.split(' ');
    let kind = words.next()?;
    let key = words.next()?;
    let known =
        kind.starts_with("system/") || kind.starts_with("result/") || kind == "rate_limit_event";
    (known && words.next().is_none()).then(|| (format!("{kind} {key}"), value.to_owned()))
}

/// The top-level keys of `a, b{c, d}, e`: `a`, `b{c, d}`, `e` (nested sets stay with their key).
fn top_level(keys: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, ch) in keys.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(keys[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(keys[start..].trim().to_owned());
    out.retain(|k| !k.is_empty());
    out
}

#[cfg(test)]
mod tests;
