//! Stage one: what the command line, the environment, the settings and the organization's policy
//! say, read once into plain data. The usage errors come in 2.1.235's order, each before anything
//! after it is read (the prompt from stdin only once the flags are known good).

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use crate::cli::{Args, UsageError};
use crate::config::HostKind;
use crate::events::Format;
use crate::vocab::Mode;

/// The model when `--model` is absent, as the real 2.1.235 sends it.
pub const DEFAULT_MODEL: &str = "claude-opus-5";

/// Why start-up ends before a session: the text for stderr (exit 1).
#[derive(Debug, PartialEq, Eq)]
pub struct Stop(pub String);

impl From<UsageError> for Stop {
    fn from(UsageError(text): UsageError) -> Self {
        Stop(text)
    }
}

/// Everything the later stages need, read.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub args: Args,
    pub format: Format,
    pub mode: Mode,
    pub host: HostKind,
    /// The `-p` prompt (argument or stdin); empty when a host or a person sends prompts.
    pub prompt: String,
    pub session_id: String,
    /// The saved session to go on with, when one was asked for and found to name.
    pub resume: Option<crate::config::Resume>,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// `ANTHROPIC_API_KEY`, when set and not empty.
    pub api_key: Option<String>,
    /// `CLAUDE_CODE_OAUTH_TOKEN`, when set and not empty.
    pub oauth_env: Option<String>,
    /// The stored claude.ai login's access token (read only without `oauth_env`).
    pub login_token: Option<String>,
    /// `ANTHROPIC_BASE_URL`.
    pub base_url: Option<String>,
    pub brief: crate::brief::State,
    pub gates: Gates,
    /// `--system-prompt[-file]`, `--append-system-prompt[-file]`, the files read.
    pub system_prompt: crate::config::SystemPrompt,
    /// The user's agent type the main loop runs as (`--agent`).
    pub main_agent: Option<crate::context::custom_agents::CustomAgent>,
    /// The built-in agent type the main loop runs as (`--agent Explore`): it narrows the tools.
    pub main_builtin: Option<String>,
    /// `--max-budget-usd`, checked.
    pub max_budget_usd: Option<f64>,
    /// `--task-budget`: the main loop's requests carry it as `output_config.task_budget`.
    pub task_budget: Option<u64>,
    /// The thinking options, checked.
    pub thinking: crate::config::Thinking,
    /// `--json-schema`, parsed.
    pub json_schema: Option<serde_json::Value>,
    /// `--betas` let through (the others were warned about).
    pub betas: Vec<String>,
}

/// What the environment, the settings and the policy say about each optional part, one switch
/// each, before anything is decided from them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gates {
    /// ClaudeDesign's four gates (`design::enabled`).
    pub design: bool,
    /// A Project is attached and the policy allows it (`projects::enabled`).
    pub projects: bool,
    /// `tools::design_sync::offered`.
    pub design_sync: bool,
    /// `tools::send_user_file::offered`: a remote surface the policy lets send files.
    pub send_user_file: bool,
    /// A remote session's connector tools (`directories::connectors_offered`).
    pub connectors: bool,
    /// A remote session's plugin and skill tools (`directories::catalog_offered`).
    pub catalog: bool,
    /// `CLAUDE_CODE_ARTIFACT` asks for Artifact (and nothing withdraws it).
    pub artifact: bool,
    /// Artifact's own gates at a terminal (read only for a terminal session).
    pub artifact_at_terminal: bool,
    /// The cron tools are not switched off.
    pub cron: bool,
    /// Workflow is not switched off (environment or managed settings).
    pub workflow: bool,
    /// Tool search defers tools (`tools::tool_search::enabled`).
    pub tool_search: bool,
    /// 2.1.235's fork-subagent mode (`tools::fork_subagent`).
    pub fork_subagent: bool,
    /// Background tasks are allowed.
    pub background_tasks: bool,
    /// `CLAUDE_CODE_ENABLE_TASKS` switches the task tools off (`0`, `false`).
    pub tasks_off: bool,
    /// `CLAUDE_CODE_ENABLE_TODO_TOOLS` asks for them (`1`, `true`).
    pub todo_tools: bool,
}

