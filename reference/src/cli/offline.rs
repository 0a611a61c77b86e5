//! The options 2.1.235 has that the reference accepts and sets aside: each one's effect needs
//! something a conformance run does not have (claude.ai's cloud, an IDE, Chrome, a tmux, a
//! terminal's screen reader, a debug log nobody reads) or is not built yet. Accepting them
//! keeps a script or an SDK that passes one running on both targets; the list is checked against
//! 2.1.235's `--help` (tests/it/cli.rs), so a new option in the contract is noticed.

use clap::{ArgAction, Args};

#[derive(Debug, Clone, Default, Args)]
pub struct Offline {
    // Not built yet: accepted so an SDK's command line starts, without its effect.
    /// Bypass offered but not on: the reference has no mode picker to offer it in.
    #[arg(long = "allow-dangerously-skip-permissions")]
    pub allow_dangerously_skip_permissions: bool,
    /// The compaction window; `CLAUDE_CODE_AUTO_COMPACT_WINDOW` is the switch the reference reads.
    #[arg(long, value_name = "auto|tokens")]
    pub autocompact: Option<String>,
    #[arg(long = "ax-screen-reader")]
    pub ax_screen_reader: bool,
    /// A background agent managed by `claude agents`: claude.ai's, not built.
    #[arg(long = "bg", visible_alias = "background")]
    pub background: bool,
    #[arg(long)]
    pub bare: bool,
    #[arg(long)]
    pub chrome: bool,
    #[arg(long = "no-chrome")]
    pub no_chrome: bool,
    /// claude.ai cloud sessions: not reachable offline.
    #[arg(long, num_args = 0..=1, value_name = "description|session_id|url")]
    pub cloud: Option<Option<String>>,
    #[arg(short = 'd', long, num_args = 0..=1, value_name = "filter")]
    pub debug: Option<Option<String>>,
    #[arg(long = "debug-file", value_name = "path")]
    pub debug_file: Option<String>,
    /// The SDK's `debug` with stderr as the log.
    #[arg(long = "debug-to-stderr", hide = true)]
    pub debug_to_stderr: bool,
    #[arg(long = "disable-slash-commands")]
    pub disable_slash_commands: bool,
    #[arg(long, value_name = "environment_id")]
    pub environment: Option<String>,
    #[arg(long = "exclude-dynamic-system-prompt-sections")]
    pub exclude_dynamic_system_prompt_sections: bool,
    /// Files downloaded from the Files API at start: not built.
    #[arg(long, num_args = 1.., value_name = "specs")]
    pub file: Vec<String>,
    #[arg(long = "forward-subagent-text")]
    pub forward_subagent_text: bool,
    #[arg(long = "from-pr", num_args = 0..=1, value_name = "value")]
    pub from_pr: Option<Option<String>>,
    #[arg(long)]
    pub ide: bool,
    #[arg(short = 'n', long, value_name = "name")]
    pub name: Option<String>,
    #[arg(long = "plugin-url", action = ArgAction::Append, value_name = "url")]
    pub plugin_url: Vec<String>,
    /// Plugins whose MCP servers are not discovered (the TS SDK's `skipMcpDiscovery`).
    #[arg(long = "plugin-dir-no-mcp", action = ArgAction::Append, hide = true, value_name = "path")]
    pub plugin_dir_no_mcp: Vec<String>,
    #[arg(long = "prompt-suggestions", num_args = 0..=1, value_name = "value")]
    pub prompt_suggestions: Option<Option<String>>,
    #[arg(long = "remote-control", num_args = 0..=1, value_name = "name")]
    pub remote_control: Option<Option<String>>,
    #[arg(long = "remote-control-session-name-prefix", value_name = "prefix")]
    pub remote_control_session_name_prefix: Option<String>,
    #[arg(long = "safe-mode")]
    pub safe_mode: bool,
    #[arg(long, num_args = 0..=1, value_name = "session")]
    pub teleport: Option<Option<String>>,
    #[arg(long, num_args = 0..=1, require_equals = true, value_name = "classic")]
    pub tmux: Option<Option<String>>,
    #[arg(short = 'w', long, num_args = 0..=1, value_name = "name")]
    pub worktree: Option<Option<String>>,
    /// The SDK's session mirror (a claude.ai transcript store).
    #[arg(long = "session-mirror", hide = true)]
    pub session_mirror: bool,
    /// The SDK's managed (policy) settings, given inline.
    #[arg(long = "managed-settings", hide = true, value_name = "json")]
    pub managed_settings: Option<String>,
    #[arg(long, action = ArgAction::Append, hide = true, value_name = "channel")]
    pub channels: Vec<String>,
    /// The SDK's `resumeSessionAt` (resume up to a message): not built.
    #[arg(long = "resume-session-at", hide = true, value_name = "message id")]
    pub resume_session_at: Option<String>,
    #[arg(long = "resume-drops-turn", hide = true, value_name = "bool")]
    pub resume_drops_turn: Option<String>,
}
