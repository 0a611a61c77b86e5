//! `claude-reference`: parses the command line, then runs one non-interactive session.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use claude_reference::agent;
use claude_reference::config::{Config, HostKind, Offer};
use claude_reference::vocab::Mode;
use claude_reference::{cli, exit, limits, CONTRACT_VERSION};

/// The model when `--model` is absent, as the real 2.1.235 sends it.
const DEFAULT_MODEL: &str = "claude-opus-5";

fn main() {
    // Started as `rg` (argv0), the binary is its embedded ripgrep, as the real CLI is.
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_default();
    if std::path::Path::new(&argv0)
        .file_name()
        .is_some_and(|n| n == "rg")
    {
        std::process::exit(claude_reference::search::rg::main(argv.collect()));
    }
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    let args = match cli::parse(std::env::args()) {
        Ok(args) => args,
        Err(cli::UsageError(text)) => return usage(&text),
    };
    if args.version {
        println!("{CONTRACT_VERSION} (claude-reference)");
        return exit::SUCCESS;
    }
    if args.limits {
        print!("{}", limits::render());
        return exit::SUCCESS;
    }
    // The reference's own test settings: an unknown value is an error, not the default.
    if let Some(error) = claude_reference::brief::test_settings_error() {
        eprintln!("{error}");
        return exit::FAILURE;
    }
    if let Some(path) = &args.upload_file {
        return upload_one(path);
    }
    let (format, mode, stream_input) = match (args.format(), args.mode(), args.stream_input()) {
        (Ok(f), Ok(m), Ok(s)) => (f, m, s),
        (Err(cli::UsageError(text)), _, _)
        | (_, Err(cli::UsageError(text)), _)
        | (_, _, Err(cli::UsageError(text))) => return usage(&text),
    };
    let host = match (args.print, stream_input) {
        // Without -p: a person at a terminal types the prompts.
        (false, _) => HostKind::Terminal,
        (true, true) => HostKind::Control {
            asks: args.permission_prompt_tool.as_deref() == Some("stdio"),
        },
        (true, false) => HostKind::None,
    };
    if mode == Mode::BypassPermissions
        && is_root()
        && std::env::var("IS_SANDBOX").as_deref() != Ok("1")
    {
        return usage("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n");
    }
    // Only a `-p` run with text input takes its prompt from the command line or stdin.
    let prompt = match host {
        HostKind::None => match args.prompt.clone().or_else(read_stdin).filter(|p| !p.trim().is_empty()) {
            Some(p) => p,
            None => return usage("Error: Input must be provided either through stdin or as a prompt argument when using --print\n"),
        },
        _ => String::new(),
    };
    let session_id = match &args.session_id {
        Some(id) if uuid::Uuid::parse_str(id).is_ok() => id.clone(),
        Some(_) => return usage("Error: Invalid session ID. Must be a valid UUID.\n"),
        None => uuid::Uuid::new_v4().to_string(),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let brief = claude_reference::brief::state(args.brief, &home, &cwd);
    // 2.1.235 reads its OAuth endpoints at start; an unapproved custom one is an error there.
    if let Some(refusal) = claude_reference::account::login::custom_oauth_url_error() {
        eprintln!("{refusal}");
        return exit::FAILURE;
    }
    claude_reference::account::policy::refresh(&home);
    let design = claude_reference::design::enabled(&home);
    let projects = claude_reference::projects::enabled(&home);
    let design_sync = claude_reference::tools::design_sync::offered(&home);
    let send_user_file = claude_reference::tools::send_user_file::offered(&home);
    let api_key = std::env::var("ANTHROPIC_API_KEY")
        .ok()
        .filter(|k| !k.is_empty());
    let tasks_off = matches!(
        std::env::var("CLAUDE_CODE_ENABLE_TASKS").as_deref(),
        Ok("0") | Ok("false")
    );
    let tracking = args.model.as_deref().is_some_and(|m| m != DEFAULT_MODEL)
        || matches!(
            std::env::var("CLAUDE_CODE_ENABLE_TODO_TOOLS").as_deref(),
            Ok("1") | Ok("true")
        );
    let artifact = claude_reference::artifact::offered()
        || (host == HostKind::Terminal
            && claude_reference::artifact::offered_at_terminal(&home, api_key.is_some()));
    let config = Config {
        prompt,
        model: args
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        format,
        session_id,
        mode,
        max_turns: args.max_turns,
        base_url: std::env::var("ANTHROPIC_BASE_URL")
            .unwrap_or_else(|_| "https://api.anthropic.com".into()),
        // With an API key there is no OAuth token, as in 2.1.235 (real-binary.md).
        oauth_token: oauth_token()
            .or_else(|| claude_reference::account::login::login(&home).map(|l| l.access_token))
            .filter(|_| api_key.is_none()),
        api_key,
        cwd,
        home,
        brief,
        mcp_config: args.mcp_config.clone(),
        strict_mcp_config: args.strict_mcp_config,
        add_dirs: args.add_dir.iter().map(PathBuf::from).collect(),
        plugin_dirs: args.plugin_dir.iter().map(PathBuf::from).collect(),
        offer: Offer {
            search_tools: args.allowed_tools.iter().any(|rule| {
                let name = rule.split('(').next().unwrap_or_default().trim();
                name == "Glob" || name == "Grep"
            }),
            // Recorded on 2.1.235 (recon tasks13 exp.tasks-4*): claude-sonnet-4-5 gets the task
            // tools, or TodoWrite when CLAUDE_CODE_ENABLE_TASKS switches them off; the default
            // claude-opus-5 gets neither unless CLAUDE_CODE_ENABLE_TODO_TOOLS is set.
            todo: tracking && tasks_off,
            tasks: tracking && !tasks_off,
            // A deferred tool: out of request 1 when tool search is on (2.1.235 turns it on for a
            // non-Anthropic base URL only when asked).
            lsp: false,
            brief: brief == claude_reference::brief::State::On,
            send_user_file,
            // Deferred under tool search: on offer, out of tools[] until ToolSearch loads it.
            notebook: true,
            // Set by the session: who can answer, and whether plan mode withdraws tools.
            user: false,
            plan_mode: false,
            design,
            projects,
            design_sync,
            // Deferred like NotebookEdit.
            worktree: true,
            cron: claude_reference::cron::offered(),
            workflow: claude_reference::workflow::offered(),
            tool_search: claude_reference::tools::tool_search::enabled(
                args.model.as_deref().unwrap_or(DEFAULT_MODEL),
            ),
            // Set by the session once its MCP servers are connected.
            mcp_resources: false,
            artifact,
            fork_subagent: claude_reference::tools::fork_subagent(host == HostKind::Terminal),
            background_tasks: claude_reference::tools::background_tasks(),
            // Fixed for the whole process: kept for its lifetime so the offer stays `Copy`.
            only: claude_reference::tools::only_list(args.tools.as_deref())
                .map(|names| &*Box::leak(names.into_boxed_slice())),
            denied: Box::leak(
                claude_reference::tools::blanket_rules(&args.disallowed_tools).into_boxed_slice(),
            ),
        },
        host,
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
        attached_project: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let mut config = config;
    if let Some(project) = claude_reference::projects::attached() {
        config.attached_project = runtime.block_on(claude_reference::projects::context::block(
            &config.home,
            &project,
        ));
    }
    runtime.block_on(agent::run(config))
}

fn upload_one(path: &str) -> i32 {
    let base =
        std::env::var("ANTHROPIC_BASE_URL").unwrap_or_else(|_| "https://api.anthropic.com".into());
    let token = oauth_token();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let uploader = claude_reference::upload::Uploader::with_default_timeout(&base, token);
    match runtime.block_on(uploader.upload(std::path::Path::new(path))) {
        Ok(uuid) => {
            println!("{uuid}");
            exit::SUCCESS
        }
        Err(reason) => {
            eprintln!("upload failed: {reason}");
            exit::FAILURE
        }
    }
}

fn oauth_token() -> Option<String> {
    std::env::var("CLAUDE_CODE_OAUTH_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
}

fn usage(text: &str) -> i32 {
    eprint!("{text}");
    exit::FAILURE
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
