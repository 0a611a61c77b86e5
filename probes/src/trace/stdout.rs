//! What the target printed and asked: stdout's events by kind with their key shapes and the
//! bookends' values, and each question put to the user with its answer.

use std::fmt::Write as _;

use serde_json::Value;

use super::redact::redact;
use super::shape::{keys, keys_and_values, sorted_entries};
use crate::outcome::RunOutcome;
use crate::wire;

/// Event keys whose values change from run to run (ids, clocks, a racy sum), or are traced on a
/// line of their own (`result`).
const VOLATILE_EVENT_KEYS: &[&str] = &[
    "session_id",
    "uuid",
    "type",
    "subtype",
    "cwd",
    "result",
    "duration_ms",
    "duration_api_ms",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    // Summed when the result prints: an agent's last request may land before or after that
    // (`agents.loop`); `modelUsage` carries each model's cost.
    "total_cost_usd",
    // A remote session's init reports how long each start-up phase took.
    "startup_timing",
    // 2.1.332's result reports how long each stage of building its requests took.
    "input_attachments_detail",
    "message_normalization_detail",
    "request_build_detail",
    // The process's major page faults before its first request: the machine's state, not the
    // run's (it flipped between 0 and 1 on one scenario across two runs).
    "time_to_request_major_faults",
    "tool_schema_build_detail",
];

/// What the target asked the user, each with the answer: the card as a terminal showed it, or
/// the input a control request carried.
pub(super) fn asked(run: &RunOutcome, out: &mut String) {
    if run.asked.is_empty() {
        return;
    }
    writeln!(out, "asked:").unwrap();
    for ask in &run.asked {
        writeln!(out, "  {} → {}", ask.tool, ask.outcome).unwrap();
        for line in without_description(&redact(run, &ask.text)).lines() {
            writeln!(out, "    | {}", line.trim_end()).unwrap();
        }
    }
}

/// A generic tool card quotes the tool's own description (its prose, not a fact a check names):
/// the quoted lines above `(ctrl+o to expand description)` are kept as one placeholder.
fn without_description(card: &str) -> String {
    let lines: Vec<&str> = card.lines().collect();
    let Some(end) = lines
        .iter()
        .position(|l| l.trim() == "(ctrl+o to expand description)")
    else {
        return card.to_owned();
    };
    let start = (0..end)
        .rev()
        .take_while(|&i| lines[i].trim_start().starts_with('│'))
        .last()
        .unwrap_or(end);
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.push("   │ {tool description}".into());
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    out.join("\n")
}

/// The stream-json events: counts per kind and the key shapes each kind showed.
pub(super) fn stream_events(run: &RunOutcome, events: &[Value], out: &mut String) {
    // Counts, not the interleaving: the real binary emits a tool's result while later blocks still
    // stream, so the order of assistant and user events depends on timing. Scenarios that document
    // an order check it with an `events` check. Keys are shown for each kind's first event.
    // Every key shape a kind showed, sorted: parallel results arrive in any order, and a failed
    // tool's event has a differently shaped `tool_use_result` than a successful one.
    let mut kinds: Vec<(String, usize, Vec<String>)> = Vec::new();
    for event in events {
        let kind = wire::event_kind(event);
        // A heartbeat every 30 s of a running tool: whether one fires before a tool that takes
        // about that long ends is timing, so it never enters the trace.
        if kind == "tool_progress" {
            continue;
        }
        let shape = keys(event, 2);
        match kinds.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, n, shapes)) => {
                *n += 1;
                if !shapes.contains(&shape) {
                    shapes.push(shape);
                }
            }
            None => kinds.push((kind, 1, vec![shape])),
        }
    }
    if run.network == crate::scenario::Network::Isolated {
        // In a first-party session the rate-limit event races the init event.
        kinds.sort_by_key(|(k, _, _)| k == "rate_limit_event");
    }
    let counts: Vec<String> = kinds.iter().map(|(k, n, _)| format!("{k} ×{n}")).collect();
    writeln!(out, "stdout: {}", counts.join(", ")).unwrap();
    for (kind, _, shapes) in &mut kinds {
        shapes.sort();
        writeln!(out, "  {kind} keys: {}", shapes.join(" | ")).unwrap();
    }
    // What a host reads from the session's bookends: init's declarations and the result's outcome.
    // In the order of the counts line (which is stable where the events race), each kind's first.
    for (kind, _, _) in &kinds {
        if !(kind == "system/init" || kind.starts_with("result/") || kind == "rate_limit_event") {
            continue;
        }
        let Some(event) = events.iter().find(|e| wire::event_kind(e) == *kind) else {
            continue;
        };
        // A line per key, so a difference in one value is one line of a diff.
        for (key, value) in sorted_entries(event) {
            // Any `*_ms` value is a clock reading (2.1.304 adds `first_content_frame_ms`).
            if !VOLATILE_EVENT_KEYS.contains(&key) && !key.ends_with("_ms") {
                let value = redact(run, &keys_and_values(value));
                writeln!(out, "  {kind} {key}: {value}").unwrap();
            }
        }
    }

    // `stdout_events` keeps a line that is not JSON as a string.
    let plain: Vec<&str> = events.iter().filter_map(Value::as_str).collect();
    if !plain.is_empty() {
        writeln!(out, "stdout text:").unwrap();
        for line in plain {
            writeln!(out, "  {}", redact(run, line)).unwrap();
        }
    }
}
