//! The reminders a loop adds to its user messages besides the prompt: the token budget that
//! opens every prompt and closes every tool round, and the nudge toward the task tools after a
//! long stretch without them. Kinds, order, placement and numbers are 2.1.235's; the words of
//! the nudge are ours (the budget's tag is a protocol line, not prose).

use serde_json::{json, Value};

use crate::limits;

/// The budget reminder: `left` tokens, as 2.1.235's `<total_tokens>` tag says it.
pub fn total_tokens(left: u64) -> String {
    format!(
        "<system-reminder>\n<total_tokens>{left} tokens left</total_tokens>\n</system-reminder>"
    )
}

/// The dollar budget (`--max-budget-usd`), spent and left, as 2.1.235 states it before a
/// prompt: `USD budget: $0/$1e-7; $1e-7 remaining` (its numbers in JavaScript's form).
pub fn usd_budget(spent: f64, budget: f64) -> String {
    let js = crate::json::js_number;
    format!(
        "<system-reminder>\nUSD budget: ${}/${}; ${} remaining\n</system-reminder>",
        js(spent),
        js(budget),
        js((budget - spent).max(0.0))
    )
}

/// The heading of the deferred tools' listing (tool search), before one name a line.
pub const DEFERRED_TOOLS_HEADING: &str = "These tools exist but their schemas are not loaded yet; load them with ToolSearch (query \"select:<name>[,<name>...]\") before calling them:\n";

/// The listing of tools whose schemas are not sent until ToolSearch loads them.
pub fn deferred_tools(names: &[&str]) -> String {
    format!(
        "<system-reminder>\n{DEFERRED_TOOLS_HEADING}{}\n</system-reminder>",
        names.join("\n")
    )
}

/// The budget of one loop: whole at each prompt, less what the conversation has grown by since.
/// "Grown by" is the last answer's input, cache and output tokens minus their sum when the
/// prompt arrived, and never shrinks within a prompt (2.1.235's padded countdown).
#[derive(Debug, Default, Clone)]
pub struct TokenBudget {
    anchor: u64,
    used: u64,
}

impl TokenBudget {
    /// A prompt arrives; `last` is the newest answer's token total so far (0 before any).
    pub fn at_prompt(&mut self, last: u64) -> String {
        self.anchor = last;
        self.used = 0;
        total_tokens(limits::REMINDER_TOKEN_BUDGET.get())
    }

    /// A tool round ends; `last` is the newest answer's token total.
    pub fn after_round(&mut self, last: u64) -> String {
        self.used = self.used.max(last.saturating_sub(self.anchor));
        total_tokens(
            limits::REMINDER_TOKEN_BUDGET
                .get()
                .saturating_sub(self.used),
        )
    }
}

/// An answer's token total as the budget counts it.
pub fn answer_total(m: &crate::api::Message) -> u64 {
    m.input_tokens + m.cache_creation_input_tokens + m.cache_read_input_tokens + m.output_tokens
}

/// The words that mark our task-tools nudge in a history (and for the trace's kind table).
pub const TASK_NUDGE_MARK: &str = "No task tool has been called for a while";

/// Whether a loop with these tools is nudged at all: it must offer TaskUpdate, must not be in
/// Brief mode (SendUserMessage offered), and `CLAUDE_CODE_TODO_REMINDER_MODE=off` silences it, as
/// in 2.1.235.
pub fn task_nudge_on<'a>(mut tools: impl Iterator<Item = &'a str> + Clone) -> bool {
    std::env::var("CLAUDE_CODE_TODO_REMINDER_MODE").as_deref() != Ok("off")
        && tools.clone().any(|t| t == "TaskUpdate")
        && !tools.any(|t| t == "SendUserMessage")
}

