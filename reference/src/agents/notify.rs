//! How tasks are announced: the `system` events 2.1.235 prints around a task (started, the
//! running set changed, updated, notification), a child loop's own events marked with the
//! launching tool_use, and the notification the model gets when a background task ends.

use std::sync::Arc;

use serde_json::{json, Value};

use super::registry::Task;
use crate::events::Output;
use crate::vocab::uuid;

/// The session's event sink, shared by every loop.
#[derive(Clone)]
pub struct Announcer {
    pub out: Arc<Output>,
}

impl Announcer {
    fn system(&self, subtype: &str, fields: Value) {
        self.out.event(&self.system_event(subtype, fields));
    }

    fn system_event(&self, subtype: &str, mut fields: Value) -> Value {
        let map = fields.as_object_mut().expect("fields are an object");
        let mut event = serde_json::Map::new();
        event.insert("type".into(), json!("system"));
        event.insert("subtype".into(), json!(subtype));
        event.append(map);
        event.insert("uuid".into(), json!(uuid()));
        event.insert("session_id".into(), json!(self.out.session_id));
        Value::Object(event)
    }

    /// A background task's events after it started, printed after its launching call's result.
    fn system_after_launch(&self, task: &Task, subtype: &str, fields: Value) {
        let event = self.system_event(subtype, fields);
        if task.background {
            self.out.event_after_result(&task.tool_use_id, &event);
        } else {
            self.out.event(&event);
        }
    }

    pub fn started(&self, task: &Task, agent_type: &str) {
        self.system(
            "task_started",
            json!({"task_id": task.id, "tool_use_id": task.tool_use_id, "description": task.description,
                   "subagent_type": agent_type, "task_type": task.kind, "prompt": task.prompt}),
        );
    }

    /// A background shell's start: no agent type and no prompt.
    pub fn shell_started(&self, task: &Task) {
        self.system(
            "task_started",
            json!({"task_id": task.id, "tool_use_id": task.tool_use_id, "description": task.description,
                   "task_type": task.kind}),
        );
    }

    /// A workflow run's start: its script's name where an agent has its type.
    pub fn workflow_started(&self, task: &Task, workflow_name: &str) {
        self.system(
            "task_started",
            json!({"task_id": task.id, "tool_use_id": task.tool_use_id, "description": task.description,
                   "task_type": task.kind, "workflow_name": workflow_name, "prompt": task.prompt}),
        );
    }

    /// The set of background tasks still running.
    pub fn running(&self, tasks: &[Task]) {
        self.system("background_tasks_changed", running_fields(tasks));
    }

    /// The set of background tasks still running, told because `ended` ended.
    pub fn running_after(&self, ended: &Task, tasks: &[Task]) {
        self.system_after_launch(ended, "background_tasks_changed", running_fields(tasks));
    }

    /// The registry transition and the notification event of a task that ended.
    pub fn ended(&self, task: &Task) {
        let end_time = crate::vocab::now_ms();
        let mut patch = json!({"status": task.status.as_str(), "end_time": end_time});
        if let Some(error) = task.report.as_ref().and_then(|r| r.error.as_ref()) {
            patch["error"] = json!(error);
        }
        self.system_after_launch(
            task,
            "task_updated",
            json!({"task_id": task.id, "patch": patch}),
        );
        let mut fields = json!({"task_id": task.id, "tool_use_id": task.tool_use_id,
            "status": task.status.notified_as(), "output_file": task.output_file,
            "summary": summary(task)});
        if task.status != super::Status::Killed {
            fields["usage"] = usage(task.tokens, task.tool_uses, task.duration_ms);
        }
        self.system_after_launch(task, "task_notification", fields);
    }

    /// A child loop is about to run a tool: what it is doing, its tokens and calls so far.
    pub fn progress(&self, step: &Progress) {
        self.system(
            "task_progress",
            json!({"task_id": step.task_id, "tool_use_id": step.tool_use_id,
                   "description": activity(step.call), "subagent_type": step.agent_type,
                   "usage": usage(step.tokens, step.tool_uses, elapsed_ms(step.started)),
                   "last_tool_name": step.call["name"]}),
        );
    }

    /// A workflow run's progress: an agent() call started or ended. `entries` is every call the
    /// run has made so far (`workflow_progress`); `label` the one that moved.
    pub fn workflow_progress(&self, step: &WorkflowStep, entries: Vec<Value>) {
        // Never ahead of the Workflow call's own result, whichever thread gets there first.
        let event = self.system_event(
            "task_progress",
            json!({"task_id": step.task_id, "tool_use_id": step.tool_use_id,
                   "description": step.label,
                   "usage": usage(step.tokens, step.tool_uses, elapsed_ms(step.started)),
                   "last_tool_name": step.label, "summary": step.summary,
                   "workflow_progress": entries}),
        );
        self.out.event_after_result(step.tool_use_id, &event);
    }

    /// An event of a child loop: the parent's fields plus which tool_use launched it.
    pub fn child_event(
        &self,
        mut event: Value,
        parent_tool_use_id: &str,
        agent_type: &str,
        description: &str,
    ) {
        event["parent_tool_use_id"] = json!(parent_tool_use_id);
        event["subagent_type"] = json!(agent_type);
        event["task_description"] = json!(description);
        // 2.1.235 passes a child's tool result on without the structured result (an error's
        // text stays) and without why a call did not run.
        if let Some(map) = event.as_object_mut() {
            map.shift_remove("tool_result_meta");
            if map.get("tool_use_result").is_some_and(|r| !r.is_string()) {
                map.shift_remove("tool_use_result");
            }
        }
        self.out.event(&event);
    }
}

