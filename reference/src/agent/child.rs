//! One child loop, run to its end on the calling thread: a synchronous agent on the tool's
//! thread, a background agent on a thread of its own. Each request is assembled here from the
//! child's own history, system prompt and tools; the loop ends when the model ends its turn, the
//! API fails for good, or TaskStop sets the task's switch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::agents::{self, Agents, Launch, Outcome, Status};
use crate::api::wire::{self, Role};
use crate::api::Usage;
use crate::tools::{self, Tool, ToolContext};

/// Tools a background agent gets, as 2.1.235 equips one (besides Glob and Grep when offered).
const BACKGROUND_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "Edit",
    "EnterWorktree",
    "ExitWorktree",
    "Glob",
    "Grep",
    "NotebookEdit",
    "Read",
    "SendMessage",
    "Skill",
    "TaskStop",
    "WebFetch",
    "WebSearch",
    "Write",
];
/// Tools a synchronous agent goes without: it cannot wait on tasks, wake itself or run workflows.
const SYNC_WITHOUT: &[&str] = &["TaskOutput", "ScheduleWakeup", "Workflow"];
/// What a workflow's agent() subagent goes without (recorded: the session's tools less these).
const WORKFLOW_WITHOUT: &[&str] = &["Agent", "ScheduleWakeup", "TaskOutput", "Workflow"];
use crate::agents::{READ_ONLY_WITHOUT, STATUSLINE_TOOLS};

/// The system prompt of a child loop, in our own words.
const CHILD_IDENTITY: &str =
    "You are a subagent of the reference agent of a conformance harness, given one task by another agent.";
const CHILD_GUIDANCE: &str = "\
Do the task with the tools you are given, then answer with a short plain-text report: it is \
all the launching agent will see of your work.";
/// A workflow's subagent answers a script, not a person.
const WORKFLOW_GUIDANCE: &str = "\
You are one agent() call of a workflow script. Do the task with the tools you are given. Your \
final text goes back to the script verbatim as the call's return value: give the literal result \
(data, JSON or text) and nothing else: no confirmation, no code fences around JSON, nothing \
addressed to a person. Use absolute paths.";

/// The session's agent loops as the lower layers start them (`agents::Runner`): the Agent tool,
/// SendMessage's resume, a workflow's agent() calls.
pub struct ChildLoops;

impl agents::Runner for ChildLoops {
    fn run(
        &self,
        agents: &Agents,
        launch: &Launch,
        history: Vec<Value>,
        cancel: Arc<AtomicBool>,
    ) -> Outcome {
        run(agents, launch, history, cancel)
    }
}

