//! The session files a run of several steps left in HOME: each record's type, what it chains
//! to, and what it carries, then the key order each type showed, so two targets' transcripts
//! are compared record for record without their ids and clocks.

use std::fmt::Write as _;

use serde_json::Value;

use super::redact::redact;
use crate::outcome::RunOutcome;

pub(super) fn sessions(run: &RunOutcome, out: &mut String) {
    if run.steps.is_empty() || run.sessions.is_empty() {
        return;
    }
    // An interactive session's file is another format, which the reference does not write, and
    // 2.1.235's differed from run to run (record count and order) under the same script: a
    // terminal's files are for `transcript` checks, not the trace.
    if run.channel == crate::scenario::Channel::Pty {
        writeln!(out, "session files: a terminal's ({})", run.sessions.len()).unwrap();
        return;
    }
    let names = run.session_names();
    writeln!(out, "session files:").unwrap();
    // By their names as the trace shows them: the ids they are sorted by on disk are fresh.
    let mut files: Vec<(String, &crate::sessions::SessionFile)> = run
        .sessions
        .iter()
        .map(|file| {
            let mut path = file.path.clone();
            for (id, step) in &names {
                path = path.replace(id, &format!("{{session_id:{step}}}"));
            }
            (path, file)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, file) in files {
        if !(file.path.ends_with(".jsonl") || file.path.ends_with(".json")) {
            // A script or other text kept beside the records: its size only.
            writeln!(
                out,
                "  {}: {} lines",
                redact(run, &path),
                file.text.lines().count()
            )
            .unwrap();
            continue;
        }
        let records = crate::sessions::normalize(&file.records(), &names);
        writeln!(out, "  {}: {} records", redact(run, &path), records.len()).unwrap();
        let mut shapes: Vec<(String, Vec<String>)> = Vec::new();
        for record in &records {
            // A conversational record by its place in the chain's numbering, bookkeeping by `-`.
            let place = record["uuid"].as_str().unwrap_or("-");
            writeln!(out, "    {place} {}", redact(run, &summary(record))).unwrap();
            let Some(o) = record.as_object() else {
                continue;
            };
            let kind = match record.get("type") {
                Some(_) => crate::sessions::record_kind(record),
                None => "data".into(),
            };
            let keys: Vec<String> = o.keys().cloned().collect();
            if !shapes.iter().any(|(k, s)| *k == kind && *s == keys) {
                shapes.push((kind, keys));
            }
        }
        for (kind, keys) in shapes {
            writeln!(out, "    {kind} keys: {}", keys.join(", ")).unwrap();
        }
    }
}

/// One record on a line: its type and sub-kind, its parent, and what it says in brief.
fn summary(r: &Value) -> String {
    let Some(kind) = r["type"].as_str() else {
        // A file of data rather than records (an agent's `.meta.json`): its values.
        return match r.as_object() {
            Some(o) => format!(
                "data {}",
                o.iter()
                    .map(|(k, v)| match v.to_string() {
                        // Clocks and a run's fresh task id differ from run to run.
                        _ if k.ends_with("Time") || k.ends_with("Ms") => format!("{k}={{n}}"),
                        _ if k == "taskId" => format!("{k}={{task_id}}"),
                        t if t.chars().count() <= 60 => format!("{k}={t}"),
                        // A long structure by its shape: what is inside may hold clocks.
                        _ if v.is_object() => format!(
                            "{k}={{{}}}",
                            v.as_object()
                                .map(|o| o.keys().cloned().collect::<Vec<_>>().join(", "))
                                .unwrap_or_default()
                        ),
                        _ if v.is_array() =>
                            format!("{k}=[{} items]", v.as_array().map_or(0, Vec::len)),
                        t => format!("{k}=({} chars)", t.chars().count()),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => format!("not a record: {}", short(&r.to_string())),
        };
    };
    let mut line = kind.to_owned();
    for sub in ["operation", "subtype"] {
        if let Some(s) = r[sub].as_str() {
            line.push_str(&format!("/{s}"));
        }
    }
    if let Some(s) = r["attachment"]["type"].as_str() {
        line.push_str(&format!("({s})"));
    }
    if let Some(parent) = r.get("parentUuid") {
        line.push_str(&format!(" ← {}", parent.as_str().unwrap_or("null")));
    }
    if r["isSidechain"] == true {
        line.push_str(" sidechain");
    }
    let message = &r["message"];
    match &message["content"] {
        Value::String(s) => line.push_str(&format!(" {}: {}", role(message), short(s))),
        Value::Array(blocks) => {
            let parts: Vec<String> = blocks.iter().map(block).collect();
            line.push_str(&format!(" {}: {}", role(message), parts.join(", ")));
        }
        _ => {}
    }
    if let Some(s) = r["content"].as_str() {
        line.push_str(&format!(" {}", short(s)));
    }
    line
}

fn role(message: &Value) -> &str {
    message["role"].as_str().unwrap_or("?")
}

fn block(b: &Value) -> String {
    match b["type"].as_str().unwrap_or("?") {
        "text" => format!("text {}", short(b["text"].as_str().unwrap_or(""))),
        "tool_use" => format!(
            "tool_use {} {}",
            b["name"].as_str().unwrap_or("?"),
            b["id"].as_str().unwrap_or("?")
        ),
        "tool_result" => format!(
            "tool_result {}{}",
            b["tool_use_id"].as_str().unwrap_or("?"),
            if b["is_error"] == true { " error" } else { "" }
        ),
        other => other.to_owned(),
    }
}

/// A short text quoted, a long one as its length (reminders and prompts are prose).
fn short(s: &str) -> String {
    if s.chars().count() <= 60 {
        format!("{s:?}")
    } else {
        format!("({} chars)", s.chars().count())
    }
}
