//! TaskGet: one task by id, or "not found" (a plain result, not an error: the seed's null).

use serde_json::{json, Value};

use super::{failed, registry};
use crate::limits::{self, Limit};
use crate::tools::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct TaskGet;

pub const NOT_FOUND: &str = "Task not found";

impl Tool for TaskGet {
    fn name(&self) -> &'static str {
        "TaskGet"
    }

    fn description(&self) -> &'static str {
        "Reads one task of the task list by its id: subject, description, status, the tasks it \
         blocks and the tasks blocking it. Read a task before starting or changing it."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({"taskId": {"description": "Which task.", "type": "string"}}),
            &["taskId"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::TASKS_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input["taskId"].as_str().unwrap_or_default();
        let Some(task) = registry(ctx).get(id).map_err(failed)? else {
            return Ok(ToolOutput {
                content: NOT_FOUND.into(),
                structured: json!({"task": null}),
                is_error: None,
                blocks: None,
            });
        };
        let (blocks, blocked_by) = (task.ids("blocks"), task.ids("blockedBy"));
        let mut lines = vec![
            format!(
                "Task #{}: {}",
                task.id(),
                task.text("subject").unwrap_or_default()
            ),
            format!("Status: {}", task.status()),
            format!(
                "Description: {}",
                task.text("description").unwrap_or_default()
            ),
        ];
        if !blocked_by.is_empty() {
            lines.push(format!("Blocked by: {}", hashed(&blocked_by)));
        }
        if !blocks.is_empty() {
            lines.push(format!("Blocks: {}", hashed(&blocks)));
        }
        let fields = task.fields();
        Ok(ToolOutput {
            content: lines.join("\n"),
            structured: json!({"task": {
                "id": fields["id"], "subject": fields["subject"], "description": fields["description"],
                "status": fields["status"], "blocks": blocks, "blockedBy": blocked_by,
            }}),
            is_error: None,
            blocks: None,
        })
    }
}

/// `#1, #2`.
pub fn hashed(ids: &[String]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}
