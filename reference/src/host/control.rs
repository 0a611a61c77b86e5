//! The SDK control protocol on stdin/stdout (`--input-format stream-json`, with
//! `--permission-prompt-tool stdio` for permission questions), as 2.1.235 speaks it.
//!
//! A reader thread owns stdin and hands control responses to the question waiting for them at
//! once; user messages and the host's control requests go, in the order they came, to a second
//! thread that answers the requests and queues the messages for the session. A request that
//! waits (an MCP reconnect) thus holds up what came after it, never the answers an SDK MCP
//! server's connection needs. Questions go out as `can_use_tool` control requests on stdout,
//! one line each, like every event.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex};

use serde_json::{json, Value};

use crate::config::SystemPrompt;
use crate::context::custom_agents;
use crate::events::{print_line, replayed_user};
use crate::mcp::McpRuntime;
use crate::tools::Host;
use crate::vocab::{uuid, Mode};
use crate::vocab::{Ask, Reply};

/// The model's text when the host's answer is neither a valid allow nor a valid deny.
pub const INVALID_ANSWER: &str = "The canUseTool callback returned an invalid permission result. Expected {behavior: 'allow', updatedInput?: object} or {behavior: 'deny', message: string}.";
/// When stdin closes while a question waits.
pub const STREAM_CLOSED: &str =
    "Tool permission request failed: AbortError: Tool permission stream closed before response received";

/// What the session reads from the host between turns.
pub enum Input {
    /// A user message as the host sent it (`message.content`: a string or blocks; maybe a
    /// `uuid`).
    User(Value),
    /// The host asked for another permission mode.
    SetMode(Mode),
    /// The host asked for another model (`None`: the default one).
    SetModel(Option<String>),
    /// The host set the thinking budget (`None`: back to the default).
    SetThinking(Option<u64>),
    /// A line that ends the session with this error: not JSON, or a user message without its
    /// role.
    Fatal(String),
    /// The host says the model has seen this file as it was at `mtime` (ms since the epoch).
    SeedRead { path: String, mtime: u64 },
    /// A notification was queued for the session (`crate::notifications`).
    Notified,
}

/// What the reader hands on, in the host's order.
enum Line {
    /// A user message or control request, and whom to tell once the first one is handled.
    Message(Value, Option<Sender<()>>),
    /// A line the session cannot go on from.
    Fatal(String),
}

/// What ends a question's wait.
enum Answered {
    /// The host's control response.
    Host(Value),
    /// A PermissionRequest hook decided first; the question was withdrawn.
    Hook(Reply),
    /// Withdrawn by an interrupt, or the host went away.
    Withdrawn,
}

pub struct Control {
    /// Questions waiting for their answer, by request id.
    pending: Mutex<HashMap<String, SyncSender<Answered>>>,
    /// Set when the host interrupts; the session ends the turn at the next step.
    interrupted: AtomicBool,
    /// Whether permission questions go to the host (`--permission-prompt-tool stdio`).
    pub asks: bool,
    /// The host's `initialize` request (`null` before it): its hooks, system prompt, SDK MCP
    /// servers.
    init: Mutex<Value>,
    /// The session's id, for the events the control host prints itself.
    session_id: String,
    /// The session's MCP servers, once started: the MCP requests wait for them.
    mcp: (Mutex<Option<Attached>>, Condvar),
    /// The session's tasks, once it opened: `stop_task` stops one of them.
    tasks: Mutex<Option<crate::agents::Agents>>,
    /// The host's prompts, waiting or running (`cancel_async_message`, `command_lifecycle`).
    pub queue: super::queue::Queue,
}

/// What the host's MCP requests act on.
struct Attached {
    runtime: Arc<McpRuntime>,
    tokio: tokio::runtime::Handle,
    home: PathBuf,
    cwd: PathBuf,
}

