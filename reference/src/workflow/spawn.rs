//! An agent() call as a child agent loop of the session (seed 004: Workflow launches additional
//! model loops). The child is a `workflow-subagent`: its own system prompt and tools, its
//! transcript beside the journal (`agent-<id>.jsonl` and `.meta.json`, as 2.1.235 keeps them),
//! its final text the call's value. Each call's start and end is told as the run's
//! `task_progress` event, with every call made so far (2.1.235's `workflow_progress`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

use super::engine::{Answer, Call, Spawner};
use crate::agents::{self, Agents, Status};

pub struct ChildSpawner {
    /// The session one level deeper.
    pub agents: Agents,
    pub cwd: PathBuf,
    pub transcript_dir: PathBuf,
    /// The Workflow tool_use that launched the run.
    pub tool_use_id: String,
    /// The run's task and the workflow's description, which its progress events name.
    pub task_id: String,
    pub summary: String,
    pub started: Instant,
    /// Every call so far by index, as its progress entry says it; and what the ended ones used.
    pub progress: Mutex<(BTreeMap<u64, Value>, u64, u64)>,
}

impl ChildSpawner {
    /// Updates `call`'s entry and tells the run's progress.
    fn moved(&self, call: &Call, entry: Value, used: Option<(u64, u64)>) {
        let (entries, tokens, tool_uses) = {
            let mut guard = self.progress.lock().unwrap_or_else(|e| e.into_inner());
            let (entries, tokens, tool_uses) = &mut *guard;
            entries.insert(call.index, entry);
            if let Some((t, u)) = used {
                *tokens += t;
                *tool_uses += u;
            }
            (entries.values().cloned().collect(), *tokens, *tool_uses)
        };
        self.agents.announce.workflow_progress(
            &agents::WorkflowStep {
                task_id: &self.task_id,
                tool_use_id: &self.tool_use_id,
                summary: &self.summary,
                label: &call.label,
                tokens,
                tool_uses,
                started: self.started,
            },
            entries,
        );
    }
}

impl Spawner for ChildSpawner {
    fn run(&self, call: &Call, stop: &Arc<AtomicBool>) -> Answer {
        let launch = agents::Launch {
            id: call.agent_id.clone(),
            description: call.label.clone(),
            prompt: call.prompt.clone(),
            agent_type: agents::WORKFLOW_AGENT_TYPE.into(),
            tool_use_id: self.tool_use_id.clone(),
            background: true,
            cwd: self.cwd.clone(),
            output_file: self
                .transcript_dir
                .join(format!("agent-{}.jsonl", call.agent_id)),
            model: None,
            prompt_id: None,
        };
        let meta =
            json!({"agentType": agents::WORKFLOW_AGENT_TYPE, "spawnDepth": self.agents.depth});
        let meta_file = self
            .transcript_dir
            .join(format!("agent-{}.meta.json", call.agent_id));
        // The meta file is a record for people; a failure to write it costs nothing else.
        let _ = std::fs::create_dir_all(&self.transcript_dir)
            .and_then(|()| std::fs::write(meta_file, meta.to_string()));
        let model = call
            .model
            .clone()
            .unwrap_or_else(|| self.agents.config.model.clone());
        let queued = crate::vocab::now_ms();
        let mut entry = json!({
            "type": "workflow_agent", "index": call.index, "label": call.label,
            "agentId": call.agent_id, "model": model, "state": "start",
            "startedAt": queued, "queuedAt": queued, "attempt": 1,
            "promptPreview": super::report::preview(Some(&Value::String(call.prompt.clone()))),
            "lastProgressAt": queued,
        });
        self.moved(call, entry.clone(), None);
        let began = Instant::now();
        let outcome = self.agents.run(&launch, Vec::new(), stop.clone());
        let tokens = outcome.usage.input + outcome.usage.output;
        let done = outcome.status == Status::Completed;
        entry["state"] = json!(if done { "done" } else { "error" });
        entry["lastProgressAt"] = json!(crate::vocab::now_ms());
        entry["tokens"] = json!(tokens);
        entry["toolCalls"] = json!(outcome.tool_uses);
        entry["durationMs"] = json!(began.elapsed().as_millis() as u64);
        if let Some(p) = super::report::preview(Some(&Value::String(outcome.text.clone()))) {
            entry["resultPreview"] = json!(p);
        }
        self.moved(call, entry, Some((tokens, outcome.tool_uses)));
        match outcome.status {
            Status::Completed => Answer {
                text: Some(outcome.text),
                error: None,
                tokens,
                tool_uses: outcome.tool_uses,
            },
            _ => Answer {
                text: None,
                error: Some(outcome.text),
                tokens,
                tool_uses: outcome.tool_uses,
            },
        }
    }
}
