//! TaskCreated and TaskCompleted (seed 004 line 212: TaskCompleted hooks run before a task is
//! marked completed). A hook that blocks (exit 2, or a JSON `decision: block`) stops the change;
//! its feedback is what the tool answers, in 2.1.235's words (hooks.decisions/tasks).

use serde_json::json;

use super::{Event, Hooks, Session};

/// One task as its hooks are told it.
pub struct Task<'a> {
    pub id: &'a str,
    pub subject: &'a str,
    pub description: &'a str,
}

impl Hooks {
    /// After a task was created: the feedback when a hook refuses it (the task is then removed).
    pub fn task_created(&self, session: &Session, task: &Task) -> Option<String> {
        self.task_event(session, "TaskCreated", task)
    }

    /// Before a task is marked completed: the feedback when a hook refuses.
    pub fn task_completed(&self, session: &Session, task: &Task) -> Option<String> {
        self.task_event(session, "TaskCompleted", task)
    }

    fn task_event(&self, session: &Session, name: &'static str, task: &Task) -> Option<String> {
        let runs = self.fire(
            session,
            Event {
                name,
                target: None,
                mode: None,
                fields: vec![
                    ("task_id", json!(task.id)),
                    ("task_subject", json!(task.subject)),
                    ("task_description", json!(task.description)),
                ],
            },
        );
        let why = runs.iter().find_map(super::Ran::blocking_reason)?;
        Some(format!("{name} hook feedback:\n{why}"))
    }
}
