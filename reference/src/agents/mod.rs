//! Other agent loops (seed 004, "Task": the Agent tool, alias Task, starts an independent Agent
//! Loop, not a function call). A child loop has its own requests — its own system prompt, its
//! own tools, never the parent's messages — and its own events, marked with the launching
//! tool_use's id. Launched in the background (the default, as 2.1.235 has it) the tool_result is
//! a launch record and the outcome comes back later as a task notification; `run_in_background:
//! false` waits and returns the completed result.

mod notify;
pub mod registry;
mod runner;
pub mod tool_stats;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::Value;

pub use notify::{notification_text, Announcer, Progress, WorkflowStep};
pub use registry::{Registry, Status, Task};
pub use runner::{AgentModel, Launch, Outcome, Runner};

use crate::config::Config;
use crate::limits;

/// What every loop of a session shares: how to reach the API, the task registry, where events
/// go, and the context a child's first message starts with. Cloned into each child, one level
/// deeper.
#[derive(Clone)]
pub struct Agents {
    pub config: Arc<Config>,
    pub registry: Arc<Registry>,
    pub announce: Announcer,
    /// The session's first-message context blocks (skills, instructions, date).
    pub first_context: Arc<Vec<Value>>,
    /// This loop's nesting depth: 0 for the session's own.
    pub depth: u64,
    /// The session's runtime: child loops block on their requests from threads of their own.
    pub runtime: tokio::runtime::Handle,
    /// What runs a child loop (the agent loop above the tools that launch it).
    pub runner: Arc<dyn Runner>,
}

impl Agents {
    /// The same session one level deeper.
    pub fn deeper(&self) -> Agents {
        Agents {
            depth: self.depth + 1,
            ..self.clone()
        }
    }

    /// Runs a child loop of this session to its end on the calling thread (`Runner::run`).
    pub fn run(&self, launch: &Launch, history: Vec<Value>, cancel: Arc<AtomicBool>) -> Outcome {
        self.runner.run(self, launch, history, cancel)
    }

    /// Whether a loop at this depth may still launch agents (2.1.235 withdraws the tool).
    pub fn may_spawn(&self) -> bool {
        self.depth < max_spawn_depth()
    }

    /// Where a task's output goes: `<tmp>/claude-<uid>/<cwd slug>/<session>/tasks/<id>.output`,
    /// as 2.1.235 lays it out.
    pub fn output_file(&self, id: &str) -> PathBuf {
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        std::env::temp_dir()
            .join(format!("claude-{uid}"))
            .join(crate::environment::cwd_slug(&self.config.cwd))
            .join(&self.config.session_id)
            .join("tasks")
            .join(format!("{id}.output"))
    }
}

/// The agent types this agent knows, in the order the refusal lists them: the listing's
/// (`context::builtins::agent_types`, the user's among them).
pub fn agent_types() -> Vec<String> {
    crate::context::builtins::agent_types()
        .into_iter()
        .map(|(name, ..)| name)
        .collect()
}
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";
/// The type of a workflow's agent() subagents (2.1.235's `agentType` in their meta files).
pub const WORKFLOW_AGENT_TYPE: &str = "workflow-subagent";

/// What a read-only agent type goes without.
pub const READ_ONLY_WITHOUT: &[&str] = &[
    "Agent",
    "Artifact",
    "ExitPlanMode",
    "Edit",
    "NotebookEdit",
    "Write",
];
/// The status-line agent's whole kit, as its listing says.
pub const STATUSLINE_TOOLS: &[&str] = &["Read", "Edit"];

/// Types that only look: no file changes, no further agents.
pub fn read_only(agent_type: &str) -> bool {
    matches!(agent_type, "Explore" | "Plan")
}

/// `CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`, else the recorded default; a value below 1 or not a
/// number is ignored, as 2.1.235's integer setting ignores it.
pub fn max_spawn_depth() -> u64 {
    env_at_least_one("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH")
        .unwrap_or(limits::AGENTS_MAX_SPAWN_DEPTH.get())
}

/// `CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS`, else the recorded default.
pub fn max_concurrent() -> u64 {
    env_at_least_one("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS")
        .unwrap_or(limits::AGENTS_MAX_CONCURRENT.get())
}

fn env_at_least_one(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n >= 1)
}

/// A new agent id: `a` and 16 hex digits, the shape 2.1.235 gives.
pub fn new_id() -> String {
    let hex: String = crate::vocab::uuid()
        .chars()
        .filter(|c| *c != '-')
        .take(16)
        .collect();
    format!("a{hex}")
}
