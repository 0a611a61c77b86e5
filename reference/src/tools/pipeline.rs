//! The one path every tool_use takes: lookup → input schema validation → permission decision
//! (asking the user through the host when it must) → execution → result mapping with the tool's
//! own budget. Every outcome is a tool_result paired with its tool_use id.

use std::path::Path;

use serde_json::{json, Value};

use super::{persist, schema, Access, Failure, Tool, ToolContext, ToolError};
use crate::hooks::tool::Verdict;
use crate::permissions::{plan_mode_write_refusal, Decision, RefusalKind, PLAN_MODE_REFUSAL};
use crate::vocab::{Ask, Mode, Prompt, Reply};

pub struct ToolResult {
    pub tool_use_id: String,
    pub content: String,
    /// Content as blocks (a notebook Read), used instead of `content` when present.
    pub blocks: Option<Value>,
    /// `None` leaves the key out, as successful Read/Write/Edit results do.
    pub is_error: Option<bool>,
    /// The stream-json `tool_use_result`.
    pub structured: Value,
    /// Set when the call was refused for want of permission: a `permission_denials` entry.
    pub denied: Option<Denial>,
    /// `tool_result_meta`'s `non_execution_kind`: why the tool did not run.
    pub meta: Option<&'static str>,
    /// The user stopped the turn at this call.
    pub interrupted: bool,
    /// Reminders only the model reads after this result (the PostToolUse hooks'): in the next
    /// request, never in the stream-json event.
    pub notes: Vec<String>,
}

/// A decision's `decision_reason_type` and, when it has one, its explanation.
pub type Reason = (&'static str, Option<String>);

/// A refused call, as the session reports it.
pub struct Denial {
    /// A `permission_denied` event: its message and the decision's type and explanation.
    /// Refusals the user gave in answer to a question have none (only the denials entry).
    pub event: Option<(String, Option<Reason>)>,
}

impl ToolResult {
    fn error(id: &str, message: String, wrap: bool) -> Self {
        let content = if wrap {
            format!("<tool_use_error>{message}</tool_use_error>")
        } else {
            message.clone()
        };
        ToolResult {
            tool_use_id: id.into(),
            content,
            is_error: Some(true),
            structured: Value::String(format!("Error: {message}")),
            denied: None,
            blocks: None,
            meta: None,
            interrupted: false,
            notes: Vec::new(),
        }
    }

    /// A refusal: the message as the tool_result, a denial with or without its event.
    fn refused(
        id: &str,
        message: String,
        event: Option<Option<Reason>>,
        meta: &'static str,
    ) -> Self {
        let mut result = ToolResult::error(id, message.clone(), false);
        result.denied = Some(Denial {
            event: event.map(|reason| (message, reason)),
        });
        result.meta = Some(meta);
        result
    }

    /// A call the user stopped the turn at.
    pub fn rejected(id: &str) -> Self {
        ToolResult::from_error(id, ToolError::interrupted())
    }

    fn from_error(id: &str, error: ToolError) -> Self {
        let mut result = match error.kind {
            Failure::Error => ToolResult::error(id, error.message, error.wrap),
            Failure::Denied => ToolResult::refused(id, error.message, None, "permission-rule"),
            Failure::Interrupted => {
                let mut r = ToolResult::refused(id, error.message, None, "user-rejected");
                r.interrupted = true;
                r
            }
        };
        if let Some(structured) = error.structured {
            result.structured = Value::String(structured);
        }
        result
    }

    /// The block as the next request carries it: the result's notes after its text without its
    /// trailing whitespace, each a system reminder, as 2.1.235 appends them.
    pub fn model_block(&self) -> Value {
        let mut block = self.block();
        if let (false, Some(text)) = (self.notes.is_empty(), block["content"].as_str()) {
            let mut text = text.trim_end().to_owned();
            for note in &self.notes {
                text.push_str(&format!(
                    "\n\n<system-reminder>\n{note}\n</system-reminder>"
                ));
            }
            block["content"] = Value::String(text);
        }
        block
    }

    /// The block as it goes into the next request (key order as the real binary sends it).
    pub fn block(&self) -> Value {
        match self.is_error {
            Some(true) => {
                json!({"type": "tool_result", "content": self.content, "is_error": true, "tool_use_id": self.tool_use_id})
            }
            Some(false) => {
                let content = self.blocks.clone().unwrap_or_else(|| json!(self.content));
                json!({"tool_use_id": self.tool_use_id, "type": "tool_result", "content": content, "is_error": false})
            }
            None => {
                let content = self.blocks.clone().unwrap_or_else(|| json!(self.content));
                json!({"tool_use_id": self.tool_use_id, "type": "tool_result", "content": content})
            }
        }
    }
}

/// Tools that exist but are not always offered (the text recorded for each).
const DISABLED_WHEN_ABSENT: &[&str] = &[
    "Agent",
    "LSP",
    "TodoWrite",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "Projects",
    // Recorded: design.transport-limits/non-first-party.
    "ClaudeDesign",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Workflow",
];

/// A tool plan mode takes out of tools[] (seed 004: plan mode changes the tool surface), by
/// name: a call to it is still refused with its parsed input.
pub fn plan_withdrawn(name: &str) -> Option<&'static dyn Tool> {
    match name {
        "Edit" => Some(&super::edit::Edit),
        "Write" => Some(&super::write::Write),
        "NotebookEdit" => Some(&super::notebook::NotebookEdit),
        _ => None,
    }
}

