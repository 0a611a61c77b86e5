//! CronCreate, CronList, CronDelete: schedule a prompt, see what is scheduled, cancel by id. The
//! jobs and their timing are `crate::cron`; this file is the three tools' inputs, checks and the
//! texts 2.1.235 answers with (recorded: exp.cron-1 … exp.cron-9).

use serde_json::{json, Value};
use unicode_width::UnicodeWidthChar;

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::cron::{expr::Cron, human, NewJob};
use crate::limits;

pub struct CronCreate;
pub struct CronList;
pub struct CronDelete;

impl Tool for CronCreate {
    fn name(&self) -> &'static str {
        "CronCreate"
    }

    fn description(&self) -> &'static str {
        "Schedules a prompt to be run later by this agent, on a standard 5-field cron expression \
         in the user's local time zone: recurring (the default) until cancelled or expired, or \
         once at the next match with recurring: false. Jobs only run while the session is idle, \
         and their times are spread by a small deterministic offset. Session-only unless durable: \
         true, which keeps the job in the project's .claude/scheduled_tasks.json across restarts."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "cron": {"description": "Minute, hour, day of month, month, day of week, in local time (e.g. \"0 9 * * 1-5\").", "type": "string"},
                "prompt": {"description": "What to run when the job fires.", "type": "string"},
                "recurring": {"description": "Fire on every match (default true); false fires once, then deletes the job.", "type": "boolean"},
                "durable": {"description": "Keep the job in .claude/scheduled_tasks.json across sessions (default false: this session only).", "type": "boolean"},
            }),
            &["cron", "prompt"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    /// `"true"` / `"false"` strings for the two flags are read as booleans, as 2.1.235's schema
    /// does (recorded: exp.cron-3 scheduled a durable one-shot from `recurring: "false"`,
    /// `durable: "true"`).
    fn coerce_input(&self, input: &Value) -> Option<Value> {
        let mut coerced = input.clone();
        let mut changed = false;
        for key in ["recurring", "durable"] {
            let flag = match coerced.get(key).and_then(Value::as_str) {
                Some("true") => true,
                Some("false") => false,
                _ => continue,
            };
            coerced[key] = json!(flag);
            changed = true;
        }
        changed.then_some(coerced)
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let expr = input["cron"].as_str().unwrap_or_default();
        let Some(cron) = Cron::parse(expr) else {
            return Some(format!(
                "Invalid cron expression '{expr}'. Expected 5 fields: M H DoM Mon DoW."
            ));
        };
        let now = match ctx.cron.clock.now_ms() {
            Ok(now) => now,
            Err(e) => return Some(e),
        };
        if cron.next_after(now, ctx.cron.clock.zone()).is_none() {
            return Some(format!(
                "Cron expression '{expr}' does not match any calendar date in the next year."
            ));
        }
        match ctx.cron.jobs() {
            Err(e) => Some(e),
            Ok(jobs) if jobs.len() >= limits::CRON_MAX_JOBS.usize() => Some(format!(
                "Too many scheduled jobs (max {}). Cancel one first.",
                limits::CRON_MAX_JOBS.get()
            )),
            Ok(_) => None,
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let expr = input["cron"].as_str().unwrap_or_default();
        let recurring = input["recurring"].as_bool().unwrap_or(true);
        let durable = input["durable"].as_bool().unwrap_or(false);
        let now = ctx.cron.clock.now_ms().map_err(ToolError::wrapped)?;
        let new = NewJob {
            cron: expr,
            prompt: input["prompt"].as_str().unwrap_or_default(),
            recurring,
            durable,
        };
        let id = ctx.cron.add(new, now).map_err(ToolError::wrapped)?;
        let schedule = human::describe(expr);
        let kept = if durable {
            "Persisted to .claude/scheduled_tasks.json"
        } else {
            "Session-only (not written to disk, dies when Claude exits)"
        };
        let content = if recurring {
            format!(
                "Scheduled recurring job {id} ({schedule}). {kept}. Auto-expires after {} days. Use CronDelete to cancel sooner.",
                limits::CRON_RECURRING_MAX_AGE.get() / 86_400_000
            )
        } else {
            format!("Scheduled one-shot task {id} ({schedule}). {kept}. It will fire once then auto-delete.")
        };
        Ok(ToolOutput {
            content,
            structured: json!({"id": id, "humanSchedule": schedule, "recurring": recurring, "durable": durable}),
            is_error: None,
            blocks: None,
        })
    }
}

impl Tool for CronList {
    fn name(&self) -> &'static str {
        "CronList"
    }

    fn description(&self) -> &'static str {
        "Shows the scheduled jobs this session can see: the project's durable jobs and this \
         session's own, each with its id, schedule, prompt and whether it recurs."
    }

    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, _input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let jobs = ctx.cron.jobs().map_err(ToolError::wrapped)?;
        let lines: Vec<String> = jobs
            .iter()
            .map(|j| {
                format!(
                    "{} \u{2014} {}{}{}: {}",
                    j.id,
                    human::describe(&j.cron),
                    if j.recurring {
                        " (recurring)"
                    } else {
                        " (one-shot)"
                    },
                    if j.durable { "" } else { " [session-only]" },
                    first_line_cut(&j.prompt, limits::CRON_LIST_PROMPT_WIDTH.usize()),
                )
            })
            .collect();
        let content = if lines.is_empty() {
            "No scheduled jobs.".to_owned()
        } else {
            lines.join("\n")
        };
        // `recurring` only when true, `durable` only when false: the keys 2.1.235 sends.
        let listed: Vec<Value> = jobs
            .iter()
            .map(|j| {
                let mut job = json!({"id": j.id, "cron": j.cron, "humanSchedule": human::describe(&j.cron), "prompt": j.prompt});
                if j.recurring {
                    job["recurring"] = json!(true);
                }
                if !j.durable {
                    job["durable"] = json!(false);
                }
                job
            })
            .collect();
        Ok(ToolOutput {
            content,
            structured: json!({ "jobs": listed }),
            is_error: None,
            blocks: None,
        })
    }
}

