//! What a run tells the model and leaves on disk: the launch record (the tool result), the
//! completion notification's summary and body, the task's output file and the run's record.
//! The texts and field names are 2.1.235's (recorded in recon workflow13).

use std::path::Path;

use serde_json::{json, Value};

use super::engine::{End, Outcome, Record};
use super::journal;
use crate::limits;

/// Where a launched run lives, for the texts that point the model at it.
#[derive(Debug, Clone)]
pub struct Places<'a> {
    pub task_id: &'a str,
    pub run_id: &'a str,
    pub summary: &'a str,
    pub workflow_name: &'a str,
    pub transcript_dir: &'a Path,
    pub script_path: &'a Path,
    pub args: Option<&'a Value>,
}

/// The tool result of a launch.
pub fn launch_text(p: &Places<'_>) -> String {
    let script = p.script_path.display();
    format!(
        "Workflow launched in background. Task ID: {task}\nSummary: {summary}\nTranscript dir: {dir}\n\
         Script file: {script}\n\
         (Edit this file with Write/Edit and re-invoke Workflow with {{scriptPath: \"{script}\"}} to iterate without resending the script.)\n\
         Run ID: {run}\n\
         To resume after editing the script: Workflow({{scriptPath: \"{script}\", resumeFromRunId: \"{run}\"}}) \u{2014} completed agents return cached results (cached results may themselves be empty \u{2014} inspect journal.jsonl before assuming there is something to recover).\n\n\
         You will be notified when it completes. Use /workflows to watch live progress.",
        task = p.task_id,
        summary = p.summary,
        dir = p.transcript_dir.display(),
        run = p.run_id,
    )
}

/// The launch's `tool_use_result`.
pub fn launch_structured(p: &Places<'_>) -> Value {
    json!({
        "status": "async_launched", "taskId": p.task_id, "taskType": "local_workflow",
        "workflowName": p.workflow_name, "runId": p.run_id, "summary": p.summary,
        "transcriptDir": p.transcript_dir, "scriptPath": p.script_path,
    })
}

/// The notification's summary line, unescaped (the `task_notification` event carries it as it
/// is; the notification text escapes it).
pub fn summary(description: &str, end: &End) -> String {
    match end {
        End::Completed(_) => format!("Dynamic workflow \"{description}\" completed"),
        End::Failed(error) => format!("Dynamic workflow \"{description}\" failed: {error}"),
        End::Stopped => format!("Dynamic workflow \"{description}\" was stopped"),
    }
}

/// The notification's body after the summary: recovery hints, the result, diagnostics,
/// failures and usage, each in its tag.
pub fn notification_body(
    p: &Places<'_>,
    outcome: &Outcome,
    output_file: &Path,
    duration_ms: u64,
) -> String {
    let script = p.script_path.display();
    let args = p
        .args
        .map(|a| format!(", args: {}", js_json(a)))
        .unwrap_or_default();
    let mut body = String::new();
    if !matches!(outcome.end, End::Completed(_)) {
        let lines = [
            format!("To resume after editing the script, call: Workflow({{scriptPath: '{script}', resumeFromRunId: '{}'{args}}})", p.run_id),
            format!("Agent transcripts: {}", p.transcript_dir.display()),
        ];
        body.push_str(&format!(
            "\n<recovery>{}</recovery>",
            escape(&lines.join("\n"))
        ));
    }
    if let End::Completed(Some(result)) = &outcome.end {
        let text = escape(&js_json(result));
        let max = limits::WORKFLOW_NOTIFY_RESULT_MAX.usize();
        let units: Vec<u16> = text.encode_utf16().collect();
        if units.len() > max {
            let head = String::from_utf16_lossy(&units[..max]);
            body.push_str(&format!(
                "\n<result>{head}\n... (truncated {} chars, full result in {})</result>",
                units.len() - max,
                output_file.display()
            ));
        } else {
            body.push_str(&format!("\n<result>{text}</result>"));
        }
    }
    if matches!(outcome.end, End::Completed(_)) {
        let lines = [
            format!("Per-agent results: {}/{} \u{2014} one {{\"type\":\"result\",...}} line per completed agent with its full return value.", p.transcript_dir.display(), journal::FILE),
            "If the result above is empty or unexpected, Read this file BEFORE diagnosing \u{2014} do not assume agents returned non-empty results.".to_owned(),
            format!("To re-run with edited post-processing: Workflow({{scriptPath: '{script}', resumeFromRunId: '{}'{args}}}) \u{2014} agents whose (prompt, opts) are unchanged replay from cache.", p.run_id),
        ];
        body.push_str(&format!(
            "\n<diagnostics>{}</diagnostics>",
            escape(&lines.join("\n"))
        ));
    }
    if !outcome.failures.is_empty() {
        body.push_str(&format!(
            "\n<failures>{}</failures>",
            escape(&outcome.failures.join("\n"))
        ));
    }
    let agents = &outcome.agents;
    let done = agents.iter().filter(|a| a.done == Some(true)).count();
    let errors = agents.iter().filter(|a| a.done == Some(false)).count();
    let empty = agents
        .iter()
        .filter(|a| {
            a.done == Some(true) && preview(a.result.as_ref()).is_none_or(|p| looks_empty(&p))
        })
        .count();
    body.push_str(&format!(
        "\n<usage><agent_count>{}</agent_count><agents_done>{done}</agents_done><agents_error>{errors}</agents_error><agents_skipped>0</agents_skipped><agents_empty_result>{empty}</agents_empty_result><subagent_tokens>{}</subagent_tokens><tool_uses>{}</tool_uses><duration_ms>{duration_ms}</duration_ms></usage>",
        agents.len(),
        tokens(outcome),
        tool_uses(outcome),
    ));
    body
}