/// The text when the host's changed input does not fit the tool's schema.
fn bad_updated_input(tool: &str, issues: &[schema::Issue]) -> ToolError {
    let detail = schema::message(tool, issues);
    let detail = detail
        .strip_prefix("InputValidationError: ")
        .unwrap_or(&detail);
    ToolError {
        structured: Some(format!(
            "InputValidationError: permission handler updatedInput failed schema for {tool}"
        )),
        ..ToolError::wrapped(format!(
            "The permission handler returned updatedInput for {tool} that failed schema validation: {detail}\n\
             This is a configuration issue in your canUseTool callback, PermissionRequest hook, or permission-prompt tool — updatedInput must satisfy the tool's input schema. The tool input from the model was valid."
        ))
    }
}

/// The input of a call as its tool parses it (coerced, schema order, defaults filled in): what a
/// `permission_denials` entry names, as in 2.1.235 (recorded: design.consent/print,
/// tools.ask-user/cancel). The input as sent when no offered tool has that name.
pub fn parsed_input(tools: &[&dyn Tool], tool_use: &Value) -> Value {
    let name = tool_use["name"].as_str().unwrap_or_default();
    let sent = &tool_use["input"];
    match tools
        .iter()
        .copied()
        .find(|t| t.name() == name || t.aliases().contains(&name))
        .or_else(|| plan_withdrawn(name))
    {
        Some(tool) => {
            let input = tool.coerce_input(sent).unwrap_or_else(|| sent.clone());
            schema::normalize(&tool.validation_schema(), &input)
        }
        None => sent.clone(),
    }
}

