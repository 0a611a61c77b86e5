//! One session: set up once (MCP servers, context, permissions, who answers for the user), then
//! one prompt after another — the `-p` prompt, the user messages an SDK host sends on stdin, or
//! what a person types at the terminal. Each prompt runs the turn loop of `turn.rs`.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::opening::{self, Found};
use super::turn::Turn;
use crate::api::{first_party, startup, wire, Client};
use crate::brief;
use crate::config::{Config, HostKind};
use crate::context;
use crate::events::{Format, Output};
use crate::host::control::{Control, Input};
use crate::host::terminal::Terminal;
use crate::mcp::{self, McpRuntime};
use crate::permissions::Permissions;
use crate::tools::{self, Host, ToolContext};
use crate::vocab::Mode;

/// Runs the session and returns the process exit status. MCP servers are started first (after
/// configuration, trust and policy) and shut down on every way out.
pub async fn run(mut config: Config) -> i32 {
    let started = Instant::now();
    wire::init(
        wire::Wire::for_session(
            &config.base_url,
            config.api_key.is_none() && config.oauth_token.is_some(),
            config.host == HostKind::Terminal,
            &config.home,
            tools::tool_search::switched_off(),
        )
        .with_betas(config.betas.clone()),
    );
    let preconnect = startup::preconnect();
    // A session to go on with is read before anything else starts: one that cannot be is the
    // whole run's error (2.1.235 has warmed its connection up by then).
    if let Some(code) = sandbox_cannot_start(&config) {
        return code;
    }
    let resumed = match &config.resume {
        Some(resume) => {
            match crate::transcript::resume::load(&config.home, &config.cwd, &resume.from) {
                Ok(resumed) => Some(resumed),
                Err(error) => {
                    startup::settle(preconnect, crate::limits::PRECONNECT_TIMEOUT.duration()).await;
                    return resume_failed(&config, &error);
                }
            }
        }
        None => None,
    };
    let lookups = first_party::start(&config.home, &config.model, config.api_key.as_deref());
    // An SDK host's `initialize` comes first: it may give the system prompt and name its own
    // MCP servers, which are connected with the others.
    // A remote session opens its output before it answers anything, a host's `initialize`
    // included (recorded: tools.surface/remote-onboarding).
    if crate::environment::remote() && matches!(config.host, HostKind::Control { .. }) {
        for event in super::remote::opening_events(&config.session_id) {
            crate::events::print_line(&event.to_string());
        }
    }
    let control = match config.host {
        HostKind::Control { asks } => Some(Control::start(asks, config.mode, &config.session_id)),
        _ => None,
    };
    if let Some((control, _)) = &control {
        config.system_prompt = control.system_prompt(&config.system_prompt);
        // The TypeScript SDK's `outputFormat` travels as `initialize`'s `jsonSchema` (and as
        // `--json-schema`); given only there, StructuredOutput comes after the other tools.
        if let Some(schema) = control.json_schema() {
            config.offer.structured_output_last = config.json_schema.is_none();
            config.json_schema = Some(schema);
            config.offer.structured_output = true;
        }
    }
    if let Some(schema) = &config.json_schema {
        tools::structured_output::set_schema(schema.clone());
    }

    let host_channel = control.as_ref().map(|(control, _)| {
        let named = control.sdk_mcp_servers();
        (control.clone() as Arc<dyn mcp::HostChannel>, named)
    });
    let mcp = start_mcp(&config, host_channel).await;
    if let Some((control, _)) = &control {
        control.attach_mcp(mcp.clone(), config.home.clone(), config.cwd.clone());
    }
    let code = converse(
        &config,
        &mcp,
        control,
        started,
        (preconnect, lookups),
        resumed,
    )
    .await;
    report_mcp_errors(&mcp);
    mcp.shutdown().await;
    code
}