/// Reads stage one, or the reason start-up stops.
pub fn read(args: &Args) -> Result<Inputs, Stop> {
    let (format, mode, host) = flags(
        args,
        std::io::stdout().is_terminal(),
        is_root(),
        std::env::var("IS_SANDBOX").ok(),
    )?;
    // Only a `-p` run with text input takes its prompt from the command line or stdin.
    let prompt = match host {
        HostKind::None => args
            .prompt
            .clone()
            .or_else(read_stdin)
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| Stop("Error: Input must be provided either through stdin or as a prompt argument when using --print\n".into()))?,
        _ => String::new(),
    };
    let session_id = session_id(args.session_id.as_deref())?;
    if let Some(list) = &args.setting_sources {
        let read = crate::environment::sources::parse(list).map_err(|e| Stop(format!("{e}\n")))?;
        crate::environment::sources::limit(read);
    }
    if let Some(text) = &args.settings {
        let settings =
            crate::environment::sources::parse_flag(text).map_err(|e| Stop(format!("{e}\n")))?;
        crate::environment::sources::set_flag(settings);
    }
    // The user's agent types (`--agents`; an SDK host's `initialize` may add more), and the one
    // the main loop runs as (`--agent`).
    if let Some(text) = &args.agents {
        crate::context::custom_agents::define(crate::context::custom_agents::parse(text));
    }
    let main_agent = main_agent(args)?;
    let main_builtin = args.agent.clone().filter(|_| main_agent.is_none());
    let mut system_prompt = system_prompt(args)?;
    if let (None, Some(agent)) = (&system_prompt.replace, &main_agent) {
        system_prompt.replace = Some(agent.prompt.clone());
    }
    let max_budget_usd = args.max_budget_usd()?;
    let task_budget = args.task_budget()?;
    let (thinking, effort_warning) = args.thinking()?;
    let (betas, beta_warnings) = args.betas();
    for warning in effort_warning.into_iter().chain(beta_warnings) {
        eprint!("{warning}");
    }
    let json_schema = match &args.json_schema {
        Some(text) => Some(serde_json::from_str(text).map_err(|e| {
            Stop(format!(
                "Error: --json-schema is not valid JSON: JSON Parse error: {e}\n"
            ))
        })?),
        None => None,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    // Before anything reads the environment (the API key included) or starts a thread.
    crate::environment::apply_settings_env(&home, &cwd);
    // Recorded on 2.1.235: a given id whose file exists is refused before anything runs.
    if args.session_id.is_some()
        && crate::environment::session_file(&home, &cwd, &session_id).exists()
    {
        return Err(Stop(format!(
            "Error: Session ID {session_id} is already in use.\n"
        )));
    }
    let resume = resumed(args, &home, &cwd);
    let session_id = match &resume {
        Some(r) if !r.fork && uuid::Uuid::parse_str(&r.from).is_ok() => r.from.clone(),
        _ => session_id,
    };
    let brief = crate::brief::state(args.brief, &home, &cwd);
    // 2.1.235 reads its OAuth endpoints at start; an unapproved custom one is an error there.
    if let Some(refusal) = crate::account::login::custom_oauth_url_error() {
        return Err(Stop(format!("{refusal}\n")));
    }
    crate::account::policy::refresh(&home);
    let api_key = non_empty_var("ANTHROPIC_API_KEY");
    let oauth_env = non_empty_var("CLAUDE_CODE_OAUTH_TOKEN");
    // The credentials file is read only when the environment gives no token.
    let login = oauth_env
        .is_none()
        .then(|| crate::account::login::login(&home))
        .flatten();
    // The plan of the claude.ai login that signs the session in: none when a key does.
    let plan = login
        .as_ref()
        .filter(|_| api_key.is_none())
        .and_then(|l| l.subscription.clone());
    let login_token = login.map(|l| l.access_token);
    let gates = Gates {
        design: crate::design::enabled(&home),
        projects: crate::projects::enabled(&home),
        design_sync: crate::tools::design_sync::offered(&home),
        send_user_file: crate::tools::send_user_file::offered(&home),
        connectors: crate::directories::connectors_offered(),
        catalog: crate::directories::catalog_offered(&home),
        artifact: crate::artifact::offered(),
        artifact_at_terminal: host == HostKind::Terminal
            && crate::artifact::offered_at_terminal(&home, api_key.is_some()),
        cron: crate::cron::offered(),
        workflow: crate::workflow::offered(&home, &cwd, plan.as_deref()),
        tool_search: crate::tools::tool_search::enabled(
            args.model.as_deref().unwrap_or(DEFAULT_MODEL),
        ),
        fork_subagent: crate::tools::fork_subagent(host == HostKind::Terminal),
        background_tasks: crate::tools::background_tasks(),
        tasks_off: matches!(
            std::env::var("CLAUDE_CODE_ENABLE_TASKS").as_deref(),
            Ok("0") | Ok("false")
        ),
        todo_tools: matches!(
            std::env::var("CLAUDE_CODE_ENABLE_TODO_TOOLS").as_deref(),
            Ok("1") | Ok("true")
        ),
    };
    Ok(Inputs {
        args: args.clone(),
        format,
        mode,
        host,
        prompt,
        session_id,
        resume,
        login_token,
        cwd,
        home,
        api_key,
        oauth_env,
        base_url: std::env::var("ANTHROPIC_BASE_URL").ok(),
        brief,
        gates,
        system_prompt,
        main_agent,
        main_builtin,
        max_budget_usd,
        task_budget,
        thinking,
        json_schema,
        betas,
    })
}