impl Tool for CronDelete {
    fn name(&self) -> &'static str {
        "CronDelete"
    }

    fn description(&self) -> &'static str {
        "Cancels a scheduled job by the id CronCreate gave it, durable or session-only."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({"id": {"description": "The id CronCreate returned.", "type": "string"}}),
            &["id"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let id = input["id"].as_str().unwrap_or_default();
        match ctx.cron.jobs() {
            Err(e) => Some(e),
            Ok(jobs) if !jobs.iter().any(|j| j.id == id) => {
                Some(format!("No scheduled job with id '{id}'"))
            }
            Ok(_) => None,
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input["id"].as_str().unwrap_or_default();
        ctx.cron.remove(id).map_err(ToolError::wrapped)?;
        Ok(ToolOutput {
            content: format!("Cancelled job {id}."),
            structured: json!({ "id": id }),
            is_error: None,
            blocks: None,
        })
    }
}

/// A prompt as one listing line shows it: its first line (with `…` when more lines follow),
/// cut to `width` terminal columns with `…` (2.1.235 measures display width, so wide characters
/// count twice).
fn first_line_cut(prompt: &str, width: usize) -> String {
    let w = |s: &str| -> usize { s.chars().map(|c| c.width().unwrap_or(0)).sum() };
    let cut = |s: &str| -> String {
        if w(s) <= width {
            return s.to_owned();
        }
        let mut out = String::new();
        let mut used = 0;
        for c in s.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width.saturating_sub(1) {
                break;
            }
            out.push(c);
            used += cw;
        }
        out + "\u{2026}"
    };
    match prompt.split_once('\n') {
        Some((first, _)) if w(first) + 1 > width => cut(&format!("{first}\u{2026}")),
        Some((first, _)) => format!("{first}\u{2026}"),
        None => cut(prompt),
    }
}

#[cfg(test)]
mod tests {
    use super::first_line_cut;

    #[test]
    fn listing_cuts_prompts_as_recorded() {
        // exp.cron-3 on 2.1.235: 100 digits → 79 and `…`; exactly 80 kept; a second line → `…`.
        let hundred: String = "0123456789".repeat(10);
        assert_eq!(
            first_line_cut(&hundred, 80),
            format!("{}\u{2026}", &hundred[..79])
        );
        assert_eq!(first_line_cut(&hundred[..80], 80), &hundred[..80]);
        assert_eq!(
            first_line_cut("first line\nsecond line", 80),
            "first line\u{2026}"
        );
        assert_eq!(first_line_cut("", 80), "");
        // Wide characters take two columns.
        let wide = "\u{65e5}".repeat(50);
        assert_eq!(
            first_line_cut(&wide, 80),
            format!("{}\u{2026}", "\u{65e5}".repeat(39))
        );
    }
}
