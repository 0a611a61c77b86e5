//! The SDK control protocol, as a host speaks it to `claude -p --input-format stream-json
//! --output-format stream-json --permission-prompt-tool stdio`: an `initialize` request and the
//! prompt as a user message on stdin, then every `can_use_tool` request on stdout answered from the
//! scenario's decisions, every `hook_callback` answered as the scenario's `[[sdk_hook]]` says, the
//! scenario's `then_type` lines sent one per `result`, and stdin closed once the last `result`
//! arrives (the end of the session, as the SDK ends it).

use std::process::Stdio;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdin;

use super::{input_text, Decisions};
use super::{wind_down, Driven};
use crate::mcp::McpSetup;
use stubs::cues::{Cues, Event};

use crate::process::{collect, kill_group, read_capped, wait_or_kill, Kept, OUTPUT_CAP_BYTES};
use crate::scenario::{Answer, Decision, SdkHook, SdkMcpServer};

/// What the model is told when a decision denies without a message of its own.
pub const DEFAULT_DENY: &str = "The user doesn't want to proceed with this tool use.";

/// What the host does besides answering: the prompts it sends (one per `result`), the hook
/// functions and in-process MCP servers it registers, and control requests of its own, sent
/// once `initialize` is out.
pub(crate) struct Script<'a> {
    pub prompts: &'a [String],
    pub sdk_hooks: &'a [SdkHook],
    pub sdk_mcp: &'a [SdkMcpServer],
    /// `initialize`'s `agents` and `jsonSchema`.
    pub agents: Option<&'a serde_json::Map<String, Value>>,
    pub json_schema: Option<&'a serde_json::Map<String, Value>>,
    pub requests: &'a [Value],
}

pub(crate) async fn drive(
    command: std::process::Command,
    script: Script<'_>,
    decisions: &mut Decisions,
    timeout: Duration,
    (mcp, cues): (&McpSetup, &Cues),
) -> Result<Driven> {
    let (mut child, pid) = crate::process::spawn(command, Stdio::piped())?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let stderr_task = read_capped(child.stderr.take().expect("piped"));
    let mut host = Host {
        stdin: Some(stdin),
        sent: Vec::new(),
        decisions: std::mem::take(decisions),
        pid,
        next_id: 0,
        cues: cues.clone(),
        sdk_hooks: script.sdk_hooks.to_vec(),
        sdk_mcp: script.sdk_mcp.to_vec(),
        agents: script.agents.cloned(),
        json_schema: script.json_schema.cloned(),
        requests: script.requests.to_vec(),
        deferred: Vec::new(),
        prompts: script.prompts.iter().cloned().collect(),
    };
    let io = tokio::spawn(async move {
        let stdout = host.converse(stdout).await;
        (host, stdout)
    });
    let exited = wait_or_kill(pid, timeout).await;
    drop(child);
    let mcp_survivors = wind_down(&exited, pid, mcp).await;
    let (host, stdout) = collect(io).await;
    *decisions = host.decisions;
    let stderr = collect(stderr_task).await;
    Ok(Driven {
        mcp_survivors,
        ..Driven::piped(exited, (stdout, stderr), host.sent)
    })
}

#[derive(Default)]
struct Host {
    stdin: Option<ChildStdin>,
    sent: Vec<String>,
    decisions: Decisions,
    pid: Option<i32>,
    next_id: u64,
    /// Where each stdout line is announced, for a scripted `after = { stdout = … }`.
    cues: Cues,
    /// The hook functions registered at `initialize`; callback `hook_N` is the N-th.
    sdk_hooks: Vec<SdkHook>,
    /// The host's in-process MCP servers, named at `initialize`.
    sdk_mcp: Vec<SdkMcpServer>,
    /// The agent types defined at `initialize`, and the schema given there.
    agents: Option<serde_json::Map<String, Value>>,
    json_schema: Option<serde_json::Map<String, Value>>,
    /// Control requests of the host's own, sent after `initialize`.
    requests: Vec<Value>,
    /// Requests held until a stdout line contains their `after_stdout` text.
    deferred: Vec<(String, Value)>,
    /// The user messages not sent yet: the first at the start, each next one after a `result`.
    prompts: std::collections::VecDeque<String>,
}

