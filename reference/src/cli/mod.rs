//! Command-line parsing with the real CLI's flags and its error texts (commander.js wording,
//! recorded from 2.1.235), so a script or an Agent SDK that drives `claude` drives this binary the
//! same way. Every option in 2.1.235's `--help` is accepted; those without an effect offline are
//! in [`offline`].

mod offline;
mod suggest;

pub use offline::Offline;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, Parser};

use crate::events::Format;
use crate::vocab::Mode;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "claude-reference",
    disable_version_flag = true,
    disable_help_subcommand = true,
    // An option given twice is no error, the last one counts (commander's way; recorded on
    // 2.1.235: --dangerously-skip-permissions twice, compact.restore/resume-auto).
    args_override_self = true
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
    /// The main loop's model, for the rest of a turn, after the API was overloaded three times
    /// in a row.
    #[arg(long = "fallback-model", value_name = "model")]
    pub fallback_model: Option<String>,
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
    /// Hidden in 2.1.235's help, as here.
    #[arg(long = "max-turns", hide = true)]
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
    /// Replaces the system prompt after the identity line (`initialize`'s `systemPrompt` too).
    #[arg(long = "system-prompt", value_name = "prompt")]
    pub system_prompt: Option<String>,
    #[arg(long = "system-prompt-file", hide = true, value_name = "file")]
    pub system_prompt_file: Option<String>,
    /// Added to the system prompt's last block, after a blank line.
    #[arg(long = "append-system-prompt", value_name = "prompt")]
    pub append_system_prompt: Option<String>,
    #[arg(long = "append-system-prompt-file", hide = true, value_name = "file")]
    pub append_system_prompt_file: Option<String>,
    #[arg(long, value_name = "level")]
    pub effort: Option<String>,
    /// Structured output: the final answer must match this JSON Schema.
    #[arg(long = "json-schema", value_name = "schema")]
    pub json_schema: Option<String>,
    #[arg(long = "max-budget-usd", value_name = "amount")]
    pub max_budget_usd: Option<String>,
    /// The SDK's `taskBudget.total`: the tokens the model is told the task may take.
    #[arg(long = "task-budget", hide = true, value_name = "tokens")]
    pub task_budget: Option<String>,
    /// `stream_event` lines with the Messages API's own events as they arrive.
    #[arg(long = "include-partial-messages")]
    pub include_partial_messages: bool,
    /// Each user message from stdin is echoed back on stdout.
    #[arg(long = "replay-user-messages")]
    pub replay_user_messages: bool,
    /// `enabled`, `adaptive` or `disabled`.
    #[arg(long, hide = true, value_name = "mode")]
    pub thinking: Option<String>,
    /// More `anthropic-beta` values; 2.1.235 lets one through and warns the others off. Each
    /// value as given (a comma in it is not a separator: recorded).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "betas")]
    pub betas: Vec<String>,
    /// Which of the user, project and local settings are read (`""`: none).
    #[arg(long = "setting-sources", value_name = "sources")]
    pub setting_sources: Option<String>,
    /// Agent types of the user's own, as a JSON object: `{"name": {"description", "prompt",
    /// "tools"?, "model"?}}`.
    #[arg(long, value_name = "json")]
    pub agents: Option<String>,
    /// The agent type the main loop runs as: a user's type gives its prompt and tools.
    #[arg(long, value_name = "agent")]
    pub agent: Option<String>,
    /// One more settings source, over the local file: a JSON object, or a settings file's path.
    #[arg(long, value_name = "file-or-json")]
    pub settings: Option<String>,
    #[arg(long = "max-thinking-tokens", hide = true, value_name = "tokens")]
    pub max_thinking_tokens: Option<String>,
    /// How thinking is shown (`summarized`, `omitted`): the request's `thinking.display`.
    #[arg(long = "thinking-display", hide = true, value_name = "display")]
    pub thinking_display: Option<String>,
    #[command(flatten)]
    pub offline: Offline,
}

/// A usage error, printed to stderr as is, exit 1.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Why the command line does not start a session.
#[derive(Debug)]
pub enum Refusal {
    /// `--help`: the text for stdout, exit 0 (as 2.1.235).
    Help(String),
    Usage(UsageError),
}

pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Args, Refusal> {
    let args = Args::try_parse_from(argv).map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp => Refusal::Help(e.to_string()),
        _ => Refusal::Usage(usage_error(&e)),
    })?;
    Ok(args)
}

