//! Runs a script body in QuickJS (seed 004: "执行一个受限、确定性的 JavaScript orchestration
//! DSL"). The body is plain JavaScript under `runtime.js`'s globals; each agent() call either
//! replays the journal (the unchanged prefix) or becomes a live call that a [`Spawner`] runs on a
//! thread of its own, at most `concurrency` at once, while the script awaits it. Calls are keyed
//! in the order the script makes them, whatever order they finish in.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Exception, Function, Object, Runtime};
use serde_json::{json, Value};

use super::journal::Journal;
use super::resume::Replay;
use crate::limits;

const RUNTIME: &str = include_str!("runtime.js");

/// One live agent() call.
#[derive(Debug, Clone)]
pub struct Call {
    /// 1-based, in call order (replayed calls count too).
    pub index: u64,
    pub agent_id: String,
    pub prompt: String,
    pub label: String,
    pub phase: Option<String>,
    /// `opts.model`, when the script set one.
    pub model: Option<String>,
}

/// How a live call ended: the agent's final text, or why there is none.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub text: Option<String>,
    pub error: Option<String>,
    pub tokens: u64,
    pub tool_uses: u64,
}

/// Runs one agent() call to its end (a child agent loop; a fake in tests). `stop` is set when
/// the run is stopped or has ended.
pub trait Spawner: Sync {
    fn run(&self, call: &Call, stop: &Arc<AtomicBool>) -> Answer;
}

/// A nested `workflow(name | {scriptPath})`: its name and body, or why it cannot run.
pub type Loader = dyn Fn(&Value) -> Result<(String, String), String>;

pub struct Job<'a> {
    pub body: &'a str,
    pub args: Option<&'a Value>,
    /// `meta.phases` titles: their progress groups exist before any phase() call.
    pub phases: Vec<String>,
    pub replay: Replay,
    pub journal: &'a Journal,
    pub load: Rc<Loader>,
    /// The task's stop switch (TaskStop).
    pub cancel: Arc<AtomicBool>,
    pub concurrency: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The body returned: its value as JSON (`None` for `undefined`).
    Completed(Option<Value>),
    Failed(String),
    Stopped,
}

/// One agent() call as the run's records show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub index: u64,
    pub key: String,
    pub label: String,
    pub phase: Option<String>,
    pub agent_id: String,
    pub model: Option<String>,
    pub prompt: String,
    /// Answered from the journal of the run resumed.
    pub cached: bool,
    /// `None` while queued or running; `Some(false)` when the agent gave no result.
    pub done: Option<bool>,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub tokens: u64,
    pub tool_uses: u64,
    pub duration_ms: u64,
}

#[derive(Debug)]
pub struct Outcome {
    pub end: End,
    pub logs: Vec<String>,
    pub failures: Vec<String>,
    /// Progress groups in the order they were opened.
    pub phases: Vec<String>,
    pub agents: Vec<Record>,
}

/// What the host functions share with the loop: plain data only, since none of it may hold a
/// JavaScript value past the runtime.
#[derive(Default)]
struct Host {
    replay: Replay,
    queued: VecDeque<usize>,
    logs: Vec<String>,
    failures: Vec<String>,
    phases: Vec<String>,
    records: Vec<Record>,
    timers: Vec<(u64, Instant)>,
    next_timer: u64,
}

impl Host {
    fn open_phase(&mut self, title: &str) {
        if !self.phases.iter().any(|p| p == title) {
            self.phases.push(title.to_owned());
        }
    }
}

/// The concurrency 2.1.235 allows: CPUs - 2, within [2, 16].
pub fn default_concurrency() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    cpus.saturating_sub(2).clamp(
        limits::WORKFLOW_CONCURRENCY_MIN.usize(),
        limits::WORKFLOW_CONCURRENCY_MAX.usize(),
    )
}

pub fn run(mut job: Job<'_>, spawner: &dyn Spawner) -> Outcome {
    let host = Rc::new(RefCell::new(Host {
        replay: std::mem::take(&mut job.replay),
        ..Host::default()
    }));
    for title in &job.phases {
        host.borrow_mut().open_phase(title);
    }
    let end = match Engine::start(&job, &host) {
        Ok(engine) => engine.drive(&job, &host, spawner),
        Err(error) => End::Failed(error),
    };
    let host = std::mem::take(&mut *host.borrow_mut());
    Outcome {
        end,
        logs: host.logs,
        failures: host.failures,
        phases: host.phases,
        agents: host.records,
    }
}

struct Engine {
    context: Context,
    runtime: Runtime,
    /// Milliseconds since `started` at which the current synchronous stretch must end (0: none).
    deadline_ms: Arc<AtomicU64>,
    started: Instant,
}