pub fn tokens(outcome: &Outcome) -> u64 {
    outcome
        .agents
        .iter()
        .filter(|a| !a.cached)
        .map(|a| a.tokens)
        .sum()
}

pub fn tool_uses(outcome: &Outcome) -> u64 {
    outcome
        .agents
        .iter()
        .filter(|a| !a.cached)
        .map(|a| a.tool_uses)
        .sum()
}

/// The progress entries (phases, then agents) the output file and the record carry.
pub fn progress(outcome: &Outcome, model: &str) -> Vec<Value> {
    let mut out: Vec<Value> = outcome
        .phases
        .iter()
        .enumerate()
        .map(|(i, title)| json!({"type": "workflow_phase", "index": i + 1, "title": title}))
        .collect();
    out.extend(
        outcome
            .agents
            .iter()
            .map(|a| agent_entry(a, outcome, model)),
    );
    out
}

fn agent_entry(a: &Record, outcome: &Outcome, model: &str) -> Value {
    let mut entry = json!({"type": "workflow_agent", "index": a.index, "label": a.label});
    if let Some(phase) = &a.phase {
        let index = outcome
            .phases
            .iter()
            .position(|p| p == phase)
            .map(|i| i + 1);
        entry["phaseIndex"] = json!(index);
        entry["phaseTitle"] = json!(phase);
    }
    entry["agentId"] = json!(a.agent_id);
    entry["model"] = json!(a.model.as_deref().unwrap_or(model));
    entry["state"] = json!(match a.done {
        Some(true) => "done",
        Some(false) => "error",
        None => "start",
    });
    if a.cached {
        entry["cached"] = json!(true);
    }
    entry["promptPreview"] = json!(preview(Some(&Value::String(a.prompt.clone()))));
    if !a.cached {
        entry["tokens"] = json!(a.tokens);
        entry["toolCalls"] = json!(a.tool_uses);
        entry["durationMs"] = json!(a.duration_ms);
    }
    if let Some(p) = preview(a.result.as_ref()) {
        entry["resultPreview"] = json!(p);
    }
    if let Some(error) = &a.error {
        entry["error"] = json!(error);
    }
    entry
}

/// The task's output file: the run's summary, 2.1.235's keys, pretty-printed.
pub fn output_file(
    p: &Places<'_>,
    outcome: &Outcome,
    result: Option<&Value>,
    model: &str,
) -> Value {
    json!({
        "summary": p.summary, "agentCount": outcome.agents.len(), "logs": outcome.logs,
        "result": result, "workflowProgress": progress(outcome, model),
        "totalTokens": tokens(outcome), "totalToolCalls": tool_uses(outcome),
    })
}

/// A short preview of a value: its text (JSON for anything but a string), trimmed, cut.
pub(super) fn preview(value: Option<&Value>) -> Option<String> {
    let text = match value? {
        Value::Null => return None,
        Value::String(s) => s.trim().to_owned(),
        other => js_json(other).trim().to_owned(),
    };
    if text.is_empty() {
        return None;
    }
    let max = 400;
    Some(if text.chars().count() > max {
        format!("{}\u{2026}", text.chars().take(max).collect::<String>())
    } else {
        text
    })
}

/// `[]`, `{}` or `{"key": []}`: an answer with nothing in it.
fn looks_empty(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed == "[]"
        || squeezed == "{}"
        || (squeezed.starts_with("{\"")
            && squeezed.ends_with("\":[]}")
            && squeezed.matches('"').count() == 2)
}

