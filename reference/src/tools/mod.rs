//! Built-in tools and the one pipeline every tool_use goes through.

mod agent;
mod artifact;
mod ask_user;
mod bash;
mod claude_design;
mod cron;
pub mod design_sync;
mod directories;
mod edit;
mod file_state;
mod glob;
mod grep;
mod lsp;
mod mcp_resources;
mod notebook;
mod onboarding;
mod pdf_pages;
mod persist;
mod picture;
mod pipeline;
mod plan_mode;
mod projects;
mod read;
mod read_media;
mod read_tokens;
mod report_findings;
mod schedule_wakeup;
pub mod schema;
mod send_message;
pub mod send_user_file;
mod send_user_message;
pub mod shell_task;
mod skill;
pub mod structured_output;
mod surface;
mod task_output;
mod task_stop;
mod tasks;
mod todo;
pub mod tool_search;
mod web_fetch;
mod web_search;
mod workflow;
mod worktree;
mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use claude_design::slash_command as design_command;
pub use file_state::FileState;
pub use pipeline::{parsed_input, run_tool, ToolResult};
pub use surface::{background_tasks, blanket_rules, fork_subagent, only_list};
pub use tasks::reminder_lines as task_reminder_lines;

use crate::config::{Config, Offer};
use crate::limits::Limit;
use crate::permissions::Permissions;
pub use crate::vocab::{Access, Failure, ToolError};
use crate::vocab::{Ask, Mode, Prompt, Reply};

/// State a tool may read or change, owned by the session.
pub struct ToolContext {
    pub cwd: PathBuf,
    pub home: PathBuf,
    pub session_id: String,
    pub files: FileState,
    pub permissions: Permissions,
    /// The Bash tool's working directory, which `cd` moves.
    pub shell_cwd: PathBuf,
    /// TodoWrite's list.
    pub todos: Vec<Value>,
    /// The skills this session found (the Skill tool launches them).
    pub skills: Vec<crate::context::skills::Skill>,
    /// Text blocks a tool adds after this turn's tool_results (a launched skill's body).
    pub follow_up: Vec<String>,
    /// The skills the Skill tool launched, oldest first, each once (a compaction brings them
    /// back).
    pub invoked_skills: Vec<crate::context::restored::Skill>,
    /// Blocks the current call adds right after its own tool_result (a Read's picture note, PDF
    /// document or page pictures); the turn takes them once the result is out.
    pub after_result: Vec<Value>,
    /// Language servers from plugins, started on first use.
    pub lsp: crate::lsp::LspManager,
    /// Where Brief attachments go and the gates on the way.
    pub brief: crate::brief::Delivery,
    /// Who answers for the user (`None` under `-p`).
    pub host: Option<std::sync::Arc<dyn Host>>,
    /// The tool_use being run (the id a question to the user carries).
    pub tool_use_id: String,
    /// The mode a tool or an answer switched to, for the session to announce.
    pub mode_changed: Option<Mode>,
    /// A person at a terminal answers (not `-p`, not an SDK host).
    pub interactive: bool,
    /// ClaudeDesign is offered (its gates passed at start).
    pub design: bool,
    /// The worktree EnterWorktree moved the session into, until ExitWorktree.
    pub worktree: Option<crate::worktree::Active>,
    /// The cron jobs: this session's, and the way to the project's durable file.
    pub cron: crate::cron::Store,
    /// Other agent loops and background tasks of this session (`None` where none may start).
    pub agents: Option<crate::agents::Agents>,
    /// Set when this loop's task is stopped (TaskStop): running commands end with it.
    pub cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// WebFetch's page and domain caches.
    pub web_fetch: crate::web_fetch::Cache,
    /// The session's MCP servers, for the resource tools (`None` in child loops).
    pub mcp: Option<crate::mcp::McpRuntime>,
    /// Tool search: what is deferred, what the history loaded, what ToolSearch searches.
    pub tool_search: tool_search::State,
    /// The artifact versions this loop has seen and the pages it published.
    pub artifact: crate::artifact::Session,
    /// The settings' hooks, run around each call (`pipeline`).
    pub hooks: std::sync::Arc<crate::hooks::Hooks>,
    /// The prompt this loop answers, as hooks are told it.
    pub prompt_id: Option<String>,
    /// What hooks asked the host to be told (`systemMessage`), for the session to announce.
    pub hook_messages: Vec<String>,
    /// A hook answered `continue: false`: the session ends once this round's results are in.
    pub hook_stop: bool,
    /// The input a PreToolUse hook rewrote the current call's to (its denial names it).
    pub hook_input: Option<Value>,
    /// The sub-agent this loop runs (its id and type), as its hooks are told; none in the main
    /// loop.
    pub hook_agent: Option<(String, String)>,
}

