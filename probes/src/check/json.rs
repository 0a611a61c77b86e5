//! Checks that compare structured values by a JSON subset (`matches`): the stream-json
//! `tool_use_result` of a tool call, and what the mock claude.ai received (uploads, Design).
//!
//! In `matches`, an object names only the keys it cares about, an array must have the same length
//! and match element by element, other values must be equal (the run's paths redacted to `{cwd}`
//! and `{home}` first). Four string markers: `{absent}` (the key is missing or null), `{any}` (there,
//! any value), `{iso8601}` (a UTC timestamp like `2026-08-24T14:32:00.000Z`) and `{prefix:TEXT}`
//! (a string that starts with TEXT: a system prompt block that opens with a given prompt).

use serde_json::Value;

use super::expect::expected_seen;
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;
use crate::wire;

/// `tool_use_result`: the stream-json user event answering `tool_use_id` (`absent = true`: none
/// does, the call never ran).
pub fn tool_use_result(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let id = spec.tool_use_id.as_deref().unwrap_or_default();
    let events = wire::stdout_events(&run.stdout);
    let event = events.iter().filter(|e| e["type"] == "user").find(|e| {
        wire::blocks(&e["message"])
            .iter()
            .any(|b| b["tool_use_id"] == id)
    });
    if spec.absent == Some(true) {
        return match event {
            None => Ok(()),
            Some(_) => Err(format!("a stream-json user event answers `{id}`")),
        };
    }
    let event = event.ok_or_else(|| format!("no stream-json user event answers `{id}`"))?;
    let seen = redacted(run, &event["tool_use_result"]);
    if let Some(want) = &spec.matches {
        subset(want, &seen, "tool_use_result")?;
    }
    Ok(())
}

/// `uploads`: how many arrived (`equals`) and, order-free, one distinct upload per `matches` entry.
pub fn uploads(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let seen: Vec<Value> = run
        .uploads
        .iter()
        .map(|u| redacted(run, &serde_json::to_value(u).unwrap_or_default()))
        .filter(|u| {
            spec.path
                .as_deref()
                .is_none_or(|name| u["filename"] == name)
        })
        .collect();
    counted(spec, &seen, "uploads")?;
    distinct(spec, &seen, "uploads")
}

/// Order-free: each `matches` entry matches a run value no other entry took.
fn distinct(spec: &CheckSpec, seen: &[Value], what: &str) -> Result<(), String> {
    let mut taken = vec![false; seen.len()];
    for (i, want) in spec.matches.iter().flat_map(as_list).enumerate() {
        let hit = seen
            .iter()
            .enumerate()
            .find(|(j, u)| !taken[*j] && subset(want, u, what).is_ok());
        match hit {
            Some((j, _)) => taken[j] = true,
            None => {
                return Err(format!(
                    "none of the {what} matches entry {} of `matches`: {want}\n  {what} seen:\n{}",
                    i + 1,
                    listed(seen)
                ))
            }
        }
    }
    Ok(())
}

/// `design`: what the Design endpoints received, in order (optionally one endpoint, `path` = `mcp`,
/// `consent` or `grants`, and one `method` only): how many (`equals`) and what (`matches`, the
/// whole ordered list).
pub fn design(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let seen: Vec<Value> = run
        .design
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .filter(|r| spec.path.as_deref().is_none_or(|e| r["endpoint"] == e))
        .filter(|r| match spec.method.as_deref() {
            None => true,
            Some(m) => r["rpc"] == m || (r["rpc"].is_null() && r["http_method"] == m),
        })
        .collect();
    ordered(spec, run, &seen, "Design requests")
}

/// `project`: what the Projects API received on either transport, in order (optionally one
/// operation, `method`): how many (`equals`) and what (`matches`, the whole ordered list).
pub fn project(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    of_one_kind(spec, run, &run.project, "op", "Projects API requests")
}

