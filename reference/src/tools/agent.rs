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
        let types = agents::agent_types();
        if !types.contains(&agent_type) {
            return Err(ToolError::plain(format!(
                "Agent type '{agent_type}' not found. Available agents: {}",
                types.join(", ")
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
                "Concurrent subagent limit reached. You can run {cap} subagents at once. Do not \
                 retry. If the user wants more concurrent subagents, ask them to increase \
                 CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS."
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
        // The call's own model first, then the user's agent type's (recorded:
        // sdk.invocation/agents).
        let model = input["model"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| crate::context::custom_agents::find(&agent_type)?.model)
            .and_then(|alias| agents::AgentModel::of(&alias));
        let launch = Launch {
            description: input["description"].as_str().unwrap_or_default().to_owned(),
            prompt: input["prompt"].as_str().unwrap_or_default().to_owned(),
            output_file: agents.output_file(&id),
            id,
            agent_type,
            tool_use_id: ctx.tool_use_id.clone(),
            background,
            cwd,
            model,
            prompt_id: ctx.prompt_id.clone(),
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
        let outcome = child.run(&launch, Vec::new(), task.cancel);
        let usage = outcome.usage;
        let tokens = context_tokens(&usage);
        let text = outcome.text.clone();
        let stats = outcome.stats;
        let ended = settle(&child, &launch.id, outcome);
        if ended.status != Status::Completed {
            return Err(ToolError::plain(text));
        }
        let blocks = json!([
            {"type": "text", "text": text},
            {"type": "text", "text": format!(
                "agentId: {} (use SendMessage with to: '{}', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: {tokens}\ntool_uses: {}\nduration_ms: {}</usage>",
                launch.id, launch.id, ended.tool_uses, ended.duration_ms
            )},
        ]);
        let mut structured = json!({
            "status": "completed", "prompt": launch.prompt, "agentId": launch.id,
            "agentType": launch.agent_type, "content": [{"type": "text", "text": text}],
            "resolvedModel": resolved_model(&agents, &launch), "totalDurationMs": ended.duration_ms,
            "totalTokens": tokens, "totalToolUseCount": ended.tool_uses, "usage": usage.json(),
        });
        // Only an agent whose tools were counted says what they did (recorded:
        // hooks.events/round; none after only launching agents: agents.launch-checks/depth).
        if stats.counted() {
            structured["toolStats"] = stats.json();
        }
        Ok(ToolOutput {
            content: text.clone(),
            structured,
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
        let outcome = child.run(&launch, history, cancel);
        settle(&child, &launch.id, outcome);
    });
}

/// An agent's tokens as 2.1.235 counts them: everything its last answer's context held.
fn context_tokens(usage: &crate::api::Usage) -> u64 {
    usage.input + usage.output + usage.cache_read + usage.cache_creation
}

/// Records a child's end in the registry and announces it.
pub fn settle(agents: &Agents, id: &str, outcome: Outcome) -> agents::Task {
    let ending = agents::registry::Ending {
        status: outcome.status,
        result: outcome.text,
        // What a notification reports: 2.1.235's tracker, not the final context size.
        tokens: outcome.tracked_tokens,
        tool_uses: outcome.tool_uses,
        history: outcome.history,
    };
    let task = agents
        .registry
        .finish(id, ending)
        .expect("a launched task is registered");
    if task.background {
        agents
            .announce
            .running_after(&task, &agents.registry.running());
    }
    agents.announce.ended(&task);
    task
}

/// The model an agent runs on, as its result reports it.
fn resolved_model(agents: &Agents, launch: &Launch) -> String {
    launch
        .model
        .as_ref()
        .map_or_else(|| agents.config.model.clone(), |m| m.reported.to_owned())
}

/// The launch record: what was started and where its output goes, never its outcome.
fn launched(agents: &Agents, launch: &Launch) -> ToolOutput {
    // 2.1.235's six lines, in its order: the launch, the id with how to continue the agent, the
    // wait for its notification, no duplicate work, the output file, and not reading that file.
    let text = format!(
        "{LAUNCHED} (This result is bookkeeping for you: do not quote any of it, the agentId \
         included, in a reply to the user.)\n\
         agentId: {id} (an internal id, never shown to the user. Use SendMessage with to: '{id}', \
         summary: '<5-10 word recap>' to continue this agent.)\n\
         The agent works in the background and you will be notified automatically when it \
         finishes. Until that notification arrives you know nothing of its results: do not report, \
         assume or predict them; carry on with other work or answer the user meanwhile.\n\
         Do not duplicate what this agent is doing: keep away from the files and topics it works on.\n\
         output_file: {file}\n\
         Do NOT Read or tail this file through the shell: it is the agent's whole JSONL transcript \
         and would flood your context. If the user asks how it is going, say the agent is still \
         running; a notification will come when it completes.",
        id = launch.id,
        file = launch.output_file.display()
    );
    ToolOutput {
        content: text.clone(),
        structured: json!({
            "isAsync": true, "status": "async_launched", "agentId": launch.id,
            "description": launch.description, "resolvedModel": resolved_model(agents, launch),
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
             configured. Configure WorktreeCreate/WorktreeRemove hooks in settings.json to use \
             worktree isolation with other VCS systems.",
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
