//! SendMessage: a message into another agent's mailbox (seed 004: it proves the message entered
//! the channel, never that the recipient acted on it). A running agent gets it at its next tool
//! round; a finished one is resumed with it in the background; an unknown recipient is a paired
//! error, and nothing is written into this conversation as if it had been delivered.

use serde_json::{json, Value};

use super::agent::in_background;
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::agents::{self, Status};

pub struct SendMessage;

impl Tool for SendMessage {
    fn name(&self) -> &'static str {
        "SendMessage"
    }

    fn description(&self) -> &'static str {
        "Sends a message to another agent of this session by its agent id: a running agent reads \
         it at its next step, a finished one resumes with it. Delivery is not an answer."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "to": {"description": "The agent id.", "type": "string",
                       "allOf": [{"pattern": "^[^\\n\\r]*$"}, {"pattern": "^[\\s\\S]{0,300}$"}]},
                "summary": {"description": "A few words on what the message is about.", "type": "string",
                            "maxLength": crate::limits::SEND_MESSAGE_SUMMARY_MAX.get()},
                "message": {"description": "What to tell the agent.", "type": "string"},
            }),
            &["to", "message"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let to = input["to"].as_str().unwrap_or_default();
        let message = input["message"].as_str().unwrap_or_default();
        let unreachable = || {
            ToolError::plain(format!(
                "No agent named '{to}' is reachable. Only agents of this session can be addressed, by the agent id their launch returned."
            ))
        };
        let agents = ctx.agents.clone().ok_or_else(unreachable)?;
        let task = agents.registry.get(to).ok_or_else(unreachable)?;
        let pin = json!({"id": task.id, "name": task.id, "ref": &agents::new_id()[1..7]});
        if task.status == Status::Running {
            agents.registry.post(to, message);
            return Ok(answer(json!({
                "success": true,
                "message": format!("Message queued for delivery to {to} at its next tool round."),
                "pin": pin,
            })));
        }
        let Some(mut launch) = task.launch.clone() else {
            return Err(unreachable());
        };
        let history = task.history.clone();
        let task = agents
            .registry
            .resume(to, message, &ctx.tool_use_id)
            .ok_or_else(unreachable)?;
        launch.prompt = message.to_owned();
        launch.tool_use_id = ctx.tool_use_id.clone();
        launch.background = true;
        agents.announce.running(&agents.registry.running());
        agents.announce.started(&task, &launch.agent_type);
        in_background(agents.deeper(), launch, history, task.cancel);
        Ok(answer(json!({
            "success": true,
            "message": format!("Resuming agent {}", &to[..to.len().min(7)]),
            "resumedAgentId": to,
            "pin": pin,
        })))
    }
}

/// The JSON answer as the one text block 2.1.235 sends it in.
fn answer(result: Value) -> ToolOutput {
    let text = result.to_string();
    ToolOutput {
        content: text.clone(),
        structured: result,
        is_error: None,
        blocks: None,
    }
    .as_blocks(json!([{"type": "text", "text": text}]))
}
