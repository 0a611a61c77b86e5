//! What 2.1.235 makes of the inputs models commonly send the task tools before validating them:
//! alias names, a subject or description filled in from the other, stray keys dropped once both
//! are there; and the hint it adds when a TaskCreate input is still invalid. Texts recorded
//! (recon tasks13 exp.tasks-3).

use serde_json::{Map, Value};

use crate::limits;

const CREATE_KEEPS: [&str; 4] = ["subject", "description", "activeForm", "metadata"];

const ONE_TASK_PER_CALL: &str = "TaskCreate creates ONE task per call and has no `tasks` or `todos` parameter. Call TaskCreate once per task, passing `subject` (a brief title) and `description` (what needs to be done) as top-level string parameters.";
const NOT_AN_AGENT: &str = "This call used Agent-tool parameters (`prompt`/`subagent_type`). TaskCreate adds an item to the task list and takes `subject` and `description` string parameters. To delegate work to a subagent, use the Agent tool instead.";

fn filled(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty())
}

fn is_list_call(o: &Map<String, Value>) -> bool {
    o.contains_key("tasks") || o.contains_key("todos")
}

fn is_agent_call(o: &Map<String, Value>) -> bool {
    o.contains_key("prompt") || o.contains_key("subagent_type")
}

fn both_filled(o: &Map<String, Value>) -> bool {
    filled(o.get("subject")) && filled(o.get("description"))
}

/// Moves each alias to its field when the field is absent and the alias a non-blank string.
fn apply_aliases(r: &mut Map<String, Value>, aliases: &[(&[&str], &str)]) -> bool {
    let mut changed = false;
    for (names, field) in aliases {
        for name in *names {
            if !r.contains_key(*field) && filled(r.get(*name)) {
                let v = r.shift_remove(*name).unwrap_or_default();
                r.insert((*field).into(), v);
                changed = true;
            }
        }
    }
    changed
}

/// TaskCreate's input as 2.1.235 rewrites it, or `None` when it leaves it alone.
pub fn create(input: &Value) -> Option<Value> {
    let o = input.as_object()?;
    if is_list_call(o) || (is_agent_call(o) && !both_filled(o)) {
        return None;
    }
    let mut r = o.clone();
    let mut changed = false;
    if !r.contains_key("subject") && !r.contains_key("description") && r.contains_key("task") {
        match r.shift_remove("task") {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                r.insert("description".into(), Value::String(s));
            }
            Some(Value::Object(inner)) => {
                if is_list_call(&inner) || (is_agent_call(&inner) && !both_filled(&inner)) {
                    return None;
                }
                r.extend(inner);
            }
            _ => return None,
        }
        changed = true;
    }
    changed |= apply_aliases(
        &mut r,
        &[
            (&["title", "name"], "subject"),
            (&["content"], "description"),
            (&["active_form"], "activeForm"),
        ],
    );
    if filled(r.get("subject")) && !r.contains_key("description") {
        r.insert("description".into(), r["subject"].clone());
        changed = true;
    } else if filled(r.get("description")) && !r.contains_key("subject") {
        let subject = subject_from(r["description"].as_str().unwrap_or_default());
        r.insert("subject".into(), Value::String(subject));
        changed = true;
    }
    if both_filled(&r) {
        let before = r.len();
        r.retain(|k, v| match k.as_str() {
            "activeForm" => v.is_string(),
            "metadata" => v.is_object(),
            k => CREATE_KEEPS.contains(&k),
        });
        changed |= r.len() != before;
    }
    changed.then_some(Value::Object(r))
}

/// TaskUpdate's input with its aliases applied, or `None`.
pub fn update(input: &Value) -> Option<Value> {
    let mut r = input.as_object()?.clone();
    let aliases: &[(&[&str], &str)] = &[
        (&["id", "task_id"], "taskId"),
        (&["active_form"], "activeForm"),
    ];
    apply_aliases(&mut r, aliases).then_some(Value::Object(r))
}

/// The hint for an invalid TaskCreate input, judged on the input as sent.
pub fn create_steer(input: &Value) -> Option<&'static str> {
    let o = input.as_object()?;
    let inner = o.get("task").and_then(Value::as_object);
    if is_list_call(o) || inner.is_some_and(is_list_call) {
        return Some(ONE_TASK_PER_CALL);
    }
    if (is_agent_call(o) || inner.is_some_and(is_agent_call)) && !both_filled(o) {
        return Some(NOT_AN_AGENT);
    }
    None
}

/// A subject made from a description: its first line, cut at a word boundary when long.
pub fn subject_from(description: &str) -> String {
    let line = description.split('\n').next().unwrap_or_default().trim();
    let max = limits::TASKS_SUBJECT_BACKFILL_MAX.value as usize;
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let head: String = line.chars().take(max).collect();
    let cut = head.rfind(' ').filter(|&at| {
        head[..at].encode_utf16().count() as u64 > limits::TASKS_SUBJECT_WORD_CUT_MIN.value
    });
    match cut {
        Some(at) => head[..at].trim().to_owned(),
        None => head.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_lone_subject_or_description_fills_in_the_other() {
        assert_eq!(
            create(&json!({"subject": "S2", "priority": "high"})),
            Some(json!({"subject": "S2", "description": "S2"}))
        );
        assert_eq!(
            create(&json!({"description": "no subject"})),
            Some(json!({"description": "no subject", "subject": "no subject"}))
        );
    }

    #[test]
    fn aliases_move_and_invalid_optionals_go() {
        assert_eq!(
            create(&json!({"title": "T", "content": "C", "active_form": "Ting"})),
            Some(json!({"subject": "T", "description": "C", "activeForm": "Ting"}))
        );
        assert_eq!(
            create(
                &json!({"subject": "S3", "description": "D3", "activeForm": 5, "metadata": "x"})
            ),
            Some(json!({"subject": "S3", "description": "D3"}))
        );
        assert_eq!(
            update(&json!({"id": "1", "active_form": "A"})),
            Some(json!({"taskId": "1", "activeForm": "A"}))
        );
        assert_eq!(update(&json!({"taskId": "1"})), None);
    }

    #[test]
    fn list_and_agent_shaped_calls_are_left_invalid_with_a_hint() {
        let list = json!({"tasks": [{"subject": "a", "description": "b"}]});
        assert_eq!(create(&list), None);
        assert_eq!(create_steer(&list), Some(ONE_TASK_PER_CALL));
        let agent = json!({"prompt": "do it", "subagent_type": "general"});
        assert_eq!(create(&agent), None);
        assert_eq!(create_steer(&agent), Some(NOT_AN_AGENT));
        assert_eq!(create_steer(&json!({"activeForm": "x"})), None);
    }

    #[test]
    fn a_long_description_gives_a_subject_cut_at_a_word() {
        let long = "This is a rather long description that certainly goes on for more than eighty characters in total length";
        assert_eq!(
            subject_from(long),
            "This is a rather long description that certainly goes on for more than eighty"
        );
        // No space past position 40: the hard cut.
        let solid = format!("{} {}", "a".repeat(10), "b".repeat(100));
        assert_eq!(subject_from(&solid).chars().count(), 80);
        assert_eq!(subject_from("first line\nsecond"), "first line");
    }
}