fn running_fields(tasks: &[Task]) -> Value {
    let tasks: Vec<Value> = tasks
        .iter()
        .map(|t| json!({"task_id": t.id, "task_type": t.kind, "description": t.description}))
        .collect();
    json!({ "tasks": tasks })
}

/// One step of a child loop, for its `task_progress` event.
pub struct Progress<'a> {
    pub task_id: &'a str,
    /// The tool_use that launched the child.
    pub tool_use_id: &'a str,
    pub agent_type: &'a str,
    /// The call about to run.
    pub call: &'a Value,
    pub tokens: u64,
    pub tool_uses: u64,
    pub started: std::time::Instant,
}

/// A workflow run at one agent() call's start or end, for its `task_progress` event.
pub struct WorkflowStep<'a> {
    pub task_id: &'a str,
    pub tool_use_id: &'a str,
    /// The workflow's description.
    pub summary: &'a str,
    /// The call's label.
    pub label: &'a str,
    /// The run's tokens and tool calls so far (its ended calls').
    pub tokens: u64,
    pub tool_uses: u64,
    pub started: std::time::Instant,
}

/// A task's `usage` as its progress and notification events carry it.
fn usage(tokens: u64, tool_uses: u64, duration_ms: u64) -> Value {
    json!({"total_tokens": tokens, "tool_uses": tool_uses, "duration_ms": duration_ms})
}

fn elapsed_ms(started: std::time::Instant) -> u64 {
    started.elapsed().as_millis() as u64
}

/// What a call is doing, as the progress line says it: a command by its description, an agent
/// by its own; any other tool by its name.
fn activity(call: &Value) -> String {
    let input = &call["input"];
    let given = |key: &str| input[key].as_str().filter(|s| !s.is_empty());
    match call["name"].as_str().unwrap_or_default() {
        "Bash" => format!(
            "Running {}",
            given("description")
                .or_else(|| given("command"))
                .unwrap_or_default()
        ),
        "Agent" | "Task" => given("description").unwrap_or("Agent").to_owned(),
        name => name.to_owned(),
    }
}

/// The event's summary: the final text, or why it ended otherwise.
fn summary(task: &Task) -> String {
    if let Some(report) = &task.report {
        return report.summary.clone();
    }
    match task.status {
        super::Status::Killed => task.description.clone(),
        _ => task.result.clone().unwrap_or_default(),
    }
}

/// What the model is told when a background task ended: a system reminder that says it is not
/// the user speaking, around the `<task-notification>` record 2.1.235 sends (its tags are the
/// contract; the sentence before them is ours).
pub fn notification_text(task: &Task) -> String {
    let summary = match (&task.report, task.status) {
        // A report's summary may quote an error's stack: escaped like the body's parts are.
        (Some(report), _) => report
            .summary
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;"),
        (None, super::Status::Completed) => format!("Agent \"{}\" finished", task.description),
        (None, super::Status::Failed) => format!("Agent \"{}\" failed", task.description),
        // Only the model stops a task here (TaskStop): 2.1.235 names it as the stopper.
        (None, super::Status::Killed) => {
            format!("Agent \"{}\" was stopped by Claude", task.description)
        }
        (None, super::Status::Running) => format!("Agent \"{}\" is running", task.description),
    };
    let mut text = format!(
        "<system-reminder>\nA background task of this session changed state. This is a record \
         from the client, not a message from the user, and it approves nothing.\n\n\
         <task-notification>\n<task-id>{}</task-id>\n<tool-use-id>{}</tool-use-id>\n\
         <output-file>{}</output-file>\n<status>{}</status>\n<summary>{summary}</summary>",
        task.id,
        task.tool_use_id,
        task.output_file.display(),
        // The model reads the registry's word (`killed`); the event says `stopped`.
        task.status.as_str(),
    );
    if let Some(report) = &task.report {
        text.push_str(&report.body);
        text.push('\n');
    } else {
        // An agent's notification says it may come again (2.1.235's `<note>`; the words are ours).
        text.push_str(
            "\n<note>This fires whenever the agent stops with no background work of its own still \
             running. It can be sent another message and resumed, so one task-id may notify \
             more than once.</note>\n",
        );
        if let Some(result) = task
            .result
            .as_deref()
            .filter(|_| task.status != super::Status::Killed)
        {
            text.push_str(&format!("<result>{result}</result>\n"));
            text.push_str(&format!(
                "<usage><subagent_tokens>{}</subagent_tokens><tool_uses>{}</tool_uses><duration_ms>{}</duration_ms></usage>\n",
                task.tokens, task.tool_uses, task.duration_ms
            ));
        }
    }
    text.push_str("</task-notification>\n</system-reminder>");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_names_a_command_by_its_description_and_an_agent_by_its_own() {
        let bash = json!({"name": "Bash", "input": {"command": "sleep 1", "description": "sleep"}});
        assert_eq!(activity(&bash), "Running sleep");
        let bare = json!({"name": "Bash", "input": {"command": "echo hi"}});
        assert_eq!(activity(&bare), "Running echo hi");
        let agent = json!({"name": "Agent", "input": {"description": "inner", "prompt": "p"}});
        assert_eq!(activity(&agent), "inner");
        assert_eq!(activity(&json!({"name": "Read", "input": {}})), "Read");
    }
}
