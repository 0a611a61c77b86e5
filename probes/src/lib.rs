//! The harness: scenario files, targets, one run of a scenario against a target with every wire
//! recorded, the normalized trace, declarative checks, snapshots and reports.
//!
//! Architecture invariant: a target is touched only through its process, its stdio, its files and
//! the stubs' sockets. Nothing here links the reference agent.

pub mod account;
pub mod atomic;
pub mod bubblewrap;
pub mod cargo;
pub mod check;
pub mod coverage;
pub mod git;
pub mod hooks;
pub mod host;
pub mod isolation;
pub mod mcp;
pub mod media;
pub mod mutate;
pub mod outcome;
pub mod parity;
pub mod placeholders;
pub mod probe;
pub mod process;
pub mod record;
pub mod registry;
pub mod reminders;
pub mod render;
pub mod report;
pub mod run;
pub mod scenario;
pub mod schedule;
pub mod secrets;
pub mod sessions;
pub mod snapshot;
pub mod target;
pub mod trace;
pub mod version;
pub mod wire;

pub use check::{evaluate, CheckOutcome};
pub use outcome::RunOutcome;
pub use probe::{probe, Probe};
pub use report::{Report, Status};
pub use run::run_scenario;
pub use scenario::{load_dir, Scenario};
pub use secrets::Secrets;
pub use target::Target;
