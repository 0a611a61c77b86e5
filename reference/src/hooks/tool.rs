//! The hooks around one tool call: PreToolUse after the input is checked and before the
//! permission decision, PostToolUse after a call that succeeded, PostToolUseFailure after one
//! that failed (seed 004 line 19: schema, PreToolUse, permission, policy). Texts, key orders and
//! how answers combine are 2.1.235's (hooks.decisions and its variants).

use std::time::Duration;

use serde_json::{json, Value};

use super::{Event, Hooks, Ran, Session};

/// What the PreToolUse hooks decided.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pre {
    pub verdict: Verdict,
    /// The input the call goes on with, when a hook rewrote it (`updatedInput`).
    pub input: Option<Value>,
    /// `systemMessage`s, as the host is told them.
    pub messages: Vec<String>,
    /// `continue: false`: the call runs, then the session ends.
    pub stop: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Verdict {
    /// No hook decided: on to the permission decision.
    #[default]
    Undecided,
    /// A hook answered the mode's question (`allow`, or the older `approve`).
    Allow,
    /// A hook wants the user asked, with this reason.
    Ask(String),
    /// Refused with this text: a denial whose result is the text itself.
    Block(String),
}

/// What the PostToolUse hooks added.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Post {
    /// Reminders after the result, for the model only (each without its wrapping).
    pub notes: Vec<String>,
    /// `systemMessage`s, as the host is told them.
    pub messages: Vec<String>,
    /// `continue: false`: the session ends after this call.
    pub stop: bool,
}

/// One tool call as the hooks are told it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    pub id: &'a str,
    pub mode: &'a str,
}

impl Call<'_> {
    fn event(&self, name: &'static str, extra: Vec<(&'static str, Value)>) -> Event<'_> {
        let mut fields = vec![
            ("tool_name", json!(self.tool)),
            ("tool_input", self.input.clone()),
        ];
        fields.extend(extra);
        Event {
            name,
            target: Some(self.tool),
            mode: Some(self.mode),
            fields,
        }
    }
}

/// `continue: false` in a hook's JSON answer.
fn stops(ran: &Ran) -> bool {
    ran.said()
        .is_some_and(|a| a["continue"] == Value::Bool(false))
}

impl Hooks {
    pub fn pre_tool_use(&self, session: &Session, call: &Call) -> Pre {
        let runs = self.fire(
            session,
            call.event("PreToolUse", vec![("tool_use_id", json!(call.id))]),
        );
        combine(call.tool, &runs)
    }

    /// After a call that succeeded.
    pub fn post_tool_use(
        &self,
        session: &Session,
        call: &Call,
        response: &Value,
        took: Duration,
    ) -> Post {
        let runs = self.fire(
            session,
            call.event(
                "PostToolUse",
                vec![
                    ("tool_response", response.clone()),
                    ("tool_use_id", json!(call.id)),
                    ("duration_ms", json!(took.as_millis() as u64)),
                ],
            ),
        );
        after_call("PostToolUse", call.tool, &runs)
    }

    /// After a call that failed: its error text, whether the user stopped it; the notes its hooks
    /// add for the model.
    pub fn post_tool_use_failure(
        &self,
        session: &Session,
        call: &Call,
        error: &str,
        interrupted: bool,
        took: Duration,
    ) -> Post {
        let runs = self.fire(
            session,
            call.event(
                "PostToolUseFailure",
                vec![
                    ("tool_use_id", json!(call.id)),
                    ("error", json!(error)),
                    ("is_interrupt", json!(interrupted)),
                    ("duration_ms", json!(took.as_millis() as u64)),
                ],
            ),
        );
        after_call("PostToolUseFailure", call.tool, &runs)
    }
}

impl Hooks {
    /// After a round of calls: each call's name, input, id and the result the model reads.
    pub fn post_tool_batch(&self, session: &Session, mode: &str, calls: Vec<Value>) {
        self.fire(
            session,
            Event {
                name: "PostToolBatch",
                target: None,
                mode: Some(mode),
                fields: vec![("tool_calls", Value::Array(calls))],
            },
        );
    }
}

/// One call of a round as PostToolBatch is told it.
pub fn batch_entry(tool_use: &Value, response: &Value) -> Value {
    json!({"tool_name": tool_use["name"], "tool_input": tool_use["input"],
           "tool_use_id": tool_use["id"], "tool_response": response})
}