/// The nudge toward TaskCreate / TaskUpdate, when it is due: the loop offers the task tools,
/// and both the last task-tool call and the last nudge are at least the recorded number of
/// assistant turns back. A turn is one content block of an answer, as 2.1.235 stores answers.
pub fn task_nudge(messages: &[Value], tasks: &[String]) -> Option<String> {
    let (mut since_use, mut since_nudge) = (None::<u64>, None::<u64>);
    let (mut use_count, mut nudge_count) = (0u64, 0u64);
    for m in messages.iter().rev() {
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        if m["role"] == "assistant" {
            for b in blocks.iter().rev() {
                if matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")) {
                    continue;
                }
                let task_call = b["type"] == "tool_use"
                    && matches!(b["name"].as_str(), Some("TaskCreate" | "TaskUpdate"));
                if since_use.is_none() && task_call {
                    since_use = Some(use_count);
                }
                if since_use.is_none() {
                    use_count += 1;
                }
                if since_nudge.is_none() {
                    nudge_count += 1;
                }
            }
        } else if since_nudge.is_none() && m.to_string().contains(TASK_NUDGE_MARK) {
            since_nudge = Some(nudge_count);
        }
        if since_use.is_some() && since_nudge.is_some() {
            break;
        }
    }
    let since_use = since_use.unwrap_or(use_count);
    let since_nudge = since_nudge.unwrap_or(nudge_count);
    if messages.is_empty()
        || since_use < limits::TASK_REMINDER_TURNS_SINCE_USE.get()
        || since_nudge < limits::TASK_REMINDER_TURNS_BETWEEN.get()
    {
        return None;
    }
    let mut text = format!(
        "{TASK_NUDGE_MARK}. If the work has steps worth tracking, TaskCreate adds a task and \
         TaskUpdate moves one along (in_progress when you start it, completed when it is done); \
         tidy the list if it no longer matches the work. Ignore this if it does not apply.\n"
    );
    if !tasks.is_empty() {
        text.push_str(&format!("\n\nThe task list now:\n\n{}", tasks.join("\n")));
    }
    Some(format!("<system-reminder>\n{text}\n</system-reminder>"))
}

/// The words that mark our planning-mode reminders in a history.
pub const PLAN_MARK: &str = "Planning mode is on";
pub const PLAN_EXIT_MARK: &str = "Planning mode has ended";

/// The planning-mode reminder due now, if any: while planning, a full one when planning starts
/// and again (short, every fifth time full) once enough prompts have passed since the last; once
/// planning has ended, one note saying so. As 2.1.235 paces its plan-mode reminders.
pub fn plan_mode(messages: &[Value], planning: bool) -> Option<String> {
    let (mut prompts, mut found, mut given) = (0u64, false, 0u64);
    for m in messages.iter().rev() {
        if m["role"] != "user" {
            continue;
        }
        let text = m.to_string();
        if text.contains(PLAN_EXIT_MARK) {
            break;
        }
        if text.contains(PLAN_MARK) {
            given += 1;
            found = true;
            continue;
        }
        if !found && is_prompt(m) {
            prompts += 1;
        }
    }
    if !planning {
        return found.then(|| {
            format!(
                "<system-reminder>\n{PLAN_EXIT_MARK}: changes are allowed again, so edit \
                 files and run tools as the task needs.\n</system-reminder>"
            )
        });
    }
    if found && prompts < limits::PLAN_REMINDER_PROMPTS_BETWEEN.get() {
        return None;
    }
    let full = (given + 1) % limits::PLAN_REMINDER_FULL_EVERY.get() == 1;
    let body = if full {
        "Do not carry anything out yet: no edits, no commands that change anything, no commits \
         or configuration changes; only read and explore. Work out how to do the task (launch \
         Explore agents to look around, a Plan agent to weigh approaches), ask the user with \
         AskUserQuestion where the intent is unclear, and when the plan is ready call \
         ExitPlanMode to ask for approval. End each turn with one of those two tools."
    } else {
        "Still only reading and planning; end the turn with AskUserQuestion or ExitPlanMode."
    };
    Some(format!(
        "<system-reminder>\n{PLAN_MARK}. {body}\n</system-reminder>"
    ))
}

