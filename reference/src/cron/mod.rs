//! Scheduled prompts (seed 004 §Cron, "调度不是后台 sleep"): CronCreate, CronList and CronDelete
//! keep jobs in a store; a scheduler fires a job's prompt only when the session is idle.
//!
//! `expr` parses the 5-field expression and finds its next match in local time, `human` names
//! common shapes, `fire` adds the deterministic offsets and the maximum age, `store` holds the
//! jobs (session memory or the project's durable file), `clock` says what "now" and "local" are.
//! The tools are `tools/cron.rs`.

pub mod clock;
pub mod expr;
pub mod fire;
pub mod human;
pub mod store;

pub use clock::Clock;
pub use store::{Job, NewJob, Store};

/// The cron tools are in tools[]: not switched off by `CLAUDE_CODE_DISABLE_CRON` (any value the
/// CLI reads as true; recorded on 2.1.235: `0` and `false` leave them on), and not deferred —
/// like every deferred tool they leave request 1 when tool search is on (recorded).
pub fn offered() -> bool {
    let disabled =
        std::env::var("CLAUDE_CODE_DISABLE_CRON").is_ok_and(|v| crate::brief::lane::truthy(&v));
    // The same test main.rs makes for NotebookEdit.
    let tool_search = std::env::var("ENABLE_TOOL_SEARCH")
        .is_ok_and(|v| matches!(v.as_str(), "true" | "1") || v.starts_with("auto"));
    !disabled && !tool_search
}
