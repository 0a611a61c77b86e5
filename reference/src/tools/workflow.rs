//! Workflow (alias RunWorkflow, seed 004 §Workflow): runs a deterministic JavaScript
//! orchestration script in the background. The script comes inline (`script`), by name (`name`)
//! or from a file (`scriptPath`, which wins); it must open with a literal
//! `export const meta = {…}`, and an inline script may not read the clock or the dice. Each
//! launch persists the script in the session folder and returns its path, a `wf_*` run id and
//! a task id; the end comes back as a task notification. `resumeFromRunId` replays the longest
//! unchanged prefix of agent() calls from that run's journal. Texts are 2.1.235's (recorded).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::schema::Issue;
use super::{Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::permissions::rules::Rule;
use crate::permissions::ToolCheck;
use crate::vocab::Mode;
use crate::workflow::{journal::Journal, named, report, run, script, spawn, store};

pub struct Workflow;

const MUST_PROVIDE: &str = "Must provide script, name, or scriptPath";
const CONTROL_CHARS: &str =
    "script contains control characters that would be hidden in the approval dialog";
const NONDETERMINISTIC: &str = "Workflow scripts must be deterministic: Date.now()/Math.random()/new Date() are unavailable (breaks resume). Stamp results after the workflow returns, or pass timestamps via args.";
const REVIEW: &str = "Review dynamic workflow before running";

/// A JavaScript-truthy string field: present and not empty.
fn given<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input[key].as_str().filter(|s| !s.is_empty())
}

/// A character the approval dialog would not show (tab and newline are fine).
fn hidden(c: char) -> bool {
    let code = c as u32;
    (code < 32 && code != 9 && code != 10) || (127..=159).contains(&code)
}

fn custom(path: Value, message: &str) -> Issue {
    Issue {
        sentence: None,
        zod: json!({"code": "custom", "path": path, "message": message}),
    }
}

/// The script a call names, and the file it lives in when it came from one.
struct Resolved {
    script: String,
    path: Option<PathBuf>,
}

/// What validation checks. With both `scriptPath` and `script` the inline text is checked (as
/// 2.1.235 checks it); the file is what runs (see [`for_run`]).
fn for_validation(input: &Value, ctx: &ToolContext) -> Result<Resolved, String> {
    if let Some(path) = given(input, "scriptPath") {
        let path = ctx.resolve(path);
        if let Some(inline) = given(input, "script") {
            return Ok(Resolved {
                script: inline.to_owned(),
                path: Some(path),
            });
        }
        let script = named::read_script(&path)?;
        return Ok(Resolved {
            script,
            path: Some(path),
        });
    }
    if let Some(name) = given(input, "name") {
        let found = named::find(&ctx.home, &ctx.cwd, name)
            .ok_or_else(|| named::not_found(&ctx.home, &ctx.cwd, name))?;
        let script = given(input, "script").map_or(found.script, str::to_owned);
        return Ok(Resolved { script, path: None });
    }
    match given(input, "script") {
        Some(script) => Ok(Resolved {
            script: script.to_owned(),
            path: None,
        }),
        None => Err(MUST_PROVIDE.into()),
    }
}

/// What runs: the file when `scriptPath` is given, else the named workflow, else the inline
/// script (seed 004: "scriptPath 优先").
fn for_run(input: &Value, ctx: &ToolContext) -> Result<Resolved, String> {
    if let Some(path) = given(input, "scriptPath") {
        let path = ctx.resolve(path);
        let script = named::read_script(&path)?;
        return Ok(Resolved {
            script,
            path: Some(path),
        });
    }
    if let Some(name) = given(input, "name") {
        let found = named::find(&ctx.home, &ctx.cwd, name)
            .ok_or_else(|| named::not_found(&ctx.home, &ctx.cwd, name))?;
        return Ok(Resolved {
            script: found.script,
            path: None,
        });
    }
    for_validation(input, ctx)
}

