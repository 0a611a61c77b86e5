//! What a launch asks for, how a loop ended, and the trait through which the layers below the
//! agent loop (the Agent tool, SendMessage, a workflow's agent() calls) start one: the loop itself
//! (the agent layer's child loop) needs the tools, so it sits above them and is reached through
//! this.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::Value;

use super::registry::Status;
use super::Agents;
use crate::api::Usage;

/// What a launch asked for.
#[derive(Debug, Clone)]
pub struct Launch {
    pub id: String,
    pub description: String,
    pub prompt: String,
    pub agent_type: String,
    pub tool_use_id: String,
    pub background: bool,
    /// Where the child works (a worktree when isolated).
    pub cwd: PathBuf,
    pub output_file: PathBuf,
    /// The model asked for (Agent's `model`), instead of the session's.
    pub model: Option<AgentModel>,
    /// The prompt the launching loop answers, as the agent's hooks are told it.
    pub prompt_id: Option<String>,
}

/// An Agent's `model` as 2.1.235 resolves each of its values (recorded:
/// `core.parameter-coverage/agent-model`): the model its requests go to, and what its
/// `resolvedModel` reports (opus with its 1M-context mark).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentModel {
    pub request: &'static str,
    pub reported: &'static str,
}

impl AgentModel {
    pub fn of(alias: &str) -> Option<AgentModel> {
        let (request, reported) = match alias {
            "haiku" => ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001"),
            "sonnet" => ("claude-sonnet-4-5", "claude-sonnet-4-5"),
            "opus" => ("claude-opus-5", "claude-opus-5[1m]"),
            "fable" => ("claude-fable-5", "claude-fable-5"),
            _ => return None,
        };
        Some(AgentModel { request, reported })
    }
}

/// How the loop ended.
pub struct Outcome {
    pub status: Status,
    /// The final text, or why it ended early.
    pub text: String,
    /// The last answer's usage: 2.1.235 reports an agent's tokens as its final context size (the
    /// last message's input, cache and output), not a sum over its rounds.
    pub usage: Usage,
    /// What 2.1.235's progress tracker counts for a background agent (its notification's tokens).
    pub tracked_tokens: u64,
    pub tool_uses: u64,
    /// What those tool uses did, by kind (`toolStats`).
    pub stats: super::tool_stats::ToolStats,
    /// The whole conversation, for a later resume.
    pub history: Vec<Value>,
}

/// Runs one child loop to its end on the calling thread.
pub trait Runner: Send + Sync {
    /// Runs the loop from `history` (empty for a new agent) with the launch's prompt as the next
    /// user message; `cancel` is the task's stop switch.
    fn run(
        &self,
        agents: &Agents,
        launch: &Launch,
        history: Vec<Value>,
        cancel: Arc<AtomicBool>,
    ) -> Outcome;
}
