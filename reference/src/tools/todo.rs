//! TodoWrite: the session's todo list, replaced whole by each call; the result carries the list
//! before and after. A list that is all completed is cleared once stored, so the next call starts
//! from an empty one (as 2.1.235 does).

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct TodoWrite;

const MODIFIED: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

impl Tool for TodoWrite {
    fn name(&self) -> &'static str {
        "TodoWrite"
    }

    fn description(&self) -> &'static str {
        "Replaces the session's todo list with the given one, to plan multi-step work and show \
         progress. Each item has content, a status (pending, in_progress, completed) and an \
         activeForm (the content in present-continuous form). Keep one item in progress."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "todos": {
                    "description": "The whole updated list.",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "minLength": 1},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            "activeForm": {"type": "string", "minLength": 1},
                        },
                        "required": ["content", "status", "activeForm"],
                        "additionalProperties": false,
                    },
                },
            }),
            &["todos"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        // Only the three known keys are kept, in this order; others are dropped silently.
        let new: Vec<Value> = input["todos"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| json!({"content": t["content"], "status": t["status"], "activeForm": t["activeForm"]}))
            .collect();
        let old = std::mem::take(&mut ctx.todos);
        let all_done = !new.is_empty() && new.iter().all(|t| t["status"] == "completed");
        ctx.todos = if all_done { Vec::new() } else { new.clone() };
        Ok(ToolOutput {
            content: MODIFIED.into(),
            structured: json!({"oldTodos": old, "newTodos": new}),
            is_error: None,
            blocks: None,
        })
    }
}