impl Control {
    /// Starts reading stdin; `mode` is the session's mode as `initialize` reports it. Returns
    /// once the host's first message is handled (2.1.235 answers `initialize` before its `init`
    /// event), or stdin ended, or a second passed.
    pub fn start(asks: bool, mode: Mode, session_id: &str) -> (Arc<Control>, Receiver<Input>) {
        let control = Arc::new(Control {
            pending: Mutex::new(HashMap::new()),
            interrupted: AtomicBool::new(false),
            asks,
            init: Mutex::new(Value::Null),
            session_id: session_id.to_owned(),
            mcp: (Mutex::new(None), Condvar::new()),
            tasks: Mutex::new(None),
            queue: super::queue::Queue::new(session_id),
        });
        crate::notifications::session().attach(session_id);
        let (tx, rx) = channel();
        let (first_tx, first_rx) = channel();
        let (lines_tx, lines_rx) = channel::<Line>();
        let reader = control.clone();
        std::thread::spawn(move || reader.read_stdin(lines_tx, first_tx));
        let server = control.clone();
        std::thread::spawn(move || server.serve_in_order(lines_rx, tx, mode));
        let _ = first_rx.recv_timeout(std::time::Duration::from_secs(1));
        (control, rx)
    }

    /// The session's MCP servers are up: the host's MCP requests act on them from now on.
    pub fn attach_mcp(&self, runtime: Arc<McpRuntime>, home: PathBuf, cwd: PathBuf) {
        let attached = Attached {
            runtime,
            tokio: tokio::runtime::Handle::current(),
            home,
            cwd,
        };
        *self.mcp.0.lock().unwrap() = Some(attached);
        self.mcp.1.notify_all();
    }

    /// The session opened: the host's `stop_task` reaches its tasks from now on.
    pub fn attach_tasks(&self, agents: Option<crate::agents::Agents>) {
        *self.tasks.lock().unwrap() = agents;
    }

    /// `stop_task`: a running task is stopped as TaskStop stops it; whatever the id names, the
    /// answer is empty (recorded on 2.1.235: sdk.control/stop-task).
    fn stop_task(&self, id: &str) {
        let agents = self.tasks.lock().unwrap().clone();
        let Some(agents) = agents else { return };
        if let Ok(task) = agents.registry.stop(id) {
            if task.kind == crate::tools::shell_task::KIND {
                crate::tools::shell_task::await_end(&agents, id);
            }
        }
    }

    /// Runs `act` on the MCP servers once they are attached (up to a minute: a session that
    /// never starts them answers with an error).
    fn with_mcp<T>(&self, act: impl FnOnce(&Attached) -> Result<T, String>) -> Result<T, String> {
        let (lock, ready) = &self.mcp;
        let guard = ready
            .wait_timeout_while(
                lock.lock().unwrap(),
                std::time::Duration::from_secs(60),
                |a| a.is_none(),
            )
            .unwrap()
            .0;
        match guard.as_ref() {
            Some(attached) => act(attached),
            None => Err("MCP servers are not started".into()),
        }
    }

    /// The hook functions the host registered at `initialize` (`null` when none).
    pub fn registered_hooks(&self) -> Value {
        self.init.lock().unwrap()["hooks"].clone()
    }

    /// What the host's `initialize` says of the system prompt (`systemPrompt`: a list of texts,
    /// joined; `appendSystemPrompt`), over what the command line said.
    pub fn system_prompt(&self, flags: &SystemPrompt) -> SystemPrompt {
        let init = self.init.lock().unwrap();
        let replace = init["systemPrompt"].as_array().map(|parts| {
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n\n")
        });
        SystemPrompt {
            replace: replace.or_else(|| flags.replace.clone()),
            append: init["appendSystemPrompt"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| flags.append.clone()),
        }
    }

    /// The schema the final answer must match, when the host's `initialize` gives one
    /// (`jsonSchema`, as `--json-schema`).
    pub fn json_schema(&self) -> Option<Value> {
        Some(self.init.lock().unwrap()["jsonSchema"].clone()).filter(Value::is_object)
    }

