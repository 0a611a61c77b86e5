//! ScheduleWakeup: the dynamic `/loop`'s pacing, a delay before the loop's next tick, or its end
//! with `stop`. Not in seed 004; 2.1.235 offers it in every session (deferred under tool search)
//! behind a runtime gate that is off unless its service turns it on, so a wakeup is never
//! scheduled: the reference has no loop runtime and answers as 2.1.235 does with the gate off
//! (recorded: recon parity15 exp.sw-1).

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};

pub struct ScheduleWakeup;

const NOT_SCHEDULED: &str = "Wakeup not scheduled. Either the /loop dynamic runtime gate is off or the loop reached its maximum duration \u{2014} the loop has ended; do not re-issue.";
const STOPPED: &str = "Loop stopped \u{2014} any dynamic loop in this session is ended; there was no pending wakeup to cancel. If you are running a fixed-interval /loop (a recurring cron), it is NOT stopped by this call \u{2014} cancel it with CronDelete. If you armed a Monitor for this loop, TaskStop it now; otherwise nothing more to do this turn.";

impl Tool for ScheduleWakeup {
    fn name(&self) -> &'static str {
        "ScheduleWakeup"
    }

    fn description(&self) -> &'static str {
        "Paces a self-paced /loop: picks how long to wait before the loop's next turn, or ends the \
         loop with `stop: true`. A fixed-interval loop is a cron job instead; CronDelete ends it."
    }

    fn input_schema(&self) -> Value {
        let (min, max) = (
            limits::SCHEDULE_WAKEUP_MIN_DELAY.get() / 1000,
            limits::SCHEDULE_WAKEUP_MAX_DELAY.get() / 1000,
        );
        object_schema(
            json!({
                "delaySeconds": {"description": format!("How long to wait, in seconds; kept within {min} to {max}. Needed unless `stop`."), "type": "number"},
                "reason": {"description": "Why this delay, in one sentence the user sees. Needed unless `stop`.", "type": "string"},
                "prompt": {"description": "The /loop input to run again on waking, the same each time. Needed unless `stop`.", "type": "string"},
                "stop": {"description": "True ends the loop now; the other fields are then ignored.", "type": "boolean"},
            }),
            &[],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::SCHEDULE_WAKEUP_RESULT_BUDGET)
    }

    /// A number sent as a numeric string is taken as the number (2.1.235's lenient number:
    /// trimmed, an optional sign, digits, an optional fraction); any other string is left for
    /// the schema to refuse.
    fn coerce_input(&self, input: &Value) -> Option<Value> {
        let text = input.get("delaySeconds")?.as_str()?.trim();
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "1"));
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !numeric(whole) || !numeric(fraction) {
            return None;
        }
        let n: f64 = text.trim_start_matches('+').parse().ok()?;
        let mut out = input.clone();
        out["delaySeconds"] = serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null);
        Some(out)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, _ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        answer(input)
    }
}

fn answer(input: &Value) -> Result<ToolOutput, ToolError> {
    if input["stop"] == Value::Bool(true) {
        // Nothing can be pending: no wakeup is ever scheduled here.
        return Ok(output(
            STOPPED,
            json!({"scheduledFor": 0, "clampedDelaySeconds": 0, "wasClamped": false, "stopped": true, "cancelledWakeups": 0}),
        ));
    }
    // 2.1.235's own checks, in its order, as plain (untagged) errors.
    if input.get("delaySeconds").is_none() || input.get("reason").is_none() {
        return Err(ToolError::plain(
            "`delaySeconds` and `reason` are required when `stop` is not true.",
        ));
    }
    if input.get("prompt").is_none() {
        return Err(ToolError::plain(
            "`prompt` is required when `stop` is not true.",
        ));
    }
    Ok(output(
        NOT_SCHEDULED,
        json!({"scheduledFor": 0, "clampedDelaySeconds": 0, "wasClamped": false}),
    ))
}

fn output(content: &str, structured: Value) -> ToolOutput {
    ToolOutput {
        content: content.to_owned(),
        structured,
        is_error: None,
        blocks: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_are_named_in_2_1_235s_order() {
        let err = answer(&json!({"delaySeconds": 5, "prompt": "p"}))
            .err()
            .expect("refused");
        assert!(err.message.starts_with("`delaySeconds` and `reason`"));
        assert!(!err.wrap);
        let err = answer(&json!({"delaySeconds": 5, "reason": "r"}))
            .err()
            .expect("refused");
        assert!(err.message.starts_with("`prompt` is required"));
    }

    #[test]
    fn numeric_strings_are_numbers_and_other_strings_are_not() {
        let coerced = ScheduleWakeup
            .coerce_input(&json!({"delaySeconds": " 90 "}))
            .expect("coerced");
        assert_eq!(coerced["delaySeconds"], 90.0);
        assert!(ScheduleWakeup
            .coerce_input(&json!({"delaySeconds": "soon"}))
            .is_none());
        assert!(ScheduleWakeup
            .coerce_input(&json!({"delaySeconds": "1."}))
            .is_none());
    }

    #[test]
    fn stop_wins_over_everything_else_and_a_wakeup_is_never_scheduled() {
        let out = answer(&json!({"stop": true})).expect("stops");
        assert_eq!(out.structured["stopped"], true);
        let out =
            answer(&json!({"delaySeconds": 90, "reason": "r", "prompt": "p"})).expect("answers");
        assert_eq!(out.structured["scheduledFor"], 0);
        assert!(out.content.starts_with("Wakeup not scheduled."));
    }
}