async fn start_mcp(
    config: &Config,
    host: Option<(Arc<dyn mcp::HostChannel>, Vec<String>)>,
) -> Arc<McpRuntime> {
    let mut candidates = mcp::config::load(&mcp::Sources {
        mcp_config: &config.mcp_config,
        strict: config.strict_mcp_config,
        cwd: &config.cwd,
        home: &config.home,
        managed: crate::environment::managed_settings(),
        child_env: [
            ("CLAUDECODE", "1".to_owned()),
            ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli".to_owned()),
            ("CLAUDE_CODE_SESSION_ID", config.session_id.clone()),
            ("CLAUDE_PROJECT_DIR", config.cwd.display().to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
    });
    if let Some((channel, named)) = host {
        candidates = candidates.with_host(channel, &named);
    }
    for e in &candidates.errors {
        eprintln!("{e}");
    }
    let roots = mcp::roots(&config.cwd, &config.add_dirs);
    let runtime = McpRuntime::start(candidates, roots, mcp::Budgets::from_env()).await;
    report_mcp_errors(&runtime);
    runtime
}

fn report_mcp_errors(mcp: &McpRuntime) {
    for e in mcp.take_errors() {
        eprintln!("{e}");
    }
}

/// A sandbox the settings turn on that cannot start (recorded: sandbox.escape/missing): a
/// warning, and commands run unconfined; with `failIfUnavailable`, nothing starts (an error
/// result, exit 1).
fn sandbox_cannot_start(config: &Config) -> Option<i32> {
    let sandbox = crate::sandbox::Sandbox::configured(&config.home, &config.cwd)?;
    let missing = crate::sandbox::missing()?;
    if !sandbox.fail_if_unavailable {
        eprintln!(
            "\n⚠ The sandbox is on but cannot start: {missing}. Install it (e.g. apt install bubblewrap) to have it.\n  Until then commands run WITHOUT it: no filesystem or network limits apply.\n"
        );
        return None;
    }
    eprintln!(
        "\nError: sandbox.failIfUnavailable asks for a sandbox, and it cannot start: {missing}. Nothing was started.\n"
    );
    let message = format!(
        "Sandbox required but unavailable: sandbox is enabled but dependencies are missing: {missing}. Turn sandbox.failIfUnavailable off to run commands without it."
    );
    Some(failed_at_start(config, &config.session_id, &message))
}

/// `--resume` of a session that is not there (or not an id): 2.1.235's message on stderr and
/// in an error result, nothing started.
fn resume_failed(config: &Config, error: &crate::transcript::ResumeError) -> i32 {
    let message = error.to_string();
    eprintln!("{message}");
    let session_id = match error {
        crate::transcript::ResumeError::NotFound(id) => id.clone(),
        crate::transcript::ResumeError::NotAnId(_) => config.session_id.clone(),
    };
    failed_at_start(config, &session_id, &message)
}

/// The error result of a session that never started (stream-json and json only), and its exit.
fn failed_at_start(config: &Config, session_id: &str, message: &str) -> i32 {
    if matches!(config.format, Format::StreamJson | Format::Json) {
        let result = json!({
            "type": "result", "subtype": "error_during_execution", "duration_ms": 0,
            "duration_api_ms": 0, "is_error": true, "num_turns": 0, "stop_reason": null,
            "session_id": session_id, "total_cost_usd": 0,
            "usage": crate::api::Usage::default().json(), "modelUsage": {},
            "permission_denials": [], "uuid": crate::vocab::uuid(), "errors": [message],
        });
        println!("{result}");
    }
    crate::exit::FAILURE
}

async fn converse(
    config: &Config,
    mcp: &McpRuntime,
    control: Option<(Arc<Control>, std::sync::mpsc::Receiver<Input>)>,
    started: Instant,
    (preconnect, lookups): (Option<tokio::task::JoinHandle<()>>, first_party::Lookups),
    resumed: Option<crate::transcript::Resumed>,
) -> i32 {
    let cwd = config.cwd.display().to_string();
    let terminal =
        (config.host == HostKind::Terminal).then(|| Arc::new(Terminal::start(&config.model, &cwd)));
    let host: Option<Arc<dyn Host>> = match (&control, &terminal) {
        (Some((control, _)), _) if control.asks => Some(control.clone()),
        (_, Some(terminal)) => Some(terminal.clone()),
        _ => None,
    };
    let out = Output {
        format: if terminal.is_some() {
            Format::Terminal
        } else {
            config.format
        },
        session_id: config.session_id.clone(),
        terminal: terminal
            .clone()
            .map(|t| t as Arc<dyn crate::events::Transcript>),
        held: (config.host == HostKind::None).then(Default::default),
        after_results: Default::default(),
        transcript: Some(Arc::new(writer(config, resumed.as_ref()))),
    };
    let term = super::termination::Termination::listen(out.transcript.clone());
    let sdk = control.as_ref().map(|(control, _)| control.clone());
    let mut session = Session::start(config, mcp, (host, sdk), out, started, resumed);
    if let Some((control, _)) = &control {
        control.attach_tasks(session.ctx.agents.clone());
    }
    session.term = term;
    session.preconnect = preconnect;
    session.lookups = lookups;
    let code = match (control, terminal) {
        (Some((control, inputs)), _) => {
            // Prompts arrive until the host closes stdin; the last result decides the status.
            let mut code = crate::exit::SUCCESS;
            session.interrupt_probe = Some(control.clone());
            let mut first = true;
            while let Ok(input) = tokio::task::block_in_place(|| inputs.recv()) {
                match input {
                    Input::User(message) => {
                        let id = message["uuid"].as_str();
                        if control.queue.passed_over(id) {
                            continue;
                        }
                        if config.replay_user_messages {
                            session.replay = Some(crate::events::replayed_user(
                                &config.session_id,
                                message["message"].clone(),
                                message["uuid"].as_str(),
                            ));
                        }
                        let content = message["message"]["content"].clone();
                        // An interrupt between prompts has nothing left to stop.
                        control.take_interrupt();
                        // Each prompt of an SDK host's session is announced (recorded:
                        // compact.manual, 2.1.235 repeats system/init before every one).
                        if !std::mem::replace(&mut first, false) {
                            session.owe_init();
                        }
                        session.prompt_uuid = id.map(str::to_owned);
                        code = session.prompt(blocks_of(content)).await;
                        session.prompt_uuid = None;
                        control.queue.finished(id);
                    }
                    Input::Notified => {
                        if !std::mem::replace(&mut first, false) {
                            session.owe_init();
                        }
                        code = session.notified(code).await;
                    }
                    Input::SetMode(mode) => session.set_mode(mode),
                    Input::SetModel(model) => {
                        // Recorded: the next prompt carries the change as `/model`'s record.
                        if let Some(model) = &model {
                            let said = format!("Set model to {model}");
                            session
                                .pending
                                .extend(super::local_command::record("model", model, &said));
                        }
                        let model =
                            model.unwrap_or_else(|| crate::startup::DEFAULT_MODEL.to_owned());
                        session.overrides.model = Some(model);
                    }
                    Input::SetThinking(budget) => session.overrides.thinking_budget = Some(budget),
                    Input::SeedRead { path, mtime } => {
                        let path = crate::worktree::resolve(&session.ctx.cwd, &path);
                        session.ctx.files.seed(&path, mtime);
                    }
                    // A line the session cannot go on from ends it (recorded:
                    // sdk.control/bad-line), after what it started has ended as usual.
                    Input::Fatal(error) => {
                        eprintln!("{error}");
                        code = crate::exit::FAILURE;
                        break;
                    }
                }
            }
            code
        }
        (None, Some(terminal)) => {
            while let Some(text) =
                tokio::task::block_in_place(|| terminal.read_prompt(session.ctx.permissions.mode))
            {
                // `/design revoke` is the session's own, never the model's.
                if let Some(args) = text.trim().strip_prefix("/design ") {
                    let said = tokio::task::block_in_place(|| {
                        crate::tools::design_command(args, &session.ctx)
                    });
                    if let Some(said) = said {
                        terminal.line(&format!("  ⎿  {said}"));
                        // 2.1.235 names the subcommand as a command of its own.
                        let (sub, rest) = args.trim().split_once(' ').unwrap_or((args.trim(), ""));
                        session.pending.extend(super::local_command::record(
                            &format!("design-{sub}"),
                            rest.trim(),
                            &said,
                        ));
                        continue;
                    }
                }
                session.prompt(blocks_of(Value::String(text))).await;
            }
            crate::exit::SUCCESS
        }
        (None, None) => {
            let code = session
                .prompt(blocks_of(Value::String(config.prompt.clone())))
                .await;
            let code = session.deliver_notifications(code).await;
            session.out.release();
            // `-p` waits for no shell: the ones still running end now, after the result.
            if let Some(agents) = &session.ctx.agents {
                tokio::task::block_in_place(|| crate::tools::shell_task::stop_all(agents));
            }
            code
        }
    };
    // A session that sent no prompt (an SDK host that ended it, or sent a line it cannot go
    // on from) still finishes its warm-up, as 2.1.235's is out by then (sdk.control/bad-user).
    startup::settle(
        session.preconnect.take(),
        crate::limits::PRECONNECT_TIMEOUT.duration(),
    )
    .await;
    session.end();
    code
}

/// The main loop's session file: this session's own (a new one for a fork; a resumed one's
/// where it was found), none without persistence.
fn writer(
    config: &Config,
    resumed: Option<&crate::transcript::Resumed>,
) -> crate::transcript::Writer {
    let own = match resumed {
        // A resume goes on in the file it read, wherever that was found.
        Some(r) if !config.resume.as_ref().is_some_and(|r| r.fork) => r.path.clone(),
        _ => crate::environment::session_file(&config.home, &config.cwd, &config.session_id),
    };
    let path = config.persist.then_some(own);
    crate::transcript::Writer::new(
        path,
        crate::transcript::write::Identity {
            session_id: config.session_id.clone(),
            cwd: config.cwd.display().to_string(),
            version: crate::CONTRACT_VERSION.into(),
            git_branch: crate::transcript::write::git_branch(&config.cwd),
            entrypoint: "sdk-cli".into(),
        },
    )
}

/// A user message's content as blocks.
pub(super) fn blocks_of(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => vec![json!({"type": "text", "text": other.to_string()})],
    }
}

/// The state a session keeps across prompts.
pub struct Session<'a> {
    pub config: &'a Config,
    pub mcp: &'a McpRuntime,
    pub out: Output,
    pub client: Client,
    pub ctx: ToolContext,
    pub messages: Vec<Value>,
    /// The first prompt's reminders (deferred tools, agent types, MCP instructions, skills) and
    /// its context block (instructions, memory, date), sent once around that prompt's budget.
    /// After a resume: only the listings the conversation never carried, and no context block
    /// (the first message has it).
    first_context: Option<(Vec<Value>, Option<Value>)>,
    /// The first message's context block (instructions, memory, date), which opens the
    /// conversation again after a compaction.
    pub user_context: Value,
    /// The listings a compaction makes again (the agent types: recorded, compact.manual).
    pub relisted: Vec<Value>,
    /// The files read before the last compaction, oldest first (the next one knows them too).
    pub reread: Vec<String>,
    /// Automatic compactions whose summary failed, in a row.
    pub compact_failures: u64,
    /// How many of the next prompt's leading reminders the session file already has (what a
    /// `/compact` brought back, written with its record).
    recorded_ahead: usize,
    /// The `<total_tokens>` countdown of the main loop.
    pub budget: context::reminders::TokenBudget,
    /// The newest answer's token total (the budget counts from it).
    pub last_total: u64,
    /// What waits to go with the next prompt (the results of a turn the user stopped).
    pub pending: Vec<Value>,
    pub conditional_rules: Vec<context::instructions::ConditionalRule>,
    pub enforce_brief: bool,
    pub started: Instant,
    /// The SDK host, asked whether it interrupted between tool calls.
    pub interrupt_probe: Option<Arc<Control>>,
    /// The `system/init` event, repeated when a notification starts another prompt.
    init: Value,
    /// Why the current prompt runs when it is not the user's (`{"kind": "task-notification"}`).
    pub origin: Option<Value>,
    /// The start-up warm-up request, settled before the first request of a loop.
    preconnect: Option<tokio::task::JoinHandle<()>>,
    /// The account look-ups on Anthropic's host, settled around the title request.
    lookups: first_party::Lookups,
    /// Whether the session title was considered (with the user's first prompt, once).
    titled: bool,
    /// `system/init` waits for the first prompt.
    init_owed: bool,
    /// The host's user message, echoed once the prompt is announced (`--replay-user-messages`).
    pub replay: Option<Value>,
    /// The uuid of the host's user message this prompt answers: its result names it.
    pub prompt_uuid: Option<String>,
    /// What an SDK host changed since the session opened.
    pub overrides: super::overrides::Overrides,
    /// SIGTERM while a request streams ends the turn as interrupted.
    pub term: Arc<super::termination::Termination>,
}

