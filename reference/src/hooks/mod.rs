//! Hooks (seed 004 line 9: every tool call passes registry, schema, Hook and Permission): the
//! commands the settings attach to an event, each run with the event's JSON on stdin. What an
//! exit status or an answer on stdout means is 2.1.235's, recorded in the `hooks.*` scenarios.
//! The events a session fires are in `session.rs`, a tool call's in `tool.rs`, a task's in
//! `task.rs`; this module finds
//! the commands of an event, runs them at once, and tells the host when it asked to be told.

mod command;
mod compact;
mod config;
pub mod env_file;
pub mod permission;
pub mod session;
pub mod task;
pub mod tool;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use config::Entry;
use serde_json::{json, Map, Value};

use crate::child::Output;

/// The hooks of one session, loaded once at its start.
#[derive(Clone, Default)]
pub struct Hooks {
    entries: Vec<Entry>,
    /// A settings file turned every hook off (`disableAllHooks`), or the managed settings
    /// allow only their own (`allowManagedHooksOnly`): no plugin's hook runs either.
    settings_only: bool,
    /// Who hears that a hook started and how it answered (stream-json `hook_started` /
    /// `hook_response`), for the events it may hear of.
    observer: Option<Arc<dyn Observer>>,
    /// `--include-hook-events`: every event is told, not only SessionStart and Setup.
    all_events: bool,
    /// The SDK host that runs its own hook functions (`hook_callback`).
    host: Option<Arc<dyn Callbacks>>,
}

/// An SDK host that runs hook functions it registered (implemented by the control protocol).
pub trait Callbacks: Send + Sync {
    /// Calls the host's function `callback_id` with the event's stdin; its answer is the hook's
    /// JSON output (`{}` when it failed or took longer than `timeout`).
    fn call(&self, callback_id: &str, input: &Value, tool_use_id: &str, timeout: Duration)
        -> Value;
}

/// Told about each hook run of the events it hears of (implemented by the session's output).
pub trait Observer: Send + Sync {
    fn started(&self, hook_id: &str, name: &str, event: &str);
    fn responded(&self, hook_id: &str, name: &str, event: &str, output: &Output);
}

/// The events whose hook runs a host always hears of, as 2.1.235 tells them.
const ALWAYS_TOLD: &[&str] = &["SessionStart", "Setup"];

/// What every hook of a session is told about it.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// The prompt being answered; none before the first.
    pub prompt_id: Option<String>,
    /// How the session was started (`CLAUDE_CODE_ENTRYPOINT` of its children).
    pub entrypoint: String,
    /// The sub-agent whose loop fires the event (its id and type), none in the main loop.
    pub agent: Option<(String, String)>,
}

impl Session {
    /// Where 2.1.235 keeps the session's transcript (`transcript_path`): the session's file in
    /// the project's folder.
    pub fn transcript_path(&self) -> PathBuf {
        crate::environment::session_file(&self.home, &self.cwd, &self.id)
    }
}

/// One firing of an event.
pub struct Event<'a> {
    pub name: &'a str,
    /// What the matchers are compared with (a tool's name, SessionStart's source); `None` for
    /// events without matchers, where every entry runs.
    pub target: Option<&'a str>,
    /// The permission mode, for the events whose stdin carries it.
    pub mode: Option<&'a str>,
    /// The event's own stdin fields, after `hook_event_name`, in order.
    pub fields: Vec<(&'static str, Value)>,
}

impl Event<'_> {
    /// The name a host is told (`PreToolUse:Bash`, `SessionStart:startup`, `Stop`).
    fn hook_name(&self) -> String {
        match self.target {
            Some(target) => format!("{}:{target}", self.name),
            None => self.name.to_owned(),
        }
    }
}

/// One command's run for an event.
pub struct Ran {
    pub command: String,
    pub output: Output,
    /// Its stdout when that is a JSON object, else null.
    pub answer: Value,
}

impl Ran {
    /// Exit status 2: the hook's blocking answer, its stderr the reason.
    pub fn blocked(&self) -> bool {
        self.output.code == Some(2)
    }

