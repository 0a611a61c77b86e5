//! What kind of `<system-reminder>` a block is, so two targets' first messages compare by which
//! reminders they send and in which order, not by the length of prose each writes in its own
//! words. The reference words its reminders itself, so each kind lists the phrase that marks it in
//! 2.1.235 and in the reference; a reminder no kind knows is shown by its length and so still
//! differs between targets until someone names it here. The other texts a client writes into a
//! user message in its own words (a helper's instructions, a note it adds) are named the same
//! way (`prose_kind`).

/// What marks 2.1.332's note that configured MCP servers failed to connect.
pub const UNAVAILABLE_PHRASE: &str = "are configured but failed to connect";

/// `(label, phrases)`: a reminder containing any phrase is of that kind; the first kind wins.
const KINDS: &[(&str, &[&str])] = &[
    ("total-tokens", &["<total_tokens>"]),
    (
        "agent-types",
        &[
            "Available agent types for the Agent tool",
            "Agent types the Agent tool can launch",
        ],
    ),
    (
        "skills",
        &["The following skills are available for use with the Skill tool"],
    ),
    (
        "context",
        &[
            "As you answer the user's questions, you can use the following context",
            "Context for this session, from the user's and the project's files",
        ],
    ),
    (
        "deferred-tools",
        &[
            "The following deferred tools are now available via ToolSearch",
            "These tools exist but their schemas are not loaded yet",
        ],
    ),
    (
        "task-notification",
        &[
            "[SYSTEM NOTIFICATION - NOT USER INPUT]",
            "A background task of this session changed state",
            "A notification from outside this session arrived",
        ],
    ),
    (
        "task-tools-unused",
        &[
            "The task tools haven't been used recently",
            "No task tool has been called for a while",
        ],
    ),
    ("plan-mode", &["Plan mode is active", "Planning mode is on"]),
    ("mcp-unavailable", &[UNAVAILABLE_PHRASE]),
    // 2.1.332 appends it after a result that moved the working directory (EnterWorktree, cd).
    ("environment-update", &["# Environment update"]),
    (
        "plan-mode-exited",
        &["## Exited Plan Mode", "Planning mode has ended"],
    ),
    ("file-changed", &["changed on disk since you last read it"]),
    (
        "mcp-instructions",
        &[
            "# MCP Server Instructions",
            "# Instructions from MCP servers",
        ],
    ),
    (
        "agent-mail",
        &["A message from the agent that launched you arrived"],
    ),
    ("file-contents", &["Contents of "]),
];

/// `(label, openings)`: a user-message text that is a client's own prose, by how it opens in
/// 2.1.235 and in the reference (leading white space aside).
const PROSE: &[(&str, &[&str])] = &[
    // WebFetch's helper request: the page between `---` fences, then the instructions.
    ("web-fetch-page", &["Web page content:\n---"]),
    (
        "web-search-query",
        &[
            "Perform a web search for the query:",
            "Run a web search for this query:",
        ],
    ),
    (
        "brief-turn-end",
        &["You ended the turn without calling SendUserMessage."],
    ),
    ("local-command-caveat", &["<local-command-caveat>"]),
];

/// The kind of a user-message text that is a client's own prose, or `None` for any other text.
pub fn prose_kind(text: &str) -> Option<&'static str> {
    let text = text.trim_start();
    PROSE
        .iter()
        .find(|(_, openings)| openings.iter().any(|o| text.starts_with(o)))
        .map(|(label, _)| *label)
}

/// The kinds a client appends to the last tool_result of a round, after the tool's own text. Not
/// `agent-mail`: a message for an agent arrives in its tool result, and checks read it there.
pub const APPENDED: &[&str] = &[
    "total-tokens",
    "task-tools-unused",
    "plan-mode-exited",
    "plan-mode",
    "skills",
    "mcp-instructions",
    "agent-types",
    "task-notification",
    "deferred-tools",
    "environment-update",
    "mcp-unavailable",
];

/// The kind's label, or `None` for a reminder no kind knows.
pub fn kind(text: &str) -> Option<&'static str> {
    KINDS
        .iter()
        .find(|(_, phrases)| phrases.iter().any(|p| text.contains(p)))
        .map(|(label, _)| *label)
}

/// `system-reminder(kind)`, or `system-reminder(N chars)` when no kind knows it.
pub fn label(text: &str) -> String {
    match kind(text) {
        Some(kind) => format!("system-reminder({kind})"),
        None => format!("system-reminder({} chars)", text.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_kind_is_named_alike_in_either_wording() {
        let real = "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# currentDate\n</system-reminder>";
        let ours = "<system-reminder>\nContext for this session, from the user's and the project's files:\n# currentDate\n</system-reminder>";
        assert_eq!(label(real), "system-reminder(context)");
        assert_eq!(label(ours), label(real));
    }

    #[test]
    fn an_unknown_reminder_shows_its_length_so_it_still_differs() {
        let text = "<system-reminder>\nsomething new\n</system-reminder>";
        assert_eq!(
            label(text),
            format!("system-reminder({} chars)", text.len())
        );
    }

    #[test]
    fn a_clients_own_prose_is_named_by_how_it_opens_in_either_wording() {
        let real = "Perform a web search for the query: rust";
        let ours = "Run a web search for this query: rust";
        assert_eq!(prose_kind(real), Some("web-search-query"));
        assert_eq!(prose_kind(ours), prose_kind(real));
        assert_eq!(
            prose_kind("\nWeb page content:\n---\npage\n---\n\nSummarize"),
            Some("web-fetch-page")
        );
        assert_eq!(
            prose_kind("Please run a web search for this query: rust"),
            None
        );
        assert_eq!(prose_kind("read a.txt"), None);
    }

    #[test]
    fn the_budget_wins_over_a_phrase_it_might_quote() {
        let text = "<system-reminder>\n<total_tokens>100 tokens left</total_tokens> Contents of x\n</system-reminder>";
        assert_eq!(kind(text), Some("total-tokens"));
    }
}