/// Runs the loop from `history` (empty for a new agent) with `prompt` as the next user message.
fn run(agents: &Agents, launch: &Launch, history: Vec<Value>, cancel: Arc<AtomicBool>) -> Outcome {
    // The model asked for shapes the agent's requests as it shapes any request on that model
    // (its output budget, thinking, betas), as 2.1.235 does.
    let shaped;
    let config = match &launch.model {
        Some(model) => {
            shaped = crate::config::Config {
                model: model.request.to_owned(),
                ..(*agents.config).clone()
            };
            &shaped
        }
        None => &*agents.config,
    };
    let client = super::client(config).with_role(Role::Subagent);
    let mut ctx = ToolContext::for_child(agents, &launch.cwd, cancel.clone());
    ctx.prompt_id.clone_from(&launch.prompt_id);
    ctx.hook_agent = Some((launch.id.clone(), launch.agent_type.clone()));
    // A new agent's loop starts (a resumed one goes on).
    if history.is_empty() {
        ctx.hooks.subagent_start(&ctx.hook_session());
    }
    let offered = tools_for(agents, launch);
    // A user's agent type's own prompt, which opens its system prompt.
    let lead = crate::context::custom_agents::find(&launch.agent_type).map(|c| c.prompt);
    let mut messages = history;
    let mut first = Vec::new();
    // A new child hears of the agent types with its first round's results, as 2.1.235 tells it.
    let mut owes_agent_listing = messages.is_empty() && offered.iter().any(|t| t.name() == "Agent");
    let mut budget = crate::context::reminders::TokenBudget::default();
    let mut last_total: u64;
    if messages.is_empty() {
        // No skills listing for an agent without the Skill tool (recorded: sdk.control/agents,
        // a user's agent type that names its tools).
        let skills = offered.iter().any(|t| t.name() == "Skill");
        first.extend(
            agents
                .first_context
                .iter()
                .filter(|b| {
                    skills
                        || crate::transcript::attachment::of_reminder(
                            b["text"].as_str().unwrap_or_default(),
                        )["type"]
                            != "skill_listing"
                })
                .cloned(),
        );
    }
    let prompt = json!({"type": "text", "text": launch.prompt});
    // The reminders it opens with; the context block (last) is not one of them.
    let reminders: Vec<String> = first
        .split_last()
        .map(|(_, r)| {
            r.iter()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    // A Claude 5 model reads the skills listing as a system message after the prompt, not as a
    // reminder before it (recorded: core.parameter-coverage/agent-model, `mid-conversation-system`).
    let mut listing = None;
    if wire::claude_5(&config.model) {
        if let Some(at) = first.iter().position(|b| {
            crate::transcript::attachment::of_reminder(b["text"].as_str().unwrap_or_default())
                ["type"]
                == "skill_listing"
        }) {
            let block = first.remove(at);
            let text = block["text"].as_str().unwrap_or_default();
            let inner = text
                .trim()
                .strip_prefix("<system-reminder>")
                .and_then(|t| t.strip_suffix("</system-reminder>"))
                .map_or(text, str::trim);
            listing = Some(json!({"role": "system", "content": [{"type": "text", "text": inner}]}));
        }
    }
    first.push(prompt.clone());
    messages.push(json!({"role": "user", "content": first}));
    messages.extend(listing);
    let transcript = sidechain(agents, launch);
    transcript.prompt(&[prompt], &reminders, ctx.permissions.mode.as_str());
    let announce = &agents.announce;
    // A workflow's agents show nothing on stdout (2.1.235 reports them as the run's progress).
    let silent = launch.agent_type == agents::WORKFLOW_AGENT_TYPE;
    if !launch.background {
        // A synchronous agent's prompt is shown as its first event, as 2.1.235 shows it.
        let out = &announce.out;
        announce.child_event(
            out.synthetic_text(&launch.prompt),
            &launch.tool_use_id,
            &launch.agent_type,
            &launch.description,
        );
    }
    let mut tally = Tally::default();
    let mut last_usage = Usage::default();
    let mut tool_uses = 0;
    let mut stats = crate::agents::tool_stats::ToolStats::default();
    let started = std::time::Instant::now();
    let end = |status, text: String, usage, tracked_tokens, (tool_uses, stats), history| Outcome {
        status,
        text,
        usage,
        tracked_tokens,
        tool_uses,
        stats,
        history,
    };
    loop {
        if cancel.load(Ordering::SeqCst) {
            return end(
                Status::Killed,
                String::new(),
                last_usage,
                tally.total(),
                (tool_uses, stats),
                messages,
            );
        }
        let body = request_body(
            config,
            &offered,
            &messages,
            (silent, !launch.background),
            lead.as_deref(),
        );
        let out = &announce.out;
        // A synchronous agent's final answer is its tool result, not an event (2.1.235 shows
        // only the steps that call tools): its blocks wait until the message proves to be one.
        let mut held = Vec::new();
        let answer = agents.runtime.block_on(client.send(
            &body,
            |message, index, request_id| {
                if silent {
                    return;
                }
                let event = out.assistant(message, index, request_id);
                if launch.background {
                    announce.child_event(
                        event,
                        &launch.tool_use_id,
                        &launch.agent_type,
                        &launch.description,
                    )
                } else {
                    held.push(event);
                }
            },
            |_| {},
        ));
        if answer
            .as_ref()
            .is_ok_and(|a| a.message.tool_uses().next().is_some())
        {
            for event in held {
                announce.child_event(
                    event,
                    &launch.tool_use_id,
                    &launch.agent_type,
                    &launch.description,
                );
            }
        }
        let answer = match answer {
            Ok(answer) => answer,
            Err(error) => {
                let text = format!(
                    "Agent terminated early due to an API error: {}",
                    error.user_text(&client.gateway())
                );
                return end(
                    Status::Failed,
                    text,
                    last_usage,
                    tally.total(),
                    (tool_uses, stats),
                    messages,
                );
            }
        };
        tally.add(&answer.message);
        last_usage = Usage::default();
        last_usage.add(&answer.message);
        last_total = crate::context::reminders::answer_total(&answer.message);
        messages.push(answer.message.as_history());
        transcript.assistant(
            &crate::transcript::write::kept(&answer.message),
            answer.request_id.as_deref(),
        );
        let calls: Vec<Value> = answer.message.tool_uses().cloned().collect();
        if calls.is_empty() {
            let mode = ctx.permissions.mode.as_str();
            ctx.hooks
                .subagent_stop(&ctx.hook_session(), mode, &answer.message.text());
            return end(
                Status::Completed,
                answer.message.text(),
                last_usage,
                tally.total(),
                (tool_uses, stats),
                messages,
            );
        }
        let mut blocks = Vec::new();
        let mut batch = Vec::new();
        for call in &calls {
            tool_uses += 1;
            stats.count(call);
            if !silent {
                announce.progress(&agents::Progress {
                    task_id: &launch.id,
                    tool_use_id: &launch.tool_use_id,
                    agent_type: &launch.agent_type,
                    call,
                    tokens: tally.total(),
                    tool_uses,
                    started,
                });
            }
            let result = tools::run_tool(&offered, call, &mut ctx);
            // A nested agent's own counts join this one's.
            stats.add(&result.structured["toolStats"]);
            if !silent {
                announce.child_event(
                    out.user_tool_result(&result.block(), &result.structured, result.meta),
                    &launch.tool_use_id,
                    &launch.agent_type,
                    &launch.description,
                );
                // A stopped agent's interrupted call is followed by the interruption note.
                if result.interrupted {
                    announce.child_event(
                        out.synthetic_text(crate::vocab::INTERRUPTED_FOR_TOOL),
                        &launch.tool_use_id,
                        &launch.agent_type,
                        &launch.description,
                    );
                }
            }
            batch.push(crate::hooks::tool::batch_entry(
                call,
                &result.block()["content"],
            ));
            transcript.tool_result(&result.block(), None, None);
            blocks.push(result.block());
            // A Read's picture note, PDF or pages follow its result, as in the main loop.
            blocks.append(&mut ctx.after_result);
        }
        ctx.hooks
            .post_tool_batch(&ctx.hook_session(), ctx.permissions.mode.as_str(), batch);
        let mut reminders = Vec::new();
        if std::mem::take(&mut owes_agent_listing) {
            reminders.push(crate::context::builtins::agent_listing());
        }
        // SendMessage's mail reaches a running agent at its next tool round, as a reminder after
        // the round's last result, behind the agent listing (where 2.1.235 puts it).
        for mail in agents.registry.take_mail(&launch.id) {
            reminders.push(format!(
                "<system-reminder>\nThe agent that launched you sent a message while you were working:\n{mail}\n\nDeal with it before you finish your current task.\n</system-reminder>"
            ));
        }
        if crate::context::reminders::task_nudge_on(offered.iter().map(|t| t.name())) {
            let tasks = tools::task_reminder_lines(&ctx);
            reminders.extend(crate::context::reminders::task_nudge(&messages, &tasks));
        }
        reminders.push(budget.after_round(last_total));
        crate::context::reminders::append_to_round(&mut blocks, &reminders);
        tools::tool_search::note_loaded(&mut blocks);
        // 2.1.235 sends a child's round reminders but keeps none of them in its sidechain.
        messages.push(json!({"role": "user", "content": blocks}));
    }
}

/// The child's tools: the session's catalog less what this kind of agent goes without; the
/// Agent tool only while the nesting depth allows one more level.
fn tools_for(agents: &Agents, launch: &Launch) -> Vec<&'static dyn Tool> {
    let custom = crate::context::custom_agents::find(&launch.agent_type);
    // Child loops do not defer: no ToolSearch, every tool in tools[]. A user's agent type that
    // names its tools gets them, in its order, the search tools among them (recorded:
    // sdk.invocation/agents, Read and Grep).
    let mut offered = tools::builtin(crate::config::Offer {
        tool_search: false,
        search_tools: agents.config.offer.search_tools
            || custom.as_ref().is_some_and(|c| c.tools.is_some()),
        ..agents.config.offer
    });
    if let Some(names) = custom.and_then(|c| c.tools) {
        offered = names
            .iter()
            .filter_map(|name| offered.iter().find(|t| t.name() == name).copied())
            .collect();
    }
    if launch.agent_type == agents::WORKFLOW_AGENT_TYPE {
        offered.retain(|t| !WORKFLOW_WITHOUT.contains(&t.name()));
    } else if launch.background {
        offered.retain(|t| BACKGROUND_TOOLS.contains(&t.name()));
    } else {
        offered.retain(|t| !SYNC_WITHOUT.contains(&t.name()));
    }
    if agents::read_only(&launch.agent_type) {
        offered.retain(|t| !READ_ONLY_WITHOUT.contains(&t.name()));
    }
    if launch.agent_type == "statusline-setup" {
        offered.retain(|t| STATUSLINE_TOOLS.contains(&t.name()));
    }
    if !agents.may_spawn() {
        offered.retain(|t| t.name() != "Agent");
    }
    offered
}

/// `lead`: a user's agent type's own prompt, which the guidance follows (recorded:
/// sdk.invocation/agents, it opens the system prompt's block after the identity line).
fn request_body(
    config: &crate::config::Config,
    tools: &[&'static dyn Tool],
    messages: &[Value],
    (workflow, foreground): (bool, bool),
    lead: Option<&str>,
) -> Value {
    let guidance = if workflow {
        WORKFLOW_GUIDANCE
    } else {
        CHILD_GUIDANCE
    };
    let mut guidance = format!("{guidance}\nWorking directory: {}", config.cwd.display());
    if let Some(lead) = lead {
        guidance = format!("{lead}\n\n{guidance}");
    }
    let cache = wire::cache_control(Role::Subagent);
    let system = json!([
        {"type": "text", "text": CHILD_IDENTITY, "cache_control": cache},
        {"type": "text", "text": guidance, "cache_control": cache},
    ]);
    let tools = tools.iter().map(|t| tools::definition(*t)).collect();
    let mut body = crate::agent::request_frame(config, Role::Subagent, system, tools, messages);
    // A foreground agent's thinking is never shown under -p, nor a workflow agent's, so 2.1.235
    // asks for none of its text (recorded: core.parameter-coverage/workflow-args).
    if (foreground || workflow) && !wire::get().interactive {
        body["thinking"]["display"] = json!("omitted");
    }
    body
}

/// The task's output file: the child's conversation, one JSON message per line. A file that
/// cannot be written costs the record, never the run (TaskOutput then says it is empty).
/// 2.1.235's running count of an agent's tokens: the latest request's input (cache included) plus
/// the output of every assistant event so far, each carrying its message's starting usage.
#[derive(Default)]
struct Tally {
    latest_input: u64,
    output: u64,
}

impl Tally {
    fn add(&mut self, m: &crate::api::Message) {
        let start = &m.start_usage;
        let count = |key: &str| start[key].as_u64().unwrap_or(0);
        self.latest_input = count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens");
        self.output += count("output_tokens") * m.content.len() as u64;
    }

    fn total(&self) -> u64 {
        self.latest_input + self.output
    }
}

/// The agent's sidechain file in the session's folder, with its `.meta.json`, and the task's
/// output file a link to it: 2.1.235's TaskOutput shows a running agent's transcript. Without
/// persistence, and for a workflow's agent, the output file is the transcript itself.
fn sidechain(agents: &Agents, launch: &Launch) -> crate::transcript::Writer {
    let config = &agents.config;
    let who = crate::transcript::write::Identity {
        session_id: config.session_id.clone(),
        cwd: launch.cwd.display().to_string(),
        version: crate::CONTRACT_VERSION.into(),
        git_branch: crate::transcript::write::git_branch(&launch.cwd),
        entrypoint: "sdk-cli".into(),
    };
    let path = if launch.agent_type == agents::WORKFLOW_AGENT_TYPE {
        // A workflow's agent keeps its sidechain in the run's folder, beside the metadata the
        // run writes (`workflow::spawn`).
        launch.output_file.clone()
    } else if config.persist {
        let file = crate::environment::sidechain_file(
            &config.home,
            &config.cwd,
            &config.session_id,
            &launch.id,
        );
        let meta = json!({"agentType": launch.agent_type, "description": launch.description,
                          "toolUseId": launch.tool_use_id, "spawnDepth": agents.depth});
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(
                dir.join(format!("agent-{}.meta.json", launch.id)),
                meta.to_string(),
            );
        }
        if let Some(dir) = launch.output_file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if !launch.output_file.exists() {
            let _ = std::os::unix::fs::symlink(&file, &launch.output_file);
        }
        file
    } else {
        launch.output_file.clone()
    };
    crate::transcript::Writer::sidechain(
        Some(path),
        who,
        (&launch.id, &launch.agent_type),
        launch.prompt_id.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(blocks: usize, input: u64) -> crate::api::Message {
        crate::api::Message {
            start_usage: json!({"input_tokens": input, "cache_read_input_tokens": 2, "output_tokens": 1}),
            content: vec![json!({"type": "text", "text": "x"}); blocks],
            output_tokens: 50,
            ..Default::default()
        }
    }

    #[test]
    fn the_tally_keeps_the_latest_input_and_sums_each_events_starting_output() {
        let mut tally = Tally::default();
        tally.add(&answer(2, 10));
        tally.add(&answer(1, 30));
        // Latest input 30 + 2 cached, one output token per event of both answers; the final
        // output counts (50 each) never enter it.
        assert_eq!(tally.total(), 32 + 3);
    }
}
