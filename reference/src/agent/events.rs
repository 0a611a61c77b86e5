//! The stream-json events, with the keys (and key order) the real 2.1.235 prints, and the three
//! output formats built on them.

use std::io::Write as _;

use serde_json::{json, Value};

use crate::api::{ApiError, Message, Retry};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    StreamJson,
    /// An interactive session: the transcript on a terminal, no events.
    Terminal,
}

pub struct Output {
    pub format: Format,
    pub session_id: String,
    /// The terminal the transcript goes to (`Format::Terminal`).
    pub terminal: Option<std::sync::Arc<crate::host::terminal::Terminal>>,
    /// `-p`: result events wait here until no background task owes a notification, so the run's
    /// results come last, as 2.1.235 prints them.
    pub held: Option<std::sync::Mutex<Vec<Value>>>,
}

impl Output {
    /// stream-json prints every event; json and text print only the end of the run; a terminal
    /// shows the conversation as a transcript.
    pub fn event(&self, event: &Value) {
        match (self.format, &self.terminal) {
            (Format::StreamJson, _) => print_line(&event.to_string()),
            (Format::Terminal, Some(terminal)) => {
                if let Some(line) = transcript_line(event) {
                    terminal.line(&line);
                }
            }
            _ => {}
        }
    }

    pub fn finish(&self, result: &Value) {
        if let Some(held) = &self.held {
            held.lock().unwrap().push(result.clone());
            return;
        }
        self.print_result(result);
    }

    /// Prints the results held back so far.
    pub fn release(&self) {
        let Some(held) = &self.held else { return };
        for result in std::mem::take(&mut *held.lock().unwrap()) {
            self.print_result(&result);
        }
    }

