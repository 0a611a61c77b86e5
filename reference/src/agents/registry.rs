//! The session's background tasks (seed 004: "async launch 成功 … task/agent/run ID，不是最终结果";
//! the outcome comes back as a task notification and a registry transition). Agents and workflow
//! runs register here; TaskOutput reads, TaskStop ends, and the session waits here for the
//! notifications it owes the model after a `-p` prompt's result.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    Completed,
    Failed,
    /// Ended by TaskStop.
    Killed,
}

impl Status {
    /// The registry's word (the `task_updated` patch).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Killed => "killed",
        }
    }

    /// The notification's word: a killed task was "stopped" (as 2.1.235 reports it).
    pub fn notified_as(self) -> &'static str {
        match self {
            Status::Killed => "stopped",
            other => other.as_str(),
        }
    }
}

/// The kind of a background shell's task (Bash's, `tools::shell_task`).
pub const SHELL: &str = "local_bash";

/// One background task as TaskOutput and the notifications see it.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    /// `local_agent` or `local_workflow`.
    pub kind: &'static str,
    pub description: String,
    pub prompt: String,
    /// The tool_use that launched it (or last resumed it).
    pub tool_use_id: String,
    pub status: Status,
    pub output_file: PathBuf,
    /// The final text (or the error) once it ended.
    pub result: Option<String>,
    pub tokens: u64,
    pub tool_uses: u64,
    pub duration_ms: u64,
    /// Runs in the background: its end is notified to the model (a synchronous agent's is not).
    pub background: bool,
    /// Set by TaskStop; the task's loop and its tools watch it.
    pub cancel: Arc<AtomicBool>,
    /// A finished agent's conversation, for SendMessage to resume it.
    pub history: Vec<Value>,
    /// Messages SendMessage queued for it, delivered at its next tool round.
    pub mailbox: Vec<String>,
    /// How an agent was launched, to resume it the same way.
    pub launch: Option<super::Launch>,
    /// What the task's kind says at its end, when it is not an agent's final text (a
    /// workflow's summary and notification body).
    pub report: Option<Report>,
    started: Instant,
    /// The round (the count of drains before it) in which TaskStop stopped it.
    stopped_in: Option<u64>,
    /// Its end is recorded and announced (`announced`).
    told: bool,
}

/// A task's own words for its end: the notification's summary and what follows it, and the
/// error the registry transition carries.
#[derive(Debug, Clone)]
pub struct Report {
    pub summary: String,
    pub body: String,
    pub error: Option<String>,
}

/// A task's end, owed to the model as a notification.
#[derive(Debug, Clone)]
pub struct Notice {
    pub task: Task,
}

#[derive(Default)]
pub struct Registry {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    tasks: Vec<Task>,
    notices: VecDeque<Notice>,
    /// How many rounds have drained their notices.
    drains: u64,
}

/// How long a round's drain waits for a task stopped in an earlier round to finish unwinding. Its
/// loop only has to see the switch and kill its command; the bound keeps a stuck tool from
/// holding the parent.
const UNWIND_WAIT: Duration = Duration::from_secs(5);

/// What a task reported when it ended.
pub struct Ending {
    pub status: Status,
    pub result: String,
    pub tokens: u64,
    pub tool_uses: u64,
    pub history: Vec<Value>,
}