    /// The in-process MCP servers the host named at `initialize` (`sdkMcpServers`).
    pub fn sdk_mcp_servers(&self) -> Vec<String> {
        crate::json::strings(&self.init.lock().unwrap()["sdkMcpServers"])
    }

    /// Sends the host a control request and waits for its answer (up to `timeout`, or until
    /// the host goes away): the success body, or the host's error text.
    fn exchange(
        &self,
        request: Value,
        timeout: Option<std::time::Duration>,
    ) -> Result<Value, String> {
        let id = uuid();
        let (tx, rx) = sync_channel(1);
        self.pending.lock().unwrap().insert(id.clone(), tx);
        print_line(
            &json!({"type": "control_request", "request_id": id, "request": request}).to_string(),
        );
        let answer = match timeout {
            Some(timeout) => rx.recv_timeout(timeout).map_err(|_| ()),
            None => rx.recv().map_err(|_| ()),
        };
        self.pending.lock().unwrap().remove(&id);
        match answer {
            Ok(Answered::Host(response)) if response["subtype"] == "success" => {
                Ok(response["response"].clone())
            }
            Ok(Answered::Host(response)) => Err(response["error"]
                .as_str()
                .unwrap_or("unknown error")
                .to_owned()),
            Ok(_) => Err("the host went away".into()),
            Err(_) => Err("the host did not answer in time".into()),
        }
    }

    /// Whether the host interrupted since the last call (the flag is cleared).
    pub fn take_interrupt(&self) -> bool {
        self.interrupted.swap(false, Ordering::SeqCst)
    }