impl Engine {
    fn start(job: &Job<'_>, host: &Rc<RefCell<Host>>) -> Result<Engine, String> {
        let runtime = Runtime::new().map_err(|e| format!("cannot start QuickJS: {e}"))?;
        let context = Context::full(&runtime).map_err(|e| format!("cannot start QuickJS: {e}"))?;
        let deadline_ms = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let (deadline, cancel) = (deadline_ms.clone(), job.cancel.clone());
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let due = deadline.load(Ordering::SeqCst);
            cancel.load(Ordering::SeqCst)
                || (due != 0 && started.elapsed().as_millis() as u64 > due)
        })));
        let engine = Engine {
            context,
            runtime,
            deadline_ms,
            started,
        };
        engine.timed(|| {
            engine.context.with(|ctx| -> Result<(), String> {
                let host_object = host_object(&ctx, job, host).map_err(|e| e.to_string())?;
                let prelude: Function = ctx
                    .eval(RUNTIME)
                    .catch(&ctx)
                    .map_err(|e| format!("workflow runtime failed to load: {}", text_of(&e)))?;
                prelude
                    .call::<_, ()>((host_object,))
                    .catch(&ctx)
                    .map_err(|e| format!("workflow runtime failed to load: {}", text_of(&e)))?;
                let body: Function = ctx
                    .eval(format!("(async function () {{\n{}\n}})", job.body))
                    .catch(&ctx)
                    .map_err(|e| format!("SyntaxError: {}", message_of(&e)))?;
                let start: Function = ctx
                    .globals()
                    .get("__workflowStart")
                    .map_err(|e| e.to_string())?;
                start
                    .call::<_, ()>((body,))
                    .catch(&ctx)
                    .map_err(|e| text_of(&e))
            })
        })?;
        Ok(engine)
    }

    /// Runs JavaScript with the synchronous time limit armed.
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let now = self.started.elapsed().as_millis() as u64;
        self.deadline_ms
            .store(now + limits::WORKFLOW_SYNC_TIMEOUT.get(), Ordering::SeqCst);
        let out = f();
        self.deadline_ms.store(0, Ordering::SeqCst);
        out
    }

    fn drain_jobs(&self) -> Result<(), String> {
        self.timed(|| loop {
            match self.runtime.execute_pending_job() {
                Ok(true) => continue,
                Ok(false) => return Ok(()),
                Err(job) => {
                    return Err(job.0.with(|ctx| {
                        text_of(&CaughtError::from_error(&ctx, rquickjs::Error::Exception))
                    }))
                }
            }
        })
    }

    /// How the body ended, once it has.
    fn outcome(&self) -> Option<End> {
        self.context.with(|ctx| {
            let read: Function = ctx.globals().get("__workflowOutcome").ok()?;
            let text: String = read.call(()).ok()?;
            let outcome: Value = serde_json::from_str(&text).ok()?;
            Some(if outcome["ok"] == Value::Bool(true) {
                End::Completed(
                    outcome["json"]
                        .as_str()
                        .and_then(|j| serde_json::from_str(j).ok()),
                )
            } else {
                End::Failed(outcome["error"].as_str().unwrap_or("Error").to_owned())
            })
        })
    }

    /// Calls one of runtime.js's control functions (`__workflowSettle`, `__workflowFire`).
    fn control(&self, name: &str, id: u64, json: Option<&str>) -> Result<(), String> {
        self.timed(|| {
            self.context.with(|ctx| {
                let f: Function = ctx.globals().get(name).map_err(|e| e.to_string())?;
                let called = match json {
                    Some(json) => f.call::<_, ()>((id, json)),
                    None => f.call::<_, ()>((id,)),
                };
                called.catch(&ctx).map_err(|e| text_of(&e))
            })
        })
    }

    fn drive(self, job: &Job<'_>, host: &Rc<RefCell<Host>>, spawner: &dyn Spawner) -> End {
        let stop = Arc::new(AtomicBool::new(false));
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<(usize, Answer, u64)>();
            let mut running = 0usize;
            let end = 'run: loop {
                if let Err(error) = self.drain_jobs() {
                    break self.failed(job, error);
                }
                if let Some(end) = self.outcome() {
                    break end;
                }
                if job.cancel.load(Ordering::SeqCst) {
                    break End::Stopped;
                }
                while running < job.concurrency.max(1) {
                    let Some(slot) = host.borrow_mut().queued.pop_front() else {
                        break;
                    };
                    let (call, key) = live_call(&host.borrow().records[slot]);
                    if let Err(e) = job.journal.started(&key, &call.agent_id) {
                        let note = format!("workflow journal started-append failed: {e}");
                        host.borrow_mut().logs.push(note);
                    }
                    let (tx, stop) = (done_tx.clone(), stop.clone());
                    running += 1;
                    scope.spawn(move || {
                        let began = Instant::now();
                        let answer = spawner.run(&call, &stop);
                        let _ = tx.send((slot, answer, began.elapsed().as_millis() as u64));
                    });
                }
                let next_timer = host.borrow().timers.iter().map(|t| t.1).min();
                if running == 0 && next_timer.is_none() {
                    break End::Failed(
                        "Workflow script never finished: it awaits something nothing will settle"
                            .into(),
                    );
                }
                // Wake for a finished agent, the next timer, or to look at the stop switch.
                let wait = next_timer
                    .map_or(Duration::MAX, |due| {
                        due.saturating_duration_since(Instant::now())
                    })
                    .min(Duration::from_millis(100));
                match done_rx.recv_timeout(wait) {
                    Ok((slot, answer, duration_ms)) => {
                        running -= 1;
                        let value = settle(host, job.journal, slot, answer, duration_ms);
                        if let Err(e) = self.control("__workflowSettle", slot as u64, Some(&value))
                        {
                            break self.failed(job, e);
                        }
                    }
                    Err(_) => {
                        let now = Instant::now();
                        let due: Vec<u64> = {
                            let mut h = host.borrow_mut();
                            let due = h
                                .timers
                                .iter()
                                .filter(|t| t.1 <= now)
                                .map(|t| t.0)
                                .collect();
                            h.timers.retain(|t| t.1 > now);
                            due
                        };
                        for id in due {
                            if let Err(e) = self.control("__workflowFire", id, None) {
                                break 'run self.failed(job, e);
                            }
                        }
                    }
                }
            };
            // Agents still running are told to stop; the scope waits for them.
            stop.store(true, Ordering::SeqCst);
            end
        })
    }

    /// An interrupted script is a stopped run when TaskStop asked, else one that computed too
    /// long without awaiting.
    fn failed(&self, job: &Job<'_>, error: String) -> End {
        if job.cancel.load(Ordering::SeqCst) {
            End::Stopped
        } else if error.contains("interrupted") {
            End::Failed(format!(
                "Script execution timed out after {}ms",
                limits::WORKFLOW_SYNC_TIMEOUT.get()
            ))
        } else {
            End::Failed(error)
        }
    }
}