/// The host's system prompt from the command line: a text, or a file read now (one that cannot
/// be read stops the start). Giving both forms of one is refused, as 2.1.235 refuses it.
/// `--agent`: the user's type of that name (`None` for a built-in one), or 2.1.235's refusal
/// naming the known ones (recorded: sdk.invocation/main-agent).
fn main_agent(args: &Args) -> Result<Option<crate::context::custom_agents::CustomAgent>, Stop> {
    let Some(name) = &args.agent else {
        return Ok(None);
    };
    if let Some(agent) = crate::context::custom_agents::find(name) {
        return Ok(Some(agent));
    }
    let known = crate::agents::agent_types();
    if known.contains(name) {
        return Ok(None);
    }
    Err(Stop(format!(
        "--agent '{name}' not found. Available agents: {}\n",
        known.join(", ")
    )))
}

fn system_prompt(args: &Args) -> Result<crate::config::SystemPrompt, Stop> {
    let one = |text: &Option<String>,
               file: &Option<String>,
               (flag, file_flag, what): (&str, &str, &str)| {
        match (text, file) {
            (Some(_), Some(_)) => Err(Stop(format!(
                "Error: Cannot use both {flag} and {file_flag}. Please use only one.\n"
            ))),
            (Some(text), None) => Ok(Some(text.clone())),
            (None, Some(path)) => std::fs::read_to_string(path).map(Some).map_err(|_| {
                Stop(format!(
                    "Error: {what} file not found: {}\n",
                    absolute(path)
                ))
            }),
            (None, None) => Ok(None),
        }
    };
    Ok(crate::config::SystemPrompt {
        replace: one(
            &args.system_prompt,
            &args.system_prompt_file,
            ("--system-prompt", "--system-prompt-file", "System prompt"),
        )?,
        append: one(
            &args.append_system_prompt,
            &args.append_system_prompt_file,
            (
                "--append-system-prompt",
                "--append-system-prompt-file",
                "Append system prompt",
            ),
        )?,
    })
}

