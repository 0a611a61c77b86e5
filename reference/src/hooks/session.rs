//! The hooks of a session's own moments, in the order 2.1.235 fires them: SessionStart (before
//! the `system/init` event), InstructionsLoaded (each instruction file), UserPromptSubmit (each
//! prompt, before its first request), Stop (each time the model ends its turn), SessionEnd (at
//! exit), StopFailure (instead of Stop, on an API error); MessageDisplay (the final text), CwdChanged (the shell moved), SubagentStart and
//! SubagentStop (a sub-agent's loop), WorktreeCreate and WorktreeRemove (a worktree the user's
//! hook makes and removes). Their texts are 2.1.235's (hooks.events, hooks.decisions/stop).

use std::path::{Path, PathBuf};

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

    /// The model's final text as it is shown (one message, whole).
    pub fn message_display(&self, session: &Session, text: &str) {
        self.fire(
            session,
            Event {
                name: "MessageDisplay",
                target: None,
                mode: None,
                fields: vec![
                    ("turn_id", json!(crate::vocab::uuid())),
                    ("message_id", json!(crate::vocab::uuid())),
                    ("index", json!(0)),
                    ("final", json!(true)),
                    ("delta", json!(text)),
                ],
            },
        );
    }

    /// A command moved the session's shell to another directory.
    pub fn cwd_changed(&self, session: &Session, old: &std::path::Path, new: &std::path::Path) {
        self.fire(
            session,
            Event {
                name: "CwdChanged",
                target: None,
                mode: None,
                fields: vec![
                    ("old_cwd", json!(old.display().to_string())),
                    ("new_cwd", json!(new.display().to_string())),
                ],
            },
        );
    }

    /// A sub-agent's loop starts (`session.agent` names it).
    pub fn subagent_start(&self, session: &Session) {
        self.fire(
            session,
            Event {
                name: "SubagentStart",
                target: None,
                mode: None,
                fields: Vec::new(),
            },
        );
    }

    /// A sub-agent's loop ended with its final text; its transcript's place as 2.1.235 names it.
    pub fn subagent_stop(&self, session: &Session, mode: &str, last_message: &str) {
        let id = session
            .agent
            .as_ref()
            .map(|(id, _)| id.as_str())
            .unwrap_or_default();
        let transcript =
            crate::environment::sidechain_file(&session.home, &session.cwd, &session.id, id);
        self.fire(
            session,
            Event {
                name: "SubagentStop",
                target: None,
                mode: Some(mode),
                fields: vec![
                    ("stop_hook_active", json!(false)),
                    (
                        "agent_transcript_path",
                        json!(transcript.display().to_string()),
                    ),
                    ("last_assistant_message", json!(last_message)),
                    ("background_tasks", json!([])),
                    ("session_crons", json!([])),
                ],
            },
        );
    }

    /// EnterWorktree with a WorktreeCreate hook: the hook makes the worktree and names its path
    /// (its stdout's first line, or `hookSpecificOutput.worktreePath`).
    pub fn worktree_create(&self, session: &Session, name: &str) -> Result<PathBuf, String> {
        let runs = self.fire(
            session,
            Event {
                name: "WorktreeCreate",
                target: None,
                mode: None,
                fields: vec![("name", json!(name))],
            },
        );
        let Some(ran) = runs.first() else {
            return Err("WorktreeCreate hook failed: no hook ran".into());
        };
        if !ran.output.ok() {
            return Err(format!(
                "WorktreeCreate hook failed: {}",
                ran.output.stderr.trim()
            ));
        }
        let from_json = ran
            .said()
            .and_then(|a| a["hookSpecificOutput"]["worktreePath"].as_str())
            .map(str::to_owned);
        let from_text = || {
            let line = ran
                .output
                .stdout
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())?;
            (!ran.answer.is_object()).then(|| line.to_owned())
        };
        from_json
            .or_else(from_text)
            .map(PathBuf::from)
            .ok_or_else(|| "WorktreeCreate hook failed: hook succeeded but returned no worktree path (command: echo the path to stdout; http/callback: return hookSpecificOutput.worktreePath)".into())
    }

    /// ExitWorktree removing a worktree a hook made: the hook removes it.
    pub fn worktree_remove(&self, session: &Session, path: &Path) {
        self.fire(
            session,
            Event {
                name: "WorktreeRemove",
                target: None,
                mode: None,
                fields: vec![("worktree_path", json!(path.display().to_string()))],
            },
        );
    }

    /// The turn ended on an API error instead of the model stopping (no Stop then): the error's
    /// kind (what its matchers compare) and the text the user was shown.
    pub fn stop_failure(&self, session: &Session, error: &str, shown: &str) {
        self.fire(
            session,
            Event {
                name: "StopFailure",
                target: Some(error),
                mode: None,
                fields: vec![
                    ("error", json!(error)),
                    ("last_assistant_message", json!(shown)),
                ],
            },
        );
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
