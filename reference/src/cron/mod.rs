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

/// The cron tools are on offer unless switched off by `CLAUDE_CODE_DISABLE_CRON` (any value the
/// CLI reads as true; recorded on 2.1.235: `0` and `false` leave them on). Under tool search they
/// are deferred (`tools/tool_search`): on offer, out of tools[] until loaded.
pub fn offered() -> bool {
    !crate::environment::switched_on("CLAUDE_CODE_DISABLE_CRON")
}