/// JSON as JavaScript's JSON.stringify writes it (compact; serde_json agrees for the values a
/// script can return).
fn js_json(value: &Value) -> String {
    value.to_string()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn places<'a>(dir: &'a Path, script: &'a Path) -> Places<'a> {
        Places {
            task_id: "w1234abcd",
            run_id: "wf_fixed01",
            summary: "two agents",
            workflow_name: "wfrun",
            transcript_dir: dir,
            script_path: script,
            args: None,
        }
    }

    fn outcome(end: End) -> Outcome {
        Outcome {
            end,
            logs: vec!["got x".into()],
            failures: Vec::new(),
            phases: vec!["One".into()],
            agents: Vec::new(),
        }
    }

    #[test]
    fn the_launch_text_is_2_1_235s() {
        let dir = PathBuf::from("/s/subagents/workflows/wf_fixed01");
        let script = PathBuf::from("/s/workflows/scripts/wfrun-wf_fixed01.js");
        let text = launch_text(&places(&dir, &script));
        assert!(text.starts_with("Workflow launched in background. Task ID: w1234abcd\nSummary: two agents\nTranscript dir: /s/subagents/workflows/wf_fixed01\nScript file: /s/workflows/scripts/wfrun-wf_fixed01.js\n"));
        assert!(text.contains("\nRun ID: wf_fixed01\nTo resume after editing the script: Workflow({scriptPath: \"/s/workflows/scripts/wfrun-wf_fixed01.js\", resumeFromRunId: \"wf_fixed01\"})"));
        assert!(text.ends_with(
            "\n\nYou will be notified when it completes. Use /workflows to watch live progress."
        ));
    }

    #[test]
    fn a_completed_run_reports_its_result_and_where_the_journal_is() {
        let dir = PathBuf::from("/s/wf");
        let script = PathBuf::from("/s/a.js");
        let body = notification_body(
            &places(&dir, &script),
            &outcome(End::Completed(Some(json!({"a": "<x>"})))),
            Path::new("/t/w.output"),
            5,
        );
        assert!(body.starts_with("\n<result>{\"a\":\"&lt;x&gt;\"}</result>\n<diagnostics>Per-agent results: /s/wf/journal.jsonl"), "{body}");
        assert!(body.ends_with("<usage><agent_count>0</agent_count><agents_done>0</agents_done><agents_error>0</agents_error><agents_skipped>0</agents_skipped><agents_empty_result>0</agents_empty_result><subagent_tokens>0</subagent_tokens><tool_uses>0</tool_uses><duration_ms>5</duration_ms></usage>"));
        assert_eq!(
            summary("two agents", &End::Completed(None)),
            "Dynamic workflow \"two agents\" completed"
        );
    }

    #[test]
    fn a_failed_run_gets_recovery_lines_and_no_result() {
        let dir = PathBuf::from("/s/wf");
        let script = PathBuf::from("/s/a.js");
        let mut p = places(&dir, &script);
        let args = json!(["a"]);
        p.args = Some(&args);
        let body = notification_body(
            &p,
            &outcome(End::Failed("Error: BOOM".into())),
            Path::new("/t/w.output"),
            1,
        );
        assert!(body.starts_with("\n<recovery>To resume after editing the script, call: Workflow({scriptPath: '/s/a.js', resumeFromRunId: 'wf_fixed01', args: [\"a\"]})\nAgent transcripts: /s/wf</recovery>\n<usage>"), "{body}");
        assert_eq!(
            summary("d", &End::Failed("at <anonymous>".into())),
            "Dynamic workflow \"d\" failed: at <anonymous>"
        );
    }

    #[test]
    fn a_long_result_is_cut_and_points_at_the_output_file() {
        let dir = PathBuf::from("/s/wf");
        let script = PathBuf::from("/s/a.js");
        let long = "x".repeat(9000);
        let body = notification_body(
            &places(&dir, &script),
            &outcome(End::Completed(Some(json!(long)))),
            Path::new("/t/w.output"),
            1,
        );
        assert!(
            body.contains("\n... (truncated 1002 chars, full result in /t/w.output)</result>"),
            "{}",
            &body[..200]
        );
    }

    #[test]
    fn empty_answers_are_counted() {
        assert!(looks_empty("[ ]") && looks_empty("{}") && looks_empty("{\"items\": []}"));
        assert!(!looks_empty("[1]") && !looks_empty("{\"a\":[],\"b\":[]}"));
    }
}