    /// `first` is told once the host's first line is handled (or stdin ended).
    fn read_stdin(&self, lines: Sender<Line>, first: Sender<()>) {
        let stdin = std::io::stdin();
        let mut first = Some(first);
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            match self.read_line(&line) {
                Ok(Some(message)) => {
                    let _ = lines.send(Line::Message(message, first.take()));
                }
                Ok(None) => {}
                Err(error) => {
                    let _ = lines.send(Line::Fatal(error));
                    break;
                }
            }
        }
        if let Some(first) = first {
            let _ = first.send(());
        }
        // The host went away: every waiting question fails, and the session sees the end.
        for (_, waiting) in self.pending.lock().unwrap().drain() {
            let _ = waiting.send(Answered::Withdrawn);
        }
    }

    /// The host's user messages and control requests, in their order.
    fn serve_in_order(&self, lines: Receiver<Line>, inputs: Sender<Input>, mode: Mode) {
        for line in lines {
            let (message, first) = match line {
                Line::Message(message, first) => (message, first),
                Line::Fatal(error) => {
                    let _ = inputs.send(Input::Fatal(error));
                    break;
                }
            };
            let ends = message["request"]["subtype"] == "end_session";
            match message["type"].as_str() {
                Some("control_request") => self.serve(&message, &inputs, mode),
                Some("queued_notification") => {
                    let queue = crate::notifications::session();
                    let taken = crate::notifications::taken(false);
                    if queue.offer(&message, taken) == crate::notifications::Intake::Accepted {
                        let _ = inputs.send(Input::Notified);
                    }
                }
                _ => match message["message"]["role"].as_str() {
                    Some("user") => {
                        self.queue.arrived(message["uuid"].as_str());
                        let _ = inputs.send(Input::User(message));
                    }
                    role => {
                        let role = role.unwrap_or("undefined");
                        let error = format!("Error: Expected message role 'user', got '{role}'");
                        let _ = inputs.send(Input::Fatal(error));
                        break;
                    }
                },
            }
            if let Some(first) = first {
                let _ = first.send(());
            }
            // The host ended the session: what it sent after is not read, a prompt included
            // (recorded: sdk.control/session, 2.1.235 answers no prompt queued behind it).
            if ends {
                break;
            }
        }
    }

    /// One line from the host: a control response is handed over here; a user message or
    /// control request is returned for [`Self::serve_in_order`]; anything else that is JSON is
    /// passed over in silence, and a line that is not ends the session (recorded on 2.1.235:
    /// sdk.control/bad-line; the parse error's own words are this parser's).
    fn read_line(&self, line: &str) -> Result<Option<Value>, String> {
        if line.trim().is_empty() {
            return Ok(None);
        }
        let message: Value = serde_json::from_str(line).map_err(|e| {
            format!(
                "Error parsing streaming input line: {line}: SyntaxError: JSON Parse error: {e}"
            )
        })?;
        match message["type"].as_str() {
            Some("user") | Some("control_request") | Some("queued_notification") => {
                return Ok(Some(message))
            }
            Some("control_response") => {
                let response = &message["response"];
                let id = response["request_id"].as_str().unwrap_or_default();
                // An answer nobody waits for any more (cancelled) is dropped, as 2.1.235 does.
                if let Some(waiting) = self.pending.lock().unwrap().remove(id) {
                    let _ = waiting.send(Answered::Host(response.clone()));
                }
            }
            _ => {}
        }
        Ok(None)
    }

    /// Answers a control request from the host.
    fn serve(&self, message: &Value, inputs: &Sender<Input>, mode: Mode) {
        let id = &message["request_id"];
        let request = &message["request"];
        let reply = match request["subtype"].as_str() {
            Some("initialize") => {
                *self.init.lock().unwrap() = request.clone();
                // The host's agent types (the TypeScript SDK's `agents` option), shaped as
                // `--agents`; the answer lists every type (recorded: sdk.control/agents).
                let mut agents = custom_agents::from_value(&request["agents"]);
                for agent in &mut agents {
                    agent.from_host = true;
                }
                custom_agents::define(agents);
                let agents: Vec<Value> = crate::context::builtins::agent_types()
                    .into_iter()
                    .map(|(name, description, _)| json!({"name": name, "description": description}))
                    .collect();
                Ok(json!({
                "commands": [], "agents": agents, "output_style": "default", "available_output_styles": ["default"],
                "models": [], "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
                "pid": std::process::id(), "current_permission_mode": mode.as_str(),
                "remote_control_auto_enable": false, "remote_control_auto_on_by_default": false, "ide_rc_auto_enable_gate": false,
                "fast_mode_state": "off", "fast_mode_disabled_reason": "sdk_opt_in_required",
                }))
            }
            Some("interrupt") => {
                self.interrupted.store(true, Ordering::SeqCst);
                // A question still waiting is withdrawn first.
                for (pending, waiting) in self.pending.lock().unwrap().drain() {
                    print_line(&json!({"type": "control_cancel_request", "request_id": pending}).to_string());
                    let _ = waiting.send(Answered::Withdrawn);
                }
                Ok(json!({"still_queued": []}))
            }
            Some("set_permission_mode") => match request["mode"].as_str().and_then(Mode::parse) {
                Some(mode) => {
                    let _ = inputs.send(Input::SetMode(mode));
                    Ok(json!({"mode": mode.as_str()}))
                }
                None => Err("Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan".to_owned()),
            },
            // Recorded on 2.1.235 (sdk.control/model): the change is told as a replayed
            // local command's output first, then answered with no body.
            Some("set_model") => {
                let model = request["model"].as_str().filter(|m| *m != "default");
                if let Some(model) = model {
                    let said = format!("<local-command-stdout>Set model to {model}</local-command-stdout>");
                    let message = json!({"role": "user", "content": said});
                    print_line(&replayed_user(&self.session_id, message, None).to_string());
                }
                let _ = inputs.send(Input::SetModel(model.map(str::to_owned)));
                Ok(Value::Null)
            }
            // Recorded on 2.1.235 (sdk.control/mcp, /mcp-sources, /mcp-preset).
            Some("mcp_status") => self.with_mcp(|mcp| Ok(json!({"mcpServers": mcp.runtime.report()}))),
            Some("mcp_toggle") => {
                let name = server_name(request);
                let enabled = request["enabled"] == true;
                self.with_mcp(|mcp| {
                    mcp.tokio.block_on(mcp.runtime.set_enabled(&name, enabled))?;
                    // Remembered for the project, as a user's /mcp toggle is.
                    crate::mcp::config::persist_disabled(&mcp.home, &mcp.cwd, &name, !enabled)
                        .map_err(|e| e.to_string())?;
                    Ok(Value::Null)
                })
            }
            Some("mcp_reconnect") => {
                let name = server_name(request);
                self.with_mcp(|mcp| {
                    mcp.tokio.block_on(mcp.runtime.reconnect_now(&name))?;
                    Ok(Value::Null)
                })
            }
            // Recorded on 2.1.235 (sdk.control/session): no file checkpoints are kept here.
            Some("rewind_files") if request["dry_run"] == true => {
                Ok(json!({"canRewind": false, "error": REWIND_OFF}))
            }
            Some("rewind_files") => Err(REWIND_OFF.to_owned()),
            Some("read_file") => read_file(&request["path"]),
            Some("seed_read_state") => {
                if let (Some(path), Some(mtime)) =
                    (request["path"].as_str(), request["mtime"].as_f64())
                {
                    let mtime = mtime.max(0.0) as u64;
                    let _ = inputs.send(Input::SeedRead { path: path.to_owned(), mtime });
                }
                Ok(Value::Null)
            }
            Some("end_session") => Ok(Value::Null),
            Some("stop_task") => {
                self.stop_task(request["task_id"].as_str().unwrap_or_default());
                Ok(json!({}))
            }
            // Nothing here runs in the foreground to be sent to the background: answered as
            // 2.1.235 answers with nothing to move (sdk.control/stop-task).
            Some("background_tasks") => Ok(json!({})),
            Some("cancel_async_message") => {
                let id = request["message_uuid"].as_str().unwrap_or_default();
                Ok(json!({"cancelled": self.queue.cancel(id)}))
            }
            Some("set_max_thinking_tokens") => {
                let _ = inputs.send(Input::SetThinking(request["max_thinking_tokens"].as_u64()));
                Ok(Value::Null)
            }
            // No subtype reads as JavaScript's `undefined` (recorded).
            other => Err(format!("Unsupported control request subtype: {}", other.unwrap_or("undefined"))),
        };
        let response = match reply {
            // An answer with nothing to say has no `response` at all (recorded: set_model).
            Ok(Value::Null) => json!({"subtype": "success", "request_id": id}),
            Ok(body) => json!({"subtype": "success", "request_id": id, "response": body}),
            Err(error) => json!({"subtype": "error", "request_id": id, "error": error}),
        };
        print_line(&json!({"type": "control_response", "response": response}).to_string());
    }
}

