//! An agent() call as a child agent loop of the session (seed 004: Workflow launches additional
//! model loops). The child is a `workflow-subagent`: its own system prompt and tools, its
//! transcript beside the journal (`agent-<id>.jsonl` and `.meta.json`, as 2.1.235 keeps them),
//! its final text the call's value.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::json;

use super::engine::{Answer, Call, Spawner};
use crate::agents::{self, Agents, Status};

pub struct ChildSpawner {
    /// The session one level deeper.
    pub agents: Agents,
    pub cwd: PathBuf,
    pub transcript_dir: PathBuf,
    /// The Workflow tool_use that launched the run.
    pub tool_use_id: String,
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
        let outcome = self.agents.run(&launch, Vec::new(), stop.clone());
        let tokens = outcome.usage.input + outcome.usage.output;
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
