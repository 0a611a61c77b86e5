//! PermissionRequest: when a call needs the user's answer and someone can give it (an SDK host,
//! a terminal), its hooks may answer instead. 2.1.235 puts the question to the host and runs
//! the hooks at the same time; a hook's decision that comes first withdraws the question
//! (`control_cancel_request`). Under `-p`, where nobody is asked, they do not run
//! (hooks.decisions/permission-request).

use serde_json::{json, Value};

use super::tool::Call;
use super::{Event, Hooks, Session};
use crate::vocab::Reply;

impl Hooks {
    pub fn has_permission_request(&self) -> bool {
        self.any("PermissionRequest")
    }

    /// The first hook's `decision` (`behavior` allow, with an `updatedInput` or not, or deny
    /// with its `message`), as the host's answer would be; `None` when no hook decided.
    pub fn permission_request(
        &self,
        session: &Session,
        call: &Call,
        suggestions: &Value,
    ) -> Option<Reply> {
        let runs = self.fire(
            session,
            Event {
                name: "PermissionRequest",
                target: Some(call.tool),
                mode: Some(call.mode),
                fields: vec![
                    ("tool_name", json!(call.tool)),
                    ("tool_input", call.input.clone()),
                    ("permission_suggestions", suggestions.clone()),
                ],
            },
        );
        runs.iter().find_map(|ran| {
            let decision = &ran.said()?["hookSpecificOutput"]["decision"];
            match decision["behavior"].as_str()? {
                "allow" => Some(Reply::Allow {
                    input: decision
                        .get("updatedInput")
                        .filter(|v| v.is_object())
                        .cloned(),
                    keep: Vec::new(),
                }),
                "deny" => Some(Reply::Deny {
                    message: decision["message"].as_str().unwrap_or_default().to_owned(),
                }),
                _ => None,
            }
        })
    }
}