fn usage_error(e: &clap::Error) -> UsageError {
    match e.kind() {
        ErrorKind::DisplayVersion => UsageError(e.to_string()),
        ErrorKind::UnknownArgument => {
            let arg = context(e, ContextKind::InvalidArg).unwrap_or_default();
            let arg = arg.split('=').next().unwrap_or_default().to_owned();
            match suggest::for_option(&arg) {
                Some(line) => UsageError(format!("error: unknown option '{arg}'\n{line}\n")),
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
    }
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

    /// `--max-budget-usd`: a positive number (2.1.235's text for anything else).
    pub fn max_budget_usd(&self) -> Result<Option<f64>, UsageError> {
        let Some(text) = &self.max_budget_usd else {
            return Ok(None);
        };
        match text.trim().parse::<f64>() {
            Ok(amount) if amount > 0.0 && amount.is_finite() => Ok(Some(amount)),
            _ => Err(UsageError(format!(
                "error: option '--max-budget-usd <amount>' argument '{text}' is invalid. --max-budget-usd must be a positive number greater than 0\n"
            ))),
        }
    }

    /// `--task-budget`: a positive integer (2.1.235's text for anything else, recorded:
    /// sdk.invocation/task-budget).
    pub fn task_budget(&self) -> Result<Option<u64>, UsageError> {
        let Some(text) = &self.task_budget else {
            return Ok(None);
        };
        match text.parse::<u64>() {
            Ok(tokens) if tokens > 0 => Ok(Some(tokens)),
            _ => Err(UsageError(format!(
                "error: option '--task-budget <tokens>' argument '{text}' is invalid. --task-budget must be a positive integer\n"
            ))),
        }
    }

    /// `--thinking`, `--max-thinking-tokens`, `--thinking-display` and `--effort`, checked as
    /// 2.1.235 checks them: an unknown effort is only warned about (on stderr) and left out.
    pub fn thinking(&self) -> Result<(crate::config::Thinking, Option<String>), UsageError> {
        const EFFORTS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];
        let mut thinking = crate::config::Thinking::default();
        if let Some(mode) = self.thinking.as_deref() {
            if !["enabled", "adaptive", "disabled"].contains(&mode) {
                return Err(invalid_choice(
                    "--thinking <mode>",
                    mode,
                    &["enabled", "adaptive", "disabled"],
                ));
            }
            thinking.disabled = mode == "disabled";
        }
        if let Some(text) = self.max_thinking_tokens.as_deref() {
            let tokens = text.trim().parse::<f64>().map_err(|_| {
                UsageError(format!(
                    "error: option '--max-thinking-tokens <tokens>' argument '{text}' is invalid. must be a number\n"
                ))
            })?;
            if tokens <= 0.0 {
                thinking.disabled = true;
            } else {
                thinking.budget = Some(tokens as u64);
            }
        }
        if let Some(display) = self.thinking_display.as_deref() {
            if !["summarized", "omitted"].contains(&display) {
                return Err(invalid_choice(
                    "--thinking-display <display>",
                    display,
                    &["summarized", "omitted"],
                ));
            }
            thinking.display = Some(display.to_owned());
        }
        let mut warning = None;
        match self.effort.as_deref() {
            Some(level) if EFFORTS.contains(&level) => thinking.effort = Some(level.to_owned()),
            Some(level) => {
                warning = Some(format!(
                    "Warning: Unknown --effort value '{level}' \u{2014} ignoring it and using the default effort. Valid values: {}.\n",
                    EFFORTS.join(", ")
                ));
            }
            None => {}
        }
        Ok((thinking, warning))
    }

    /// The `--betas` 2.1.235 sends, and a warning for each of the others (recorded:
    /// sdk.invocation/betas).
    pub fn betas(&self) -> (Vec<String>, Vec<String>) {
        const ALLOWED: &[&str] = &["context-1m-2025-08-07"];
        let (kept, refused): (Vec<&String>, Vec<&String>) = self
            .betas
            .iter()
            .partition(|b| ALLOWED.contains(&b.as_str()));
        let warnings = refused
            .iter()
            .map(|b| {
                format!(
                    "Warning: Beta header '{b}' is not allowed. Only the following betas are supported: {}\n",
                    ALLOWED.join(", ")
                )
            })
            .collect();
        (kept.into_iter().cloned().collect(), warnings)
    }

    /// The stream-json options' own requirements (2.1.235's texts).
    pub fn stream_options(&self) -> Result<(), UsageError> {
        let stream_out = self.output_format.as_deref() == Some("stream-json");
        if self.include_partial_messages && !stream_out {
            return Err(UsageError(
                "Error: --include-partial-messages requires --print and --output-format=stream-json.\n".into(),
            ));
        }
        if self.replay_user_messages
            && !(stream_out && self.input_format.as_deref() == Some("stream-json"))
        {
            return Err(UsageError(
                "Error: --replay-user-messages requires both --input-format=stream-json and --output-format=stream-json.\n".into(),
            ));
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, Refusal> {
        parse(
            std::iter::once("claude-reference")
                .chain(list.iter().copied())
                .map(str::to_owned),
        )
    }

    #[test]
    fn an_option_given_twice_is_no_error_and_the_last_counts() {
        let twice = args(&[
            "-p",
            "hi",
            "--dangerously-skip-permissions",
            "--model",
            "a",
            "--dangerously-skip-permissions",
            "--model",
            "b",
        ])
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(twice.model.as_deref(), Some("b"));
    }
}
