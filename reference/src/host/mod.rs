//! Who answers for the user. Under `-p` nobody does: a call that needs a decision is refused with
//! the text the mode gives. An SDK host answers `can_use_tool` requests over the control protocol
//! on stdin/stdout (`control`); a person answers cards at a terminal (`terminal`). The tools only
//! a person can answer (AskUserQuestion, EnterPlanMode, ExitPlanMode) are offered only when
//! someone can, as 2.1.235 offers them only with a permission-prompt tool.

pub mod control;
pub mod terminal;

use serde_json::Value;

use crate::permissions::Prompt;

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

pub trait Host: Send + Sync {
    fn ask(&self, ask: &Ask) -> Reply;
}

/// A tool result's text when the user stopped the turn at a prompt.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
/// The user message that follows such a result.
pub const INTERRUPTED_FOR_TOOL: &str = "[Request interrupted by user for tool use]";