impl Control {
    /// Puts the question to the host; the receiver gets whatever ends the wait.
    fn put(&self, ask: &Ask) -> (String, Receiver<Answered>) {
        let id = uuid();
        let (tx, rx) = sync_channel(1);
        self.pending.lock().unwrap().insert(id.clone(), tx);
        print_line(
            &json!({"type": "control_request", "request_id": id, "request": can_use_tool(ask)})
                .to_string(),
        );
        (id, rx)
    }

    fn wait(&self, rx: &Receiver<Answered>) -> Reply {
        match rx.recv() {
            Ok(Answered::Host(response)) => reply(&response),
            Ok(Answered::Hook(reply)) => reply,
            // Cancelled by an interrupt.
            Ok(Answered::Withdrawn) if self.interrupted.load(Ordering::SeqCst) => Reply::Interrupt,
            _ => Reply::Failed(STREAM_CLOSED.into()),
        }
    }
}

/// The host's hook functions, called back as 2.1.235 calls them: a `hook_callback` control
/// request naming the function, the event's input and the call it is about; the host's answer
/// is the hook's output.
impl crate::hooks::Callbacks for Control {
    fn call(
        &self,
        callback_id: &str,
        input: &Value,
        tool_use_id: &str,
        timeout: std::time::Duration,
    ) -> Value {
        let request = json!({
            "subtype": "hook_callback", "callback_id": callback_id, "input": input,
            "tool_use_id": tool_use_id,
        });
        // A failed or late answer is no opinion, as the SDKs treat it.
        self.exchange(request, Some(timeout))
            .unwrap_or_else(|_| json!({}))
    }
}