fn absolute(path: &str) -> String {
    std::path::absolute(path)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

/// The flags' own checks, in 2.1.235's order, and who answers for the user. A run whose stdout
/// is not a terminal is non-interactive with or without `-p`, as in 2.1.235 (`claude hi | cat`
/// prints the answer; the Agent SDKs pass no `-p`).
fn flags(
    args: &Args,
    stdout_terminal: bool,
    root: bool,
    is_sandbox: Option<String>,
) -> Result<(Format, Mode, HostKind), Stop> {
    let (format, mode, stream_input) = (args.format()?, args.mode()?, args.stream_input()?);
    args.stream_options()?;
    let host = match (args.print || !stdout_terminal, stream_input) {
        // A person at a terminal types the prompts.
        (false, _) => HostKind::Terminal,
        (true, true) => HostKind::Control {
            asks: args.permission_prompt_tool.as_deref() == Some("stdio"),
        },
        (true, false) => HostKind::None,
    };
    if mode == Mode::BypassPermissions && root && is_sandbox.as_deref() != Some("1") {
        return Err(Stop("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n".into()));
    }
    Ok((format, mode, host))
}

/// The saved session `--resume` names, or `--continue` finds (none: a fresh session, as in
/// 2.1.235); `--fork-session` alone changes nothing.
fn resumed(
    args: &Args,
    home: &std::path::Path,
    cwd: &std::path::Path,
) -> Option<crate::config::Resume> {
    let from = match (&args.resume, args.continue_session) {
        (Some(id), _) => id.clone(),
        (None, true) => crate::transcript::resume::latest(home, cwd)?,
        (None, false) => return None,
    };
    Some(crate::config::Resume {
        from,
        fork: args.fork_session,
        named: args.resume.is_some(),
    })
}

/// `--session-id` when it is a UUID, else a fresh one.
fn session_id(flag: Option<&str>) -> Result<String, Stop> {
    match flag {
        Some(id) if uuid::Uuid::parse_str(id).is_ok() => Ok(id.to_owned()),
        Some(_) => Err(Stop(
            "Error: Invalid session ID. Must be a valid UUID.\n".into(),
        )),
        None => Ok(crate::vocab::uuid()),
    }
}

fn non_empty_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn read_stdin() -> Option<String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    let mut text = String::new();
    stdin.read_to_string(&mut text).ok()?;
    Some(text)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Args {
        crate::cli::parse(
            std::iter::once("claude-reference")
                .chain(line.iter().copied())
                .map(String::from),
        )
        .unwrap()
    }

    #[test]
    fn the_flags_say_who_answers() {
        let sdk = [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ];
        let sdk_asks = [&sdk[..], &["--permission-prompt-tool", "stdio"]].concat();
        // As the Agent SDKs start it: no -p, stdout a pipe.
        let sdk_no_p = &sdk_asks[1..];
        let hosts = [
            (&["-p", "x"][..], true, HostKind::None),
            (&["x"][..], false, HostKind::None),
            (&[][..], true, HostKind::Terminal),
            (&sdk[..], true, HostKind::Control { asks: false }),
            (&sdk_asks[..], false, HostKind::Control { asks: true }),
            (sdk_no_p, false, HostKind::Control { asks: true }),
        ];
        for (line, terminal, host) in hosts {
            let found = flags(&args(line), terminal, false, None).unwrap().2;
            assert_eq!(found, host, "{line:?}, stdout a terminal: {terminal}");
        }
    }

    #[test]
    fn bypassing_permissions_as_root_needs_the_sandbox_switch() {
        let line = args(&["-p", "x", "--dangerously-skip-permissions"]);
        assert!(flags(&line, true, false, None).is_ok());
        let refused = flags(&line, true, true, None).unwrap_err();
        assert!(refused.0.contains("root/sudo"), "{refused:?}");
        assert!(flags(&line, true, true, Some("1".into())).is_ok());
    }

    #[test]
    fn a_bad_format_is_refused_before_the_mode_is_looked_at() {
        let line = args(&[
            "-p",
            "x",
            "--output-format",
            "yaml",
            "--permission-mode",
            "nope",
        ]);
        let refused = flags(&line, true, false, None).unwrap_err();
        assert!(refused.0.contains("--output-format"), "{refused:?}");
    }

    #[test]
    fn a_session_id_must_be_a_uuid() {
        assert!(session_id(Some("not-a-uuid")).is_err());
        let id = "8e4c1b8a-3f0e-4a49-9d55-0f8e5c3f2a11";
        assert_eq!(session_id(Some(id)).unwrap(), id);
        assert!(uuid::Uuid::parse_str(&session_id(None).unwrap()).is_ok());
    }
}