/// `artifact`: what the artifact routes received, in order (optionally one operation, `method`):
/// how many (`equals`) and what (`matches`, the whole ordered list).
pub fn artifact(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    of_one_kind(spec, run, &run.artifact, "op", "artifact requests")
}

/// `directory`: what the directory routes received, in order (optionally one route, `method`):
/// how many (`equals`) and what (`matches`, the whole ordered list).
pub fn directory(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    of_one_kind(spec, run, &run.directory, "route", "directory requests")
}

/// A mock's requests, only those whose `field` is the check's `method` when it names one.
fn of_one_kind<T: serde::Serialize>(
    spec: &CheckSpec,
    run: &RunOutcome,
    requests: &[T],
    field: &str,
    what: &str,
) -> Result<(), String> {
    let seen: Vec<Value> = requests
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .filter(|r| spec.method.as_deref().is_none_or(|m| r[field] == m))
        .collect();
    ordered(spec, run, &seen, what)
}

/// `project_state`: the Project after the run, against `matches`, or exactly as seeded
/// (`unchanged`).
pub fn project_state(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let (Some(before), Some(after)) = (&run.project_seeded, &run.project_state) else {
        return Err("the scenario attaches no `[project]`".into());
    };
    let after_json = serde_json::to_value(after).unwrap_or_default();
    if spec.unchanged == Some(true) && before != after {
        return Err(format!(
            "the Project changed\n  seeded: {}\n  after:  {}",
            serde_json::to_value(before).unwrap_or_default(),
            after_json
        ));
    }
    if let Some(want) = &spec.matches {
        subset(want, &redacted(run, &after_json), "project")?;
    }
    Ok(())
}

/// `site`: what the `[[site]]` hosts and the domain preflight received, in order (optionally one
/// kind, `method` = `page` or `preflight`).
pub fn site(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let seen: Vec<Value> = run
        .site
        .iter()
        .filter(|r| spec.method.as_deref().is_none_or(|m| r.kind == m))
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect();
    ordered(spec, run, &seen, "site requests")
}

/// `hooks`: the hook recorder's runs, in start order, optionally of one `event`.
pub fn hooks(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let seen: Vec<Value> = run
        .hooks
        .iter()
        .filter(|h| spec.event.as_deref().is_none_or(|e| h.event == e))
        .filter(|h| spec.label.as_deref().is_none_or(|l| h.label == l))
        .map(|h| serde_json::to_value(h).unwrap_or_default())
        .collect();
    ordered(spec, run, &seen, "hook runs")
}

/// `oauth`: the token endpoint's requests, in order.
pub fn oauth(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let seen: Vec<Value> = run
        .token_requests
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect();
    ordered(spec, run, &seen, "token requests")
}

/// A recorded list against `equals` (its length) and `matches` (the whole list, in order; with
/// `unordered = true` each entry its own item, in any order).
fn ordered(spec: &CheckSpec, run: &RunOutcome, seen: &[Value], what: &str) -> Result<(), String> {
    let seen: Vec<Value> = seen.iter().map(|v| redacted(run, v)).collect();
    counted(spec, &seen, what)?;
    // `unordered = true`: each entry its own item, in any order (things sent at once).
    if spec.unordered == Some(true) {
        return distinct(spec, &seen, what);
    }
    if let Some(want) = &spec.matches {
        subset(want, &Value::Array(seen.clone()), what)
            .map_err(|e| format!("{e}\n  {what} seen:\n{}", listed(&seen)))?;
    }
    Ok(())
}

/// `equals`: how many there were.
pub(super) fn counted(spec: &CheckSpec, seen: &[Value], what: &str) -> Result<(), String> {
    match spec.equals.as_ref().and_then(Value::as_u64) {
        Some(want) if seen.len() as u64 != want => Err(format!(
            "{} {what}\n{}",
            expected_seen(want, seen.len()),
            listed(seen)
        )),
        _ => Ok(()),
    }
}