    fn print_result(&self, result: &Value) {
        match self.format {
            Format::Terminal => {}
            Format::StreamJson | Format::Json => print_line(&result.to_string()),
            Format::Text => {
                let text = result["result"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        let turns = result["num_turns"].as_u64().unwrap_or(0).saturating_sub(1);
                        format!("Error: Reached max turns ({turns})")
                    });
                print_line(&text);
            }
        }
    }

    pub fn init(
        &self,
        cwd: &str,
        tools: &[&str],
        model: &str,
        permission_mode: &str,
        memory_dir: Option<&str>,
    ) -> Value {
        let mut init = json!({
            "type": "system", "subtype": "init", "cwd": cwd, "session_id": self.session_id,
            "tools": tools, "mcp_servers": [], "model": model, "permissionMode": permission_mode,
            "slash_commands": [], "terminal_slash_commands": [], "apiKeySource": "ANTHROPIC_API_KEY",
            "claude_code_version": crate::CONTRACT_VERSION, "output_style": "default", "agents": [],
            "skills": [], "plugins": [], "capabilities": [], "analytics_disabled": true,
            "product_feedback_disabled": true, "uuid": uuid(), "memory_paths": {"auto": memory_dir},
            "fast_mode_state": "off", "fast_mode_disabled_reason": "sdk_opt_in_required",
        });
        // With auto-memory off the key is absent, not null.
        if memory_dir.is_none() {
            if let Some(map) = init.as_object_mut() {
                map.shift_remove("memory_paths");
            }
        }
        init
    }

    /// One event per completed content block, as the real binary emits them.
    pub fn assistant(&self, message: &Message, index: usize, request_id: Option<&str>) -> Value {
        json!({
            "type": "assistant",
            "message": {
                "id": message.id, "type": "message", "role": "assistant", "model": message.model,
                "content": [message.content[index]], "stop_reason": null, "stop_sequence": null,
                "usage": message.start_usage, "context_management": null,
            },
            "parent_tool_use_id": null, "session_id": self.session_id, "uuid": uuid(),
            "timestamp": timestamp(), "request_id": request_id,
        })
    }

    /// A tool's result; `meta` says why the tool did not run (`tool_result_meta`).
    pub fn user_tool_result(&self, block: &Value, structured: &Value, meta: Option<&str>) -> Value {
        let mut event = json!({
            "type": "user", "message": {"role": "user", "content": [block]}, "parent_tool_use_id": null,
            "session_id": self.session_id, "uuid": uuid(), "timestamp": timestamp(), "tool_use_result": structured,
        });
        if let Some(kind) = meta {
            event["tool_result_meta"] =
                json!([{"id": block["tool_use_id"], "non_execution_kind": kind}]);
        }
        event
    }

    /// The permission mode changed.
    pub fn status(&self, mode: &str) -> Value {
        json!({"type": "system", "subtype": "status", "status": null, "permissionMode": mode,
               "uuid": uuid(), "session_id": self.session_id})
    }

    /// Context the client adds to the conversation itself (a launched skill's body, the Brief
    /// turn-end reminder).
    pub fn synthetic_user(&self, text: &str) -> Value {
        let mut event = self.synthetic_text(text);
        event["isSynthetic"] = json!(true);
        event
    }

    /// A user message the client adds itself (the note after a turn the user stopped).
    pub fn synthetic_text(&self, text: &str) -> Value {
        json!({
            "type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null, "session_id": self.session_id, "uuid": uuid(), "timestamp": timestamp(),
        })
    }

    pub fn permission_denied(
        &self,
        tool_name: &str,
        tool_use_id: &str,
        message: &str,
        reason: Option<&str>,
    ) -> Value {
        let mut event = json!({"type": "system", "subtype": "permission_denied", "tool_name": tool_name, "tool_use_id": tool_use_id});
        if let Some(reason) = reason {
            event["decision_reason_type"] = json!(reason);
        }
        event["message"] = json!(message);
        event["uuid"] = json!(uuid());
        event["session_id"] = json!(self.session_id);
        event
    }

    pub fn api_retry(&self, retry: &Retry) -> Value {
        json!({"type": "system", "subtype": "api_retry", "attempt": retry.attempt, "max_retries": retry.max_retries,
               "retry_delay_ms": retry.delay_ms, "error_status": retry.error.status(), "error": retry.error.category(),
               "session_id": self.session_id, "uuid": uuid()})
    }

    /// The assistant message the CLI synthesizes when the API fails for good.
    pub fn api_error_message(&self, error: &ApiError, text: &str) -> Value {
        json!({
            "type": "assistant",
            "message": {
                "id": uuid(), "container": null, "model": "<synthetic>", "role": "assistant", "stop_reason": "stop_sequence",
                "stop_sequence": "", "type": "message", "usage": zero_usage(), "content": [{"type": "text", "text": text}],
                "context_management": null,
            },
            "parent_tool_use_id": null, "session_id": self.session_id, "uuid": uuid(), "timestamp": timestamp(),
            "error": error.final_category(), "is_api_error_message": true,
        })
    }
}

/// One event of the conversation as a transcript line on a terminal.
fn transcript_line(event: &Value) -> Option<String> {
    let block = event["message"]["content"].get(0)?;
    match (event["type"].as_str()?, block["type"].as_str()?) {
        ("assistant", "text") => Some(format!("● {}", block["text"].as_str()?)),
        ("assistant", "tool_use") => {
            let input = &block["input"];
            let subject = ["command", "file_path", "notebook_path", "pattern"]
                .iter()
                .find_map(|k| input[*k].as_str())
                .unwrap_or_default();
            Some(format!("● {}({subject})", block["name"].as_str()?))
        }
        ("user", "tool_result") => {
            let text = match &block["content"] {
                Value::String(s) => s.clone(),
                _ => "(content)".into(),
            };
            let first = text.lines().next().unwrap_or_default();
            Some(format!("  ⎿  {first}"))
        }
        _ => None,
    }
}

/// Writes one line to stdout at once (events and control messages share stdout).
pub fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not this process's error to report.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

pub fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// ISO 8601 UTC with milliseconds, computed without a date library.
pub fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

fn zero_usage() -> Value {
    json!({"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
           "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": null,
           "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}})
}
