//! What a tool call does to the world, for the permission decision, and how a call that did
//! not do its work failed.

use std::path::PathBuf;

use super::question::REJECTED;

/// What a call does to the world, for the permission decision.
pub enum Access {
    ReadFile(PathBuf),
    /// `verb` completes "cannot be …" in the deny-rule message: `edited` or `written`.
    WriteFile {
        path: PathBuf,
        verb: &'static str,
    },
    Execute(String),
    /// A command let out of the sandbox (`dangerouslyDisableSandbox`): judged as `Execute`,
    /// except that what only the mode would allow is put to the user (recorded:
    /// sandbox.escape/modes).
    Unsandboxed(String),
    /// A tool of an MCP server, by its wire name.
    Mcp(String),
    /// A page fetched from this host (WebFetch): rules may name the domain.
    Fetch(String),
    /// Only the session's own state (the todo list).
    Session,
    /// The tool decides itself (`Tool::check_permissions`), after the deny and ask rules.
    Checked,
}

/// A failed call. `wrap` puts the message in `<tool_use_error>` tags, as most failures are.
#[derive(Debug)]
pub struct ToolError {
    pub message: String,
    pub wrap: bool,
    /// The `tool_use_result` when it is not `Error: <message>`.
    pub structured: Option<String>,
    pub kind: Failure,
}

/// Why a call did not do its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// It failed.
    Error,
    /// The user refused it (a denial: counted, no event).
    Denied,
    /// The user refused it and stopped the turn.
    Interrupted,
}

impl ToolError {
    pub fn wrapped(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            wrap: true,
            structured: None,
            kind: Failure::Error,
        }
    }
    pub fn plain(message: impl Into<String>) -> Self {
        ToolError {
            wrap: false,
            ..ToolError::wrapped(message)
        }
    }
    /// The user said no, and why.
    pub fn denied(message: impl Into<String>) -> Self {
        ToolError {
            kind: Failure::Denied,
            ..ToolError::plain(message)
        }
    }
    /// The user said no and stopped the turn.
    pub fn interrupted() -> Self {
        ToolError {
            kind: Failure::Interrupted,
            structured: Some("User rejected tool use".into()),
            ..ToolError::plain(REJECTED)
        }
    }
}