impl Tool for Workflow {
    fn name(&self) -> &'static str {
        "Workflow"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["RunWorkflow"]
    }

    fn description(&self) -> &'static str {
        "Runs a workflow: a short JavaScript program that orchestrates several subagents in a fixed, \
repeatable way. It runs in the background; this call returns at once with a task id, a run id \
and the path of the saved script, and you are notified when it ends. Use it only when the user \
asked for a workflow or for multi-agent orchestration in their own words; otherwise use the \
Agent tool or offer a workflow first.\n\n\
Give the program as `script` (do not write it to a file first), a saved workflow's `name`, or \
the `scriptPath` of a script saved by an earlier call (edit that file to iterate). It must \
begin with a plain literal header:\n\
  export const meta = { name: 'review', description: 'one line', phases: [{ title: 'Find' }] }\n\
then the body, plain JavaScript (no TypeScript) run as an async function (await and return \
work at the top level). The body may use:\n\
- agent(prompt, opts?) -> Promise<string|null>: one subagent; its final text is the value \
(null if it failed). opts: label, phase, model, effort, agentType.\n\
- parallel([() => ..., ...]) -> all results once all are done; a failed slot is null.\n\
- pipeline(items, stage1, stage2, ...) -> each item through the stages independently; each \
stage gets (previous, item, index); a failed item is null.\n\
- phase(title), log(message), args (the call's `args`, verbatim), budget, \
workflow(name | {scriptPath}, args) for one level of nesting.\n\
Date.now(), Math.random() and new Date() without arguments are refused: a run must replay \
the same way. At most min(16, CPUs - 2) agents run at once and 1000 per run.\n\n\
To resume after a stop or an edit, call again with the same `scriptPath` and \
`resumeFromRunId`: agent() calls up to the first changed or new one return their recorded \
results; that call and every later one run again. Stop a running run (TaskStop) before \
resuming it. Each run's journal.jsonl in its transcript directory holds every agent's result."
    }

    fn input_schema(&self) -> Value {
        // 2.1.235 sends no `required` list: the refinement asks for one of three.
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "script": {"description": "The workflow program: the literal `export const meta = {...}` header, then the body.", "type": "string", "maxLength": crate::limits::WORKFLOW_SCRIPT_MAX_CHARS.get()},
                "name": {"description": "A saved workflow to run (bundled, or .claude/workflows/*.js).", "type": "string"},
                "description": {"description": "Not used: the description comes from the script's meta.", "type": "string"},
                "title": {"description": "Not used: the title comes from the script's meta.", "type": "string"},
                "args": {"description": "Any JSON value, given to the script as `args` as it is. Send lists and objects as JSON, not as a string."},
                "scriptPath": {"description": "A script file to run, such as the path an earlier call saved its script to. Wins over `script` and `name`.", "type": "string"},
                "resumeFromRunId": {"description": "The run id of an earlier run of this session to resume: its unchanged agent() calls are not run again.", "type": "string", "pattern": "^wf_[a-z0-9-]{6,}$"},
            },
            "additionalProperties": false,
        })
    }

    /// `args` sent as a JSON list or object in a string is taken as that value (2.1.235 does).
    fn coerce_input(&self, input: &Value) -> Option<Value> {
        let text = input.get("args")?.as_str()?;
        let trimmed = text.trim_start();
        if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
            return None;
        }
        let parsed: Value = serde_json::from_str(text).ok()?;
        if !(parsed.is_object() || parsed.is_array()) {
            return None;
        }
        let mut coerced = input.clone();
        coerced["args"] = parsed;
        Some(coerced)
    }

    fn refine(&self, input: &Value) -> Vec<Issue> {
        let mut issues = Vec::new();
        let mut script = given(input, "script");
        if script.is_some_and(|s| s.chars().any(hidden)) {
            issues.push(custom(json!(["script"]), CONTROL_CHARS));
            // Recorded: a script that fails its own check does not count as given.
            script = None;
        }
        if script.is_none()
            && given(input, "name").is_none()
            && given(input, "scriptPath").is_none()
        {
            issues.push(custom(json!([]), MUST_PROVIDE));
        }
        issues
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let resolved = match for_validation(input, ctx) {
            Ok(resolved) => resolved,
            Err(message) => return Some(message),
        };
        let parsed = match script::parse(&resolved.script) {
            Ok(parsed) => parsed,
            Err(message) => return Some(format!("Invalid workflow script: {message}")),
        };
        if given(input, "script").is_some() && script::uses_clock(&parsed.body) {
            return Some(NONDETERMINISTIC.into());
        }
        let run_id = given(input, "resumeFromRunId")?;
        // TaskStop ends a run in the registry at once; its thread may take a moment longer.
        let task = run::active(run_id).filter(|task| {
            ctx.agents.as_ref().is_some_and(|a| {
                a.registry
                    .get(task)
                    .is_some_and(|t| t.status == crate::agents::Status::Running)
            })
        })?;
        Some(format!(
            "Workflow {run_id} is still running (task {task}). Stop it first with TaskStop({{taskId: \"{task}\"}}) before resuming."
        ))
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Checked
    }

    /// A named workflow answers to `Workflow(<name>)` rules, deny first (a deny holds even when
    /// permissions are bypassed); anything else is reviewed before it runs unless permissions
    /// are bypassed (seed 004: "named workflow 进入 Workflow(name) 的 deny/ask/allow rule；默认仍
    /// 要求审阅"; recorded).
    fn check_permissions(&self, input: &Value, ctx: &mut ToolContext) -> ToolCheck {
        // 2.1.235's review ask gives no decision reason (its permission_denied names no type).
        let review = || ToolCheck::ask(REVIEW, "");
        let name = given(input, "scriptPath").map_or_else(|| given(input, "name"), |_| None);
        let rules = &ctx.permissions.rules;
        let listed = |list: &[Rule]| {
            name.is_some_and(|n| {
                list.iter()
                    .any(|r| r.tool == "Workflow" && r.content.as_deref() == Some(n))
            })
        };
        if let Some(n) = name.filter(|_| listed(&rules.deny)) {
            return ToolCheck::Deny {
                message: format!("Workflow {n} blocked by permission rules"),
                reason: "rule".into(),
            };
        }
        if listed(&rules.ask) {
            return review();
        }
        if listed(&rules.allow) || ctx.permissions.mode == Mode::BypassPermissions {
            return ToolCheck::Allow;
        }
        review()
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let agents = ctx
            .agents
            .clone()
            .ok_or_else(|| ToolError::plain("Workflows cannot be launched here."))?;
        let resolved = for_run(input, ctx).map_err(ToolError::plain)?;
        let parsed = script::parse(&resolved.script)
            .map_err(|e| ToolError::plain(format!("Invalid workflow script: {e}")))?;
        let resume = given(input, "resumeFromRunId");
        let run_id = resume.map_or_else(store::new_run_id, str::to_owned);
        let task_id = store::new_task_id();
        let session = store::session_dir(&ctx.home, &ctx.cwd, &ctx.session_id);
        let transcript_dir = store::transcript_dir(&session, &run_id);
        // A resume reads the journal before anything starts: a corrupt one stops the launch.
        let cached = match resume {
            Some(_) => Journal::in_dir(&transcript_dir)
                .load()
                .map_err(ToolError::plain)?,
            None => Default::default(),
        };
        let script_path = match resolved.path {
            Some(path) => path,
            None => {
                let path = store::script_path(&session, &parsed.meta.name, &run_id);
                store::persist_script(&path, &resolved.script).map_err(|e| {
                    ToolError::plain(format!(
                        "Cannot save the workflow script to {}: {e}",
                        path.display()
                    ))
                })?;
                path
            }
        };
        let places = report::Places {
            task_id: &task_id,
            run_id: &run_id,
            summary: &parsed.meta.description,
            workflow_name: &parsed.meta.name,
            transcript_dir: &transcript_dir,
            script_path: &script_path,
            args: input.get("args"),
        };
        let output = ToolOutput {
            content: report::launch_text(&places),
            structured: report::launch_structured(&places),
            is_error: Some(false),
            blocks: None,
        };
        let spawner = spawn::ChildSpawner {
            agents: agents.deeper(),
            cwd: ctx.cwd.clone(),
            transcript_dir: transcript_dir.clone(),
            tool_use_id: ctx.tool_use_id.clone(),
            task_id: task_id.clone(),
            summary: parsed.meta.description.clone(),
            started: std::time::Instant::now(),
            progress: Default::default(),
        };
        run::start(
            &agents,
            run::Launch {
                task_id,
                run_id,
                meta: parsed.meta,
                script: resolved.script,
                body: parsed.body,
                script_path,
                transcript_dir,
                args: input.get("args").cloned(),
                cached,
                tool_use_id: ctx.tool_use_id.clone(),
            },
            Box::new(spawner),
        );
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_script_name_or_script_path_is_required() {
        let issues = Workflow.refine(&json!({"description": "x"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(
            issues[0].zod,
            json!({"code": "custom", "path": [], "message": MUST_PROVIDE})
        );
        assert!(Workflow.refine(&json!({"script": ""})).len() == 1);
        assert!(Workflow.refine(&json!({"name": "n"})).is_empty());
        assert!(Workflow.refine(&json!({"scriptPath": "/x.js"})).is_empty());
    }

    #[test]
    fn a_hidden_control_character_is_refused_and_the_script_counts_as_missing() {
        let issues = Workflow.refine(&json!({"script": "export const meta = {}\r\n"}));
        let zod: Vec<&Value> = issues.iter().map(|i| &i.zod).collect();
        assert_eq!(
            zod,
            [
                &json!({"code": "custom", "path": ["script"], "message": CONTROL_CHARS}),
                &json!({"code": "custom", "path": [], "message": MUST_PROVIDE})
            ]
        );
        assert!(Workflow.refine(&json!({"script": "a\tb\nc"})).is_empty());
    }

    #[test]
    fn args_sent_as_a_json_string_become_the_value() {
        let coerced = Workflow
            .coerce_input(&json!({"name": "n", "args": " [\"a\", 1]"}))
            .unwrap();
        assert_eq!(coerced["args"], json!(["a", 1]));
        assert!(Workflow
            .coerce_input(&json!({"args": "a question"}))
            .is_none());
        assert!(Workflow
            .coerce_input(&json!({"args": "[not json"}))
            .is_none());
    }
}