impl ToolContext {
    /// The context of a loop of the session `config` working in `cwd`: nothing read yet, no
    /// skills, nobody to ask, no language servers, no MCP servers, no agents. The session and a
    /// child each add what is theirs.
    pub fn new(config: &Config, cwd: &Path, permissions: Permissions) -> ToolContext {
        ToolContext {
            cwd: cwd.to_owned(),
            home: config.home.clone(),
            session_id: config.session_id.clone(),
            files: FileState::default(),
            permissions,
            shell_cwd: cwd.to_owned(),
            todos: Vec::new(),
            skills: Vec::new(),
            follow_up: Vec::new(),
            invoked_skills: Vec::new(),
            after_result: Vec::new(),
            lsp: crate::lsp::LspManager::default(),
            brief: crate::brief::Delivery::from_env(&config.base_url, config.oauth_token.clone()),
            host: None,
            tool_use_id: String::new(),
            mode_changed: None,
            interactive: false,
            design: config.offer.design,
            worktree: None,
            cron: crate::cron::Store::new(cwd, &config.session_id, crate::cron::Clock::from_env()),
            agents: None,
            cancel: Default::default(),
            web_fetch: Default::default(),
            mcp: None,
            tool_search: tool_search::State::default(),
            artifact: Default::default(),
            hooks: std::sync::Arc::new(crate::hooks::Hooks::load(&config.home, cwd)),
            prompt_id: None,
            hook_messages: Vec::new(),
            hook_stop: false,
            hook_input: None,
            hook_agent: None,
        }
    }