impl Registry {
    /// Registers a running task; its id is the caller's (agents and runs name theirs).
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &self,
        id: &str,
        kind: &'static str,
        description: &str,
        prompt: &str,
        tool_use_id: &str,
        output_file: PathBuf,
        background: bool,
    ) -> Task {
        let task = Task {
            id: id.to_owned(),
            kind,
            description: description.to_owned(),
            prompt: prompt.to_owned(),
            tool_use_id: tool_use_id.to_owned(),
            status: Status::Running,
            output_file,
            result: None,
            tokens: 0,
            tool_uses: 0,
            duration_ms: 0,
            background,
            cancel: Arc::new(AtomicBool::new(false)),
            history: Vec::new(),
            mailbox: Vec::new(),
            launch: None,
            report: None,
            started: Instant::now(),
            stopped_in: None,
            told: false,
        };
        let mut state = self.state.lock().unwrap();
        state.tasks.retain(|t| t.id != id);
        state.tasks.push(task.clone());
        task
    }

    /// Keeps what a task will say at its end; set before `finish`.
    pub fn report(&self, id: &str, report: Report) {
        let mut state = self.state.lock().unwrap();
        if let Some(task) = state.tasks.iter_mut().find(|t| t.id == id) {
            task.report = Some(report);
        }
    }

    /// Keeps how an agent was launched, for SendMessage to resume it.
    pub fn remember(&self, id: &str, launch: &super::Launch) {
        let mut state = self.state.lock().unwrap();
        if let Some(task) = state.tasks.iter_mut().find(|t| t.id == id) {
            task.launch = Some(launch.clone());
        }
    }

    /// A finished task runs again (SendMessage resumed it): running, with a fresh stop switch.
    pub fn resume(&self, id: &str, prompt: &str, tool_use_id: &str) -> Option<Task> {
        let mut state = self.state.lock().unwrap();
        let task = state.tasks.iter_mut().find(|t| t.id == id)?;
        task.status = Status::Running;
        task.prompt = prompt.to_owned();
        task.tool_use_id = tool_use_id.to_owned();
        task.result = None;
        task.background = true;
        task.cancel = Arc::new(AtomicBool::new(false));
        task.started = Instant::now();
        task.stopped_in = None;
        task.told = false;
        Some(task.clone())
    }

    /// Records the end; a background task's end is queued for the model. A task already stopped
    /// keeps its status (the loop noticing the stop reports after the fact).
    pub fn finish(&self, id: &str, ending: Ending) -> Option<Task> {
        let mut state = self.state.lock().unwrap();
        let task = state.tasks.iter_mut().find(|t| t.id == id)?;
        if task.status == Status::Running {
            task.status = ending.status;
        }
        task.result = Some(ending.result);
        task.tokens = ending.tokens;
        task.tool_uses = ending.tool_uses;
        task.duration_ms = task.started.elapsed().as_millis() as u64;
        task.history = ending.history;
        let task = task.clone();
        // A stopped shell is not told to the model (2.1.235: `core.parameter-coverage/bash-background`).
        let untold = task.kind == SHELL && task.status == Status::Killed;
        if task.background && !untold {
            state.notices.push_back(Notice { task: task.clone() });
        }
        self.changed.notify_all();
        Some(task)
    }

    /// Stops a running task: its switch is set and it is `killed` from now on.
    pub fn stop(&self, id: &str) -> Result<Task, StopError> {
        let mut state = self.state.lock().unwrap();
        let round = state.drains;
        let task = state
            .tasks
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or(StopError::Unknown)?;
        if task.status != Status::Running {
            return Err(StopError::NotRunning(task.status));
        }
        task.cancel.store(true, Ordering::SeqCst);
        task.status = Status::Killed;
        task.stopped_in = Some(round);
        task.duration_ms = task.started.elapsed().as_millis() as u64;
        self.changed.notify_all();
        Ok(task.clone())
    }

    pub fn get(&self, id: &str) -> Option<Task> {
        let state = self.state.lock().unwrap();
        state.tasks.iter().find(|t| t.id == id).cloned()
    }

    /// The task once it is no longer running, or as it is when `timeout` passes.
    pub fn wait(&self, id: &str, timeout: Duration) -> Option<Task> {
        self.wait_until(id, timeout, |t| t.status != Status::Running)
    }

    /// Its end's events are printed: what waits for the end may now print after them.
    pub fn announced(&self, id: &str) {
        let mut state = self.state.lock().unwrap();
        if let Some(task) = state.tasks.iter_mut().find(|t| t.id == id) {
            task.told = true;
        }
        self.changed.notify_all();
    }

    /// The task once its end is recorded and announced (a stopped one's loop or command has
    /// wound down), or as it is when `timeout` passes.
    pub fn wait_ended(&self, id: &str, timeout: Duration) -> Option<Task> {
        self.wait_until(id, timeout, |t| t.told)
    }

    fn wait_until(
        &self,
        id: &str,
        timeout: Duration,
        done: impl Fn(&Task) -> bool,
    ) -> Option<Task> {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap();
        loop {
            let task = state.tasks.iter().find(|t| t.id == id)?.clone();
            let left = deadline.saturating_duration_since(Instant::now());
            if done(&task) || left.is_zero() {
                return Some(task);
            }
            state = self.changed.wait_timeout(state, left).unwrap().0;
        }
    }

    /// Background tasks still running (the concurrency cap counts them).
    pub fn running(&self) -> Vec<Task> {
        let state = self.state.lock().unwrap();
        state
            .tasks
            .iter()
            .filter(|t| t.background && t.status == Status::Running)
            .cloned()
            .collect()
    }

    /// The notifications owed at the end of a round. A task stopped during this round is told at
    /// the end of the next one, as 2.1.235 does whichever way the race between the stop's result
    /// and the loop's unwinding goes; by then its unwinding is waited for, so the notice is there.
    pub fn take_notices(&self) -> Vec<Notice> {
        let mut state = self.state.lock().unwrap();
        let round = state.drains;
        state.drains += 1;
        let deadline = Instant::now() + UNWIND_WAIT;
        loop {
            let unwinding = state
                .tasks
                .iter()
                .any(|t| t.stopped_in.is_some_and(|r| r < round) && t.result.is_none());
            let left = deadline.saturating_duration_since(Instant::now());
            if !unwinding || left.is_zero() {
                break;
            }
            state = self.changed.wait_timeout(state, left).unwrap().0;
        }
        let held: Vec<String> = state
            .tasks
            .iter()
            .filter(|t| t.stopped_in == Some(round))
            .map(|t| t.id.clone())
            .collect();
        let (now, later): (VecDeque<Notice>, VecDeque<Notice>) = state
            .notices
            .drain(..)
            .partition(|n| !held.contains(&n.task.id));
        state.notices = later;
        now.into()
    }

    /// Puts a message in a running task's mailbox; false when it is not running.
    pub fn post(&self, id: &str, message: &str) -> bool {
        let mut state = self.state.lock().unwrap();
        match state.tasks.iter_mut().find(|t| t.id == id) {
            Some(task) if task.status == Status::Running => {
                task.mailbox.push(message.to_owned());
                true
            }
            _ => false,
        }
    }

    /// Takes what waits in a task's mailbox.
    pub fn take_mail(&self, id: &str) -> Vec<String> {
        let mut state = self.state.lock().unwrap();
        state
            .tasks
            .iter_mut()
            .find(|t| t.id == id)
            .map(|t| std::mem::take(&mut t.mailbox))
            .unwrap_or_default()
    }

    /// The next notification owed to the model: waits while background tasks still run; `None`
    /// once nothing runs and nothing is owed.
    pub fn next_notice(&self) -> Option<Notice> {
        let mut state = self.state.lock().unwrap();
        loop {
            if let Some(notice) = state.notices.pop_front() {
                return Some(notice);
            }
            // `-p` waits for agents and runs, not for shells (2.1.235 stops those at the end).
            let running = state
                .tasks
                .iter()
                .any(|t| t.background && t.status == Status::Running && t.kind != SHELL);
            if !running {
                return None;
            }
            state = self.changed.wait(state).unwrap();
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum StopError {
    Unknown,
    NotRunning(Status),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ending(status: Status) -> Ending {
        Ending {
            status,
            result: "done".into(),
            tokens: 1,
            tool_uses: 0,
            history: Vec::new(),
        }
    }

    #[test]
    fn a_background_end_is_owed_once_and_a_synchronous_one_never() {
        let r = Registry::default();
        r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        r.start("a2", "local_agent", "d", "p", "t2", "/y".into(), false);
        r.finish("a2", ending(Status::Completed));
        r.finish("a1", ending(Status::Completed));
        assert_eq!(r.next_notice().unwrap().task.id, "a1");
        assert!(r.next_notice().is_none());
    }

    #[test]
    fn next_notice_waits_for_a_running_task() {
        let r = Arc::new(Registry::default());
        r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        let r2 = r.clone();
        let ender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            r2.finish("a1", ending(Status::Failed));
        });
        let notice = r.next_notice().unwrap();
        assert_eq!(notice.task.status, Status::Failed);
        ender.join().unwrap();
    }

    #[test]
    fn stop_sets_the_switch_and_keeps_killed_after_the_loop_ends() {
        let r = Registry::default();
        let task = r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        assert_eq!(r.stop("nope").unwrap_err(), StopError::Unknown);
        r.stop("a1").unwrap();
        assert!(task.cancel.load(Ordering::SeqCst));
        r.finish("a1", ending(Status::Completed));
        assert_eq!(r.get("a1").unwrap().status, Status::Killed);
        assert_eq!(
            r.stop("a1").unwrap_err(),
            StopError::NotRunning(Status::Killed)
        );
    }

    #[test]
    fn a_stopped_task_is_told_a_round_later_whenever_its_loop_unwinds() {
        // Unwound before its round drains: still held for the next round.
        let r = Registry::default();
        r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        r.stop("a1").unwrap();
        r.finish("a1", ending(Status::Completed));
        assert!(r.take_notices().is_empty());
        assert_eq!(r.take_notices()[0].task.status, Status::Killed);

        // Unwound only after the next round began to drain: that drain waits for it.
        let r = Arc::new(Registry::default());
        r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        r.stop("a1").unwrap();
        assert!(r.take_notices().is_empty());
        let r2 = r.clone();
        let ender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            r2.finish("a1", ending(Status::Completed));
        });
        assert_eq!(r.take_notices().len(), 1);
        ender.join().unwrap();
    }

    #[test]
    fn a_wait_for_the_end_waits_for_its_announcement_not_only_its_record() {
        let r = Registry::default();
        r.start("b1", SHELL, "d", "p", "t1", "/x".into(), true);
        r.stop("b1").unwrap();
        r.finish("b1", ending(Status::Killed));
        let waited = Instant::now();
        assert!(!r.wait_ended("b1", Duration::from_millis(50)).unwrap().told);
        assert!(waited.elapsed() >= Duration::from_millis(50));
        r.announced("b1");
        assert!(r.wait_ended("b1", Duration::from_secs(5)).unwrap().told);
    }

    #[test]
    fn mail_reaches_only_a_running_task() {
        let r = Registry::default();
        r.start("a1", "local_agent", "d", "p", "t1", "/x".into(), true);
        assert!(r.post("a1", "hi"));
        assert!(!r.post("zz", "hi"));
        assert_eq!(r.take_mail("a1"), vec!["hi".to_owned()]);
        r.finish("a1", ending(Status::Completed));
        assert!(!r.post("a1", "late"));
    }
}