    /// A blocking answer as 2.1.235 quotes it: `[command]: stderr`.
    pub fn quoted_stderr(&self) -> String {
        format!("[{}]: {}", self.command, self.output.stderr)
    }

    /// Why the hook stops what its event is about: exit 2 (its stderr, quoted) or a JSON
    /// `decision: block` (its reason).
    pub fn blocking_reason(&self) -> Option<String> {
        if self.blocked() {
            return Some(self.quoted_stderr());
        }
        let said = self.said()?;
        (said["decision"] == "block")
            .then(|| said["reason"].as_str().unwrap_or_default().to_owned())
    }

    /// A JSON answer that came with status 0.
    fn said(&self) -> Option<&Value> {
        (self.output.ok() && self.answer.is_object()).then_some(&self.answer)
    }

    /// Plain stdout of a successful run (not a JSON answer), trimmed; `None` when empty.
    fn plain_stdout(&self) -> Option<&str> {
        let text = self.output.stdout.trim();
        (self.output.ok() && !self.answer.is_object() && !text.is_empty()).then_some(text)
    }
}

impl Hooks {
    pub fn load(home: &Path, cwd: &Path) -> Hooks {
        let (entries, settings_only) = match config::load(home, cwd) {
            config::Allowed::None => (Vec::new(), true),
            config::Allowed::ManagedOnly(entries) => (entries, true),
            config::Allowed::All(entries) => (entries, false),
        };
        Hooks {
            entries,
            settings_only,
            ..Hooks::default()
        }
    }

    /// Adds each plugin's hooks (`name`, root), after the settings' ones.
    pub fn with_plugins<'p>(
        mut self,
        home: &Path,
        plugins: impl IntoIterator<Item = (&'p str, &'p Path)>,
    ) -> Hooks {
        if !self.settings_only {
            for (name, root) in plugins {
                self.entries.extend(config::from_plugin(home, name, root));
            }
        }
        self
    }

    /// Tells `observer` about hook runs from now on; `all_events` for every event.
    pub fn observed(mut self, observer: Arc<dyn Observer>, all_events: bool) -> Hooks {
        self.observer = Some(observer);
        self.all_events = all_events;
        self
    }

    /// Adds the hook functions the SDK host registered (its `initialize` request's `hooks`),
    /// after the settings' hooks.
    pub fn with_host(mut self, registered: &Value, host: Arc<dyn Callbacks>) -> Hooks {
        let entries = config::from_host(registered);
        if !entries.is_empty() {
            self.entries.extend(entries);
            self.host = Some(host);
        }
        self
    }

    pub fn any(&self, event: &str) -> bool {
        self.entries.iter().any(|e| e.event == event)
    }

    /// The commands `event` runs for `target`, in settings order, each once.
    fn matching(&self, event: &str, target: Option<&str>) -> Vec<&config::Command> {
        let mut out: Vec<&config::Command> = Vec::new();
        for entry in self.entries.iter().filter(|e| e.event == event) {
            if target.is_some_and(|t| !entry.matches(t)) {
                continue;
            }
            for command in &entry.commands {
                if !out.iter().any(|c| c.command == command.command) {
                    out.push(command);
                }
            }
        }
        out
    }

    /// Runs the event's matching commands at once (2.1.235 starts them together) and returns
    /// their runs in settings order; none when no command matches.
    pub fn fire(&self, session: &Session, event: Event) -> Vec<Ran> {
        let commands = self.matching(event.name, event.target);
        if commands.is_empty() {
            return Vec::new();
        }
        let input = Value::Object(stdin(session, &event));
        let call = One {
            session,
            event: event.name,
            stdin: input.to_string(),
            // A host's function is told the call it is about, or an id of its own otherwise.
            tool_use_id: event
                .fields
                .iter()
                .find(|(k, _)| *k == "tool_use_id")
                .and_then(|(_, v)| v.as_str().map(str::to_owned))
                .unwrap_or_else(crate::vocab::uuid),
            input,
            host: self.host.as_deref(),
        };
        let told = self
            .observer
            .as_ref()
            .filter(|_| self.all_events || ALWAYS_TOLD.contains(&event.name));
        let name = event.hook_name();
        let mut outputs: Vec<Option<Output>> = vec![None; commands.len()];
        std::thread::scope(|scope| {
            let (done, finished) = std::sync::mpsc::channel();
            let mut ids = Vec::new();
            for (index, c) in commands.iter().enumerate() {
                let hook_id = crate::vocab::uuid();
                if let Some(o) = told {
                    o.started(&hook_id, &name, event.name);
                }
                ids.push(hook_id);
                let (call, done) = (&call, done.clone());
                scope.spawn(move || {
                    let _ = done.send((index, call.run(c, index)));
                });
            }
            drop(done);
            // The host hears each answer as it comes, as 2.1.235 tells them.
            for (index, output) in finished {
                if let Some(o) = told {
                    o.responded(&ids[index], &name, event.name, &output);
                }
                outputs[index] = Some(output);
            }
        });
        commands
            .iter()
            .zip(outputs)
            .map(|(c, output)| {
                let output = output.unwrap_or_else(|| Output {
                    code: None,
                    stdout: String::new(),
                    stderr: "the hook's runner failed".into(),
                    timed_out: false,
                });
                let answer = serde_json::from_str::<Value>(output.stdout.trim())
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or(Value::Null);
                Ran {
                    command: c.command.clone(),
                    output,
                    answer,
                }
            })
            .collect()
    }
}