/// A user message a person (or host) sent: text that is not a reminder, no tool results.
fn is_prompt(m: &Value) -> bool {
    let Some(blocks) = m["content"].as_array() else {
        return m["content"].is_string();
    };
    !blocks.iter().any(|b| b["type"] == "tool_result")
        && blocks.iter().any(|b| {
            b["type"] == "text"
                && !b["text"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_start()
                    .starts_with("<system-reminder>")
        })
}

/// Adds a tool round's reminders (in order) to its user message as 2.1.235 merges them: into the
/// last tool_result when its content is text (trimmed, joined by a blank line), else as text
/// blocks right after that result.
pub fn append_to_round(blocks: &mut Vec<Value>, reminders: &[String]) {
    if reminders.is_empty() {
        return;
    }
    let Some(at) = blocks.iter().rposition(|b| b["type"] == "tool_result") else {
        blocks.extend(reminders.iter().map(|r| json!({"type": "text", "text": r})));
        return;
    };
    if let Some(text) = blocks[at]["content"].as_str() {
        let mut parts: Vec<&str> = vec![text.trim()];
        parts.extend(reminders.iter().map(|r| r.trim()));
        let merged = parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        blocks[at]["content"] = json!(merged);
        return;
    }
    let mut extra: Vec<Value> = reminders
        .iter()
        .map(|r| json!({"type": "text", "text": r}))
        .collect();
    // Text that follows (a picture's note) joins as its own message: the reminder before it
    // gains the newline 2.1.235's merge gives a text block followed by text.
    if blocks.get(at + 1).is_some_and(|b| b["type"] == "text") {
        if let Some(last) = extra.last_mut() {
            last["text"] = json!(format!("{}\n", last["text"].as_str().unwrap_or_default()));
        }
    }
    let tail = blocks.split_off(at + 1);
    blocks.extend(extra);
    blocks.extend(tail);
}

/// A prompt's own reminders go before its text; the last of them ends with a newline, as
/// 2.1.235's merge of the prompt's message leaves it.
pub fn before_prompt(reminders: Vec<String>) -> Vec<Value> {
    let n = reminders.len();
    reminders
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let text = if i + 1 == n && !r.ends_with('\n') {
                format!("{r}\n")
            } else {
                r
            };
            json!({"type": "text", "text": text})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_down_from_the_prompt_and_never_back_up() {
        let mut b = TokenBudget::default();
        assert!(b
            .at_prompt(0)
            .contains("<total_tokens>15000000 tokens left"));
        assert!(b
            .after_round(25)
            .contains("<total_tokens>14999975 tokens left"));
        assert!(b.after_round(10).contains("14999975"));
        // A later prompt is whole again, counted from where the conversation stands.
        assert!(b.at_prompt(40).contains("15000000"));
        assert!(b.after_round(52).contains("14999988"));
    }

    #[test]
    fn text_results_take_the_reminders_inside_after_a_blank_line() {
        let mut blocks = vec![
            json!({"type": "tool_result", "tool_use_id": "a", "content": "one"}),
            json!({"type": "tool_result", "tool_use_id": "b", "content": "two\n"}),
            json!({"type": "document"}),
        ];
        append_to_round(&mut blocks, &[total_tokens(9)]);
        assert_eq!(blocks[0]["content"], "one");
        assert_eq!(
            blocks[1]["content"],
            "two\n\n<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>"
        );
        assert_eq!(blocks.len(), 3);
    }

    #[test]
    fn block_results_are_followed_by_the_reminders() {
        let mut blocks = vec![
            json!({"type": "tool_result", "tool_use_id": "a", "content": [{"type": "image"}]}),
            json!({"type": "text", "text": "note"}),
        ];
        append_to_round(&mut blocks, &[total_tokens(9)]);
        assert_eq!(blocks.len(), 3);
        assert!(blocks[1]["text"]
            .as_str()
            .unwrap()
            .ends_with("</system-reminder>\n"));
        assert_eq!(blocks[2]["text"], "note");
    }

    #[test]
    fn planning_is_reminded_once_per_stretch_of_prompts_and_its_end_once() {
        let prompt = json!({"role": "user", "content": [{"type": "text", "text": "go"}]});
        let mut history = vec![prompt.clone(), turn("EnterPlanMode")];
        let full = plan_mode(&history, true).unwrap();
        assert!(full.contains(PLAN_MARK) && full.contains("ExitPlanMode"));
        assert_eq!(plan_mode(&history, false), None);
        history.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": full}]}));
        history.push(turn("Read"));
        assert_eq!(plan_mode(&history, true), None);
        for _ in 0..5 {
            history.push(prompt.clone());
            history.push(turn("Read"));
        }
        let again = plan_mode(&history, true).unwrap();
        assert!(again.len() < full.len());
        let exit = plan_mode(&history, false).unwrap();
        assert!(exit.contains(PLAN_EXIT_MARK));
        history.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": exit}]}));
        assert_eq!(plan_mode(&history, false), None);
    }

    fn turn(name: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": name, "input": {}}]})
    }

    fn result() -> Value {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "ok"}]})
    }

    #[test]
    fn the_task_nudge_waits_ten_turns_after_a_call_and_after_itself() {
        let mut history = vec![json!({"role": "user", "content": "go"})];
        for _ in 0..9 {
            history.push(turn("Read"));
            history.push(result());
        }
        assert_eq!(task_nudge(&history, &[]), None);
        history.push(turn("Read"));
        let nudge = task_nudge(&history, &["#1. [pending] a".into()]).unwrap();
        assert!(nudge.contains("#1. [pending] a"));
        history.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": nudge}]}));
        history.push(turn("Read"));
        assert_eq!(task_nudge(&history, &[]), None);
        let mut fresh = vec![turn("TaskUpdate")];
        for _ in 0..10 {
            fresh.push(result());
            fresh.push(turn("Read"));
        }
        assert!(task_nudge(&fresh, &[]).is_some());
        fresh.push(turn("TaskCreate"));
        assert_eq!(task_nudge(&fresh, &[]), None);
    }
}