fn live_call(record: &Record) -> (Call, String) {
    let call = Call {
        index: record.index,
        agent_id: record.agent_id.clone(),
        prompt: record.prompt.clone(),
        label: record.label.clone(),
        phase: record.phase.clone(),
        model: record.model.clone(),
    };
    (call, record.key.clone())
}

/// Records a live call's end and returns what its agent() resolves to, as JSON: the final text,
/// or null when the agent produced none (2.1.235's "Returns null if … the subagent dies").
fn settle(
    host: &Rc<RefCell<Host>>,
    journal: &Journal,
    slot: usize,
    answer: Answer,
    duration_ms: u64,
) -> String {
    let mut h = host.borrow_mut();
    let record = &mut h.records[slot];
    record.tokens = answer.tokens;
    record.tool_uses = answer.tool_uses;
    record.duration_ms = duration_ms;
    let value = match answer.text {
        Some(text) => Value::String(text),
        None => Value::Null,
    };
    record.done = Some(!value.is_null());
    record.result = Some(value.clone());
    let note = if value.is_null() {
        let error = answer
            .error
            .unwrap_or_else(|| "agent ended without a result".into());
        record.error = Some(error.clone());
        Some(format!("[{}] {error}", record.label))
    } else {
        journal
            .result(&record.key, &record.agent_id, &value)
            .err()
            .map(|e| format!("workflow journal result-append failed: {e}"))
    };
    if let Some(note) = note {
        h.failures.push(note.clone());
        h.logs.push(note);
    }
    value.to_string()
}

