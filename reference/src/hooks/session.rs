//! The hooks of a session's own moments, in the order 2.1.235 fires them: SessionStart (before
//! the `system/init` event), InstructionsLoaded (each instruction file), UserPromptSubmit (each
//! prompt, before its first request), Stop (each time the model ends its turn), SessionEnd (at
//! exit). Their texts are 2.1.235's (hooks.events, hooks.decisions/stop).

use serde_json::json;

use super::{Event, Hooks, Ran, Session};

/// What the UserPromptSubmit hooks made of a prompt.
#[derive(Debug, Default, PartialEq)]
pub struct PromptCheck {
    /// The prompt goes no further: the text the user is told instead.
    pub blocked: Option<String>,
    /// Reminders before the prompt, for the model (each without its wrapping).
    pub notes: Vec<String>,
}

impl Hooks {
    /// SessionStart at start-up: the reminders its hooks add to the first message.
    pub fn session_start(&self, session: &Session) -> Vec<String> {
        let runs = self.fire(
            session,
            Event {
                name: "SessionStart",
                target: Some("startup"),
                mode: None,
                fields: vec![("source", json!("startup"))],
            },
        );
        context_notes(&runs, "SessionStart", "SessionStart:startup")
    }

    /// InstructionsLoaded for one instruction file read at start.
    pub fn instructions_loaded(&self, session: &Session, path: &str, memory_type: &str) {
        self.fire(
            session,
            Event {
                name: "InstructionsLoaded",
                target: None,
                mode: None,
                fields: vec![
                    ("file_path", json!(path)),
                    ("memory_type", json!(memory_type)),
                    ("load_reason", json!("session_start")),
                ],
            },
        );
    }

    pub fn user_prompt_submit(&self, session: &Session, mode: &str, prompt: &str) -> PromptCheck {
        let runs = self.fire(
            session,
            Event {
                name: "UserPromptSubmit",
                target: None,
                mode: Some(mode),
                fields: vec![("prompt", json!(prompt))],
            },
        );
        let refusal = runs.iter().find_map(Ran::blocking_reason);
        PromptCheck {
            blocked: refusal.map(|why| {
                format!("UserPromptSubmit operation blocked by hook:\n{why}\n\nOriginal prompt: {prompt}")
            }),
            notes: context_notes(&runs, "UserPromptSubmit", "UserPromptSubmit"),
        }
    }

    /// Stop, when the model ended its turn: the feedback that sends it back to work, when a hook
    /// blocks the stop. `active` is whether a Stop hook already did so in this prompt.
    pub fn stop(
        &self,
        session: &Session,
        mode: &str,
        active: bool,
        last_message: &str,
    ) -> Option<String> {
        let runs = self.fire(
            session,
            Event {
                name: "Stop",
                target: None,
                mode: Some(mode),
                fields: vec![
                    ("stop_hook_active", json!(active)),
                    ("last_assistant_message", json!(last_message)),
                    ("background_tasks", json!([])),
                    ("session_crons", json!([])),
                ],
            },
        );
        runs.iter().find_map(Ran::blocking_reason)
    }

    pub fn session_end(&self, session: &Session) {
        self.fire(
            session,
            Event {
                name: "SessionEnd",
                target: None,
                mode: None,
                fields: vec![("reason", json!("other"))],
            },
        );
    }
}

/// What a context event's hooks add for the model: each JSON `additionalContext`, then each
/// plain stdout, as 2.1.235 words them.
fn context_notes(runs: &[Ran], event: &str, name: &str) -> Vec<String> {
    let extra = runs.iter().filter_map(|r| {
        r.said()
            .and_then(|a| a["hookSpecificOutput"]["additionalContext"].as_str())
            .map(|text| format!("{event} hook additional context: {text}"))
    });
    let plain = runs
        .iter()
        .filter_map(Ran::plain_stdout)
        .map(|text| format!("{name} hook success: {text}"));
    extra.chain(plain).collect::<Vec<_>>()
}

/// A hook's note as the reminder the model reads.
pub fn reminder(note: &str) -> String {
    format!("<system-reminder>\n{note}\n</system-reminder>")
}
