//! TaskStop: ends a running background task. Its loop stops at the next step and a running
//! command of it is killed with its process group, so nothing it started outlives it.

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::agents::registry::StopError;

pub struct TaskStop;

impl Tool for TaskStop {
    fn name(&self) -> &'static str {
        "TaskStop"
    }

    fn description(&self) -> &'static str {
        "Stops a running background task (an agent or a workflow run) by its id."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "task_id": {"description": "The task to stop.", "type": "string"},
                "shell_id": {"description": "Older name of task_id.", "type": "string"},
            }),
            &[],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input["task_id"]
            .as_str()
            .or_else(|| input["shell_id"].as_str())
            .ok_or_else(|| ToolError::wrapped("Missing required parameter: task_id"))?;
        let unknown = || ToolError::wrapped(format!("No task found with ID: {id}"));
        let agents = ctx.agents.as_ref().ok_or_else(unknown)?;
        let task = agents.registry.stop(id).map_err(|e| match e {
            StopError::Unknown => unknown(),
            StopError::NotRunning(status) => ToolError::wrapped(format!(
                "Task {id} is not running (status: {})",
                status.as_str()
            )),
        })?;
        // A shell is named by its command, and its end is announced before this result.
        let shown = if task.kind == super::shell_task::KIND {
            super::shell_task::await_end(agents, id);
            &task.prompt
        } else {
            &task.description
        };
        let result = json!({
            "message": format!("Successfully stopped task: {} ({shown})", task.id),
            "task_id": task.id, "task_type": task.kind, "command": shown,
        });
        Ok(ToolOutput {
            content: result.to_string(),
            structured: result,
            is_error: None,
            blocks: None,
        })
    }
}