    /// The context of a child loop: the session's rules, nothing read yet, its own working
    /// directory, nobody to ask, no language servers, one level deeper.
    pub fn for_child(
        agents: &crate::agents::Agents,
        cwd: &Path,
        cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> ToolContext {
        let config = &agents.config;
        let (permissions, _) = Permissions::load(
            config.mode,
            cwd,
            &config.home,
            &config.allowed_tools,
            &config.disallowed_tools,
        );
        ToolContext {
            agents: Some(agents.clone()),
            cancel,
            ..ToolContext::new(config, cwd, permissions)
        }
    }

    /// What every hook is told about the session this loop belongs to.
    pub fn hook_session(&self) -> crate::hooks::Session {
        crate::hooks::Session {
            id: self.session_id.clone(),
            cwd: self.cwd.clone(),
            home: self.home.clone(),
            prompt_id: self.prompt_id.clone(),
            entrypoint: crate::api::wire::get().entrypoint.clone(),
            agent: self.hook_agent.clone(),
        }
    }

    fn hook_call<'a>(
        &'a self,
        tool: &'a str,
        input: &'a Value,
        id: &'a str,
    ) -> crate::hooks::tool::Call<'a> {
        crate::hooks::tool::Call {
            tool,
            input,
            id,
            mode: self.permissions.mode.as_str(),
        }
    }

    /// The PreToolUse hooks of a call, built-in or MCP, with its checked input. What they ask
    /// the host to be told and whether they end the session are kept for the session.
    pub fn pre_tool_use(&mut self, tool: &str, input: &Value, id: &str) -> crate::hooks::tool::Pre {
        let pre = self
            .hooks
            .pre_tool_use(&self.hook_session(), &self.hook_call(tool, input, id));
        self.hook_messages.extend(pre.messages.iter().cloned());
        self.hook_stop |= pre.stop;
        self.hook_input.clone_from(&pre.input);
        pre
    }

    /// The PostToolUse hooks of a call that succeeded: the notes they add for the model.
    pub fn post_tool_use(
        &mut self,
        tool: &str,
        input: &Value,
        id: &str,
        response: &Value,
        took: std::time::Duration,
    ) -> Vec<String> {
        let post = self.hooks.post_tool_use(
            &self.hook_session(),
            &self.hook_call(tool, input, id),
            response,
            took,
        );
        self.hook_stop |= post.stop;
        self.hook_messages.extend(post.messages);
        post.notes
    }

    /// The PostToolUseFailure hooks of a call that failed: the notes they add for the model.
    pub fn post_tool_use_failure(
        &mut self,
        tool: &str,
        input: &Value,
        id: &str,
        error: &str,
        interrupted: bool,
        took: std::time::Duration,
    ) -> Vec<String> {
        let post = self.hooks.post_tool_use_failure(
            &self.hook_session(),
            &self.hook_call(tool, input, id),
            error,
            interrupted,
            took,
        );
        self.hook_stop |= post.stop;
        self.hook_messages.extend(post.messages);
        post.notes
    }

    /// Whether this loop's task was stopped.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Switches the permission mode; the session announces it (a `status` event).
    pub fn set_mode(&mut self, mode: Mode) {
        self.permissions.mode = mode;
        self.mode_changed = Some(mode);
    }

    /// Puts a question only a person can answer to the host (AskUserQuestion, ExitPlanMode);
    /// `no_one` is the error when nobody can answer in this session.
    pub fn ask_user(&self, tool: &str, input: &Value, no_one: &str) -> Result<Reply, ToolError> {
        let host = self
            .host
            .clone()
            .ok_or_else(|| ToolError::wrapped(no_one))?;
        let prompt = Prompt::default();
        Ok(host.ask(&Ask {
            tool,
            input,
            tool_use_id: &self.tool_use_id,
            description: None,
            about: "",
            prompt: &prompt,
            interactive: true,
        }))
    }

    /// `path` made absolute against the session cwd.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.cwd.join(p)
        }
    }
}

/// A successful call: the text the model sees and the structured `tool_use_result`.
pub struct ToolOutput {
    pub content: String,
    pub structured: Value,
    /// Tools whose results always carry `is_error` (Bash) set this; `Some(true)` for a failure that
    /// still has output (a non-zero exit).
    pub is_error: Option<bool>,
    /// Content as blocks instead of the text (a notebook Read), for the tool_result.
    pub blocks: Option<Value>,
}

impl ToolOutput {
    pub fn as_blocks(mut self, blocks: Value) -> Self {
        self.blocks = Some(blocks);
        self
    }
}

/// Who answers for the user: the SDK host over the control protocol or a person at a terminal
/// (the host layer). The tools own this trait, so they ask without importing who answers.
pub trait Host: Send + Sync {
    fn ask(&self, ask: &Ask) -> Reply;

    /// Asks while `rival` (the PermissionRequest hooks) may answer first; its answer, when it
    /// has one, is taken instead. This host asks once the rival has had its say; one that can
    /// withdraw a question asks at once.
    fn ask_racing(&self, ask: &Ask, rival: &(dyn Fn() -> Option<Reply> + Sync)) -> Reply {
        rival().unwrap_or_else(|| self.ask(ask))
    }
}

