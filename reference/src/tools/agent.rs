//! Agent (alias Task): launches another agent loop (seed 004, "Task"). The checks run before the
//! child sends anything — its type, isolation and cwd together, a worktree outside git, the
//! concurrency cap (the depth cap withdraws the tool itself) — and each refusal is the call's
//! error. Launched in the background (the default) the result is a launch record; waited for, it
//! is the child's final text with its agent id and usage.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::agents::{self, Agents, Launch, Outcome, Status};
use crate::worktree;

pub struct Agent {
    /// `run_in_background` is in the schema: 2.1.235 drops it when its fork-subagent mode is on
    /// (a terminal session, or `CLAUDE_CODE_FORK_SUBAGENT`) and when background tasks are off.
    pub background_choice: bool,
}

/// The Agent tool of `-p` sessions.
pub const AGENT: Agent = Agent {
    background_choice: true,
};
/// The Agent tool without `run_in_background`.
pub const AGENT_NO_BACKGROUND_CHOICE: Agent = Agent {
    background_choice: false,
};

/// The first line of a launch record (2.1.235's words: a host may look for them).
pub const LAUNCHED: &str = "Async agent launched successfully.";

impl Tool for Agent {
    fn name(&self) -> &'static str {
        "Agent"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["Task"]
    }

    fn description(&self) -> &'static str {
        "Hands a self-contained task to another agent that works on its own and reports back. \
         It runs in the background unless run_in_background is false; you are told when it \
         finishes. Give it everything it needs in the prompt: it does not see this conversation."
    }

    fn input_schema(&self) -> Value {
        let mut schema = object_schema(
            json!({
                "description": {"description": "A few words naming the task.", "type": "string"},
                "prompt": {"description": "The whole task for the agent.", "type": "string"},
                "subagent_type": {"description": "Which kind of agent to launch.", "type": "string"},
                "model": {"description": "A model for this agent instead of the session's.", "type": "string", "enum": ["sonnet", "opus", "haiku", "fable"]},
                "run_in_background": {"description": "False to wait for the agent's result.", "type": "boolean"},
                "isolation": {"description": "Run the agent in a git worktree of its own, or remotely.", "type": "string", "enum": ["worktree", "remote"]},
                "cwd": {"description": "A directory for the agent to work in instead of this one; not with isolation.", "type": "string"},
            }),
            &["description", "prompt"],
        );
        if !self.background_choice {
            if let Some(props) = schema["properties"].as_object_mut() {
                props.shift_remove("run_in_background");
            }
        }
        schema
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let agents = ctx
            .agents
            .clone()
            .ok_or_else(|| ToolError::wrapped("Agents cannot be launched here."))?;
        let agent_type = input["subagent_type"]
            .as_str()
            .unwrap_or(agents::DEFAULT_AGENT_TYPE)
            .to_owned();
        if !agents::AGENT_TYPES.contains(&agent_type.as_str()) {
            return Err(ToolError::plain(format!(
                "Agent type '{agent_type}' not found. Available agents: {}",
                agents::AGENT_TYPES.join(", ")
            )));
        }
        let isolation = input["isolation"].as_str();
        // Seed 004: worktree or remote isolation and an explicit cwd exclude each other.
        if let (Some(mode), Some(_)) = (isolation, input.get("cwd")) {
            return Err(ToolError::plain(format!(
                "cwd cannot be combined with isolation: \"{mode}\"; give one or the other."
            )));
        }
        let background = input["run_in_background"].as_bool() != Some(false);
        let running = agents.registry.running().len() as u64;
        let cap = agents::max_concurrent();
        if running >= cap {
            return Err(ToolError::plain(format!(
                "Concurrent subagent limit reached. You can run {cap} subagents at once. Wait for \
                 one to finish or do the work yourself; CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS sets the limit."
            )));
        }
        let id = agents::new_id();
        let cwd = match (isolation, input["cwd"].as_str()) {
            (Some("worktree"), _) => agent_worktree(&ctx.cwd, &id)?,
            (_, Some(dir)) => {
                let dir = ctx.resolve(dir);
                if !dir.is_dir() {
                    return Err(ToolError::plain(format!(
                        "cwd {} is not a directory",
                        dir.display()
                    )));
                }
                dir
            }
            // Remote launches are not available here: the agent runs locally, as 2.1.235 does
            // when the remote gate is closed.
            _ => ctx.cwd.clone(),
        };
        let launch = Launch {
            description: input["description"].as_str().unwrap_or_default().to_owned(),
            prompt: input["prompt"].as_str().unwrap_or_default().to_owned(),
            output_file: agents.output_file(&id),
            id,
            agent_type,
            tool_use_id: ctx.tool_use_id.clone(),
            background,
            cwd,
        };
        let task = agents.registry.start(
            &launch.id,
            "local_agent",
            &launch.description,
            &launch.prompt,
            &launch.tool_use_id,
            launch.output_file.clone(),
            background,
        );
        agents.registry.remember(&launch.id, &launch);
        if background {
            agents.announce.running(&agents.registry.running());
        }
        agents.announce.started(&task, &launch.agent_type);
        let child = agents.deeper();
        if background {
            in_background(child, launch.clone(), Vec::new(), task.cancel);
            return Ok(launched(&agents, &launch));
        }
        let outcome = agents::run_child(&child, &launch, Vec::new(), task.cancel);
        let usage = outcome.usage;
        let tokens = usage.input + usage.output;
        let text = outcome.text.clone();
        let ended = settle(&child, &launch.id, outcome);
        if ended.status != Status::Completed {
            return Err(ToolError::plain(text));
        }
        let blocks = json!([
            {"type": "text", "text": text},
            {"type": "text", "text": format!(
                "agentId: {} (send it more work with SendMessage to: '{}')\n<usage>subagent_tokens: {tokens}\ntool_uses: {}\nduration_ms: {}</usage>",
                launch.id, launch.id, ended.tool_uses, ended.duration_ms
            )},
        ]);
        Ok(ToolOutput {
            content: text.clone(),
            structured: json!({
                "status": "completed", "prompt": launch.prompt, "agentId": launch.id,
                "agentType": launch.agent_type, "content": [{"type": "text", "text": text}],
                "resolvedModel": agents.config.model, "totalDurationMs": ended.duration_ms,
                "totalTokens": tokens, "totalToolUseCount": ended.tool_uses, "usage": usage.json(),
            }),
            is_error: None,
            blocks: None,
        }
        .as_blocks(blocks))
    }
}