pub fn run_tool(tools: &[&dyn Tool], tool_use: &Value, ctx: &mut ToolContext) -> ToolResult {
    let id = tool_use["id"].as_str().unwrap_or_default();
    let name = tool_use["name"].as_str().unwrap_or_default();
    let mut input = tool_use["input"].clone();
    let Some(tool) = tools
        .iter()
        .find(|t| t.name() == name || t.aliases().contains(&name))
    else {
        // Withdrawn by plan mode, not unknown: the model is told why.
        if ctx.permissions.mode == Mode::Plan && plan_withdrawn(name).is_some() {
            let path = input["file_path"]
                .as_str()
                .or_else(|| input["notebook_path"].as_str());
            return ToolResult::refused(
                id,
                path.map_or_else(
                    || PLAN_MODE_REFUSAL.into(),
                    |p| plan_mode_write_refusal(&ctx.cwd.join(p)),
                ),
                Some(Some(("mode", None))),
                "permission-rule",
            );
        }
        // Tools this agent has but did not offer this turn say so, as 2.1.235's do.
        let message = if DISABLED_WHEN_ABSENT.contains(&name) {
            format!("Error: No such tool available: {name}. {name} is disabled for this session, in subagents as well as here.")
        } else {
            format!("Error: No such tool available: {name}")
        };
        let mut result = ToolResult::error(id, message.clone(), true);
        // The message already starts with "Error: "; the tool_use_result is it, once.
        result.structured = Value::String(message);
        return result;
    };
    let sent = input;
    input = tool.coerce_input(&sent).unwrap_or_else(|| sent.clone());
    let mut issues = schema::issues(&tool.validation_schema(), &input);
    if issues.is_empty() {
        issues = tool.refine(&input);
    }
    if !issues.is_empty() {
        let mut message = schema::message(name, &issues);
        if let Some(steer) = tool.validation_steer(&sent) {
            message = format!("{message}\n\n{steer}");
        }
        if let Some(note) = ctx.tool_search.unloaded_note(*tool) {
            message = format!("{message}\n\n{note}");
        }
        let mut result = ToolResult::error(id, message, true);
        result.structured = Value::String(schema::structured(&issues));
        return result;
    }
    // From here on the input is what the schema makes of it (key order, defaults), as the user
    // is shown it and the tool runs it.
    input = schema::normalize(&tool.validation_schema(), &input);
    if let Some(message) = tool.validate_input(&input, ctx) {
        return ToolResult::error(id, message, true);
    }
    // PreToolUse runs on the checked input, before the permission decision (seed 004 line 19).
    // A hook may rewrite the input; the decision then judges what will run.
    let pre = ctx.pre_tool_use(name, &input, id);
    if let Some(changed) = pre.input {
        input = changed;
    }
    let decision = match pre.verdict {
        Verdict::Block(message) => {
            return ToolResult::refused(id, message, None, "permission-rule")
        }
        // A hook's `allow` answers the mode's question; a deny or ask rule still speaks, a deny
        // without a `permission_denied` event (as 2.1.235 refuses it then).
        Verdict::Allow => match ctx
            .permissions
            .hook_allowed(name, &tool.access(&input, ctx))
        {
            Decision::Refuse(refusal) => {
                return ToolResult::refused(id, refusal.message, None, "permission-rule")
            }
            other => other,
        },
        // A hook's `ask` puts the question whatever the mode, its reason the refusal when nobody
        // can answer.
        Verdict::Ask(reason) => Decision::Ask(Prompt {
            unanswered: reason.clone(),
            reason: Some(reason),
            reason_type: Some("hook"),
            ..Prompt::default()
        }),
        Verdict::Undecided => match tool.access(&input, ctx) {
            Access::Checked => match ctx.permissions.rule_gate(name) {
                Some(decision) => decision,
                None => {
                    ctx.tool_use_id = id.to_owned();
                    let check = tool.check_permissions(&input, ctx);
                    ctx.permissions.from_check(name, check)
                }
            },
            access => ctx.permissions.decide(name, &access),
        },
    };
    match decision {
        Decision::Allow => {}
        Decision::Refuse(refusal) => {
            return match refusal.kind {
                RefusalKind::ToolError => ToolResult::error(id, refusal.message, true),
                RefusalKind::Denied(kind) => ToolResult::refused(
                    id,
                    refusal.message,
                    Some(Some((kind, refusal.reason))),
                    "permission-rule",
                ),
                RefusalKind::Unanswered => {
                    ToolResult::refused(id, refusal.message, Some(None), "user-rejected")
                }
            }
        }
        Decision::Ask(prompt) => match ask(*tool, &input, id, &prompt, ctx) {
            Ok(Some(changed)) => input = changed,
            Ok(None) => {}
            Err(result) => return *result,
        },
    }
    ctx.tool_use_id = id.to_owned();
    let started = std::time::Instant::now();
    let cwd_before = ctx.shell_cwd.clone();
    let mut result = match tool.call(&input, ctx) {
        Err(error) => ToolResult::from_error(id, error),
        Ok(output) => {
            let mut content = output.content;
            let mut blocks = output.blocks;
            let mut structured = output.structured;
            if let (Some(budget), Some(list)) = (tool.result_budget(), &blocks) {
                // Blocks are measured by their text; an image is bounded by its own cap.
                let chars: usize = list
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|b| b["text"].as_str())
                            .map(|t| t.chars().count())
                            .sum()
                    })
                    .unwrap_or(0);
                if chars > budget.usize() {
                    content =
                        persist::persist_blocks(&ctx.home, &ctx.cwd, &ctx.session_id, id, list)
                            .unwrap_or_else(|e| {
                                format!("tool output over budget and could not be saved: {e}")
                            });
                    blocks = None;
                }
            } else if let Some(budget) = tool.result_budget() {
                if content.chars().count() > budget.usize() {
                    // Bash names its saved output at random; other tools by their tool_use id.
                    let bash = tool.name() == "Bash";
                    let name = (!bash).then_some(id);
                    let saved =
                        persist::persist(&ctx.home, &ctx.cwd, &ctx.session_id, name, &content);
                    content = match saved {
                        Ok((text, path)) => {
                            if bash {
                                super::bash::note_persisted(&mut structured, &path, budget.usize());
                            }
                            text
                        }
                        Err(e) => format!("tool output over budget and could not be saved: {e}"),
                    };
                }
            }
            ToolResult {
                tool_use_id: id.into(),
                content,
                is_error: output.is_error,
                structured,
                denied: None,
                blocks,
                meta: None,
                interrupted: false,
                notes: Vec::new(),
            }
        }
    };
    // The call ran: PostToolUse after a success, PostToolUseFailure after an error (a refusal
    // from inside the tool is neither).
    let took = started.elapsed();
    result.notes = match (result.is_error, &result.denied) {
        (Some(true), None) => {
            let error = result.content.trim_start_matches("<tool_use_error>");
            let error = error.trim_end_matches("</tool_use_error>");
            ctx.post_tool_use_failure(name, &input, id, error, result.interrupted, took)
        }
        (Some(true), Some(_)) => Vec::new(),
        _ => ctx.post_tool_use(name, &input, id, &result.structured, took),
    };
    // Only a command moving the shell counts: 2.1.235 fires none for EnterWorktree.
    if name == "Bash" && ctx.shell_cwd != cwd_before {
        ctx.hooks
            .cwd_changed(&ctx.hook_session(), &cwd_before, &ctx.shell_cwd);
    }
    result
}