impl<'a> Session<'a> {
    /// The session as it opens: what it found (plugins, skills, instructions), the tools'
    /// context, the catalog of request 1, the init event, the first message's context, and the
    /// agent loops' shared state, in that order.
    fn start(
        config: &'a Config,
        mcp: &'a McpRuntime,
        (host, sdk): (Option<Arc<dyn Host>>, Option<Arc<Control>>),
        out: Output,
        started: Instant,
        resumed: Option<crate::transcript::Resumed>,
    ) -> Self {
        let found = Found::discover(config);
        let mut ctx = session_context(config, &found, mcp, host);
        // The settings' hooks, the plugins', then the SDK host's functions; the host hears of
        // their runs.
        let plugins = found
            .plugins
            .iter()
            .map(|p| (p.name.as_str(), p.dir.as_path()));
        let mut hooks = (*ctx.hooks)
            .clone()
            .with_plugins(&config.home, plugins)
            .observed(Arc::new(out.sibling()), config.include_hook_events);
        if let Some(sdk) = sdk {
            hooks = hooks.with_host(&sdk.registered_hooks(), sdk);
        }
        ctx.hooks = Arc::new(hooks);
        // SessionStart, then each instruction file, before the session is announced.
        let hook_session = ctx.hook_session();
        let started_notes = ctx.hooks.session_start(&hook_session);
        for entry in &found.instructions.entries {
            ctx.hooks.instructions_loaded(
                &hook_session,
                &entry.path.display().to_string(),
                entry.kind.memory_type(),
            );
        }
        let catalog = tools::builtin(offer(config, &ctx, false));
        let enforce_brief = brief::enforcement_on(
            config.brief,
            &catalog.iter().map(|t| t.name()).collect::<Vec<_>>(),
            false,
        );
        // The MCP tools as applied now, for the init event and the deferred-tools listing alike.
        let first_tools = mcp.current_tools();
        let request_1 = (catalog.as_slice(), first_tools.as_slice());
        let init = opening::init_event(config, &out, mcp, request_1, &found, started);
        let mut first = opening::first_message(config, mcp, request_1, &found);
        let user_context = first.user_context.clone();
        let relisted: Vec<Value> = first
            .reminders
            .iter()
            .filter(|b| {
                crate::transcript::attachment::of_reminder(b["text"].as_str().unwrap_or_default())
                    ["type"]
                    == "agent_listing_delta"
            })
            .cloned()
            .collect();
        let started_notes = started_notes
            .iter()
            .map(|n| json!({"type": "text", "text": crate::hooks::session::reminder(n)}));
        first.reminders.splice(0..0, started_notes);
        ctx.agents = Some(agents(config, &out, first.child));
        // A resumed conversation: its messages as they were sent, the context block in its
        // first one again; its listings were made then and are not made again.
        // A resumed session was named when it began (recorded: 2.1.235 asks for no title).
        let titled = resumed.is_some();
        let (messages, first_context) = match resumed {
            Some(resumed) => {
                if let Some(file) = &out.transcript {
                    if config.resume.as_ref().is_some_and(|r| r.fork) {
                        file.copy(&resumed.chain);
                    }
                    file.continue_from(resumed.tip.clone(), &resumed.chain);
                    if let Some(kind) = resumed.interrupted {
                        file.owe_interruption(kind);
                    }
                }
                let mut messages = resumed.messages;
                if let Some(content) = messages
                    .first_mut()
                    .and_then(|m| m["content"].as_array_mut())
                {
                    content.insert(resumed.context_at.min(content.len()), first.user_context);
                }
                // A listing the conversation never carried is made with the next prompt
                // (recorded: a file with none gets both, as a first prompt does).
                let unannounced: Vec<Value> = first
                    .reminders
                    .into_iter()
                    .filter(|b| {
                        let kind = crate::transcript::attachment::of_reminder(
                            b["text"].as_str().unwrap_or_default(),
                        )["type"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned();
                        matches!(kind.as_str(), "agent_listing_delta" | "skill_listing")
                            && !resumed.announced.contains(&kind)
                    })
                    .collect();
                (messages, Some((unannounced, None)))
            }
            None => (
                Vec::new(),
                Some((first.reminders, Some(first.user_context))),
            ),
        };
        Session {
            config,
            mcp,
            client: super::client(config),
            ctx,
            init,
            origin: None,
            messages,
            first_context,
            user_context,
            relisted,
            reread: Vec::new(),
            recorded_ahead: 0,
            compact_failures: 0,
            budget: Default::default(),
            last_total: 0,
            pending: Vec::new(),
            conditional_rules: found.instructions.conditional,
            enforce_brief,
            started,
            interrupt_probe: None,
            preconnect: None,
            lookups: Default::default(),
            titled,
            init_owed: true,
            replay: None,
            prompt_uuid: None,
            overrides: Default::default(),
            term: Default::default(),
            out,
        }
    }

    /// Runs one prompt to its result; returns the exit status that result stands for.
    async fn prompt(&mut self, prompt: Vec<Value>) -> i32 {
        self.ctx.prompt_id = Some(crate::vocab::uuid());
        if let Some(instructions) = super::compact::command(&prompt) {
            return self.compact_command(instructions).await;
        }
        self.before_first_request(&prompt).await;
        // The prompt's hooks run before the session is announced (their hook events come first).
        let check = match self.origin {
            Some(_) => Default::default(),
            None => self.submit_hooks(&prompt),
        };
        // 2.1.235 announces the session as its first prompt starts, after the start-up requests:
        // a limits change their answers brought is told first.
        // Under an SDK host they went out before its `initialize` was answered.
        if self.init_owed && crate::environment::remote() && self.interrupt_probe.is_none() {
            for event in super::remote::opening_events(&self.out.session_id) {
                self.out.event(&event);
            }
        }
        self.out.rate_limits();
        if std::mem::take(&mut self.init_owed) {
            // The mode, model and MCP servers as of now: a host may have changed them since the
            // session opened (sdk.control, sdk.control/mcp).
            self.init["permissionMode"] = json!(self.ctx.permissions.mode.as_str());
            self.init["model"] = json!(self.effective_config().model);
            opening::refresh_mcp(&mut self.init, self.mcp);
            self.out.event(&self.init);
        }
        if let Some(echo) = self.replay.take() {
            self.out.event(&echo);
        }
        if let Some(text) = check.blocked {
            return self.prompt_blocked(&text);
        }
        self.client.new_prompt();
        // Every prompt (a task's notification too) opens with the budget whole again.
        let budget = self.budget.at_prompt(self.last_total);
        let mut content = Vec::new();
        let mut context = None;
        if let Some((mut first, user_context)) = self.first_context.take() {
            content.append(&mut first);
            context = user_context;
        }
        let planning = self.ctx.permissions.mode == Mode::Plan;
        let mut own: Vec<String> = context::reminders::plan_mode(&self.messages, planning)
            .into_iter()
            .collect();
        own.push(budget);
        if let Some(usd) = self.config.max_budget_usd {
            own.push(context::reminders::usd_budget(
                crate::api::tally::total_cost(),
                usd,
            ));
        }
        own.extend(
            check
                .notes
                .iter()
                .map(|n| crate::hooks::session::reminder(n)),
        );
        let own = context::reminders::before_prompt(own);
        let recorded = std::mem::take(&mut self.recorded_ahead);
        if let Some(file) = &self.out.transcript {
            let reminders: Vec<String> = content
                .iter()
                .skip(recorded)
                .chain(&own)
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect();
            file.prompt(&prompt, &reminders, self.ctx.permissions.mode.as_str());
        }
        content.extend(own);
        content.extend(context);
        content.append(&mut self.pending);
        content.extend(prompt);
        self.push_user(content);
        Turn::new(self).run().await
    }

    /// A prompt's message. After a resumed Brief turn that ended on its delivery the history
    /// ends with that result: the prompt joins its message, the reminders inside the result as
    /// a round's would be (recorded on 2.1.235), so the roles still alternate.
    fn push_user(&mut self, content: Vec<Value>) {
        let Some(last) = self.messages.last_mut().filter(|m| m["role"] == "user") else {
            self.messages
                .push(json!({"role": "user", "content": content}));
            return;
        };
        let (reminders, rest): (Vec<Value>, Vec<Value>) = content.into_iter().partition(|b| {
            b["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("<system-reminder>"))
        });
        let reminders: Vec<String> = reminders
            .iter()
            .filter_map(|b| b["text"].as_str().map(str::to_owned))
            .collect();
        if let Some(blocks) = last["content"].as_array_mut() {
            context::reminders::append_to_round(blocks, &reminders);
            blocks.extend(rest);
        }
    }

    /// `/compact [instructions]`: the conversation compacted at the user's word. What it printed
    /// goes with the next prompt as a local command's record; its result has no turns.
    async fn compact_command(&mut self, instructions: Option<String>) -> i32 {
        let line = match &instructions {
            Some(extra) => format!("/compact {extra}"),
            None => "/compact".to_owned(),
        };
        if let Some(file) = &self.out.transcript {
            file.queued(&line);
        }
        let outcome = super::compact::compact(
            self,
            super::compact::Trigger::Manual,
            instructions.as_deref(),
        )
        .await;
        self.announce();
        let mut restored = Vec::new();
        let (stream, said, result) = match outcome {
            Ok(done) => {
                // What comes back goes with the next prompt; the session file has it at once,
                // after the command's record (2.1.235's order).
                restored = super::compact::restored(self, done.read_before);
                self.recorded_ahead = restored.len();
                let notes = restored
                    .iter()
                    .map(|n| json!({"type": "text", "text": n.text}));
                self.first_context = Some((notes.collect(), None));
                // At a terminal it says where the summary is, dimmed (recorded:
                // compact.manual/terminal).
                let stdout = match &self.out.terminal {
                    Some(_) => format!(
                        "\u{1b}[2mCompacted (ctrl+o to see full summary)\u{1b}[22m{}",
                        done.hook_lines
                            .iter()
                            .map(|l| format!("\n{l}"))
                            .collect::<String>()
                    ),
                    None => format!("Compacted {}", done.hook_lines.join("\n")),
                };
                let mut replay = self.out.synthetic_text("");
                replay["message"]["content"] = json!(format!(
                    "<local-command-stdout>{stdout}</local-command-stdout>"
                ));
                replay["isReplay"] = json!(true);
                self.out.event(&replay);
                if let Some(terminal) = &self.out.terminal {
                    // 2.1.235's words at a terminal (recorded: compact.manual/terminal).
                    terminal.line("  ⎿  Compacted (ctrl+o to see full summary)");
                }
                ("stdout", stdout, String::new())
            }
            Err(failed) => {
                self.out
                    .event(&self.out.synthetic_answer(&failed.error, "end_turn"));
                if let Some(terminal) = &self.out.terminal {
                    terminal.line(&format!("  ⎿  {}", failed.error));
                }
                let stream = if failed.stderr { "stderr" } else { "stdout" };
                (stream, failed.error.clone(), failed.error)
            }
        };
        let args = instructions.as_deref().unwrap_or("");
        let record = super::local_command::record_to("compact", args, stream, &said);
        if let Some(file) = &self.out.transcript {
            file.local_command(&record);
            file.attachments(&restored.into_iter().map(|n| n.data).collect::<Vec<_>>());
        }
        self.pending.extend(record);
        self.local_result(&result)
    }

    /// The UserPromptSubmit hooks of a prompt the user sent.
    fn submit_hooks(&self, prompt: &[Value]) -> crate::hooks::session::PromptCheck {
        let text: Vec<&str> = prompt.iter().filter_map(|b| b["text"].as_str()).collect();
        self.ctx.hooks.user_prompt_submit(
            &self.ctx.hook_session(),
            self.ctx.permissions.mode.as_str(),
            &text.join("\n"),
        )
    }

    /// A prompt a UserPromptSubmit hook stopped: the host is told why, and the prompt's result
    /// is that text.
    fn prompt_blocked(&mut self, text: &str) -> i32 {
        self.out.event(&json!({
            "type": "system", "subtype": "informational", "content": text, "level": "warning",
            "prevent_continuation": true, "uuid": crate::vocab::uuid(), "session_id": self.out.session_id,
        }));
        self.local_result(text)
    }

    /// The result of a prompt that made no request (a hook stopped it, a local command answered
    /// it): 2.1.235's shape, no turns, no stop reason.
    fn local_result(&mut self, text: &str) -> i32 {
        let result = json!({
            "is_error": false, "duration_api_ms": 0, "num_turns": 0, "stop_reason": null,
            "session_id": self.out.session_id, "total_cost_usd": 0,
            "usage": crate::api::Usage::default().json(), "modelUsage": {},
            "permission_denials": [], "fast_mode_state": "off",
            "fast_mode_disabled_reason": crate::events::fast_mode_disabled_reason(),
            "subtype": "success", "result": text, "type": "result",
            "duration_ms": self.started.elapsed().as_millis() as u64, "uuid": crate::vocab::uuid(),
        });
        self.out.finish(&result);
        crate::exit::SUCCESS
    }

    /// SessionEnd, as the session closes.
    fn end(&self) {
        if let Some(file) = &self.out.transcript {
            file.close();
        }
        self.ctx.hooks.session_end(&self.ctx.hook_session());
    }

    /// The start-up requests go first, in 2.1.235's order: the warm-up, then the title of the
    /// user's first prompt. Neither is waited on for long; their answers are not used.
    async fn before_first_request(&mut self, prompt: &[Value]) {
        startup::settle(
            self.preconnect.take(),
            crate::limits::PRECONNECT_TIMEOUT.duration(),
        )
        .await;
        let cap = std::time::Duration::from_secs(2);
        first_party::send_in_order(std::mem::take(&mut self.lookups.before_title), cap).await;
        self.title(prompt).await;
        first_party::send_in_order(std::mem::take(&mut self.lookups.after_title), cap).await;
    }

    async fn title(&mut self, prompt: &[Value]) {
        if std::mem::replace(&mut self.titled, true) || self.origin.is_some() {
            return;
        }
        let Some(text) = prompt.iter().find_map(|b| b["text"].as_str()) else {
            return;
        };
        let interactive = self.config.host == HostKind::Terminal;
        if !startup::title_wanted(text, interactive) {
            return;
        }
        let config = self.config;
        let body = startup::title_request(
            &startup::small_model(&config.model),
            &config.session_id,
            text,
        );
        let title = startup::title(super::client(config), body);
        // Kept only when it comes in time, first in the file (2.1.235's order).
        if let Ok(Ok(Some(title))) =
            tokio::time::timeout(std::time::Duration::from_secs(2), title).await
        {
            if let Some(file) = &self.out.transcript {
                file.ai_title(&title);
            }
        }
    }

    /// `-p`: background tasks still owe the model their end. Each ending is a prompt of its own,
    /// announced by a fresh `system/init`, whose result says it came from a task notification;
    /// the last result decides the exit status.
    async fn deliver_notifications(&mut self, mut code: i32) -> i32 {
        let Some(agents) = self.ctx.agents.clone() else {
            return code;
        };
        while let Some(notice) = tokio::task::block_in_place(|| agents.registry.next_notice()) {
            self.owe_init();
            self.announce();
            self.origin = Some(json!({"kind": "task-notification"}));
            let text = crate::agents::notification_text(&notice.task);
            code = self
                .prompt(vec![json!({"type": "text", "text": text})])
                .await;
        }
        code
    }

    /// Notifications wait (`crate::notifications`): a prompt of their own tells the model, and
    /// again after it while some stay unread, at most `NOTIFICATION_NUDGE_REARMS` times more.
    /// Nothing when an earlier such prompt read them already.
    async fn notified(&mut self, mut code: i32) -> i32 {
        let queue = crate::notifications::session();
        for round in 0..=crate::limits::NOTIFICATION_NUDGE_REARMS.get() {
            let Some(text) = queue.nudge() else {
                break;
            };
            if round > 0 {
                self.owe_init();
            }
            self.origin = Some(json!({"kind": "task-notification"}));
            code = self
                .prompt(vec![json!({"type": "text", "text": text})])
                .await;
            self.origin = None;
        }
        code
    }

    /// `system/init`, when the prompt under way has not been announced yet.
    pub fn announce(&mut self) {
        if std::mem::take(&mut self.init_owed) {
            self.out.event(&self.init);
        }
    }

    /// The files read since the session began, oldest first, as far as a compaction knows them:
    /// those the last one brought back, then `read_before` (kept for the next one).
    pub fn reread_paths(&mut self, read_before: Vec<String>) -> Vec<String> {
        let mut paths = std::mem::take(&mut self.reread);
        for path in read_before {
            paths.retain(|p| *p != path);
            paths.push(path);
        }
        self.reread = paths.clone();
        paths
    }

    /// The next prompt is announced again by a fresh `system/init`.
    fn owe_init(&mut self) {
        self.init["uuid"] = json!(crate::vocab::uuid());
        // A remote session tells how long its start took in the first init only (recorded:
        // tools.surface/remote-notifications).
        if let Some(init) = self.init.as_object_mut() {
            init.shift_remove("startup_timing");
        }
        self.init_owed = true;
    }

    /// The host switched the permission mode between prompts.
    fn set_mode(&mut self, mode: Mode) {
        let permissions = &mut self.ctx.permissions;
        if mode == Mode::Plan && permissions.mode != Mode::Plan {
            permissions.before_plan = Some(permissions.mode);
        }
        permissions.mode = mode;
        self.out.event(&self.out.status(mode.as_str()));
    }

    /// The tools offered in the next request.
    pub fn offer(&self, lsp: bool) -> crate::config::Offer {
        offer(self.config, &self.ctx, lsp)
    }
}

/// The optional tools on offer now: who can answer for the user and the mode decide some of them.
fn offer(config: &Config, ctx: &ToolContext, lsp: bool) -> crate::config::Offer {
    crate::config::Offer {
        user: ctx.host.is_some(),
        plan_mode: ctx.permissions.mode == Mode::Plan,
        lsp,
        mcp_resources: ctx.mcp.as_ref().is_some_and(|m| m.offers_resources()),
        ..config.offer
    }
}

/// The main loop's tool context: the session's permissions (their warnings told once), the
/// skills it found (the user's first: a user skill shadows a built-in of the same name), its
/// language servers, who answers, its MCP servers.
fn session_context(
    config: &Config,
    found: &Found,
    mcp: &McpRuntime,
    host: Option<Arc<dyn Host>>,
) -> ToolContext {
    let (permissions, warnings) = Permissions::load(
        config.mode,
        &config.cwd,
        &config.home,
        &config.allowed_tools,
        &config.disallowed_tools,
    );
    for w in warnings {
        eprintln!("{w}");
    }
    if let Some(w) = crate::sandbox::Sandbox::configured(&config.home, &config.cwd)
        .and_then(|s| s.secrets.warning())
    {
        eprintln!("\n⚠ {w}\n");
    }
    ToolContext {
        skills: found
            .skills
            .iter()
            .cloned()
            .chain(context::builtins::skills(&found.builtins))
            .collect(),
        lsp: crate::lsp::LspManager::new(
            found
                .plugins
                .iter()
                .flat_map(|p| p.lsp_servers.clone())
                .collect(),
        ),
        host,
        interactive: config.host == HostKind::Terminal,
        mcp: Some(mcp.clone()),
        tool_search: tools::tool_search::State::new(config.offer.tool_search),
        ..ToolContext::new(config, &config.cwd, permissions)
    }
}

/// What every agent loop of the session shares, the main loop at depth 0.
fn agents(config: &Config, out: &Output, child_first: Vec<Value>) -> crate::agents::Agents {
    crate::agents::Agents {
        config: Arc::new(config.clone()),
        registry: Default::default(),
        announce: crate::agents::Announcer {
            out: Arc::new(out.sibling()),
        },
        first_context: Arc::new(child_first),
        depth: 0,
        runtime: tokio::runtime::Handle::current(),
        runner: Arc::new(super::child::ChildLoops),
    }
}
