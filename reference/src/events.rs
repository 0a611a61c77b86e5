//! The stream-json events, with the keys (and key order) the real 2.1.235 prints, and the three
//! output formats built on them. Every loop prints through [`Output`]: the session's, an agent's,
//! the task announcer; an interactive session's transcript goes to a [`Transcript`].

use std::io::Write as _;

use serde_json::{json, Value};

use crate::api::{ApiError, Message, Retry};
use crate::vocab::{timestamp, uuid};

/// Where an interactive session's transcript lines go: the terminal, which the host layer above
/// implements this for.
/// Owned here so that events print to a terminal without importing the host.
pub trait Transcript: Send + Sync {
    fn line(&self, line: &str);
}

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
    pub terminal: Option<std::sync::Arc<dyn Transcript>>,
    /// `-p`: result events wait here until no background task owes a notification, so the run's
    /// results come last, as 2.1.235 prints them.
    pub held: Option<std::sync::Mutex<Vec<Value>>>,
    /// Events that must follow the result of the call that caused them, held until it is out;
    /// shared by every `Output` of a session (the tasks' announcer has its own).
    pub after_results: std::sync::Arc<std::sync::Mutex<AfterResults>>,
    /// The main loop's session file: each tool result a host is told is kept there too.
    pub transcript: Option<std::sync::Arc<crate::transcript::Writer>>,
}

/// 2.1.235's loop is one thread: a background task it launched can only be heard of after the
/// launching call's result is printed. Here the task runs on a thread of its own and can end
/// first (a short workflow under load), so its end waits for that result.
#[derive(Default)]
pub struct AfterResults {
    /// The tool_uses whose results have been printed.
    out: std::collections::HashSet<String>,
    /// Events waiting for a tool_use's result, in the order they came.
    held: Vec<(String, Value)>,
}

impl Output {
    /// stream-json prints every event; json and text print only the end of the run; a terminal
    /// shows the conversation as a transcript.
    pub fn event(&self, event: &Value) {
        if let Some(file) = &self.transcript {
            if event["type"] == "user"
                && event["parent_tool_use_id"].is_null()
                && event.get("tool_use_result").is_some()
            {
                if let Some(block) = event["message"]["content"].get(0) {
                    let denial = event["tool_result_meta"][0]["non_execution_kind"].as_str();
                    file.tool_result(block, Some(&event["tool_use_result"]), denial);
                }
            }
        }
        let mut after = self.after_results.lock().unwrap_or_else(|e| e.into_inner());
        self.print(event);
        for due in after.printed(event) {
            self.print(&due);
        }
    }

    /// Prints `event` once the result of `tool_use_id` has been printed (at once if it has).
    pub fn event_after_result(&self, tool_use_id: &str, event: &Value) {
        let mut after = self.after_results.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(event) = after.hold_unless_out(tool_use_id, event) {
            self.print(&event);
        }
    }

    /// What is still held, printed before the run's end whatever it waited for.
    fn flush_after_results(&self) {
        let mut after = self.after_results.lock().unwrap_or_else(|e| e.into_inner());
        for (_, event) in std::mem::take(&mut after.held) {
            self.print(&event);
        }
    }

