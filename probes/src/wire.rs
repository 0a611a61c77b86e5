//! Read-only views of what crossed the wires in one run: main-loop request bodies, stream-json
//! stdout events, and helpers to find tool_use / tool_result blocks in them.

use serde_json::Value;

/// The string leaves of a JSON value, one per line, in document order: every text it carries,
/// wherever it sits (a tool input, a message's blocks and results).
pub fn string_leaves(value: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out.join("\n")
}

/// One main-loop Messages request body.
#[derive(Debug, Clone)]
pub struct Request<'a>(pub &'a Value);

impl<'a> Request<'a> {
    pub fn tool_names(&self) -> Vec<&'a str> {
        self.0["tools"]
            .as_array()
            .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default()
    }

    /// `tools[]` as the trace shows it: each name, `(deferred)` after a `defer_loading` one
    /// (a deferred tool loaded by tool search).
    pub fn tool_labels(&self) -> Vec<String> {
        self.0["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let name = t["name"].as_str()?;
                Some(if t["defer_loading"] == true {
                    format!("{name}(deferred)")
                } else {
                    name.to_owned()
                })
            })
            .collect()
    }

    /// The `tools[]` entry named `name`.
    pub fn tool(&self, name: &str) -> Option<&'a Value> {
        self.0["tools"]
            .as_array()?
            .iter()
            .find(|t| t["name"] == name)
    }

    /// The system prompt as one text (blocks joined by newlines).
    pub fn system_text(&self) -> String {
        match &self.0["system"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    pub fn messages(&self) -> &'a [Value] {
        self.0["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Every tool_result block in this request, with the index of the message that holds it.
    pub fn tool_results(&self) -> Vec<(usize, &'a Value)> {
        let mut out = Vec::new();
        for (i, message) in self.messages().iter().enumerate() {
            for block in blocks(message) {
                if block["type"] == "tool_result" {
                    out.push((i, block));
                }
            }
        }
        out
    }
}

/// The content blocks of a message; a string content counts as one text block.
pub fn blocks(message: &Value) -> Vec<&Value> {
    match &message["content"] {
        Value::Array(items) => items.iter().collect(),
        Value::String(_) => vec![&message["content"]],
        _ => vec![],
    }
}

/// The text of a tool_result's `content`, whether a string or text blocks; a `tool_reference`
/// block (a tool ToolSearch loaded) reads `tool_reference:<name>`.
pub fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| match b["type"].as_str() {
                Some("tool_reference") => Some(format!(
                    "tool_reference:{}",
                    b["tool_name"].as_str().unwrap_or_default()
                )),
                _ => b["text"].as_str().map(str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The tool's own result: the text without the context notes the client appended after it (the
/// real binary ends the last result of a message with `<system-reminder>`s: the remaining token
/// budget, a task nudge, plan mode). Checks compare this; traces show the notes apart.
pub fn tool_result_own_text(block: &Value) -> String {
    // 2.1.332 may append its notes as text blocks of their own inside the result's content.
    let mut own = block.clone();
    let mut popped = false;
    if let Some(items) = own["content"].as_array_mut() {
        while items.last().is_some_and(|b| {
            b["text"]
                .as_str()
                .is_some_and(|t| split_appended_reminder(&format!("\n\n{t}")).0.is_empty())
        }) {
            items.pop();
            popped = true;
        }
    }
    let text = tool_result_text(&own);
    // As a note after the text does, a note in a block of its own takes the line break the
    // text ends with (a result "3\n" then a note reads "3", whichever way it came).
    let text = match popped {
        true => text.strip_suffix('\n').unwrap_or(&text).to_owned(),
        false => text,
    };
    split_appended_reminder(&text).0.to_owned()
}

/// `text` as (the tool's own text, the `\n\n<system-reminder>…` notes the client appended, in
/// order). A note is the client's only if its kind is one a client appends to a round
/// (`reminders::APPENDED`): a rule a Read brought in is part of the result a check looks at.
pub fn split_appended_reminder(text: &str) -> (&str, Vec<&str>) {
    let mut own = text.trim_end();
    let mut notes = Vec::new();
    while let Some(at) = own.rfind("\n\n<system-reminder>") {
        let note = &own[at + 2..];
        let single =
            note.ends_with("</system-reminder>") && note.matches("<system-reminder>").count() == 1;
        if !single
            || !crate::reminders::kind(note)
                .is_some_and(|k| crate::reminders::APPENDED.contains(&k))
        {
            break;
        }
        notes.push(note);
        own = &own[..at];
    }
    if notes.is_empty() {
        return (text, notes);
    }
    notes.reverse();
    (own, notes)
}

pub fn is_error(block: &Value) -> bool {
    block["is_error"].as_bool().unwrap_or(false)
}

/// Stdout lines parsed as JSON; lines that are not JSON are kept as strings.
pub fn stdout_events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_owned())))
        .collect()
}

