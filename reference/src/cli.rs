//! Command-line parsing with the real CLI's flags and its error texts (commander.js wording,
//! recorded from 2.1.235), so a script that drives `claude -p` drives this binary the same way.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, Parser};

use crate::events::Format;
use crate::vocab::Mode;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "claude-reference",
    disable_version_flag = true,
    disable_help_subcommand = true
)]
pub struct Args {
    /// Print the response and exit; without it the session is interactive, on a terminal.
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// The prompt; read from stdin when absent.
    pub prompt: Option<String>,
    #[arg(long = "output-format", value_name = "format")]
    pub output_format: Option<String>,
    /// `text` (the prompt argument) or `stream-json` (user messages and control requests on stdin).
    #[arg(long = "input-format", value_name = "format")]
    pub input_format: Option<String>,
    /// `stdio`: permission questions go to the SDK host as `can_use_tool` control requests.
    #[arg(long = "permission-prompt-tool", hide = true, value_name = "tool")]
    pub permission_prompt_tool: Option<String>,
    #[arg(long)]
    pub verbose: bool,
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long = "session-id")]
    pub session_id: Option<String>,
    /// Go on with a saved session (its id); its file grows unless `--fork-session`.
    #[arg(short = 'r', long = "resume", value_name = "value")]
    pub resume: Option<String>,
    /// Go on with this project's most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,
    /// With `--resume` or `--continue`: the conversation goes on under a new session id, in a
    /// new file, and the original is left as it was.
    #[arg(long = "fork-session")]
    pub fork_session: bool,
    /// Write no session file.
    #[arg(long = "no-session-persistence")]
    pub no_session_persistence: bool,
    #[arg(long = "permission-mode", value_name = "mode")]
    pub permission_mode: Option<String>,
    #[arg(long = "dangerously-skip-permissions")]
    pub dangerously_skip_permissions: bool,
    #[arg(long = "max-turns")]
    pub max_turns: Option<u64>,
    #[arg(long = "mcp-config", action = ArgAction::Append)]
    pub mcp_config: Vec<String>,
    #[arg(long = "strict-mcp-config")]
    pub strict_mcp_config: bool,
    /// Every hook run is told on stream-json (`hook_started` / `hook_response`), not only
    /// SessionStart's.
    #[arg(long = "include-hook-events")]
    pub include_hook_events: bool,
    #[arg(long = "add-dir", action = ArgAction::Append)]
    pub add_dir: Vec<String>,
    #[arg(long)]
    pub brief: bool,
    #[arg(long = "plugin-dir", action = ArgAction::Append)]
    pub plugin_dir: Vec<String>,
    #[arg(long = "allowedTools", visible_alias = "allowed-tools", value_delimiter = ',', action = ArgAction::Append)]
    pub allowed_tools: Vec<String>,
    #[arg(long = "disallowedTools", visible_alias = "disallowed-tools", value_delimiter = ',', action = ArgAction::Append)]
    pub disallowed_tools: Vec<String>,
    /// `--tools`: the built-in tools on offer (`default`: all of them, empty: none).
    #[arg(long = "tools", value_delimiter = ',', action = ArgAction::Append)]
    pub tools: Option<Vec<String>>,
    #[arg(short = 'v', long = "version")]
    pub version: bool,
    /// Print the limits table and exit.
    #[arg(long, hide = true)]
    pub limits: bool,
    /// Upload one file the way Brief attachments are uploaded, print its file_uuid (or the
    /// failure reason) and exit: the whole-process path `cargo xtask bench upload` measures.
    #[arg(long = "upload-file", hide = true, value_name = "path")]
    pub upload_file: Option<String>,
}

/// A usage error, printed to stderr as is, exit 1.
#[derive(Debug)]
pub struct UsageError(pub String);

pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Args, UsageError> {
    let args = Args::try_parse_from(argv).map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => UsageError(e.to_string()),
        ErrorKind::UnknownArgument => {
            let arg = context(&e, ContextKind::InvalidArg).unwrap_or_default();
            let arg = arg.split('=').next().unwrap_or_default().to_owned();
            match context(&e, ContextKind::SuggestedArg) {
                Some(s) => UsageError(format!(
                    "error: unknown option '{arg}'\n(Did you mean {s}?)\n"
                )),
                None => UsageError(format!("error: unknown option '{arg}'\n")),
            }
        }
        _ => UsageError(format!(
            "error: {}\n",
            e.render()
                .to_string()
                .trim_start_matches("error: ")
                .lines()
                .next()
                .unwrap_or_default()
        )),
    })?;
    Ok(args)
}

fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        other => Some(other.to_string()),
    }
}

impl Args {
    pub fn format(&self) -> Result<Format, UsageError> {
        let format = match self.output_format.as_deref() {
            None | Some("text") => Format::Text,
            Some("json") => Format::Json,
            Some("stream-json") => Format::StreamJson,
            Some(other) => {
                return Err(invalid_choice(
                    "--output-format <format>",
                    other,
                    &["text", "json", "stream-json"],
                ))
            }
        };
        if format == Format::StreamJson && !self.verbose {
            return Err(UsageError(
                "Error: When using --print, --output-format=stream-json requires --verbose\n"
                    .into(),
            ));
        }
        Ok(format)
    }

    /// Whether the prompt and the host's answers come as stream-json on stdin.
    pub fn stream_input(&self) -> Result<bool, UsageError> {
        match self.input_format.as_deref() {
            None | Some("text") => Ok(false),
            Some("stream-json") => {
                if self.output_format.as_deref() != Some("stream-json") {
                    return Err(UsageError(
                        "Error: --input-format=stream-json requires output-format=stream-json.\n"
                            .into(),
                    ));
                }
                Ok(true)
            }
            Some(other) => Err(invalid_choice(
                "--input-format <format>",
                other,
                &["text", "stream-json"],
            )),
        }
    }

    pub fn mode(&self) -> Result<Mode, UsageError> {
        if self.dangerously_skip_permissions {
            return Ok(Mode::BypassPermissions);
        }
        match self.permission_mode.as_deref() {
            None => Ok(Mode::Default),
            Some(m) => Mode::parse(m)
                .ok_or_else(|| invalid_choice("--permission-mode <mode>", m, Mode::CHOICES)),
        }
    }
}

fn invalid_choice(option: &str, value: &str, choices: &[&str]) -> UsageError {
    UsageError(format!(
        "error: option '{option}' argument '{value}' is invalid. Allowed choices are {}.\n",
        choices.join(", ")
    ))
}