    fn print(&self, event: &Value) {
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
        self.flush_after_results();
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
        let mut result = result.clone();
        if result.get("modelUsage").is_some() {
            result["modelUsage"] = crate::api::tally::model_usage_now();
        }
        let result = &result;
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
            "skills": [], "plugins": [], "capabilities": CAPABILITIES,
            "analytics_disabled": analytics_disabled(),
            "product_feedback_disabled": essential_traffic_only(), "uuid": uuid(),
            "memory_paths": {"auto": memory_dir}, "fast_mode_state": "off",
            "fast_mode_disabled_reason": fast_mode_disabled_reason(),
        });
        // `--betas` let through are announced after the key source (recorded:
        // sdk.invocation/betas).
        let betas = &crate::api::wire::get().extra_betas;
        if !betas.is_empty() {
            if let Some(map) = init.as_object_mut() {
                let keys = std::mem::take(map);
                for (key, value) in keys {
                    let after = key == "apiKeySource";
                    map.insert(key, value);
                    if after {
                        map.insert("betas".into(), json!(betas));
                    }
                }
            }
        }
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

    /// An assistant event whose block calls an MCP tool names the tool and its server for a
    /// host's display (`tool_use_meta`), as 2.1.235 does.
    pub fn with_mcp_meta(
        mut event: Value,
        display: impl Fn(&str) -> Option<(String, String)>,
    ) -> Value {
        let meta: Vec<Value> = event["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| {
                let (tool, server) = display(b["name"].as_str()?)?;
                Some(json!({"id": b["id"], "display_name": tool, "server_display_name": server}))
            })
            .collect();
        if !meta.is_empty() {
            event["tool_use_meta"] = json!(meta);
        }
        event
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

    /// A request is about to go out (`--include-partial-messages`; recorded on 2.1.235).
    pub fn requesting(&self) -> Value {
        json!({"type": "system", "subtype": "status", "status": "requesting",
               "uuid": uuid(), "session_id": self.session_id})
    }

    /// One of the API's own events as it arrived (`--include-partial-messages`), the first of a
    /// request with the time to it.
    pub fn stream_event(&self, event: &Value, ttft_ms: Option<u64>) -> Value {
        let mut line = json!({"type": "stream_event", "event": event, "session_id": self.session_id,
                              "parent_tool_use_id": null, "uuid": uuid()});
        if let Some(ms) = ttft_ms {
            line["ttft_ms"] = json!(ms);
        }
        line
    }

    /// The permission mode changed.
    pub fn status(&self, mode: &str) -> Value {
        json!({"type": "system", "subtype": "status", "status": null, "permissionMode": mode,
               "uuid": uuid(), "session_id": self.session_id})
    }

    /// Another output for the same session and stream, for a part of it that runs on its own
    /// (the tasks' announcer, the hooks' observer): it holds no results of its own.
    pub fn sibling(&self) -> Output {
        Output {
            format: self.format,
            session_id: self.session_id.clone(),
            terminal: self.terminal.clone(),
            held: None,
            after_results: self.after_results.clone(),
            transcript: None,
        }
    }

    /// A line the client tells the host (a hook's `systemMessage`, a blocked prompt).
    pub fn informational(&self, content: &str, level: &str) -> Value {
        json!({"type": "system", "subtype": "informational", "content": content, "level": level,
               "uuid": uuid(), "session_id": self.session_id})
    }

    /// A notice for the person at the session (`stop-hook-error`).
    pub fn notification(&self, key: &str, text: &str) -> Value {
        json!({"type": "system", "subtype": "notification", "key": key, "text": text,
               "priority": "immediate", "uuid": uuid(), "session_id": self.session_id})
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

    /// A refused call. `reason` is the decision's type and text; 2.1.235 prints the text only for
    /// the kinds whose reason is prose (a rule or the mode speaks for itself).
    pub fn permission_denied(
        &self,
        tool_name: &str,
        tool_use_id: &str,
        message: &str,
        reason: Option<(&str, Option<&str>)>,
    ) -> Value {
        let mut event = json!({"type": "system", "subtype": "permission_denied", "tool_name": tool_name, "tool_use_id": tool_use_id});
        if let Some((kind, text)) = reason {
            event["decision_reason_type"] = json!(kind);
            if let Some(text) = text.filter(|_| !SILENT_REASON_KINDS.contains(&kind)) {
                event["decision_reason"] = json!(text);
            }
        }
        event["message"] = json!(message);
        event["uuid"] = json!(uuid());
        event["session_id"] = json!(self.session_id);
        event
    }

    /// Prints a `rate_limit_event` for each change of the subscription's limits not yet told.
    pub fn rate_limits(&self) {
        for info in crate::api::rate_limit::take() {
            self.event(&json!({"type": "rate_limit_event", "rate_limit_info": info,
                               "uuid": uuid(), "session_id": self.session_id}));
        }
    }

    pub fn api_retry(&self, retry: &Retry) -> Value {
        json!({"type": "system", "subtype": "api_retry", "attempt": retry.attempt, "max_retries": retry.max_retries,
               "retry_delay_ms": retry.delay_ms, "error_status": retry.error.status(), "error": retry.error.category(),
               "session_id": self.session_id, "uuid": uuid()})
    }

    /// The main loop went on another model after overload (`--fallback-model`), fields and words
    /// as 2.1.235 has them (sdk.invocation/fallback-model).
    pub fn model_fallback(&self, original: &str, fallback: &str) -> Value {
        let content = format!(
            "Switched to {} due to high demand for {}",
            model_display_name(fallback),
            model_display_name(original)
        );
        json!({"type": "system", "subtype": "model_fallback", "trigger": "overloaded",
               "original_model": original, "fallback_model": fallback, "content": content,
               "session_id": self.session_id, "uuid": uuid()})
    }

    /// The assistant message the CLI synthesizes when the API fails for good.
    pub fn api_error_message(&self, error: &ApiError, text: &str) -> Value {
        let mut event = self.synthetic_answer(text, "stop_sequence");
        event["error"] = json!(error.final_category());
        if let ApiError::Http {
            request_id: Some(id),
            ..
        } = error
        {
            event["request_id"] = json!(id);
        }
        event["is_api_error_message"] = json!(true);
        event
    }

    /// An answer the client writes itself, no request behind it (an API error's text, a local
    /// command's failure). `stop_sequence` says why it ended: an empty one for `stop_sequence`.
    pub fn synthetic_answer(&self, text: &str, stop_reason: &str) -> Value {
        let stop_sequence = if stop_reason == "stop_sequence" {
            json!("")
        } else {
            Value::Null
        };
        json!({
            "type": "assistant",
            "message": {
                "diagnostics": null, "id": uuid(), "container": null, "model": "<synthetic>", "role": "assistant",
                "stop_details": null, "stop_reason": stop_reason,
                "stop_sequence": stop_sequence, "type": "message", "usage": zero_usage(), "content": [{"type": "text", "text": text}],
                "context_management": null,
            },
            "parent_tool_use_id": null, "session_id": self.session_id, "uuid": uuid(), "timestamp": timestamp(),
        })
    }
}