impl Host {
    /// Plays the host until stdout ends. Lines are read from the first `OUTPUT_CAP_BYTES` only,
    /// so one endless line cannot grow without bound; the rest is drained and counted.
    async fn converse(&mut self, stdout: tokio::process::ChildStdout) -> Kept {
        let id = self.request_id();
        let mut initialize = json!({"subtype": "initialize", "hooks": self.initialize_hooks()});
        if !self.sdk_mcp.is_empty() {
            let names: Vec<&str> = self.sdk_mcp.iter().map(|s| s.name.as_str()).collect();
            initialize["sdkMcpServers"] = json!(names);
        }
        if let Some(agents) = &self.agents {
            initialize["agents"] = Value::Object(agents.clone());
        }
        if let Some(schema) = &self.json_schema {
            initialize["jsonSchema"] = Value::Object(schema.clone());
        }
        self.send(json!({"type": "control_request", "request_id": id, "request": initialize}))
            .await;
        for mut request in std::mem::take(&mut self.requests) {
            // A string is a line sent as it is (a line that is not a message at all).
            if let Value::String(raw) = request {
                self.send_line(raw).await;
                continue;
            }
            // One that waits for a line of the target's goes out once it is seen.
            if let Some(Value::String(after)) = request
                .as_object_mut()
                .and_then(|r| r.shift_remove("after_stdout"))
            {
                self.deferred.push((after, request));
                continue;
            }
            let id = self.request_id();
            self.send(json!({"type": "control_request", "request_id": id, "request": request}))
                .await;
        }
        self.send_next_prompt().await;
        let mut lines = BufReader::new(stdout.take(OUTPUT_CAP_BYTES as u64)).lines();
        let mut seen = Kept::default();
        // Set while nobody answers (`none`): when it passes, the host goes away (stdin closes).
        let mut silent_until: Option<tokio::time::Instant> = None;
        loop {
            let line = match silent_until {
                Some(at) => match tokio::time::timeout_at(at, lines.next_line()).await {
                    Ok(line) => line,
                    Err(_) => {
                        self.stdin = None;
                        silent_until = None;
                        continue;
                    }
                },
                None => lines.next_line().await,
            };
            let Ok(Some(line)) = line else { break };
            seen.push(line.as_bytes());
            seen.push(b"\n");
            self.cues.publish(Event::Stdout { line: line.clone() });
            self.send_deferred(&line).await;
            let Ok(event) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            match event["type"].as_str() {
                Some("control_request") => {
                    if let Some(wait) = self.answer(&event).await {
                        silent_until = Some(tokio::time::Instant::now() + wait);
                    }
                }
                Some("result") => self.prompt_ended().await,
                _ => {}
            }
        }
        let mut rest = lines.into_inner().into_inner().into_inner();
        if let Ok(more) = tokio::io::copy(&mut rest, &mut tokio::io::sink()).await {
            seen.dropped += more;
        }
        seen
    }

    /// The held requests whose line this is, with `{line:REGEX}` in their strings filled from it.
    async fn send_deferred(&mut self, line: &str) {
        let (due, held): (Vec<_>, Vec<_>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|(after, _)| line.contains(after.as_str()));
        self.deferred = held;
        for (_, request) in due {
            // `{ line = "…", after_stdout = "…" }`: a line of the host's own (not a control
            // request), sent as it is once the target's line is seen.
            if let Some(raw) = request.get("line").and_then(Value::as_str) {
                self.send_line(raw.to_owned()).await;
                continue;
            }
            let request = fill_from_line(&request, line);
            let id = self.request_id();
            self.send(json!({"type": "control_request", "request_id": id, "request": request}))
                .await;
        }
    }

    /// A result ended a prompt: the next one goes out, or the host is done and closes its side.
    async fn prompt_ended(&mut self) {
        if !self.send_next_prompt().await {
            self.stdin = None;
        }
    }

