//! The reference agent: a drop-in for the real CLI's non-interactive mode that implements what the
//! seeds document, exactly. The harness sees it only as a process, like the real binary.

pub mod account;
pub mod agent;
pub mod agents;
pub mod api;
pub mod artifact;
pub mod brief;
pub mod child;
pub mod cli;
pub mod config;
pub mod context;
pub mod cron;
pub mod design;
pub mod directories;
pub mod environment;
pub mod events;
pub mod hooks;
pub mod host;
pub mod json;
pub mod limits;
pub mod lsp;
pub mod mcp;
pub mod net;
pub mod notifications;
pub mod permissions;
pub mod projects;
pub mod sandbox;
pub mod search;
pub mod startup;
pub mod tools;
pub mod transcript;
pub mod upload;
pub mod vocab;
pub mod web_fetch;
pub mod workflow;
pub mod worktree;

/// The version of the real CLI whose contract this agent implements.
pub const CONTRACT_VERSION: &str = "2.1.235";

/// Named exit statuses, as the real binary uses them.
pub mod exit {
    pub const SUCCESS: i32 = 0;
    /// Usage errors, API errors, max turns.
    pub const FAILURE: i32 = 1;
}