/// What init's `capabilities` advertises: the SDK control features this agent honours (the
/// interrupt receipt, cancelling queued prompts with an interrupt, message lifecycle events), as
/// 2.1.235 advertises them outside a remote session.
const CAPABILITIES: [&str; 3] = [
    "interrupt_receipt_v1",
    "interrupt_cancel_queued_v1",
    "msg_lifecycle_v1",
];

/// Decision kinds whose `decision_reason` 2.1.235 leaves out of `permission_denied`.
const SILENT_REASON_KINDS: &[&str] = &["rule", "mode", "subcommandResults", "permissionPromptTool"];

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty())
}

fn essential_traffic_only() -> bool {
    env_set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
}

/// Telemetry is off: traffic restricted, `DISABLE_TELEMETRY`, `DO_NOT_TRACK`, or another
/// provider than Anthropic's (where the rating events would go nowhere).
fn analytics_disabled() -> bool {
    essential_traffic_only()
        || env_set("DISABLE_TELEMETRY")
        || crate::environment::switched_on("DO_NOT_TRACK")
        || !crate::environment::provider::first_party()
}

/// Why fast mode is off, in init and in every result.
pub fn fast_mode_disabled_reason() -> &'static str {
    if crate::environment::provider::first_party() {
        "sdk_opt_in_required"
    } else {
        "not_first_party"
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

/// An MCP tool's name as a host shows it: words split at underscores, each capitalized.
pub fn display_tool_name(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes one line to stdout at once (events and control messages share stdout).
impl AfterResults {
    /// `event` was printed: the events it was the awaited result for, in the order they came.
    fn printed(&mut self, event: &Value) -> Vec<Value> {
        let ids = tool_result_ids(event);
        if ids.is_empty() {
            return Vec::new();
        }
        self.out.extend(ids.iter().cloned());
        let (due, waiting) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(id, _)| ids.contains(id));
        self.held = waiting;
        due.into_iter().map(|(_, event)| event).collect::<Vec<_>>()
    }

    /// `event` back when `tool_use_id`'s result is already out (or there is none to wait for);
    /// else it is held.
    fn hold_unless_out(&mut self, tool_use_id: &str, event: &Value) -> Option<Value> {
        if tool_use_id.is_empty() || self.out.contains(tool_use_id) {
            return Some(event.clone());
        }
        self.held.push((tool_use_id.to_owned(), event.clone()));
        None
    }
}

/// The tool_use ids of the tool_result blocks a `user` event carries.
fn tool_result_ids(event: &Value) -> Vec<String> {
    if event["type"] != "user" {
        return Vec::new();
    }
    event["message"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .filter_map(|b| b["tool_use_id"].as_str().map(str::to_owned))
        .collect()
}

/// A user message shown back to an SDK host, marked `isReplay` (recorded on 2.1.235): the host's
/// own (`--replay-user-messages`, keeping its `uuid`) or one the CLI says for it (`set_model`).
pub fn replayed_user(session_id: &str, message: Value, uuid_given: Option<&str>) -> Value {
    json!({
        "type": "user", "message": message, "session_id": session_id,
        "parent_tool_use_id": null, "uuid": uuid_given.map_or_else(uuid, str::to_owned),
        "timestamp": timestamp(), "isReplay": true,
    })
}

pub fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not this process's error to report.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn zero_usage() -> Value {
    json!({"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
           "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": null,
           "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}})
}

/// Hook runs as 2.1.235 tells them on stream-json: `hook_started`, then `hook_response` with
/// the hook's output (stdout then stderr), its status and its outcome.
impl crate::hooks::Observer for Output {
    fn started(&self, hook_id: &str, name: &str, event: &str) {
        self.event(
            &json!({"type": "system", "subtype": "hook_started", "hook_id": hook_id,
                           "hook_name": name, "hook_event": event, "uuid": uuid(),
                           "session_id": self.session_id}),
        );
    }

    fn responded(&self, hook_id: &str, name: &str, event: &str, output: &crate::child::Output) {
        // A hook ended at its timeout is told as cancelled, with nothing of what it printed.
        let (stdout, stderr, code, outcome) = match (output.timed_out, output.code) {
            (true, _) => ("", "", Some(1), "cancelled"),
            (false, Some(0)) => (
                output.stdout.as_str(),
                output.stderr.as_str(),
                Some(0),
                "success",
            ),
            (false, code) => (
                output.stdout.as_str(),
                output.stderr.as_str(),
                code,
                "error",
            ),
        };
        let mut e = json!({"type": "system", "subtype": "hook_response", "hook_id": hook_id,
                           "hook_name": name, "hook_event": event,
                           "output": format!("{stdout}{stderr}"), "stdout": stdout, "stderr": stderr});
        if let Some(code) = code {
            e["exit_code"] = json!(code);
        }
        e["outcome"] = json!(outcome);
        e["uuid"] = json!(uuid());
        e["session_id"] = json!(self.session_id);
        self.event(&e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result_of(id: &str) -> Value {
        json!({"type": "user", "message": {"role": "user",
               "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}})
    }

    /// A workflow that ends before its launching call's result is printed is told after it,
    /// in the order its events came; a task whose call's result is out is told at once.
    #[test]
    fn a_background_end_waits_for_its_launching_result() {
        let mut after = AfterResults::default();
        let updated = json!({"type": "system", "subtype": "task_updated"});
        let notified = json!({"type": "system", "subtype": "task_notification"});
        assert_eq!(after.hold_unless_out("toolu_wf", &updated), None);
        assert_eq!(after.hold_unless_out("toolu_wf", &notified), None);
        assert!(after.printed(&result_of("toolu_other")).is_empty());
        assert!(after.printed(&json!({"type": "assistant"})).is_empty());
        assert_eq!(
            after.printed(&result_of("toolu_wf")),
            [updated.clone(), notified]
        );
        assert!(after.held.is_empty());
        assert_eq!(
            after.hold_unless_out("toolu_wf", &updated),
            Some(updated.clone())
        );
        assert_eq!(after.hold_unless_out("", &updated), Some(updated));
    }

    fn out() -> Output {
        Output {
            format: Format::Json,
            session_id: "s".into(),
            terminal: None,
            held: None,
            after_results: Default::default(),
            transcript: None,
        }
    }

    #[test]
    fn mcp_calls_carry_their_display_names_and_others_nothing() {
        let event = json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "mcp__web__write_thing", "input": {}}]}});
        let lookup = |name: &str| {
            let tool = name.strip_prefix("mcp__web__")?;
            Some((display_tool_name(tool), "fake-mcp".to_owned()))
        };
        let e = Output::with_mcp_meta(event.clone(), lookup);
        assert_eq!(
            e["tool_use_meta"],
            json!([{"id": "t1", "display_name": "Write Thing", "server_display_name": "fake-mcp"}])
        );
        let e = Output::with_mcp_meta(event, |_| None);
        assert!(e.get("tool_use_meta").is_none());
    }

    #[test]
    fn a_denial_explains_itself_only_when_its_kind_is_prose() {
        let e = out().permission_denied("T", "id", "no", Some(("safetyCheck", Some("why"))));
        assert_eq!(e["decision_reason_type"], "safetyCheck");
        assert_eq!(e["decision_reason"], "why");
        let e = out().permission_denied("T", "id", "no", Some(("rule", Some("why"))));
        assert_eq!(e["decision_reason_type"], "rule");
        assert!(e.get("decision_reason").is_none());
        let e = out().permission_denied("T", "id", "no", None);
        assert!(e.get("decision_reason_type").is_none());
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "type",
                "subtype",
                "tool_name",
                "tool_use_id",
                "message",
                "uuid",
                "session_id"
            ]
        );
    }
}

/// A model id as a person reads it: `claude-haiku-4-5` → `Haiku 4.5`, a date suffix dropped;
/// an id without a family name stays as it is.
pub fn model_display_name(model: &str) -> String {
    let id = crate::api::tally::canonical(model);
    let parts: Vec<&str> = id
        .strip_prefix("claude-")
        .unwrap_or(id)
        .split('-')
        .collect();
    let family = parts
        .iter()
        .find(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphabetic()));
    let version: Vec<&str> = parts
        .iter()
        .copied()
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    match (family, version.is_empty()) {
        (Some(family), false) => {
            let mut name = family[..1].to_ascii_uppercase() + &family[1..];
            name.push(' ');
            name.push_str(&version.join("."));
            name
        }
        _ => model.to_owned(),
    }
}

#[cfg(test)]
mod model_name_tests {
    use super::model_display_name;

    #[test]
    fn families_and_versions_read_as_people_say_them() {
        assert_eq!(model_display_name("claude-haiku-4-5"), "Haiku 4.5");
        assert_eq!(
            model_display_name("claude-sonnet-4-5-20250929"),
            "Sonnet 4.5"
        );
        assert_eq!(model_display_name("claude-opus-4-1"), "Opus 4.1");
        assert_eq!(model_display_name("m"), "m");
    }
}