/// The host's in-process MCP servers (`type: "sdk"`): each JSON-RPC message goes to the host as
/// an `mcp_message` control request, and a request's answer comes back as its `mcp_response`.
impl crate::mcp::HostChannel for Control {
    fn mcp_message(&self, server: &str, message: &Value) -> Result<Value, String> {
        let request = json!({"subtype": "mcp_message", "server_name": server, "message": message});
        // The connection's own request timeouts bound the wait; a host that goes away ends it.
        let answer = self.exchange(request, None)?;
        Ok(answer["mcp_response"].clone())
    }
}

impl Host for Control {
    fn ask(&self, ask: &Ask) -> Reply {
        let (_, rx) = self.put(ask);
        self.wait(&rx)
    }

    /// The question goes out at once and the hooks run meanwhile; a hook that decides while
    /// the question still waits withdraws it (`control_cancel_request`), as 2.1.235 does.
    fn ask_racing(&self, ask: &Ask, rival: &(dyn Fn() -> Option<Reply> + Sync)) -> Reply {
        let (id, rx) = self.put(ask);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let Some(decided) = rival() else { return };
                if let Some(waiting) = self.pending.lock().unwrap().remove(&id) {
                    print_line(
                        &json!({"type": "control_cancel_request", "request_id": id}).to_string(),
                    );
                    let _ = waiting.send(Answered::Hook(decided));
                }
            });
            self.wait(&rx)
        })
    }
}

/// `rewind_files`' answer: the reference keeps no file checkpoints.
const REWIND_OFF: &str = "File rewinding is not enabled.";