    /// Sends the next user message; false when none is left.
    async fn send_next_prompt(&mut self) -> bool {
        let Some(prompt) = self.prompts.pop_front() else {
            return false;
        };
        self.send(json!({"type": "user", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": null, "session_id": ""}))
            .await;
        true
    }

    /// Answers one control request from the target; `Some(wait)` when the decision is to stay
    /// silent for that long.
    async fn answer(&mut self, event: &Value) -> Option<Duration> {
        let id = event["request_id"].clone();
        let request = &event["request"];
        if request["subtype"] == "hook_callback" {
            let answer = request["callback_id"]
                .as_str()
                .and_then(|c| c.strip_prefix("hook_")?.parse::<usize>().ok())
                .and_then(|n| self.sdk_hooks.get(n))
                .map(|h| h.answer.clone());
            let response = match answer {
                Some(answer) => json!({"subtype": "success", "request_id": id, "response": answer}),
                None => {
                    json!({"subtype": "error", "request_id": id, "error": "no such hook callback"})
                }
            };
            self.send(json!({"type": "control_response", "response": response}))
                .await;
            return None;
        }
        if request["subtype"] == "mcp_message" {
            let server = self
                .sdk_mcp
                .iter()
                .find(|s| request["server_name"] == s.name.as_str());
            let response = match server {
                Some(server) => {
                    json!({"subtype": "success", "request_id": id, "response": {"mcp_response": server.answer(&request["message"])}})
                }
                None => {
                    json!({"subtype": "error", "request_id": id, "error": format!("SDK MCP server not found: {}", request["server_name"].as_str().unwrap_or_default())})
                }
            };
            self.send(json!({"type": "control_response", "response": response}))
                .await;
            return None;
        }
        if request["subtype"] != "can_use_tool" {
            let subtype = request["subtype"].as_str().unwrap_or("?");
            self.send(json!({"type": "control_response", "response": {"subtype": "error", "request_id": id, "error": format!("this host does not handle `{subtype}`")}}))
                .await;
            return None;
        }
        let tool = request["tool_name"].as_str().unwrap_or_default();
        let input = &request["input"];
        let Some((_, decision)) = self.decisions.take(tool, &input_text(input)) else {
            // Not what the user expects to be asked: the run ends here, and the check says why.
            kill_group(self.pid);
            return None;
        };
        match decision.answer {
            Answer::None => {
                return Some(Duration::from_millis(decision.wait_ms.unwrap_or_default()))
            }
            // The host withdraws the question (the user pressed Esc): an interrupt, no answer.
            Answer::Cancel => {
                let id = self.request_id();
                self.send(json!({"type": "control_request", "request_id": id, "request": {"subtype": "interrupt"}}))
                    .await;
                return None;
            }
            _ => {}
        }
        let response = permission_response(&decision, request);
        self.send(json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": response}}))
            .await;
        None
    }

    /// `initialize`'s `hooks`, as the Agent SDKs build it: per event, one matcher entry per
    /// registered function, each with its callback id; `null` when none is registered.
    fn initialize_hooks(&self) -> Value {
        if self.sdk_hooks.is_empty() {
            return Value::Null;
        }
        let mut by_event = serde_json::Map::new();
        for (n, hook) in self.sdk_hooks.iter().enumerate() {
            let entry = json!({"matcher": hook.matcher, "hookCallbackIds": [format!("hook_{n}")]});
            by_event
                .entry(hook.event.clone())
                .or_insert_with(|| json!([]))
                .as_array_mut()
                .expect("an array")
                .push(entry);
        }
        Value::Object(by_event)
    }

    fn request_id(&mut self) -> String {
        self.next_id += 1;
        format!("req_{}_conformance", self.next_id)
    }

    async fn send(&mut self, message: Value) {
        self.send_line(message.to_string()).await;
    }

    async fn send_line(&mut self, line: String) {
        self.sent.push(line.clone());
        if let Some(stdin) = &mut self.stdin {
            // A target that already closed its stdin simply does not read the rest.
            let _ = stdin.write_all(format!("{line}\n").as_bytes()).await;
            let _ = stdin.flush().await;
        }
    }
}

/// `{line:REGEX}` in a string of `value` becomes the first group REGEX finds in `line` (a task
/// id the target printed, for a request that names it); unmatched, it stays as written, so the
/// target's answer shows what was missing.
fn fill_from_line(value: &Value, line: &str) -> Value {
    match value {
        Value::String(s) => match s
            .strip_prefix("{line:")
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|pattern| regex::Regex::new(pattern).ok())
            .and_then(|re| re.captures(line)?.get(1).map(|m| m.as_str().to_owned()))
        {
            Some(found) => Value::String(found),
            None => value.clone(),
        },
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| fill_from_line(v, line)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill_from_line(v, line)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The `can_use_tool` answer a decision stands for.
pub fn permission_response(decision: &Decision, request: &Value) -> Value {
    let input = &request["input"];
    match decision.answer {
        Answer::Allow => {
            let input = decision.input.as_ref().unwrap_or(input);
            json!({"behavior": "allow", "updatedInput": input})
        }
        Answer::AllowAlways => {
            // The user accepts the rules the target proposed for this call.
            let rules: Vec<&Value> = request["permission_suggestions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|s| s["type"] == "addRules")
                .collect();
            json!({"behavior": "allow", "updatedInput": input, "updatedPermissions": rules})
        }
        // "No" stops the turn, as it does at a terminal; "No, and …" tells the model and goes on.
        Answer::Deny => match &decision.message {
            None => json!({"behavior": "deny", "message": DEFAULT_DENY, "interrupt": true}),
            Some(message) => json!({"behavior": "deny", "message": message}),
        },
        Answer::Choose | Answer::Text => {
            let mut input = input.clone();
            input["answers"] = answers(decision, &input);
            json!({"behavior": "allow", "updatedInput": input})
        }
        Answer::Cancel | Answer::None => Value::Null,
    }
}

/// AskUserQuestion's answers: question text → the chosen label(s), or the typed text for the
/// first question.
fn answers(decision: &Decision, input: &Value) -> Value {
    let questions: Vec<&str> = input["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|q| q["question"].as_str())
        .collect();
    let mut out = serde_json::Map::new();
    match decision.answer {
        Answer::Text => {
            if let Some(q) = questions.first() {
                out.insert((*q).to_owned(), json!(decision.text));
            }
        }
        _ => {
            for (q, label) in questions.iter().zip(&decision.choose) {
                out.insert((*q).to_owned(), json!(label));
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_request_takes_what_its_line_names() {
        let line =
            r#"{"type":"system","subtype":"task_started","task_id":"a1b2","tool_use_id":"t"}"#;
        let request =
            json!({"subtype": "stop_task", "task_id": "{line:\"task_id\":\"(\\w+)\"}", "n": 1});
        let filled = fill_from_line(&request, line);
        assert_eq!(
            filled,
            json!({"subtype": "stop_task", "task_id": "a1b2", "n": 1})
        );
        let unmatched = json!({"task_id": "{line:nothing (here)}"});
        assert_eq!(fill_from_line(&unmatched, line), unmatched);
    }
}