/// What the hooks after a call add, as 2.1.235 words them: for the model a blocking answer (exit 2
/// or `decision: block`) quoting the command, or a JSON answer's `additionalContext`; for the host
/// a `systemMessage`.
fn after_call(event: &str, tool: &str, runs: &[Ran]) -> Post {
    let mut post = Post::default();
    for ran in runs {
        // A hook that ends the session is not heard from again (2.1.235 tells no systemMessage
        // with `continue: false`).
        if stops(ran) {
            post.stop = true;
        } else if let Some(message) = ran.said().and_then(|a| a["systemMessage"].as_str()) {
            post.messages
                .push(format!("{event}:{tool} says: {message}"));
        }
        // A blocking answer quotes the command, then its stderr (exit 2, quoted) or its reason
        // (a JSON `decision: block`, as is).
        let blocking = if ran.blocked() {
            Some(ran.quoted_stderr())
        } else {
            ran.said()
                .filter(|a| a["decision"] == "block")
                .map(|a| a["reason"].as_str().unwrap_or_default().to_owned())
        };
        if let Some(why) = blocking {
            post.notes.push(format!(
                "{event}:{tool} hook blocking error from command: \"{}\": {why}",
                ran.command
            ));
        } else if let Some(extra) = ran
            .said()
            .and_then(|a| a["hookSpecificOutput"]["additionalContext"].as_str())
        {
            post.notes
                .push(format!("{event}:{tool} hook additional context: {extra}"));
        }
    }
    post
}

/// What PreToolUse's runs decided together: a refusal over an ask, an ask over an allow, and
/// among equals the first in settings order; every message and rewrite kept.
fn combine(tool: &str, runs: &[Ran]) -> Pre {
    let mut pre = Pre::default();
    let mut verdicts = Vec::new();
    for ran in runs {
        pre.stop |= stops(ran);
        verdicts.push(pre_verdict(tool, ran));
        let Some(said) = ran.said() else { continue };
        if let Some(message) = said["systemMessage"].as_str() {
            pre.messages
                .push(format!("PreToolUse:{tool} says: {message}"));
        }
        let updated = &said["hookSpecificOutput"]["updatedInput"];
        if updated.is_object() {
            pre.input = Some(updated.clone());
        }
    }
    pre.verdict = verdicts
        .into_iter()
        .min_by_key(|v| match v {
            Verdict::Block(_) => 0,
            Verdict::Ask(_) => 1,
            Verdict::Allow => 2,
            Verdict::Undecided => 3,
        })
        .unwrap_or_default();
    pre
}

/// What one PreToolUse run said about the call.
fn pre_verdict(tool: &str, ran: &Ran) -> Verdict {
    if ran.blocked() {
        return Verdict::Block(format!(
            "PreToolUse:{tool} hook error: {}",
            ran.quoted_stderr()
        ));
    }
    // Any other failing status is the hook's own failure, and so is an answer that is not
    // JSON: the call goes on.
    let Some(said) = ran.said() else {
        return Verdict::Undecided;
    };
    let specific = &said["hookSpecificOutput"];
    let reason = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    match specific["permissionDecision"].as_str() {
        Some("deny") => return Verdict::Block(reason(&specific["permissionDecisionReason"])),
        Some("ask") => return Verdict::Ask(reason(&specific["permissionDecisionReason"])),
        Some("allow") => return Verdict::Allow,
        _ => {}
    }
    // The older top-level answer.
    match said["decision"].as_str() {
        Some("block") => Verdict::Block(reason(&said["reason"])),
        Some("approve") => Verdict::Allow,
        _ => Verdict::Undecided,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::child::Output;

    fn ran(code: i32, stdout: &str) -> Ran {
        let answer = serde_json::from_str::<Value>(stdout)
            .ok()
            .filter(Value::is_object)
            .unwrap_or(Value::Null);
        Ran {
            command: "hook".into(),
            output: Output {
                code: Some(code),
                stdout: stdout.into(),
                stderr: "why".into(),
                timed_out: false,
            },
            answer,
        }
    }

    fn decision(d: &str, reason: &str) -> String {
        format!(
            r#"{{"hookSpecificOutput": {{"permissionDecision": "{d}", "permissionDecisionReason": "{reason}"}}}}"#
        )
    }

    #[test]
    fn a_refusal_wins_over_an_ask_which_wins_over_an_allow() {
        let runs = [
            ran(0, &decision("allow", "")),
            ran(0, &decision("ask", "A1")),
            ran(0, &decision("ask", "A2")),
        ];
        assert_eq!(combine("Bash", &runs).verdict, Verdict::Ask("A1".into()));
        let runs = [ran(0, &decision("ask", "A")), ran(2, "")];
        assert_eq!(
            combine("Bash", &runs).verdict,
            Verdict::Block("PreToolUse:Bash hook error: [hook]: why".into())
        );
        let runs = [ran(1, &decision("deny", "D")), ran(0, "plain")];
        assert_eq!(combine("Bash", &runs).verdict, Verdict::Undecided);
    }

    #[test]
    fn messages_rewrites_and_stops_are_kept_whatever_decides() {
        let runs = [
            ran(0, r#"{"systemMessage": "hi", "continue": false}"#),
            ran(
                0,
                r#"{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "x"}}}"#,
            ),
        ];
        let pre = combine("Bash", &runs);
        assert_eq!(pre.verdict, Verdict::Allow);
        assert_eq!(pre.messages, ["PreToolUse:Bash says: hi"]);
        assert_eq!(pre.input, Some(serde_json::json!({"command": "x"})));
        assert!(pre.stop);
    }
}
