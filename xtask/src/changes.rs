//! What changed between the versions of a real binary that one `cargo xtask probe` ran: the
//! check-level changelog between consecutive versions, and one line per version and scenario
//! for the scenarios whose outcome or trace moved.

use probes::report::changelog::{by_version, ChangeKind, Changelog};
use probes::report::Report;

/// Each changelog, checks first (grouped by kind of change), then the trace changes.
pub fn print(log: &Changelog) {
    println!(
        "\nchanges from {} to {} ({} scenarios ran on both):",
        log.from, log.to, log.compared
    );
    if log.checks.is_empty() && log.trace.is_empty() {
        println!("  none: every check and every trace is the same");
        return;
    }
    let mut kinds: Vec<ChangeKind> = log.checks.iter().map(|c| c.change).collect();
    kinds.dedup();
    for kind in kinds {
        let of_kind: Vec<_> = log.checks.iter().filter(|c| c.change == kind).collect();
        println!("  {} ({}):", kind.label(), of_kind.len());
        for c in of_kind {
            let detail = match kind {
                ChangeKind::DifferenceGone | ChangeKind::DifferenceChanged => &c.before,
                _ if !c.detail.is_empty() => &c.detail,
                _ => &c.after,
            };
            println!(
                "    {} / {}: {}",
                c.scenario,
                c.check,
                one_line(detail, 160)
            );
        }
    }
    if !log.trace.is_empty() {
        println!("  trace changes:");
        for t in &log.trace {
            println!(
                "    {:<20} {}  in {}",
                t.group,
                one_line(&t.what, 140),
                scenario_list(&t.scenarios)
            );
        }
    }
}

/// One line per version for every scenario whose outcome or trace changed across the versions,
/// read from the changelogs between consecutive versions; the unchanged ones are counted.
pub fn print_history(results: &[Report], targets: &[&str], changelogs: &[Changelog]) {
    let versions = by_version(targets);
    let mut ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    let mut steady = 0;
    let mut printed_header = false;
    for id in ids {
        let rows: Vec<(&str, &Report)> = versions
            .iter()
            .filter_map(|t| {
                results
                    .iter()
                    .find(|r| r.id == id && r.target == *t)
                    .map(|r| (*t, r))
            })
            .collect();
        // Per row after the first: what changed since the row above (`None`: nothing).
        let moved: Vec<Option<String>> = rows
            .windows(2)
            .map(|pair| {
                changelogs
                    .iter()
                    .find(|l| l.from == pair[0].0 && l.to == pair[1].0)
                    .and_then(|log| changed_since(log, id))
            })
            .collect();
        if moved.iter().all(Option::is_none) {
            steady += 1;
            continue;
        }
        if !printed_header {
            println!("\nhistory (one line per version; what changed since the line above):");
            printed_header = true;
        }
        println!("{id}");
        for (i, (t, r)) in rows.iter().enumerate() {
            let status = r.status.word();
            let diffs = match r.expected_differences() {
                0 => String::new(),
                n => format!("{n} expected≠"),
            };
            let since = match i.checked_sub(1).map(|p| moved[p].as_deref()) {
                None => "",
                Some(None) => "same",
                Some(Some(what)) => what,
            };
            println!(
                "{}",
                format!("  {:<16} {status} {diffs:<12} {since}", t).trim_end()
            );
        }
    }
    println!(
        "{steady} scenario{} the same on every version",
        if steady == 1 { " is" } else { "s are" }
    );
}

/// What `log` says changed in scenario `id`: `passed → failed: CHECK; trace: tools 2, …`, or
/// `None` when nothing did.
fn changed_since(log: &Changelog, id: &str) -> Option<String> {
    let mut parts: Vec<String> = log
        .checks
        .iter()
        .filter(|c| c.scenario == id)
        .map(|c| format!("{}: {}", c.change.label(), c.check))
        .collect();
    // Compact: how many trace changes of each family, not each line.
    let mut families: Vec<(&str, usize)> = Vec::new();
    for t in log
        .trace
        .iter()
        .filter(|t| t.scenarios.iter().any(|s| s == id))
    {
        let family = match t.group.as_str() {
            g if g.starts_with("tool ") => "tools",
            "schema changed" => "schemas",
            g if g.starts_with("event ") => "events",
            g if g.starts_with("request") => "requests",
            "MCP traffic changed" => "MCP",
            _ => "conversation",
        };
        match families.iter_mut().find(|(f, _)| *f == family) {
            Some((_, n)) => *n += 1,
            None => families.push((family, 1)),
        }
    }
    if !families.is_empty() {
        let f: Vec<String> = families.iter().map(|(f, n)| format!("{f} {n}")).collect();
        parts.push(format!("trace: {}", f.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn scenario_list(ids: &[String]) -> String {
    const SHOWN: usize = 3;
    let head = ids
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match ids.len() {
        1 => head,
        n if n <= SHOWN => format!("{n} scenarios ({head})"),
        n => format!("{n} scenarios ({head}, …)"),
    }
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}
