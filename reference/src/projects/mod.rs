//! Projects (seed 000 part B): one tool bound to the claude.ai Project the session was started in
//! (`CLAUDE_PROJECT_UUID`), with five fixed methods and no way to name another Project. `auth`
//! finds the credential (a remote session's token, else the login, expanded once to the project
//! scopes), `api` is the two transports, `dispatch` the five methods, `paths` the namespace rule
//! and the knowledge budget, `local_path` the TOCTOU-safe read of a workspace file to upload, and
//! `context` the attached-project block of the first message. The tool is `tools/projects.rs`.

pub mod api;
pub mod auth;
pub mod context;
pub mod dispatch;
pub mod local_path;
pub mod paths;

use std::path::Path;

pub const TOOL_NAME: &str = "Projects";

/// The attached Project's id as the session environment gives it (an empty value is none, as
/// 2.1.235 reads its environment).
pub fn attached() -> Option<String> {
    std::env::var("CLAUDE_PROJECT_UUID")
        .ok()
        .filter(|p| !p.is_empty())
}

/// Whether the tool is offered: the organization's policy allows it and a Project is attached.
pub fn enabled(home: &Path) -> bool {
    crate::account::policy::allows(home, auth::POLICY_KEY) && attached().is_some()
}

/// The precondition a call without a Project fails.
pub const NOT_ATTACHED: &str = "No project attached to this session. Project tools are available when the session is started inside a claude.ai Project.";