/// The `host` object runtime.js is given.
fn host_object<'js>(
    ctx: &Ctx<'js>,
    job: &Job<'_>,
    host: &Rc<RefCell<Host>>,
) -> rquickjs::Result<Object<'js>> {
    let object = Object::new(ctx.clone())?;
    let args = match job.args {
        Some(args) => ctx.json_parse(args.to_string())?,
        None => rquickjs::Value::new_undefined(ctx.clone()),
    };
    object.set("args", args)?;
    object.set("maxItems", limits::WORKFLOW_VM_ARRAY_MAX.get())?;

    let h = host.clone();
    let agent = move |ctx: Ctx<'js>,
                      prompt: String,
                      options: String,
                      label: String,
                      phase: String,
                      model: String| {
        agent_call(
            &ctx,
            &h,
            AgentArgs {
                prompt,
                options,
                label,
                phase,
                model,
            },
        )
    };
    object.set("agent", Function::new(ctx.clone(), agent)?)?;
    let h = host.clone();
    object.set(
        "log",
        Function::new(ctx.clone(), move |text: String| {
            h.borrow_mut().logs.push(text)
        })?,
    )?;
    let h = host.clone();
    let failure = move |text: String| {
        let mut h = h.borrow_mut();
        h.logs.push(text.clone());
        h.failures.push(text);
    };
    object.set("failure", Function::new(ctx.clone(), failure)?)?;
    let h = host.clone();
    object.set(
        "phase",
        Function::new(ctx.clone(), move |title: String| {
            h.borrow_mut().open_phase(&title)
        })?,
    )?;
    let h = host.clone();
    let timer = move |ms: f64| {
        let mut h = h.borrow_mut();
        h.next_timer += 1;
        let id = h.next_timer;
        h.timers
            .push((id, Instant::now() + Duration::from_millis(ms as u64)));
        id
    };
    object.set("timer", Function::new(ctx.clone(), timer)?)?;
    let h = host.clone();
    object.set(
        "clearTimer",
        Function::new(ctx.clone(), move |id: u64| {
            h.borrow_mut().timers.retain(|t| t.0 != id)
        })?,
    )?;
    let load = job.load.clone();
    let loader = move |ctx: Ctx<'js>, request: String| -> rquickjs::Result<Object<'js>> {
        let request: Value = serde_json::from_str(&request).unwrap_or(Value::Null);
        let (name, body) = load(&request).map_err(|e| Exception::throw_message(&ctx, &e))?;
        let run: Function = ctx.eval(format!(
            "(async function (args, agent, workflow, log, phase) {{\n{body}\n}})"
        ))?;
        let loaded = Object::new(ctx.clone())?;
        loaded.set("name", name)?;
        loaded.set("run", run)?;
        Ok(loaded)
    };
    object.set("load", Function::new(ctx.clone(), loader)?)?;
    Ok(object)
}

struct AgentArgs {
    prompt: String,
    options: String,
    label: String,
    phase: String,
    model: String,
}

/// agent(): the cap, then the journal's answer while the prefix holds, else a live call queued.
/// Answers JSON: `{"cached": value}` or `{"queued": slot}`.
fn agent_call(ctx: &Ctx<'_>, host: &Rc<RefCell<Host>>, a: AgentArgs) -> rquickjs::Result<String> {
    let mut h = host.borrow_mut();
    let cap = limits::WORKFLOW_AGENT_CAP.get();
    if h.records.len() as u64 >= cap {
        return Err(Exception::throw_message(
            ctx,
            &format!(
                "Workflow agent() call cap reached ({cap}). This usually means a loop using \
                 budget.remaining() never terminates because no token budget was set \u{2014} \
                 remaining() returns Infinity when budget.total is null. Add a hard iteration \
                 cap to the loop, or pass a token budget."
            ),
        ));
    }
    let phase = (!a.phase.is_empty()).then_some(a.phase);
    if let Some(title) = &phase {
        h.open_phase(title);
    }
    let step = h.replay.next(&a.prompt, &a.options);
    let mut record = Record {
        index: h.records.len() as u64 + 1,
        key: step.key,
        label: a.label,
        phase,
        agent_id: crate::agents::new_id(),
        model: (!a.model.is_empty()).then_some(a.model),
        prompt: a.prompt,
        cached: false,
        done: None,
        result: None,
        error: None,
        tokens: 0,
        tool_uses: 0,
        duration_ms: 0,
    };
    if let Some(cached) = step.cached {
        record.cached = true;
        record.done = Some(true);
        record.agent_id = cached.agent_id;
        record.result = Some(cached.result.clone());
        h.records.push(record);
        return Ok(json!({ "cached": cached.result }).to_string());
    }
    let slot = h.records.len();
    h.records.push(record);
    h.queued.push_back(slot);
    Ok(json!({ "queued": slot }).to_string())
}

/// A thrown value as the run reports it: an Error's `Name: message` and its stack lines.
fn text_of(error: &CaughtError<'_>) -> String {
    match error {
        CaughtError::Exception(e) => {
            let head = match e.get::<_, String>("name") {
                Ok(name) => format!("{name}: {}", e.message().unwrap_or_default()),
                Err(_) => e.message().unwrap_or_default(),
            };
            let stack: Vec<String> = e
                .stack()
                .unwrap_or_default()
                .lines()
                .filter(|l| l.trim_start().starts_with("at "))
                .take(5)
                .map(str::to_owned)
                .collect();
            if stack.is_empty() {
                head
            } else {
                format!("{head}\n{}", stack.join("\n"))
            }
        }
        other => other.to_string(),
    }
}

fn message_of(error: &CaughtError<'_>) -> String {
    match error {
        CaughtError::Exception(e) => e.message().unwrap_or_default(),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
