//! TaskCreate: a new pending task in the registry; the result is its id and subject.

use serde_json::{json, Value};

use super::store::NewTask;
use super::{coerce, failed, registry};
use crate::limits::{self, Limit};
use crate::tools::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct TaskCreate;

impl Tool for TaskCreate {
    fn name(&self) -> &'static str {
        "TaskCreate"
    }

    fn description(&self) -> &'static str {
        "Adds one task to the session's task list, to plan multi-step work and show progress. \
         Give a short imperative subject and a description of the work; activeForm (the subject \
         as an ongoing action) is optional. New tasks start pending; set status, owner and \
         dependencies with TaskUpdate."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "subject": {"description": "A short title.", "type": "string"},
                "description": {"description": "The work to do.", "type": "string"},
                "activeForm": {"description": "The subject as an ongoing action, shown while in progress.", "type": "string"},
                "metadata": {"description": "Any extra data to keep with the task.", "type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
            }),
            &["subject", "description"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::TASKS_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn coerce_input(&self, input: &Value) -> Option<Value> {
        coerce::create(input)
    }

    fn validation_steer(&self, input: &Value) -> Option<&'static str> {
        coerce::create_steer(input)
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let subject = input["subject"].as_str().unwrap_or_default().to_owned();
        let id = registry(ctx)
            .create(NewTask {
                subject: subject.clone(),
                description: input["description"].as_str().unwrap_or_default().to_owned(),
                active_form: input["activeForm"].as_str().map(str::to_owned),
                metadata: input.get("metadata").cloned(),
            })
            .map_err(failed)?;
        let told = crate::hooks::task::Task {
            id: &id,
            subject: &subject,
            description: input["description"].as_str().unwrap_or_default(),
        };
        if let Some(feedback) = ctx.hooks.task_created(&ctx.hook_session(), &told) {
            // A refused task does not stay (its id stays used).
            let _ = registry(ctx).delete(&id);
            return Err(ToolError::plain(feedback));
        }
        Ok(ToolOutput {
            content: format!("Task #{id} created successfully: {subject}"),
            structured: json!({"task": {"id": id, "subject": subject}}),
            is_error: None,
            blocks: None,
        })
    }
}
