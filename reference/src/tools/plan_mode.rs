//! EnterPlanMode and ExitPlanMode (seed 004: a mode with an approval flow, not a text
//! convention). Entering changes the tool surface (the file-changing tools leave tools[]) and
//! the permission decision refuses changes; only the user's approval of ExitPlanMode ends it,
//! back to the mode it was entered from. A refusal keeps plan mode.

use serde_json::{json, Value};

use super::{Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::vocab::{Mode, Reply};

pub struct EnterPlanMode;
pub struct ExitPlanMode;

/// The first sentence of EnterPlanMode's result, also its `tool_use_result` message.
const ENTERED: &str =
    "Entered plan mode. Explore and design; change nothing until the user approves your plan.";
/// What follows it, in our own words (2.1.235's is longer; the trace names that difference).
const PLANNING: &str =
    "Read, search and ask as you need; the file-changing tools are withdrawn and \
commands that change anything are refused. When the plan is ready, call ExitPlanMode: the user \
approves it or tells you what to change.";
const NOT_IN_PLAN_MODE: &str = "You are not in plan mode. To enter plan mode, call the EnterPlanMode tool first. If your plan was already approved, continue with implementation.";
const APPROVED: &str = "User has approved exiting plan mode. You can now proceed.";

impl Tool for EnterPlanMode {
    fn name(&self) -> &'static str {
        "EnterPlanMode"
    }

    fn description(&self) -> &'static str {
        "Switches the session into plan mode before a non-trivial change: explore and read, then \
         present a plan with ExitPlanMode for the user to approve. Nothing may be changed in plan \
         mode; the file-changing tools are withdrawn until the plan is approved."
    }

    fn input_schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false,
        })
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, _input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        if ctx.permissions.mode != Mode::Plan {
            ctx.permissions.before_plan = Some(ctx.permissions.mode);
            ctx.set_mode(Mode::Plan);
        }
        Ok(ToolOutput {
            content: format!("{ENTERED}\n\n{PLANNING}"),
            structured: json!({"message": ENTERED}),
            is_error: None,
            blocks: None,
        })
    }
}

impl Tool for ExitPlanMode {
    fn name(&self) -> &'static str {
        "ExitPlanMode"
    }

    fn description(&self) -> &'static str {
        "Presents the finished plan to the user for approval and, once approved, leaves plan \
         mode. Use it only in plan mode. Approval is the user's: until it comes, nothing may be \
         changed."
    }

    fn input_schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "allowedPrompts": {
                    "description": "Deprecated and ignored.",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "tool": {"description": "The tool the prompt is for.", "type": "string", "enum": ["Bash"]},
                            "prompt": {"description": "What the action does, in a few words.", "type": "string"},
                        },
                        "required": ["tool", "prompt"],
                        "additionalProperties": false,
                    },
                },
            },
            "additionalProperties": {},
        })
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        if ctx.permissions.mode != Mode::Plan {
            return Err(ToolError::wrapped(NOT_IN_PLAN_MODE));
        }
        match ctx.ask_user(
            self.name(),
            input,
            "No one can approve a plan in this session.",
        )? {
            Reply::Allow { .. } => {
                let back = ctx.permissions.before_plan.take().unwrap_or(Mode::Default);
                ctx.set_mode(back);
                Ok(ToolOutput {
                    content: APPROVED.into(),
                    structured: json!({"plan": input.get("plan").cloned().unwrap_or(Value::Null), "isAgent": false}),
                    is_error: None,
                    blocks: None,
                })
            }
            // Refused: plan mode stays.
            Reply::Deny { message } | Reply::Failed(message) => Err(ToolError::denied(message)),
            Reply::Interrupt => Err(ToolError::interrupted()),
        }
    }
}
