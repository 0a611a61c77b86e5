//! The hooks around a compaction, in 2.1.235's order: PreCompact before the summary is asked
//! for, SessionStart with source `compact` once it came, then PostCompact with the summary
//! (recorded: compact.manual, compact.auto). A `/compact` the user ran reports each command's
//! run in what it printed.

use serde_json::{json, Value};

use super::{Event, Hooks, Ran, Session};

impl Hooks {
    /// PreCompact: `trigger` is `manual` or `auto`; the user's instructions, null when none.
    /// `Err`: a hook blocked the compaction (exit 2 or a JSON `block`), with 2.1.235's words
    /// (recorded: compact.manual/pre-compact-blocks).
    pub fn pre_compact(
        &self,
        session: &Session,
        trigger: &str,
        instructions: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let runs = self.fire(
            session,
            Event {
                name: "PreCompact",
                target: Some(trigger),
                mode: None,
                fields: vec![
                    ("trigger", json!(trigger)),
                    ("custom_instructions", json!(instructions)),
                ],
            },
        );
        if let Some(why) = runs.iter().find_map(Ran::blocking_reason) {
            return Err(format!(
                "Compaction blocked by PreCompact hook: {}",
                why.trim_end()
            ));
        }
        Ok(reported("PreCompact", &runs))
    }

    /// SessionStart as the conversation starts again from its summary (told the model, unlike
    /// at start-up: recorded, compact.auto).
    pub fn session_start_compact(&self, session: &Session, model: &str) {
        self.fire(
            session,
            Event {
                name: "SessionStart",
                target: Some("compact"),
                mode: None,
                fields: vec![("source", json!("compact")), ("model", json!(model))],
            },
        );
    }

    /// PostCompact, told the summary the conversation goes on from.
    pub fn post_compact(&self, session: &Session, trigger: &str, summary: &str) -> Vec<String> {
        let runs = self.fire(
            session,
            Event {
                name: "PostCompact",
                target: Some(trigger),
                mode: None,
                fields: vec![
                    ("trigger", json!(trigger)),
                    ("compact_summary", Value::String(summary.to_owned())),
                ],
            },
        );
        reported("PostCompact", &runs)
    }
}

/// One line per command run, as `/compact` prints them: `Event [command] completed
/// successfully`, or the status it failed with.
fn reported(event: &str, runs: &[Ran]) -> Vec<String> {
    runs.iter()
        .map(|r| match r.output.code {
            Some(0) => format!("{event} [{}] completed successfully", r.command),
            Some(code) => format!("{event} [{}] failed with status code {code}", r.command),
            None => format!("{event} [{}] did not finish", r.command),
        })
        .collect()
}
