//! A reminder as an `attachment` record, and back. 2.1.235 keeps a reminder's data, not its
//! words (`agent_listing_delta` with the listed lines, `skill_listing` with its content,
//! `total_tokens_reminder` with the tag), and words it again when a session resumes; so does
//! this: a file written by either target is worded in the reader's own prose. A reminder of a
//! kind 2.1.235 has no record for is kept whole as `reminder` (ours; 2.1.235 skips it).

use serde_json::{json, Value};

const AGENT_HEADING: &str = "Agent types the Agent tool can launch (subagent_type):\n";
const AGENT_TRAILER: &str =
    "\n\nIndependent agents run at the same time when launched from one message.";
const SKILL_HEADING: &str = "The following skills are available for use with the Skill tool:\n\n";
const OPEN: &str = "<system-reminder>\n";
const CLOSE: &str = "\n</system-reminder>";

/// The attachment for a reminder as it was sent (`<system-reminder>…</system-reminder>`).
pub fn of_reminder(text: &str) -> Value {
    let trimmed = text.trim_end_matches('\n');
    let inner = trimmed
        .strip_prefix(OPEN)
        .and_then(|t| t.strip_suffix(CLOSE))
        .unwrap_or(trimmed);
    if inner.starts_with("<total_tokens>") && inner.ends_with("</total_tokens>") {
        return json!({"type": "total_tokens_reminder", "text": inner});
    }
    if let Some(body) = inner
        .strip_prefix(AGENT_HEADING)
        .map(|b| b.strip_suffix(AGENT_TRAILER).unwrap_or(b))
    {
        let lines: Vec<&str> = body.lines().collect();
        let types: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("- ")?.split(':').next())
            .collect();
        return json!({"type": "agent_listing_delta", "addedTypes": types, "addedLines": lines,
                      "removedTypes": [], "isInitial": true, "showConcurrencyNote": true});
    }
    if let Some(body) = inner.strip_prefix(crate::context::reminders::DEFERRED_TOOLS_HEADING) {
        let names: Vec<&str> = body.lines().collect();
        return json!({"type": "deferred_tools_delta", "addedNames": names, "addedLines": names,
                      "removedNames": [], "readdedNames": [], "pendingMcpServers": [],
                      "needsAuthMcpServers": []});
    }
    if let Some(body) = inner.strip_prefix(SKILL_HEADING) {
        let names: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("- ")?.split(':').next())
            .collect();
        return json!({"type": "skill_listing", "content": body, "skillCount": names.len(),
                      "isInitial": true, "names": names});
    }
    json!({"type": "reminder", "content": text})
}

/// The reminder an attachment stands for, in this agent's words; `None` for a kind it does
/// not send (2.1.235's own bookkeeping).
pub fn reminder(attachment: &Value) -> Option<String> {
    let wrap = |inner: &str| format!("{OPEN}{inner}{CLOSE}");
    // A list of names or lines, as the attachment keeps it.
    let strings = |key: &str| -> Option<Vec<&str>> {
        Some(
            attachment[key]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect(),
        )
    };
    match attachment["type"].as_str()? {
        "total_tokens_reminder" => Some(wrap(attachment["text"].as_str()?)),
        "agent_listing_delta" => {
            let lines = strings("addedLines")?;
            let trailer = if attachment["showConcurrencyNote"] == false {
                ""
            } else {
                AGENT_TRAILER
            };
            Some(wrap(&format!(
                "{AGENT_HEADING}{}{trailer}",
                lines.join("\n")
            )))
        }
        "skill_listing" => Some(wrap(&format!(
            "{SKILL_HEADING}{}",
            attachment["content"].as_str()?
        ))),
        "deferred_tools_delta" => Some(crate::context::reminders::deferred_tools(&strings(
            "addedNames",
        )?)),
        "reminder" => attachment["content"].as_str().map(str::to_owned),
        _ => crate::context::restored::Restored::of_attachment(attachment).map(|r| r.text()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_round_trips_to_the_same_words() {
        let budget = crate::context::reminders::total_tokens(14_999_976);
        let agents = crate::context::builtins::agent_listing();
        let skills = format!("{OPEN}{SKILL_HEADING}- a: one\n- b: two{CLOSE}");
        let other = format!("{OPEN}something else{CLOSE}");
        let deferred = crate::context::reminders::deferred_tools(&["CronCreate", "WebFetch"]);
        for text in [&budget, &agents, &skills, &other, &deferred] {
            let a = of_reminder(text);
            assert_eq!(reminder(&a).as_deref(), Some(text.as_str()), "{a}");
        }
        assert_eq!(of_reminder(&budget)["type"], "total_tokens_reminder");
        assert_eq!(of_reminder(&agents)["type"], "agent_listing_delta");
        assert_eq!(of_reminder(&skills)["names"], json!(["a", "b"]));
        assert_eq!(of_reminder(&other)["type"], "reminder");
        assert_eq!(
            of_reminder(&deferred)["addedNames"],
            json!(["CronCreate", "WebFetch"])
        );
    }

    #[test]
    fn a_listing_2_1_235_wrote_is_worded_here() {
        let a = json!({"type": "agent_listing_delta", "addedTypes": ["x"], "addedLines": ["- x: does x (Tools: *)"], "showConcurrencyNote": true});
        let text = reminder(&a).unwrap();
        assert!(text.starts_with("<system-reminder>\nAgent types the Agent tool can launch"));
        assert!(text.contains("- x: does x (Tools: *)"));
        assert_eq!(reminder(&json!({"type": "atis-latch"})), None);
    }
}