/// Asks the user about a call the decision could not settle. `Ok(Some(input))` when the user
/// allowed it with a changed input, `Ok(None)` when allowed as it is, `Err` with the result when
/// not allowed (nobody to ask under `-p`, a refusal, a stop, an unusable answer).
fn ask(
    tool: &dyn Tool,
    input: &Value,
    id: &str,
    prompt: &Prompt,
    ctx: &mut ToolContext,
) -> Result<Option<Value>, Box<ToolResult>> {
    let Some(host) = ctx.host.clone() else {
        // Nobody to ask: the question's own reason (a safety check's) goes with the denial.
        return Err(Box::new(ToolResult::refused(
            id,
            prompt.unanswered.clone(),
            Some(prompt.reason_type.map(|kind| (kind, prompt.reason.clone()))),
            "user-rejected",
        )));
    };
    let name = tool.name();
    let ask = Ask {
        tool: name,
        input,
        tool_use_id: id,
        description: prompt
            .description
            .clone()
            .or_else(|| describe(name, input, &ctx.cwd, &ctx.home)),
        about: tool.description(),
        prompt,
        interactive: false,
    };
    let reply = if ctx.hooks.has_permission_request() {
        let suggestions = json!(prompt.suggestions.clone().unwrap_or_default());
        let (hooks, session) = (ctx.hooks.clone(), ctx.hook_session());
        let call = crate::hooks::tool::Call {
            tool: name,
            input,
            id,
            mode: ctx.permissions.mode.as_str(),
        };
        host.ask_racing(&ask, &|| {
            hooks.permission_request(&session, &call, &suggestions)
        })
    } else {
        host.ask(&ask)
    };
    match reply {
        Reply::Allow {
            input: changed,
            keep,
        } => {
            for update in &keep {
                // A rule that cannot be written still allows this call; say so, lose nothing.
                match ctx.permissions.keep(update) {
                    Ok(Some(mode)) => ctx.set_mode(mode),
                    Ok(None) => {}
                    Err(e) => eprintln!("could not keep the permission update {update}: {e}"),
                }
            }
            match changed {
                Some(changed) => {
                    // Fields the schema does not name are let through, as 2.1.235's check of a
                    // host's input lets them (the role picker's answer is one: `{role}` for a
                    // tool that takes `{}`), and reach the call as sent.
                    let mut issues = schema::issues(&tool.validation_schema(), &changed);
                    issues.retain(|i| i.zod["code"] != "unrecognized_keys");
                    if issues.is_empty() {
                        Ok(Some(changed))
                    } else {
                        Err(Box::new(ToolResult::from_error(
                            id,
                            bad_updated_input(name, &issues),
                        )))
                    }
                }
                None => Ok(None),
            }
        }
        Reply::Deny { message } | Reply::Failed(message) => Err(Box::new(ToolResult::refused(
            id,
            message,
            None,
            "permission-rule",
        ))),
        Reply::Interrupt => Err(Box::new(ToolResult::from_error(
            id,
            ToolError::interrupted(),
        ))),
    }
}

/// What a question names the call by: Bash's description, WebFetch's URL, a file's path from
/// the working directory, else from home as `~/…`, else as given.
fn describe(tool: &str, input: &Value, cwd: &Path, home: &Path) -> Option<String> {
    match tool {
        // Without a description, the command itself (recorded: sandbox.escape/modes).
        "Bash" => input["description"]
            .as_str()
            .or_else(|| input["command"].as_str())
            .map(str::to_owned),
        "WebFetch" => input["url"].as_str().map(str::to_owned),
        _ => {
            let path = input["file_path"]
                .as_str()
                .or_else(|| input["notebook_path"].as_str())?;
            let path = Path::new(path);
            let shown = match (path.strip_prefix(cwd), path.strip_prefix(home)) {
                (Ok(inside), _) => inside.display().to_string(),
                (_, Ok(at_home)) => format!("~/{}", at_home.display()),
                _ => path.display().to_string(),
            };
            Some(shown)
        }
    }
}
