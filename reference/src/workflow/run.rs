//! A launched run (seed 004: "本地运行生成 wf_* run ID、task ID、transcript dir 和 journal；后台完成
//! 另行通知"): registered as a `local_workflow` background task, run on a thread of its own, and
//! at its end written down (the task's output file, the run's record) and notified.

use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::engine::{self, End, Job, Loader, Spawner};
use super::journal::Journal;
use super::resume::{Cached, Replay};
use super::script::Meta;
use super::{named, report, store};
use crate::agents::registry::{Ending, Report, Status, Task};
use crate::agents::Agents;

pub struct Launch {
    pub task_id: String,
    pub run_id: String,
    pub meta: Meta,
    /// The whole script (the task's prompt, the record's copy).
    pub script: String,
    pub body: String,
    pub script_path: PathBuf,
    pub transcript_dir: PathBuf,
    pub args: Option<Value>,
    /// The journal of the run resumed (empty for a fresh run).
    pub cached: HashMap<String, Cached>,
    pub tool_use_id: String,
}

/// Runs still going, by run id, with their task ids. One process runs one session, and a run
/// may only be resumed once it stopped (seed 004: "旧 run 仍运行时必须先 stop").
static ACTIVE: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// The task of the run `run_id` while it runs.
pub fn active(run_id: &str) -> Option<String> {
    let active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
    active
        .iter()
        .find(|(run, _)| run == run_id)
        .map(|(_, task)| task.clone())
}

fn set_active(run_id: &str, task_id: Option<&str>) {
    let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
    active.retain(|(run, _)| run != run_id);
    if let Some(task) = task_id {
        active.push((run_id.to_owned(), task.to_owned()));
    }
}

/// Registers and announces the task, then runs it in the background.
pub fn start(agents: &Agents, launch: Launch, spawner: Box<dyn Spawner + Send>) -> Task {
    let output_file = agents.output_file(&launch.task_id);
    let task = agents.registry.start(
        &launch.task_id,
        "local_workflow",
        &launch.meta.description,
        &launch.script,
        &launch.tool_use_id,
        output_file,
        true,
    );
    agents.announce.running(&agents.registry.running());
    agents.announce.workflow_started(&task, &launch.meta.name);
    set_active(&launch.run_id, Some(&launch.task_id));
    let agents = agents.clone();
    let cancel = task.cancel.clone();
    std::thread::spawn(move || {
        finish(
            &agents,
            &launch,
            execute(&agents, &launch, cancel, &*spawner),
        )
    });
    task
}

struct Ran {
    outcome: engine::Outcome,
    started_ms: u64,
    duration_ms: u64,
}

fn execute(
    agents: &Agents,
    launch: &Launch,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    spawner: &dyn Spawner,
) -> Ran {
    let started_ms = now_ms();
    let began = Instant::now();
    let journal = Journal::in_dir(&launch.transcript_dir);
    let (home, cwd) = (agents.config.home.clone(), agents.config.cwd.clone());
    let load: Rc<Loader> = Rc::new(move |request: &Value| named::nested(&home, &cwd, request));
    let phases = launch
        .meta
        .phases
        .iter()
        .flatten()
        .map(|p| p.title.clone())
        .collect();
    let outcome = engine::run(
        Job {
            body: &launch.body,
            args: launch.args.as_ref(),
            phases,
            replay: Replay::new(launch.cached.clone()),
            journal: &journal,
            load,
            cancel,
            concurrency: engine::default_concurrency(),
        },
        spawner,
    );
    Ran {
        outcome,
        started_ms,
        duration_ms: began.elapsed().as_millis() as u64,
    }
}

fn finish(agents: &Agents, launch: &Launch, ran: Ran) {
    let Ran {
        outcome,
        started_ms,
        duration_ms,
    } = ran;
    let model = agents.config.model.as_str();
    let places = report::Places {
        task_id: &launch.task_id,
        run_id: &launch.run_id,
        summary: &launch.meta.description,
        workflow_name: &launch.meta.name,
        transcript_dir: &launch.transcript_dir,
        script_path: &launch.script_path,
        args: launch.args.as_ref(),
    };
    let output_file = agents.output_file(&launch.task_id);
    let (status, result, error) = match &outcome.end {
        End::Completed(result) => (Status::Completed, result.clone(), None),
        End::Failed(error) => (Status::Failed, None, Some(error.clone())),
        End::Stopped => (Status::Killed, None, None),
    };
    // 2.1.235 writes the output file for a completed run only.
    if status == Status::Completed {
        let file = report::output_file(&places, &outcome, result.as_ref(), model);
        let _ = store::write_json(&output_file, &file);
    }
    let session = store::session_dir(
        &agents.config.home,
        &agents.config.cwd,
        &agents.config.session_id,
    );
    let mut record = json!({
        "runId": launch.run_id, "timestamp": crate::vocab::timestamp(),
        "taskId": launch.task_id, "script": launch.script, "scriptPath": launch.script_path,
    });
    if let Some(args) = &launch.args {
        record["args"] = args.clone();
    }
    let rest = json!({
        "result": result, "agentCount": outcome.agents.len(), "logs": outcome.logs,
        "durationMs": duration_ms, "summary": launch.meta.description,
        "workflowName": launch.meta.name, "status": status.as_str(), "startTime": started_ms,
        "phases": launch.meta.phases.iter().flatten().map(|p| json!({"title": p.title})).collect::<Vec<_>>(),
        "defaultModel": model, "workflowProgress": report::progress(&outcome, model),
        "totalTokens": report::tokens(&outcome), "totalToolCalls": report::tool_uses(&outcome),
    });
    if let (Some(map), Value::Object(rest)) = (record.as_object_mut(), rest) {
        map.extend(rest);
    }
    if let Some(error) = &error {
        record["error"] = json!(error);
    }
    let _ = store::write_json(&store::record_path(&session, &launch.run_id), &record);

    agents.registry.report(
        &launch.task_id,
        Report {
            summary: report::summary(&launch.meta.description, &outcome.end),
            body: report::notification_body(&places, &outcome, &output_file, duration_ms),
            error,
        },
    );
    let ending = Ending {
        status,
        result: result.map(|r| r.to_string()).unwrap_or_default(),
        tokens: report::tokens(&outcome),
        tool_uses: report::tool_uses(&outcome),
        history: Vec::new(),
    };
    set_active(&launch.run_id, None);
    if let Some(task) = agents.registry.finish(&launch.task_id, ending) {
        agents
            .announce
            .running_after(&task, &agents.registry.running());
        agents.announce.ended(&task);
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}
