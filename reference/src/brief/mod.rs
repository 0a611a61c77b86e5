//! Brief mode (seed 001): the model reaches the user through the SendUserMessage tool; plain
//! assistant text stays in the transcript only. This module decides whether the mode is on
//! (entitlement, then enable), supplies its system prompt section, the turn-end enforcement, and
//! the attachment path: validation, lanes, gates, the one uploader, the result texts.

pub mod attachments;
pub mod deliver;
pub mod lane;
pub mod result;

use std::path::Path;

use serde_json::Value;

use crate::environment::truthy;
pub use deliver::Delivery;

/// The tool's canonical name.
pub const TOOL: &str = "SendUserMessage";
/// Its legacy name: a turn that called it also counts as having answered.
pub const LEGACY_TOOL: &str = "Brief";

/// The meta message of the turn-end enforcement; the sentence is the real binary's (a check names
/// it), the advice after it is ours (seed 001 line 320).
pub const TURN_END_SENTINEL: &str = "You ended the turn without calling SendUserMessage.";
const TURN_END_ADVICE: &str = "Your plain text is not shown to the user. If there is something \
worth telling them, call SendUserMessage now; if there truly is nothing, you may end the turn.";

/// The first reference-only test setting of this module with a value it does not accept
/// ([`lane::HOST_SETTING`], [`deliver::SEND_FILE_POLICY_SETTING`]), as the error the binary
/// prints at startup: an unknown value never silently means the default.
pub fn test_settings_error() -> Option<String> {
    lane::host_setting()
        .err()
        .or_else(|| deliver::SendFilePolicy::from_setting().err())
}

/// How Brief mode came to be on, or why it is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Off,
    /// Asked for (flag, environment or `defaultView`) without an entitlement.
    Gated,
    On,
}

/// Entitlement, then enable, as seed 001 separates them: `CLAUDE_CODE_BRIEF` entitles and enables;
/// `--brief` and `defaultView: "chat"` enable only an entitled account.
pub fn state(flag: bool, home: &Path, cwd: &Path) -> State {
    let env = std::env::var("CLAUDE_CODE_BRIEF").is_ok_and(|v| truthy(&v));
    // The settings and the entitlement cache are read only when something asks for the mode.
    if !(flag || env || default_view_chat(home, cwd)) {
        State::Off
    } else if env || account_entitled(home) {
        State::On
    } else {
        State::Gated
    }
}

/// The account's dynamic entitlement as last cached (`tengu_kairos_brief`). 2.1.235 reads that
/// cache with telemetry off only under `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF`, which the
/// scenarios set; offline there is no other source, so this agent always reads it.
fn account_entitled(home: &Path) -> bool {
    crate::json::read_file(&crate::environment::global_config(home))
        .is_some_and(|v| v["cachedGrowthBookFeatures"]["tengu_kairos_brief"] == true)
}

fn default_view_chat(home: &Path, cwd: &Path) -> bool {
    crate::environment::settings(home, cwd)
        .iter()
        .any(|v| v["defaultView"] == "chat")
}

/// The system prompt section of Brief mode, in our own words.
pub const PROMPT_SECTION: &str = "\
# Talking to the user
The user reads only what you send with the SendUserMessage tool; your plain text stays in the \
detailed transcript. Answer every user message through it, greetings included. When you need to \
look something up first, send a one-line acknowledgement, do the work, then send the result. On \
long tasks send a checkpoint only when there is something new to say. Use status \"proactive\" \
for news the user did not ask for (a finished task, a blocker) and \"normal\" for replies.";

/// Whether the turn-end enforcement applies to this session at all.
pub fn enforcement_on(brief: State, offered_tools: &[&str], subagent: bool) -> bool {
    brief == State::On
        && !std::env::var("DISABLE_BRIEF_MODE_STOP_HOOK").is_ok_and(|v| truthy(&v))
        && !subagent
        && offered_tools.contains(&TOOL)
}

/// The meta user message the enforcement injects.
pub fn turn_end_message() -> String {
    format!("{TURN_END_SENTINEL} {TURN_END_ADVICE}")
}

/// Whether `messages` after index `since` (the turn's start) called the tool or already carry the
/// sentinel: either way the enforcement stays quiet.
pub fn turn_answered_or_reminded(messages: &[Value], since: usize) -> bool {
    messages.iter().skip(since).any(|m| {
        m["content"].as_array().into_iter().flatten().any(|b| {
            (b["type"] == "tool_use" && (b["name"] == TOOL || b["name"] == LEGACY_TOOL))
                || b["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(TURN_END_SENTINEL))
        })
    })
}
