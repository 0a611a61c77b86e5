//! The hooks around one tool call: PreToolUse after the input is checked and before the
//! permission decision, PostToolUse after a call that succeeded (seed 004 line 19: schema,
//! PreToolUse, permission, policy). Texts and key orders are 2.1.235's (hooks.pre-tool-use).

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::{command, Hooks, Session};

/// What the PreToolUse hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Pre {
    /// On to the permission decision; `allowed` when a hook answered it with `allow`.
    Go { allowed: bool },
    /// Refused with this text: a denial whose result is the text itself.
    Block(String),
}

/// One tool call as the hooks are told it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    pub id: &'a str,
    pub mode: &'a str,
}

/// The fields every event's stdin opens with, in 2.1.235's order.
fn opening(session: &Session, mode: &str, event: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), json!(session.id));
    m.insert(
        "transcript_path".into(),
        json!(session.transcript_path().display().to_string()),
    );
    m.insert("cwd".into(), json!(session.cwd.display().to_string()));
    m.insert("permission_mode".into(), json!(mode));
    m.insert("hook_event_name".into(), json!(event));
    m
}

/// A hook's answer on stdout, when it is JSON.
fn answer(outcome: &crate::child::Output) -> Value {
    serde_json::from_str(outcome.stdout.trim()).unwrap_or(Value::Null)
}

impl Hooks {
    pub fn pre_tool_use(&self, session: &Session, call: &Call) -> Pre {
        let commands = self.matching("PreToolUse", call.tool);
        if commands.is_empty() {
            return Pre::Go { allowed: false };
        }
        let mut stdin = opening(session, call.mode, "PreToolUse");
        stdin.insert("tool_name".into(), json!(call.tool));
        stdin.insert("tool_input".into(), call.input.clone());
        stdin.insert("tool_use_id".into(), json!(call.id));
        let stdin = Value::Object(stdin).to_string();
        // Every matching hook runs (2.1.235 runs them all, then combines their answers): the
        // first refusal in settings order decides, else any `allow`.
        let mut refusal = None;
        let mut allowed = false;
        for c in commands {
            let outcome = command::run(&c.command, &stdin, &session.cwd, c.timeout);
            let verdict = match outcome.code {
                Some(2) => Some(Pre::Block(format!(
                    "PreToolUse:{} hook error: [{}]: {}",
                    call.tool, c.command, outcome.stderr
                ))),
                Some(0) => {
                    let said = answer(&outcome);
                    let specific = &said["hookSpecificOutput"];
                    match specific["permissionDecision"].as_str() {
                        Some("deny") => Some(Pre::Block(
                            specific["permissionDecisionReason"]
                                .as_str()
                                .unwrap_or_default()
                                .to_owned(),
                        )),
                        Some("allow") => Some(Pre::Go { allowed: true }),
                        _ => None,
                    }
                }
                // Any other status is the hook's own failure: the call goes on.
                _ => None,
            };
            match verdict {
                Some(block @ Pre::Block(_)) => {
                    refusal.get_or_insert(block);
                }
                Some(Pre::Go { allowed: true }) => allowed = true,
                _ => {}
            }
        }
        if let Some(block) = refusal {
            return block;
        }
        Pre::Go { allowed }
    }

    /// The reminders the PostToolUse hooks add after a call's result (each without its
    /// `<system-reminder>` wrapping).
    pub fn post_tool_use(
        &self,
        session: &Session,
        call: &Call,
        response: &Value,
        took: Duration,
    ) -> Vec<String> {
        let commands = self.matching("PostToolUse", call.tool);
        if commands.is_empty() {
            return Vec::new();
        }
        let mut stdin = opening(session, call.mode, "PostToolUse");
        stdin.insert("tool_name".into(), json!(call.tool));
        stdin.insert("tool_input".into(), call.input.clone());
        stdin.insert("tool_response".into(), response.clone());
        stdin.insert("tool_use_id".into(), json!(call.id));
        stdin.insert("duration_ms".into(), json!(took.as_millis() as u64));
        let stdin = Value::Object(stdin).to_string();
        let mut notes = Vec::new();
        for c in commands {
            let outcome = command::run(&c.command, &stdin, &session.cwd, c.timeout);
            match outcome.code {
                Some(2) => notes.push(format!(
                    "PostToolUse:{} hook blocking error from command: \"{}\": [{}]: {}",
                    call.tool, c.command, c.command, outcome.stderr
                )),
                Some(0) => {
                    let said = answer(&outcome);
                    if let Some(extra) = said["hookSpecificOutput"]["additionalContext"].as_str() {
                        notes.push(format!(
                            "PostToolUse:{} hook additional context: {extra}",
                            call.tool
                        ));
                    }
                }
                _ => {}
            }
        }
        notes
    }
}