/// What every command of one firing is given.
struct One<'a> {
    session: &'a Session,
    event: &'a str,
    input: Value,
    stdin: String,
    tool_use_id: String,
    host: Option<&'a dyn Callbacks>,
}

impl One<'_> {
    /// Runs command `index` of the firing: the SDK host's function by its callback, anything
    /// else through the shell with its environment.
    fn run(&self, c: &config::Command, index: usize) -> Output {
        if let (true, Some(host)) = (c.callback, self.host) {
            let answer = host.call(&c.command, &self.input, &self.tool_use_id, c.timeout);
            return Output {
                code: Some(0),
                stdout: answer.to_string(),
                stderr: String::new(),
                timed_out: false,
            };
        }
        let mut env = environment(self.session, self.event, index);
        if let Some((root, data)) = &c.plugin {
            // The plugin's data folder is made on use, as 2.1.235 makes it.
            let _ = std::fs::create_dir_all(data);
            env.push(("CLAUDE_PLUGIN_ROOT", root.display().to_string()));
            env.push(("CLAUDE_PLUGIN_DATA", data.display().to_string()));
        }
        let cwd = &self.session.cwd;
        command::run(&c.command, &self.stdin, cwd, &env, c.timeout)
    }
}

/// The stdin every event opens with, in 2.1.235's order, then the event's own fields.
fn stdin(session: &Session, event: &Event) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), json!(session.id));
    m.insert(
        "transcript_path".into(),
        json!(session.transcript_path().display().to_string()),
    );
    m.insert("cwd".into(), json!(session.cwd.display().to_string()));
    if let Some(prompt) = &session.prompt_id {
        m.insert("prompt_id".into(), json!(prompt));
    }
    if let Some(mode) = event.mode {
        m.insert("permission_mode".into(), json!(mode));
    }
    if let Some((id, kind)) = &session.agent {
        m.insert("agent_id".into(), json!(id));
        m.insert("agent_type".into(), json!(kind));
    }
    m.insert("hook_event_name".into(), json!(event.name));
    for (key, value) in &event.fields {
        m.insert((*key).into(), value.clone());
    }
    m
}

/// What a hook's environment adds besides `CLAUDE_PROJECT_DIR`: what every child of the session
/// gets, and for SessionStart's and CwdChanged's hooks a file of their own to leave `export` lines in (`CLAUDE_ENV_FILE`, `env_file`).
fn environment(session: &Session, event: &str, index: usize) -> Vec<(&'static str, String)> {
    let mut vars = crate::environment::child_vars(&session.id, &session.entrypoint);
    if env_file::EVENTS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(event))
    {
        let file = env_file::path(&session.home, &session.id, event, index);
        vars.push(("CLAUDE_ENV_FILE", file.display().to_string()));
    }
    vars
}