pub trait Tool: Sync {
    fn name(&self) -> &'static str;
    /// Other names a tool_use may call it by (Agent's `Task`).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// Our own words for the model.
    fn description(&self) -> &'static str;
    /// Property names, types, required fields, enums and bounds as the real binary sends them.
    fn input_schema(&self) -> Value;
    /// The schema the pipeline checks an input against before the call: the input schema,
    /// unless the tool checks its input itself (StructuredOutput).
    fn validation_schema(&self) -> Value {
        self.input_schema()
    }
    /// The result budget in chars; results over it are persisted and previewed.
    fn result_budget(&self) -> Option<&'static Limit> {
        None
    }
    fn access(&self, input: &Value, ctx: &ToolContext) -> Access;
    /// Checks the JSON schema cannot express (2.1.235's zod refinements), reported as
    /// `InputValidationError` issues like the schema's own; run once the schema's pass.
    fn refine(&self, _input: &Value) -> Vec<schema::Issue> {
        Vec::new()
    }
    /// The input rewritten before the schema sees it (2.1.235's `coerceInput`: aliases and
    /// backfills of what models commonly send), or `None` to validate it as sent.
    fn coerce_input(&self, _input: &Value) -> Option<Value> {
        None
    }
    /// A hint appended to a failed validation's message (2.1.235's `validationErrorSteer`),
    /// judged on the input as sent.
    fn validation_steer(&self, _input: &Value) -> Option<&'static str> {
        None
    }
    /// The tool's own input checks after the schema's (2.1.235's `validateInput`): the message is
    /// shown as a tool error and nothing runs.
    fn validate_input(&self, _input: &Value, _ctx: &ToolContext) -> Option<String> {
        None
    }
    /// The tool's own permission verdict, asked only when `access` is `Access::Checked`.
    fn check_permissions(
        &self,
        _input: &Value,
        _ctx: &mut ToolContext,
    ) -> crate::permissions::ToolCheck {
        crate::permissions::ToolCheck::Allow
    }
    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError>;
}

/// The tools every session offers (tools[] is sorted by name in the end).
const ALWAYS: &[&dyn Tool] = &[
    &bash::Bash,
    &send_message::SendMessage,
    &task_output::TaskOutput,
    &task_stop::TaskStop,
    &edit::Edit,
    &read::Read,
    // Not in seed 004; 2.1.235 offers both in every session (recorded: every run's tools[];
    // ScheduleWakeup is deferred under tool search).
    &report_findings::ReportFindings,
    &schedule_wakeup::ScheduleWakeup,
    &skill::Skill,
    // Offered by default as 2.1.235 does (recorded: every loopback run's tools[]); deferred
    // when tool search is on.
    &web_fetch::WebFetch,
    // Offered by default like WebFetch (recorded: exp.ws-1's tools[]); deferred under tool
    // search.
    &web_search::WebSearch,
    &write::Write,
];

/// The optional families, each with the switch of the offer that brings it in.
type Family = (fn(&Offer) -> bool, &'static [&'static dyn Tool]);

const FAMILIES: &[Family] = &[
    // 2.1.235 offers Glob and Grep only when `--allowedTools` (or `--tools`) names one of them;
    // otherwise its shell has the embedded search commands instead.
    (
        |o| o.search_tools || o.lists("Glob") || o.lists("Grep"),
        &[&glob::Glob, &grep::Grep],
    ),
    (|o| o.todo, &[&todo::TodoWrite]),
    (
        |o| o.tasks,
        &[
            &tasks::TaskCreate,
            &tasks::TaskGet,
            &tasks::TaskList,
            &tasks::TaskUpdate,
        ],
    ),
    (|o| o.notebook, &[&notebook::NotebookEdit]),
    (|o| o.lsp, &[&lsp::Lsp]),
    (|o| o.brief, &[&send_user_message::SendUserMessage]),
    (|o| o.send_user_file, &[&send_user_file::SendUserFile]),
    (
        |o| o.connectors,
        &[
            &directories::LIST_CONNECTORS,
            &directories::SEARCH_MCP_REGISTRY,
            &directories::SUGGEST_CONNECTORS,
        ],
    ),
    (
        |o| o.catalog,
        &[
            &directories::LIST_PLUGINS,
            &directories::SEARCH_PLUGINS,
            &directories::SUGGEST_PLUGIN_INSTALL,
            &directories::LIST_SKILLS,
            &directories::SEARCH_SKILLS,
            &directories::SUGGEST_SKILLS,
        ],
    ),
    (|o| o.role_picker, &[&onboarding::ShowOnboardingRolePicker]),
    (|o| o.notifications, &[&onboarding::ReadNotifications]),
    (
        |o| o.user,
        &[
            &ask_user::AskUserQuestion,
            &plan_mode::EnterPlanMode,
            &plan_mode::ExitPlanMode,
        ],
    ),
    (|o| o.design, &[&claude_design::ClaudeDesign]),
    (|o| o.projects, &[&projects::Projects]),
    (|o| o.design_sync, &[&design_sync::DesignSync]),
    (
        |o| o.worktree,
        &[&worktree::EnterWorktree, &worktree::ExitWorktree],
    ),
    (|o| o.workflow, &[&workflow::Workflow]),
    (
        |o| o.cron,
        &[&cron::CronCreate, &cron::CronDelete, &cron::CronList],
    ),
    (|o| o.tool_search, &[&tool_search::ToolSearch]),
    (
        |o| o.mcp_resources,
        &[
            &mcp_resources::ListMcpResources,
            &mcp_resources::ReadMcpResource,
            &mcp_resources::ReadMcpResourceDir,
        ],
    ),
    (|o| o.artifact, &[&artifact::Artifact]),
    (
        |o| o.structured_output,
        &[&structured_output::StructuredOutput],
    ),
];

