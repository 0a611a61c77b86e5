//! A question put to the user about a tool call, what the permission decision knows about it,
//! and the answer; the texts a turn the user stopped at a question leaves behind.

use std::path::PathBuf;

use serde_json::Value;

/// What the user is asked about a call, as the control protocol's `can_use_tool` carries it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompt {
    /// The refusal's text when nobody can be asked.
    pub unanswered: String,
    /// What "allow always" could keep (`permission_suggestions`); `Some` of an empty list when
    /// the question carries the key with nothing in it (a file write's in acceptEdits).
    pub suggestions: Option<Vec<Value>>,
    pub blocked_path: Option<PathBuf>,
    pub reason: Option<String>,
    pub reason_type: Option<&'static str>,
    /// A safety check an automatic classifier may answer (`classifier_approvable`): 2.1.235's
    /// sensitive-file checks are, its ClaudeDesign and worktree checks are not.
    pub approvable: bool,
    /// What the tool's own check says on the card (a ClaudeDesign consent or grant text).
    pub message: Option<String>,
    /// The question's own description for a host (`description`), where the tool words it
    /// (an Artifact asset action's); else the call is described by its input.
    pub description: Option<String>,
    /// "Allow always" is not offered: only this one call is answered
    /// (`suppress_always_allow_rule`).
    pub suppress_always_allow: bool,
    /// Only a person may answer, never an automatic approver (`requires_user_interaction`).
    pub requires_interaction: bool,
}

/// One question to the user about a tool call.
pub struct Ask<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    pub tool_use_id: &'a str,
    /// What the call is about in a few words (Bash's `description`, a file's name).
    pub description: Option<String>,
    /// The tool's own description, which a card without a layout of its own quotes.
    pub about: &'a str,
    /// What the permission decision knows: the rules "allow always" would keep, the blocked
    /// path, the reason it asks.
    pub prompt: &'a Prompt,
    /// Only a person can answer it, whatever the rules say (AskUserQuestion, ExitPlanMode).
    pub interactive: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Go ahead, with the input the user may have changed, keeping the updates the user accepted
    /// (`updatedPermissions`: rules, a mode, directories).
    Allow {
        input: Option<Value>,
        keep: Vec<Value>,
    },
    /// Refused; the model is told `message` and the turn goes on.
    Deny { message: String },
    /// Refused and the turn stopped: the user wants to say what to do instead.
    Interrupt,
    /// The answer could not be had or used; the model is told this text.
    Failed(String),
}

/// A tool result's text when the user stopped the turn at a prompt.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
/// The user message that follows such a result.
pub const INTERRUPTED_FOR_TOOL: &str = "[Request interrupted by user for tool use]";
