//! TaskList: every task's id, status, owner and open blockers (a blocker already completed is
//! left out); tasks marked `metadata._internal` are not listed.

use serde_json::{json, Value};

use super::get::hashed;
use super::{failed, registry};
use crate::limits::{self, Limit};
use crate::tools::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct TaskList;

impl Tool for TaskList {
    fn name(&self) -> &'static str {
        "TaskList"
    }

    fn description(&self) -> &'static str {
        "Lists the task list: each task's id, subject, status, owner and the unfinished tasks \
         blocking it. Use it to pick the next task (lowest id first) and to check progress."
    }

    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::TASKS_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, _input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let tasks: Vec<_> = registry(ctx)
            .list()
            .map_err(failed)?
            .into_iter()
            .filter(|t| {
                !t.metadata()
                    .and_then(|m| m.get("_internal"))
                    .is_some_and(truthy)
            })
            .collect();
        let completed: Vec<&str> = tasks
            .iter()
            .filter(|t| t.status() == "completed")
            .map(|t| t.id())
            .collect();
        let mut lines = Vec::new();
        let mut items = Vec::new();
        for task in &tasks {
            let open: Vec<String> = task
                .ids("blockedBy")
                .into_iter()
                .filter(|b| !completed.contains(&b.as_str()))
                .collect();
            let subject = task.text("subject").unwrap_or_default();
            let owner = task.text("owner").filter(|o| !o.is_empty());
            let mut line = format!("#{} [{}] {subject}", task.id(), task.status());
            if let Some(owner) = owner {
                line += &format!(" ({owner})");
            }
            if !open.is_empty() {
                line += &format!(" [blocked by {}]", hashed(&open));
            }
            lines.push(line);
            let mut item = json!({"id": task.id(), "subject": subject, "status": task.status()});
            if let Some(owner) = task.text("owner") {
                item["owner"] = json!(owner);
            }
            item["blockedBy"] = json!(open);
            items.push(item);
        }
        Ok(ToolOutput {
            content: if lines.is_empty() {
                "No tasks found".into()
            } else {
                lines.join("\n")
            },
            structured: json!({"tasks": items}),
            is_error: None,
            blocks: None,
        })
    }
}

/// JavaScript's truthiness, which 2.1.235 applies to `_internal`.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}
