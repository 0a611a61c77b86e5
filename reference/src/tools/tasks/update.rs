//! TaskUpdate in 2.1.235's two phases (seed 004 §TaskCreate、TaskGet、TaskList、TaskUpdate): the
//! changed main fields (subject, description, activeForm, owner, metadata, status) go to disk in
//! ONE write; only then is each new dependency edge written, end by end. It is not a
//! transaction: an edge that fails leaves the main patch (and any earlier edge) on disk, and
//! the call reports the failure. An edge to a task that does not exist is skipped. Any status may
//! follow any other; `deleted` removes the task (and the edges to it) instead of patching it.

use serde_json::{json, Map, Value};

use super::get::NOT_FOUND;
use super::store::{Registry, StoreError, Task};
use super::{coerce, failed, registry};
use crate::limits::{self, Limit};
use crate::tools::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct TaskUpdate;

const DELETE_FAILED: &str = "Failed to delete task";

impl Tool for TaskUpdate {
    fn name(&self) -> &'static str {
        "TaskUpdate"
    }

    fn description(&self) -> &'static str {
        "Changes one task of the task list: its subject, description, activeForm, owner, \
         metadata (merged; a null value removes a key) or status, and adds dependencies \
         (addBlocks: tasks that wait for this one; addBlockedBy: tasks this one waits for). \
         Status `deleted` removes the task. Mark a task in_progress when starting it and \
         completed only when it is fully done."
    }

    fn input_schema(&self) -> Value {
        let ids = json!({"type": "array", "items": {"type": "string"}});
        let mut add_blocks = ids.clone();
        add_blocks["description"] = json!("Tasks that cannot start until this one is done.");
        let mut add_blocked_by = ids;
        add_blocked_by["description"] = json!("Tasks that must be done before this one starts.");
        object_schema(
            json!({
                "taskId": {"description": "Which task.", "type": "string"},
                "subject": {"description": "A new title.", "type": "string"},
                "description": {"description": "A new description.", "type": "string"},
                "activeForm": {"description": "The subject as an ongoing action, shown while in progress.", "type": "string"},
                "status": {
                    "description": "The new status; deleted removes the task.",
                    "anyOf": [
                        {"type": "string", "enum": super::store::STATUSES},
                        {"type": "string", "const": "deleted"},
                    ],
                },
                "addBlocks": add_blocks,
                "addBlockedBy": add_blocked_by,
                "owner": {"description": "Who works on it.", "type": "string"},
                "metadata": {"description": "Keys to merge into the task's metadata; null removes one.", "type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
            }),
            &["taskId"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::TASKS_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn coerce_input(&self, input: &Value) -> Option<Value> {
        coerce::update(input)
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input["taskId"].as_str().unwrap_or_default();
        if let Some(feedback) = completion_refused(ctx, id, input).map_err(failed)? {
            return Ok(ToolOutput {
                content: feedback.clone(),
                structured: json!({"success": false, "taskId": id, "updatedFields": [], "error": feedback}),
                is_error: None,
                blocks: None,
            });
        }
        let outcome = apply(&registry(ctx), id, input).map_err(failed)?;
        Ok(ToolOutput {
            content: outcome.text(id),
            structured: outcome.structured(id),
            is_error: None,
            blocks: None,
        })
    }
}

/// The TaskCompleted hooks' refusal of an update that completes a task, before anything changes.
fn completion_refused(
    ctx: &ToolContext,
    id: &str,
    input: &Value,
) -> Result<Option<String>, StoreError> {
    if input["status"] != "completed" {
        return Ok(None);
    }
    let Some(task) = registry(ctx).get(id)? else {
        return Ok(None);
    };
    if task.status() == "completed" {
        return Ok(None);
    }
    let told = crate::hooks::task::Task {
        id,
        subject: task.text("subject").unwrap_or_default(),
        description: task.text("description").unwrap_or_default(),
    };
    Ok(ctx.hooks.task_completed(&ctx.hook_session(), &told))
}

/// What an update did.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    NotFound,
    Deleted {
        from: String,
    },
    /// The task was gone by the time it was to be removed.
    DeleteFailed,
    Updated {
        fields: Vec<&'static str>,
        status: Option<(String, String)>,
    },
}

impl Outcome {
    fn text(&self, id: &str) -> String {
        match self {
            Outcome::NotFound => NOT_FOUND.into(),
            Outcome::DeleteFailed => DELETE_FAILED.into(),
            Outcome::Deleted { .. } => format!("Updated task #{id} deleted"),
            // An update that changed nothing still names the task, with an empty list.
            Outcome::Updated { fields, .. } => format!("Updated task #{id} {}", fields.join(", ")),
        }
    }

    fn structured(&self, id: &str) -> Value {
        match self {
            Outcome::NotFound => {
                json!({"success": false, "taskId": id, "updatedFields": [], "error": NOT_FOUND})
            }
            Outcome::DeleteFailed => {
                json!({"success": false, "taskId": id, "updatedFields": [], "error": DELETE_FAILED})
            }
            Outcome::Deleted { from } => {
                json!({"success": true, "taskId": id, "updatedFields": ["deleted"],
                                               "statusChange": {"from": from, "to": "deleted"}})
            }
            Outcome::Updated { fields, status } => {
                let mut out = json!({"success": true, "taskId": id, "updatedFields": fields});
                if let Some((from, to)) = status {
                    out["statusChange"] = json!({"from": from, "to": to});
                }
                out
            }
        }
    }
}

/// Runs an update: the main patch in one write, then the edges one by one.
pub fn apply(registry: &Registry, id: &str, input: &Value) -> Result<Outcome, StoreError> {
    let Some(old) = registry.get(id)? else {
        return Ok(Outcome::NotFound);
    };
    let (patch, mut fields) = main_patch(&old, input);
    let status = input["status"].as_str();
    if status == Some("deleted") {
        // Deleting ignores the other fields of the call.
        return Ok(match registry.delete(id)? {
            true => Outcome::Deleted {
                from: old.status().to_owned(),
            },
            false => Outcome::DeleteFailed,
        });
    }
    let status_change = patch.get("status").map(|to| {
        (
            old.status().to_owned(),
            to.as_str().unwrap_or_default().to_owned(),
        )
    });
    if !patch.is_empty() {
        registry.update(id, patch)?;
    }
    let new_edges = |key: &str, existing: &[String]| -> Vec<String> {
        let wanted = input[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        wanted
            .filter(|w| !existing.iter().any(|e| e == w))
            .map(str::to_owned)
            .collect()
    };
    let blocks = new_edges("addBlocks", &old.ids("blocks"));
    for to in &blocks {
        registry.add_edge(id, to)?;
    }
    if !blocks.is_empty() {
        fields.push("blocks");
    }
    let blocked_by = new_edges("addBlockedBy", &old.ids("blockedBy"));
    for from in &blocked_by {
        registry.add_edge(from, id)?;
    }
    if !blocked_by.is_empty() {
        fields.push("blockedBy");
    }
    Ok(Outcome::Updated {
        fields,
        status: status_change,
    })
}

/// The main fields that differ from `old`, in 2.1.235's order; metadata counts whenever given.
fn main_patch(old: &Task, input: &Value) -> (Map<String, Value>, Vec<&'static str>) {
    let mut patch = Map::new();
    let mut fields = Vec::new();
    for field in ["subject", "description", "activeForm", "owner"] {
        if let Some(new) = input[field].as_str() {
            if old.text(field) != Some(new) {
                patch.insert(field.into(), json!(new));
                fields.push(field);
            }
        }
    }
    if let Some(changes) = input["metadata"].as_object() {
        let mut metadata = old.metadata().cloned().unwrap_or_default();
        for (key, value) in changes {
            if value.is_null() {
                metadata.shift_remove(key);
            } else {
                metadata.insert(key.clone(), value.clone());
            }
        }
        patch.insert("metadata".into(), Value::Object(metadata));
        fields.push("metadata");
    }
    if let Some(status) = input["status"].as_str() {
        if status != "deleted" && status != old.status() {
            patch.insert("status".into(), json!(status));
            fields.push("status");
        }
    }
    (patch, fields)
}
