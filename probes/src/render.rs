//! The two projections of one recorded run that Brief mode separates (seed 001, "main view vs
//! transcript"): the brief main view shows only what reached the user through SendUserMessage, with
//! its attachment cards, and counts what it hides; the transcript shows everything in order. Both
//! are built from the stream-json a target printed, so they render any target's run alike.
//! The layout is ours; what each view includes is the seed's.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::wire;

const TOOL: &str = "SendUserMessage";

/// The brief main view: a `Claude` card per delivered message with its attachments, then how
/// many messages the view hid.
pub fn brief_view(stdout: &str) -> String {
    let events = wire::stdout_events(stdout);
    let calls = tool_calls(&events);
    let mut out = String::new();
    let mut hidden = 0;
    for event in &events {
        match event["type"].as_str() {
            Some("assistant") => {
                hidden += wire::blocks(&event["message"])
                    .iter()
                    .filter(|b| b["type"] == "text")
                    .filter(|b| !b["text"].as_str().unwrap_or("").trim().is_empty())
                    .count();
            }
            Some("user") => {
                let result = &event["tool_use_result"];
                let call = wire::blocks(&event["message"])
                    .iter()
                    .filter_map(|b| calls.get(b["tool_use_id"].as_str()?))
                    .find(|c| c["name"] == TOOL)
                    .copied();
                // A refused call (its result is an error text) delivered nothing.
                let Some(call) = call.filter(|_| result.is_object()) else {
                    continue;
                };
                if !out.is_empty() {
                    out.push('\n');
                }
                let label = if call["input"]["status"] == "proactive" {
                    "Claude (proactive)"
                } else {
                    "Claude"
                };
                writeln!(out, "{label}").unwrap();
                for line in result["message"].as_str().unwrap_or("").trim_end().lines() {
                    writeln!(out, "{line}").unwrap();
                }
                for attachment in result["attachments"].as_array().into_iter().flatten() {
                    writeln!(out, "  {}", card(attachment)).unwrap();
                }
            }
            _ => {}
        }
    }
    if hidden > 0 {
        let noun = if hidden == 1 { "message" } else { "messages" };
        if !out.is_empty() {
            out.push('\n');
        }
        writeln!(out, "({hidden} {noun} hidden; see the transcript)").unwrap();
    }
    out
}

/// An attachment card: a local file link only for an absolute, validated, non-network path.
fn card(attachment: &Value) -> String {
    let path = attachment["path"]
        .as_str()
        .or(attachment["file_name"].as_str())
        .unwrap_or("?");
    let name = path.rsplit('/').next().unwrap_or(path);
    let local = attachment["pathValidated"] == true
        && path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/net/");
    if local {
        format!("[file] {name}")
    } else {
        format!("[attachment] {name}")
    }
}

/// The transcript: every text, tool call, tool result and client message, in order.
pub fn transcript(stdout: &str) -> String {
    let events = wire::stdout_events(stdout);
    let mut out = String::new();
    for event in &events {
        let blocks = wire::blocks(&event["message"]);
        match event["type"].as_str() {
            Some("assistant") => {
                for b in blocks {
                    match b["type"].as_str() {
                        // An empty text block is no message, in either view.
                        Some("text")
                            if b["text"].as_str().is_some_and(|t| !t.trim().is_empty()) =>
                        {
                            entry(&mut out, "Claude: ", b["text"].as_str().unwrap_or(""))
                        }
                        Some("tool_use") => writeln!(
                            out,
                            "tool_use {} {}",
                            b["id"].as_str().unwrap_or("?"),
                            b["name"].as_str().unwrap_or("?")
                        )
                        .unwrap(),
                        _ => {}
                    }
                }
            }
            Some("user") => {
                for b in blocks {
                    if b["type"] == "tool_result" {
                        let head = format!(
                            "tool_result {}{}: ",
                            b["tool_use_id"].as_str().unwrap_or("?"),
                            if wire::is_error(b) { " (error)" } else { "" }
                        );
                        entry(&mut out, &head, &wire::tool_result_text(b));
                    } else if let Some(text) = b["text"].as_str() {
                        let head = if event["isMeta"] == true {
                            "client (meta): "
                        } else {
                            "client: "
                        };
                        entry(&mut out, head, text);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `head` then the text, continuation lines indented under it.
fn entry(out: &mut String, head: &str, text: &str) {
    let mut lines = text.trim_end().lines();
    writeln!(out, "{head}{}", lines.next().unwrap_or("")).unwrap();
    for line in lines {
        writeln!(out, "  {line}").unwrap();
    }
}

/// tool_use id → its block (name and input), from the assistant events.
fn tool_calls(events: &[Value]) -> BTreeMap<&str, &Value> {
    events
        .iter()
        .filter(|e| e["type"] == "assistant")
        .flat_map(|e| wire::blocks(&e["message"]))
        .filter(|b| b["type"] == "tool_use")
        .filter_map(|b| Some((b["id"].as_str()?, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's weekly report as stream-json: the plain text hides, both messages show, the
    /// failed file still gets its local card.
    #[test]
    fn the_weekly_report_views() {
        let stdout = [
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"The report is ready."}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"send_weekly_01","name":"SendUserMessage","input":{}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"send_weekly_01","content":"Message delivered to user. (1 attachment included)"}]},"tool_use_result":{"message":"Report attached.","attachments":[{"path":"/w/out/report.pdf","pathValidated":true,"file_uuid":"f"},{"path":"/w/out/raw.csv","pathValidated":true,"upload_error":"upload failed: server returned 503"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"send_weekly_02","name":"SendUserMessage","input":{}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"send_weekly_02","content":"Message delivered to user."}]},"tool_use_result":{"message":"raw.csv is only on this desktop."}}"#,
        ]
        .join("\n");
        assert_eq!(
            brief_view(&stdout),
            "Claude\nReport attached.\n  [file] report.pdf\n  [file] raw.csv\n\nClaude\nraw.csv is only on this desktop.\n\n(1 message hidden; see the transcript)\n"
        );
        let transcript = transcript(&stdout);
        assert!(transcript.starts_with("Claude: The report is ready.\ntool_use send_weekly_01 SendUserMessage\ntool_result send_weekly_01: Message delivered"), "{transcript}");
        assert_eq!(transcript.lines().count(), 5);
    }
}
