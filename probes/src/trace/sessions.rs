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
        let mut records = crate::sessions::normalize(&once_each(file.records()), &names);
        records.retain(|r| {
            r.get("type").is_none() || !UNTRACED.contains(&crate::sessions::record_kind(r).as_str())
        });
        // Counted without the timed records: how many of those a run writes is the timer's doing.
        let counted = records
            .iter()
            .filter(|r| {
                r.get("type").is_none()
                    || !TIMED.contains(&crate::sessions::record_kind(r).as_str())
            })
            .count();
        writeln!(out, "  {}: {counted} records", redact(run, &path)).unwrap();
        let mut shapes: Vec<(String, Vec<String>)> = Vec::new();
        let mut timed: std::collections::BTreeSet<String> = Default::default();
        for record in &records {
            let Some(o) = record.as_object() else {
                writeln!(out, "    - {}", redact(run, &summary(record))).unwrap();
                continue;
            };
            let kind = match record.get("type") {
                Some(_) => crate::sessions::record_kind(record),
                None => "data".into(),
            };
            let keys: Vec<String> = o.keys().cloned().collect();
            if !shapes.iter().any(|(k, s)| *k == kind && *s == keys) {
                shapes.push((kind.clone(), keys));
            }
            if TIMED.contains(&kind.as_str()) {
                timed.insert(kind);
                continue;
            }
            // A conversational record by its place in the chain's numbering, bookkeeping by `-`.
            let place = record["uuid"].as_str().unwrap_or("-");
            writeln!(out, "    {place} {}", redact(run, &summary(record))).unwrap();
        }
        if !timed.is_empty() {
            let kinds: Vec<&str> = timed.iter().map(String::as_str).collect();
            writeln!(out, "    written on a timer: {}", kinds.join(", ")).unwrap();
        }
        // Timed records' shapes last, by kind: when they first appear is the timer's doing.
        shapes.sort_by_key(|(kind, _)| TIMED.contains(&kind.as_str()).then(|| kind.clone()));
        for (kind, keys) in shapes {
            writeln!(out, "    {kind} keys: {}", keys.join(", ")).unwrap();
        }
    }
}

/// Bookkeeping 2.1.235 writes on a timer of its own, so where it falls among the other records,
/// and how often a `last-prompt` is noted mid-turn, change from run to run under the same script
/// (recorded: compact.restore/resume and /resume-auto, session.*; on 2.1.332 how many of them a
/// file holds too): the trace names the kinds instead of placing or counting them.
const TIMED: &[&str] = &[
    "atis-latch",
    "last-prompt",
    "mode",
    // 2.1.332's note of which process owns the session, written when it gets to it.
    "session-owner",
];

/// Records 2.1.332 logs its requests in, on a timer of their own: whether a run's file holds any
/// at all varies, so the trace leaves them out (the record keeps the file whole).
const UNTRACED: &[&str] = &["api-request", "api-request-blob"];

/// The records with a conversational record written again kept once, as first written: 2.1.235's
/// flush races its compaction's and wrote a stretch of records twice (same uuids; the second time
/// with the `slug` it adds after a compaction) in some runs and once in others (recorded:
/// compact.restore/resume-auto). A uuid names one record.
fn once_each(records: Vec<Value>) -> Vec<Value> {
    let mut ids = std::collections::HashSet::new();
    records
        .into_iter()
        .filter(|r| match r["uuid"].as_str() {
            Some(id) => ids.insert(id.to_owned()),
            None => true,
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn trace_of(lines: &[&str]) -> String {
        let mut run = RunOutcome::blank();
        run.steps.push(crate::outcome::StepRun {
            name: "one".into(),
            command: Vec::new(),
            exit_code: Some(0),
            timed_out: false,
            stdout: String::new(),
            stderr: String::new(),
            stdin: Vec::new(),
        });
        run.sessions.push(crate::sessions::SessionFile {
            path: "p/s.jsonl".into(),
            text: lines.join("\n"),
        });
        let mut out = String::new();
        sessions(&run, &mut out);
        out
    }

    #[test]
    fn records_written_on_a_timer_are_named_wherever_and_however_often_they_fell() {
        let prompt = r#"{"type":"last-prompt","lastPrompt":"x"}"#;
        let latch = r#"{"type":"atis-latch","atis":1}"#;
        let mode = r#"{"type":"mode","mode":"default"}"#;
        let early = trace_of(&[latch, mode, prompt]);
        let late = trace_of(&[prompt, mode, latch]);
        assert_eq!(early, late);
        let twice = trace_of(&[prompt, mode, latch, prompt]);
        assert_eq!(early, twice);
        assert!(early.contains(": 0 records"), "{early}");
        assert!(
            early.contains("written on a timer: atis-latch, last-prompt, mode"),
            "{early}"
        );
        assert!(!early.contains("- atis-latch") && !early.contains("- last-prompt"));
    }

    #[test]
    fn a_record_written_twice_is_shown_once_as_first_written() {
        let answer = r#"{"type":"assistant","uuid":"u1","message":{"content":[]}}"#;
        let again = r#"{"type":"assistant","uuid":"u1","message":{"content":[]},"slug":"a-b-c"}"#;
        let next = r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","message":{"content":[]}}"#;
        let once = trace_of(&[answer, next]);
        assert_eq!(trace_of(&[answer, again, next]), once);
        assert!(once.contains(": 2 records"), "{once}");
        assert!(!once.contains("slug"), "{once}");
    }
}
