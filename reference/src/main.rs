//! `claude-reference`: parses the command line, reads and decides the session's configuration
//! (`startup`), then runs the session.

use claude_reference::{agent, cli, exit, limits, startup, CONTRACT_VERSION};

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
    // Started by a sandboxed Bash call as the first process inside its sandbox.
    let mut rest = argv.peekable();
    if rest
        .peek()
        .is_some_and(|a| a == claude_reference::sandbox::bridge::ARG)
    {
        rest.next();
        std::process::exit(claude_reference::sandbox::bridge::main(rest.collect()));
    }
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    let args = match cli::parse(std::env::args()) {
        Ok(args) => args,
        Err(cli::Refusal::Usage(cli::UsageError(text))) => return usage(&text),
        Err(cli::Refusal::Help(text)) => {
            print!("{text}");
            return exit::SUCCESS;
        }
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
    let inputs = match startup::read(&args) {
        Ok(inputs) => inputs,
        Err(startup::Stop(text)) => return usage(&text),
    };
    let mut config = startup::decide(&inputs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    if let Some(project) = claude_reference::projects::attached() {
        use claude_reference::projects::context::{at_start, Start};
        let start = match &config.resume {
            None => Start::Fresh,
            Some(r) if r.named => Start::Resume,
            Some(_) => Start::Continue,
        };
        config.attached_project = runtime.block_on(at_start(&config.home, &project, start));
    }
    let code = runtime.block_on(agent::run(config));
    claude_reference::sandbox::proxy::close();
    code
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