/// The built-in tools in the order `tools[]` lists them (alphabetical, as the real binary does):
/// the ones every session has, the families `offer` switches on, less what plan mode, `--tools`
/// and blanket `--disallowedTools` rules take out.
pub fn builtin(offer: Offer) -> Vec<&'static dyn Tool> {
    let agent: &'static dyn Tool = if offer.fork_subagent || !offer.background_tasks {
        &agent::AGENT_NO_BACKGROUND_CHOICE
    } else {
        &agent::AGENT
    };
    let mut tools: Vec<&'static dyn Tool> = std::iter::once(agent)
        .chain(ALWAYS.iter().copied())
        .chain(
            FAMILIES
                .iter()
                .filter(|(on, _)| on(&offer))
                .flat_map(|(_, family)| family.iter().copied()),
        )
        .collect();
    if offer.plan_mode {
        tools.retain(|t| pipeline::plan_withdrawn(t.name()).is_none());
    }
    if let Some(only) = offer.only {
        tools.retain(|t| surface::named(*t, only));
    }
    tools.retain(|t| !surface::named(*t, offer.denied));
    tools.sort_by_key(|t| t.name());
    if let (Some(only), true) = (offer.only, offer.only_in_order) {
        tools.sort_by_key(|t| {
            only.iter()
                .position(|n| surface::named(*t, std::slice::from_ref(n)))
        });
    }
    if offer.structured_output_last {
        if let Some(i) = tools
            .iter()
            .position(|t| t.name() == structured_output::NAME)
        {
            let tool = tools.remove(i);
            tools.push(tool);
        }
    }
    tools
}

/// The request's `tools[]` entry of a tool.
pub fn definition(tool: &dyn Tool) -> Value {
    serde_json::json!({"name": tool.name(), "description": tool.description(), "input_schema": tool.input_schema()})
}

/// Runs a future to completion from the pipeline's blocking context (the tools that talk to a
/// service over async HTTP).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Handle::current().block_on(f)
}

/// The JSON schema object every tool shares the frame of. With nothing required there is no
/// `required` key at all, as 2.1.235 sends such schemas (CronList, TaskList, TaskStop,
/// EnterWorktree).
fn object_schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    if required.is_empty() {
        if let Some(map) = schema.as_object_mut() {
            map.shift_remove("required");
        }
    }
    schema
}

/// The note every successful write appends.
const STATE_CURRENT: &str = "(file state is current in your context — no need to Read it back)";
const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
const MODIFIED_SINCE_READ: &str =
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// The Read-before-write and stale-file gates, as the tool error the model sees.
fn write_gate(ctx: &ToolContext, path: &Path) -> Result<(), ToolError> {
    ctx.files.check_write(path).map_err(|gate| match gate {
        file_state::Gate::NotRead => ToolError::wrapped(NOT_READ),
        file_state::Gate::Stale => ToolError::wrapped(MODIFIED_SINCE_READ),
    })
}

fn missing_file(cwd: &Path) -> String {
    format!(
        "File does not exist. Note: your current working directory is {}.",
        cwd.display()
    )
}