/// One recorded value a line, for a failure's detail.
pub(super) fn listed(seen: &[Value]) -> String {
    seen.iter()
        .map(|u| format!("  {u}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn as_list(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    }
}

pub(super) fn redacted(run: &RunOutcome, v: &Value) -> Value {
    let text = crate::account::redact(&run.places.redact(&v.to_string()));
    serde_json::from_str(&text).unwrap_or_else(|_| v.clone())
}

/// Whether `seen` has everything `want` states; the error names the first path that differs.
pub fn subset(want: &Value, seen: &Value, path: &str) -> Result<(), String> {
    match want {
        Value::Object(fields) => {
            for (key, w) in fields {
                let here = format!("{path}.{key}");
                match (w.as_str(), seen.get(key)) {
                    (Some("{absent}"), None | Some(Value::Null)) => {}
                    (Some("{absent}"), Some(v)) => {
                        return Err(format!("{here}: expected absent, seen {v}"))
                    }
                    (_, None) => return Err(format!("{here}: missing (seen {seen})")),
                    (_, Some(v)) => subset(w, v, &here)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let seen_items = seen
                .as_array()
                .ok_or_else(|| format!("{path}: expected an array, seen {seen}"))?;
            if seen_items.len() != items.len() {
                return Err(format!(
                    "{path}: expected {} items, seen {}\n  seen: {seen}",
                    items.len(),
                    seen_items.len()
                ));
            }
            for (i, (w, s)) in items.iter().zip(seen_items).enumerate() {
                subset(w, s, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        Value::String(marker) if marker == "{any}" => Ok(()),
        Value::String(marker) if marker.starts_with("{prefix:") && marker.ends_with('}') => {
            let prefix = &marker["{prefix:".len()..marker.len() - 1];
            match seen.as_str() {
                Some(s) if s.starts_with(prefix) => Ok(()),
                _ => Err(format!(
                    "{path}: expected a string starting {prefix:?}, seen {seen}"
                )),
            }
        }
        Value::String(marker) if marker == "{iso8601}" => match seen.as_str() {
            Some(s) if is_iso8601(s) => Ok(()),
            _ => Err(format!("{path}: expected a UTC timestamp, seen {seen}")),
        },
        _ if want == seen => Ok(()),
        _ => Err(format!("{path}: {}", expected_seen(want, seen))),
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, as JavaScript's `toISOString` writes it.
fn is_iso8601(s: &str) -> bool {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    b.len() == 24
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]
            .iter()
            .all(|&i| digit(i))
        && [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ]
        .iter()
        .all(|&(i, c)| b[i] == c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_subset_names_the_first_path_that_differs() {
        let seen = json!({"a": [{"x": 1, "y": 2}], "t": "2026-08-24T14:32:00.000Z"});
        assert!(subset(&json!({"a": [{"x": 1}], "t": "{iso8601}"}), &seen, "r").is_ok());
        assert!(subset(&json!({"b": "{absent}", "a": "{any}"}), &seen, "r").is_ok());
        let e = subset(&json!({"a": [{"x": 2}]}), &seen, "r").unwrap_err();
        assert!(e.starts_with("r.a[0].x: expected 2, seen 1"), "{e}");
        let e = subset(&json!({"a": []}), &seen, "r").unwrap_err();
        assert!(e.contains("expected 0 items"), "{e}");
        assert!(subset(&json!({"a": "{absent}"}), &seen, "r").is_err());
        assert!(subset(&json!({"t": "{iso8601}"}), &json!({"t": "2026-08-24"}), "r").is_err());
        assert!(subset(&json!({"t": "{prefix:2026-08}"}), &seen, "r").is_ok());
        let e = subset(&json!({"t": "{prefix:2025}"}), &seen, "r").unwrap_err();
        assert!(
            e.starts_with("r.t: expected a string starting \"2025\""),
            "{e}"
        );
    }
}
