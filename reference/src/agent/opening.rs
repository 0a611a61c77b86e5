//! What a session opens with: what it finds on disk at start (plugins, skills, the built-ins its
//! switches allow, instructions and memory), the `system/init` event that announces it, and the
//! context its first message carries (and a child's first message).

use std::time::Instant;

use serde_json::{json, Value};

use super::prompt;
use crate::config::Config;
use crate::context;
use crate::events::Output;
use crate::mcp::{McpRuntime, McpTool};
use crate::tools::{self, Tool};

/// What the session found at start.
pub struct Found {
    pub plugins: Vec<context::plugins::Plugin>,
    pub skills: Vec<context::skills::Skill>,
    /// The switches that add or drop built-in skills and commands.
    pub builtins: context::builtins::Features,
    /// The memory directory, when auto-memory is on.
    pub memory: Option<std::path::PathBuf>,
    pub instructions: context::instructions::Discovered,
}

impl Found {
    /// Plugins (their errors told on stderr), skills, the built-ins' switches, the memory
    /// directory and the instructions from the user's files down to cwd.
    pub fn discover(config: &Config) -> Found {
        let (plugins, plugin_errors) = context::plugins::load(&config.plugin_dirs);
        for e in plugin_errors {
            eprintln!("{e}");
        }
        let skills = context::skills::discover(&config.home, &config.cwd, &plugins);
        let builtins = features(config);
        let memory = context::memory::dir(&config.home, &config.cwd);
        let cwd = config.cwd.display().to_string();
        let approved = crate::json::read_file(&config.home.join(".claude.json")).is_some_and(|v| {
            v["projects"][cwd.as_str()]["hasClaudeMdExternalIncludesApproved"] == true
        });
        let instructions = context::instructions::discover(&context::instructions::Sources {
            home: &config.home,
            cwd: &config.cwd,
            add_dirs: &config.add_dirs,
            memory_index: memory.as_ref().map(|d| d.join("MEMORY.md")),
            external_includes_approved: approved,
        });
        Found {
            plugins,
            skills,
            builtins,
            memory,
            instructions,
        }
    }
}

/// The MCP part of `init` as of now: the servers' statuses and the tools they offer. A host
/// may have turned a server off or on since the session opened (sdk.control/mcp).
pub fn refresh_mcp(init: &mut Value, mcp: &McpRuntime) {
    init["mcp_servers"] = json!(mcp.statuses());
    if let Some(tools) = init["tools"].as_array_mut() {
        tools.retain(|t| !t.as_str().is_some_and(|t| t.starts_with("mcp__")));
        tools.extend(mcp.current_tools().into_iter().map(|t| json!(t.wire_name)));
    }
}

/// The `system/init` event: the tools of request 1 (`catalog` and the MCP tools as applied at
/// start), the servers, the commands, agents, skills and plugins.
pub fn init_event(
    config: &Config,
    out: &Output,
    mcp: &McpRuntime,
    (catalog, first_tools): (&[&dyn Tool], &[McpTool]),
    found: &Found,
    started: Instant,
) -> Value {
    // The init event names the Agent tool by its alias, as 2.1.235 lists it.
    let mut names: Vec<&str> = catalog
        .iter()
        .map(|t| match t.name() {
            "Agent" => "Task",
            name => name,
        })
        .collect();
    names.extend(first_tools.iter().map(|t| t.wire_name.as_str()));
    let memory_dir = found.memory.as_ref().map(|d| format!("{}/", d.display()));
    let mut init = out.init(
        &config.cwd.display().to_string(),
        &names,
        &config.model,
        config.mode.as_str(),
        memory_dir.as_deref(),
    );
    init["mcp_servers"] = json!(mcp.statuses());
    let lists = init_lists(
        config,
        &found.skills,
        &found.builtins,
        &mcp.prompt_commands(),
    );
    init["slash_commands"] = json!(lists.slash_commands);
    init["terminal_slash_commands"] = json!(lists.terminal_slash_commands);
    init["agents"] = json!(lists.agents);
    init["skills"] = json!(lists.skills);
    if config.api_key.is_none() {
        init["apiKeySource"] = json!("none");
    }
    init["plugins"] = found
        .plugins
        .iter()
        .map(context::plugins::init_entry)
        .collect();
    if crate::environment::remote() {
        super::remote::extend_init(&mut init, started, &crate::api::wire::get().entrypoint);
    }
    init
}

/// The context the first message carries, around the first prompt's budget.
pub struct FirstMessage {
    /// Reminders before the budget: deferred tools, agent types, MCP instructions, skills.
    pub reminders: Vec<Value>,
    /// After the budget: instructions, memory, the attached Project, the date.
    pub user_context: Value,
    /// A child's first message: the skills, then the context (no budget: its task is no user's
    /// prompt).
    pub child: Vec<Value>,
}