/// Runs a child loop on a thread of its own (a background launch, a resume), from `history`;
/// its end is settled there.
pub fn in_background(
    child: Agents,
    launch: Launch,
    history: Vec<Value>,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    std::thread::spawn(move || {
        let outcome = agents::run_child(&child, &launch, history, cancel);
        settle(&child, &launch.id, outcome);
    });
}

/// Records a child's end in the registry and announces it.
pub fn settle(agents: &Agents, id: &str, outcome: Outcome) -> agents::Task {
    let ending = agents::registry::Ending {
        status: outcome.status,
        result: outcome.text,
        tokens: outcome.usage.input + outcome.usage.output,
        tool_uses: outcome.tool_uses,
        history: outcome.history,
    };
    let task = agents
        .registry
        .finish(id, ending)
        .expect("a launched task is registered");
    if task.background {
        agents.announce.running(&agents.registry.running());
    }
    agents.announce.ended(&task);
    task
}

/// The launch record: what was started and where its output goes, never its outcome.
fn launched(agents: &Agents, launch: &Launch) -> ToolOutput {
    let text = format!(
        "{LAUNCHED}\nagentId: {id} (an internal id: use it with SendMessage or TaskStop, do not show it to the user)\n\
         The agent works in the background and you will be notified when it finishes; until then \
         you know nothing of its results. Carry on with other work meanwhile.\n\
         output_file: {file}",
        id = launch.id,
        file = launch.output_file.display()
    );
    ToolOutput {
        content: text.clone(),
        structured: json!({
            "isAsync": true, "status": "async_launched", "agentId": launch.id,
            "description": launch.description, "resolvedModel": agents.config.model,
            "prompt": launch.prompt, "outputFile": launch.output_file, "canReadOutputFile": true,
        }),
        is_error: None,
        blocks: None,
    }
    .as_blocks(json!([{"type": "text", "text": text}]))
}

/// A fresh worktree for an isolated agent, under the repository's managed worktrees.
fn agent_worktree(cwd: &std::path::Path, id: &str) -> Result<PathBuf, ToolError> {
    let Some(repo) = worktree::repo::root(cwd) else {
        return Err(ToolError::plain(
            "Cannot create agent worktree: not in a git repository and no WorktreeCreate hooks are \
             configured. Run the agent without isolation, or from inside a git repository.",
        ));
    };
    let name = format!("agent-{}", &id[1..9]);
    let dir = worktree::name::dir_for(&repo, &name);
    let branch = worktree::name::branch_for(&name);
    let dir_text = dir.display().to_string();
    let out = worktree::git::run(
        &repo,
        &["worktree", "add", "-b", &branch, &dir_text, "HEAD"],
    )
    .map_err(ToolError::plain)?;
    if !out.ok() {
        return Err(ToolError::plain(format!(
            "Cannot create agent worktree at {dir_text}: git worktree add failed"
        )));
    }
    Ok(dir)
}