/// `read_file`: a file under the working directory, with 2.1.235's answers (recorded:
/// sdk.control/session): its text and absolute path, or Node's words for what went wrong; a
/// path outside the working directory is refused.
fn read_file(path: &Value) -> Result<Value, String> {
    let Some(path) = path.as_str() else {
        let got = if path.is_null() {
            "undefined".to_owned()
        } else {
            path.to_string()
        };
        return Err(format!("Path must be a string, received {got}"));
    };
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let absolute = crate::worktree::resolve(&cwd, path);
    if !absolute.starts_with(&cwd) {
        return Err(format!("read denied: {path}"));
    }
    match std::fs::read(&absolute) {
        Ok(bytes) => Ok(
            json!({"contents": String::from_utf8_lossy(&bytes), "absPath": absolute.display().to_string()}),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "ENOENT: no such file or directory, open '{}'",
            absolute.display()
        )),
        Err(_) if absolute.is_dir() => Err("EISDIR: illegal operation on a directory, read".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The server an MCP request names (`serverName`); a missing one reads as JavaScript's
/// `undefined`, as in 2.1.235's answer.
fn server_name(request: &Value) -> String {
    request["serverName"]
        .as_str()
        .unwrap_or("undefined")
        .to_owned()
}

/// The `can_use_tool` request, keys in 2.1.235's order, absent ones left out.
fn can_use_tool(ask: &Ask) -> Value {
    let mut request = json!({
        "subtype": "can_use_tool", "tool_name": ask.tool, "display_name": ask.tool, "input": ask.input,
    });
    let map = request.as_object_mut().expect("an object");
    if let Some(description) = &ask.description {
        map.insert("description".into(), json!(description));
    }
    let prompt = ask.prompt;
    if let Some(suggestions) = &prompt.suggestions {
        map.insert("permission_suggestions".into(), json!(suggestions));
    }
    if let Some(path) = &prompt.blocked_path {
        map.insert("blocked_path".into(), json!(path.display().to_string()));
    }
    if let Some(reason) = &prompt.reason {
        map.insert("decision_reason".into(), json!(reason));
    }
    if let Some(kind) = prompt.reason_type {
        map.insert("decision_reason_type".into(), json!(kind));
    }
    if prompt.reason_type == Some("safetyCheck") {
        map.insert("classifier_approvable".into(), json!(prompt.approvable));
    }
    map.insert("tool_use_id".into(), json!(ask.tool_use_id));
    if prompt.suppress_always_allow {
        map.insert("suppress_always_allow_rule".into(), json!(true));
    }
    if ask.interactive || prompt.requires_interaction {
        map.insert("requires_user_interaction".into(), json!(true));
    }
    request
}

/// The host's control response as a reply.
fn reply(response: &Value) -> Reply {
    if response["subtype"] == "error" {
        let error = response["error"].as_str().unwrap_or("unknown error");
        return Reply::Failed(format!("Tool permission request failed: Error: {error}"));
    }
    let answer = &response["response"];
    match answer["behavior"].as_str() {
        Some("allow") => {
            // A missing or empty updatedInput leaves the model's input as it was.
            let input = answer
                .get("updatedInput")
                .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                .cloned();
            let keep = answer["updatedPermissions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            Reply::Allow { input, keep }
        }
        Some("deny") if answer["interrupt"] == true => Reply::Interrupt,
        Some("deny") => match answer["message"].as_str() {
            Some(message) => Reply::Deny {
                message: message.to_owned(),
            },
            None => Reply::Failed(INVALID_ANSWER.into()),
        },
        _ => Reply::Failed(INVALID_ANSWER.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_safety_check_is_marked_for_a_person_and_keys_keep_their_order() {
        let prompt = crate::vocab::Prompt {
            reason: Some("outside".into()),
            reason_type: Some("safetyCheck"),
            ..Default::default()
        };
        let input = json!({"path": "side"});
        let ask = Ask {
            tool: "EnterWorktree",
            input: &input,
            tool_use_id: "t1",
            description: None,
            about: "",
            prompt: &prompt,
            interactive: false,
        };
        let request = can_use_tool(&ask);
        let keys: Vec<&str> = request
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "subtype",
                "tool_name",
                "display_name",
                "input",
                "decision_reason",
                "decision_reason_type",
                "classifier_approvable",
                "tool_use_id"
            ]
        );
        assert_eq!(request["classifier_approvable"], false);
    }

    #[test]
    fn answers_read_as_the_real_cli_reads_them() {
        let allow =
            json!({"subtype": "success", "response": {"behavior": "allow", "updatedInput": {}}});
        assert_eq!(
            reply(&allow),
            Reply::Allow {
                input: None,
                keep: vec![]
            }
        );
        let deny =
            json!({"subtype": "success", "response": {"behavior": "deny", "message": "not today"}});
        assert_eq!(
            reply(&deny),
            Reply::Deny {
                message: "not today".into()
            }
        );
        let bare = json!({"subtype": "success", "response": {"behavior": "deny"}});
        assert_eq!(reply(&bare), Reply::Failed(INVALID_ANSWER.into()));
        let stop = json!({"subtype": "success", "response": {"behavior": "deny", "message": "x", "interrupt": true}});
        assert_eq!(reply(&stop), Reply::Interrupt);
        let failed = json!({"subtype": "error", "error": "host failed"});
        assert_eq!(
            reply(&failed),
            Reply::Failed("Tool permission request failed: Error: host failed".into())
        );
    }
}