/// The first message's context, in 2.1.235's order: deferred tools, agent types (while the
/// Agent tool is offered), MCP instructions, skills; then each prompt's budget, then the user's
/// context.
pub fn first_message(
    config: &Config,
    mcp: &McpRuntime,
    (catalog, first_tools): (&[&dyn Tool], &[McpTool]),
    found: &Found,
) -> FirstMessage {
    let offered = |name: &str| catalog.iter().any(|t| t.name() == name);
    let mut reminders = Vec::new();
    if config.offer.tool_search {
        if let Some(listing) = tools::tool_search::listing(catalog, first_tools) {
            reminders.push(json!({"type": "text", "text": listing}));
        }
    }
    if offered("Agent") {
        reminders.push(json!({"type": "text", "text": context::builtins::agent_listing()}));
    }
    if let Some(reminder) = prompt::mcp_instructions(&mcp.instructions()) {
        reminders.push(json!({"type": "text", "text": reminder}));
    }
    // Listed only while the Skill tool is there to launch them.
    let listing = context::skills::listing(
        &found.skills,
        context::skills::budget(),
        &named_workflows(config)
            .into_iter()
            .map(|(name, about)| {
                if about.is_empty() {
                    format!("- {name}")
                } else {
                    format!("- {name}: {about}")
                }
            })
            .chain(context::builtins::listing_lines(&found.builtins))
            .collect::<Vec<_>>(),
    )
    .filter(|_| offered("Skill"));
    let instructions = &found.instructions;
    let user_context = json!({"type": "text", "text": context::instructions::user_context(
        &instructions.entries,
        instructions.auto_index.as_deref(),
        &instructions.pinned,
        config.attached_project.as_deref(),
        &crate::vocab::today(),
    )});
    let mut child = context::reminders::before_prompt(listing.iter().cloned().collect());
    child.push(user_context.clone());
    reminders.extend(listing.map(|l| json!({"type": "text", "text": l})));
    FirstMessage {
        reminders,
        user_context,
        child,
    }
}

/// The session's switches that add or drop built-in skills and commands.
fn features(config: &Config) -> context::builtins::Features {
    context::builtins::Features {
        workflow: config.offer.workflow,
        cron: config.offer.cron,
        design: config.offer.design,
        design_sync: crate::account::policy::allows(&config.home, crate::design::gates::POLICY_KEY)
            && !crate::environment::essential_traffic_only()
            && crate::environment::first_party(),
        artifact: config.offer.artifact,
        remote: crate::environment::remote(),
        heapdump: heapdump_allowed(config),
    }
}

/// `allow_heap_dump` is one of the policy keys 2.1.235 denies when a session that should have
/// the organization's policy (first party, Anthropic's own API, an API key or a bare OAuth token)
/// has no cached policy; otherwise the cache decides, or nothing forbids it.
fn heapdump_allowed(config: &Config) -> bool {
    let eligible = crate::environment::first_party()
        && crate::environment::first_party_base_url()
        && (config.api_key.is_some()
            || std::env::var("CLAUDE_CODE_OAUTH_TOKEN").is_ok_and(|t| !t.is_empty()));
    let policy = |key| crate::account::policy::allows(&config.home, key);
    !eligible || (crate::account::policy::cached(&config.home) && policy("allow_heap_dump"))
}

/// The init event's lists: the user's skills lead, the named workflows follow the bundled one.
fn init_lists(
    config: &Config,
    skills: &[context::skills::Skill],
    features: &context::builtins::Features,
    mcp_prompts: &[String],
) -> context::builtins::InitLists {
    let user: Vec<String> = skills.iter().map(|s| s.name.clone()).collect();
    let workflows: Vec<String> = named_workflows(config)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    context::builtins::init_lists(features, &user, &workflows, mcp_prompts)
}

/// The user's and project's named workflows (name, `meta.description`), which 2.1.235 declares
/// and lists as skills while workflows are on.
fn named_workflows(config: &Config) -> Vec<(String, String)> {
    if !config.offer.workflow {
        return Vec::new();
    }
    crate::workflow::named::all(&config.home, &config.cwd)
        .into_iter()
        .filter(|w| !w.bundled)
        .map(|w| {
            let about = meta_description(&w.script).unwrap_or_default();
            (w.name, about)
        })
        .collect()
}

/// The literal `description: '…'` of a script's `meta` header, found by text (the listing needs
/// no parse; a script that does not parse still has its name listed).
fn meta_description(script: &str) -> Option<String> {
    let meta = &script[script.find("meta")?..];
    let rest = meta[meta.find("description")? + "description".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let quote = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let body = &rest[1..];
    Some(body[..body.find(quote)?].to_owned())
}