/// `type` or `type/subtype` of a stream-json event.
pub fn event_kind(event: &Value) -> String {
    match (event["type"].as_str(), event["subtype"].as_str()) {
        (Some(t), Some(s)) => format!("{t}/{s}"),
        (Some(t), None) => t.to_owned(),
        _ => "<not json>".to_owned(),
    }
}

/// The final `result` event, if the target printed one.
pub fn result_event(events: &[Value]) -> Option<&Value> {
    events.iter().rev().find(|e| e["type"] == "result")
}

#[cfg(test)]
mod tool_search_tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tool_references_read_as_their_names_and_deferred_tools_are_marked() {
        let block = json!({"type": "tool_result", "tool_use_id": "t", "content": [
            {"type": "tool_reference", "tool_name": "NotebookEdit"},
            {"type": "text", "text": "after"},
        ]});
        assert_eq!(
            tool_result_text(&block),
            "tool_reference:NotebookEdit\nafter"
        );
        let body = json!({"tools": [
            {"name": "Read"},
            {"name": "NotebookEdit", "defer_loading": true},
        ]});
        assert_eq!(
            Request(&body).tool_labels(),
            ["Read", "NotebookEdit(deferred)"]
        );
        assert_eq!(Request(&body).tool_names(), ["Read", "NotebookEdit"]);
    }

    #[test]
    fn the_clients_notes_come_off_a_result_and_a_rule_the_tool_read_stays() {
        let budget =
            "<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>";
        let nudge =
            "<system-reminder>\nThe task tools haven't been used recently.\n</system-reminder>";
        let rule = "<system-reminder>\nContents of /x/.claude/rules/a.md:\n\nA\n</system-reminder>";
        let text = format!("out\n\n{rule}\n\n{nudge}\n\n{budget}");
        let (own, notes) = split_appended_reminder(&text);
        assert_eq!(own, format!("out\n\n{rule}"));
        assert_eq!(notes, [nudge, budget]);
        assert_eq!(split_appended_reminder("plain").1.len(), 0);
    }

    #[test]
    fn a_note_in_a_block_of_its_own_inside_the_result_comes_off_too() {
        let budget =
            "<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>";
        let rule = "<system-reminder>\nContents of /x/.claude/rules/a.md:\n\nA\n</system-reminder>";
        let block = |last: &str| {
            json!({"type": "tool_result", "tool_use_id": "t", "content": [
                {"type": "text", "text": "PDF file read"},
                {"type": "document"},
                {"type": "text", "text": last},
            ]})
        };
        assert_eq!(tool_result_own_text(&block(budget)), "PDF file read");
        let mcp = json!({"type": "tool_result", "tool_use_id": "t", "content": [
            {"type": "text", "text": "3\n"},
            {"type": "text", "text": budget},
        ]});
        assert_eq!(tool_result_own_text(&mcp), "3");
        // A rule the tool brought in is the result's own, in a block or not.
        assert_eq!(
            tool_result_own_text(&block(rule)),
            format!("PDF file read\n{rule}")
        );
    }
}
