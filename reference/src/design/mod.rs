//! ClaudeDesign (seed 000 part A): one local tool in front of the Design MCP session at
//! `POST /v1/design/mcp`. The gates decide whether the tool is offered (`gates`); the process-wide
//! state (`state`) holds the MCP session, the operation hints, the served catalog hashes and the
//! permission caches; `credentials` finds and refreshes the OAuth token, `transport` is the one
//! POST (allowlist, headers, caps, 401 refresh, redaction), `session` the shared initialize and
//! discovery, `catalog` the hint merge and the `list` result, `validate` the client-side argument
//! checks, `plans` the path rules behind plan tokens and durable grants, `permission` the decision,
//! `account` the consent and grants endpoints, `dispatch` one operation end to end, `result` the
//! mapping to tool_result content. The tool itself is `tools/claude_design.rs`.

mod account;
mod card;
mod catalog;
pub mod credentials;
mod dispatch;
mod error;
pub mod gates;
mod permission;
mod plans;
mod result;
mod session;
mod signal;
mod state;
mod transport;
mod validate;
#[cfg(test)]
mod wire_tests;

pub use account::Account;
pub use card::arguments_line;
pub use catalog::{client_hints, user_facing_name, Hints};
pub use dispatch::{call, operation, Facts, Flags, Outcome, Service};
pub use error::DesignError;
pub use gates::enabled;
pub use permission::{card_states_terms, check, Verdict};
pub use plans::normalize as normalize_project_path;
pub use result::map_result;
pub use signal::Signal;
pub use state::{global, DesignState};
pub use transport::{client_platform, Renew, Transport};
pub use validate::validate_input;

/// The tool's name, as the model calls it.
pub const TOOL_NAME: &str = "ClaudeDesign";
/// The operation that lists the catalog.
pub const LIST: &str = "list";
