//! TaskOutput: reads a background task's output (seed 004: running increments or the final
//! result; an empty or partial output is not a failure). Waits up to `timeout` when `block`.

use std::time::Duration;

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::agents::{Status, Task};
use crate::limits;

pub struct TaskOutput;

impl Tool for TaskOutput {
    fn name(&self) -> &'static str {
        "TaskOutput"
    }

    fn description(&self) -> &'static str {
        "Reads what a background task has produced so far, or its final output once it ended; \
         with block it waits up to timeout milliseconds for the end."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "task_id": {"description": "The task to read.", "type": "string"},
                "block": {"description": "Wait for the task to end.", "default": true, "type": "boolean"},
                "timeout": {"description": "Longest wait in ms.", "default": limits::TASK_OUTPUT_TIMEOUT_DEFAULT.get(),
                            "type": "number", "minimum": 0, "maximum": limits::TASK_OUTPUT_TIMEOUT_MAX.get()},
            }),
            &["task_id", "block", "timeout"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input["task_id"].as_str().unwrap_or_default();
        let registry = ctx
            .agents
            .as_ref()
            .map(|a| a.registry.clone())
            .ok_or_else(|| ToolError::wrapped(format!("No task found with ID: {id}")))?;
        let task = if input["block"].as_bool() != Some(false) {
            let ms = input["timeout"]
                .as_u64()
                .unwrap_or(limits::TASK_OUTPUT_TIMEOUT_DEFAULT.get())
                .min(limits::TASK_OUTPUT_TIMEOUT_MAX.get());
            registry.wait(id, Duration::from_millis(ms))
        } else {
            registry.get(id)
        }
        .ok_or_else(|| ToolError::wrapped(format!("No task found with ID: {id}")))?;
        // Reading an ended task does not withdraw its notification: 2.1.235 queues it when the
        // task ends, and a read after that leaves it queued.
        let retrieval = match (task.status, input["block"].as_bool() != Some(false)) {
            (Status::Running, true) => "timeout",
            (Status::Running, false) => "not_ready",
            _ => "success",
        };
        Ok(render(&task, retrieval))
    }
}

fn render(task: &Task, retrieval: &str) -> ToolOutput {
    // A running task shows its transcript so far; an ended one its result.
    let (output, raw) = match &task.result {
        Some(result) if task.status != Status::Running => (result.clone(), false),
        _ => (
            std::fs::read_to_string(&task.output_file).unwrap_or_default(),
            true,
        ),
    };
    let status = task.status.as_str();
    let content = format!(
        "<retrieval_status>{retrieval}</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>{}</task_type>\n\n<status>{status}</status>\n\n<output>\n{}\n</output>",
        task.id,
        task.kind,
        output.trim_end()
    );
    let mut record = json!({"task_id": task.id, "task_type": task.kind, "status": status,
        "description": task.description, "prompt": task.prompt, "result": output});
    if !raw {
        record["output"] = json!(output);
        record["isRawTranscript"] = json!(false);
    }
    ToolOutput {
        content,
        structured: json!({"retrieval_status": retrieval, "task": record}),
        is_error: None,
        blocks: None,
    }
}
