//! The session's configuration: plain data that start-up reads from the command line, the
//! environment, settings and the organization's policy (start-up's stages), and that every layer
//! above reads: the session, its agent loops, the tools a child is given, workflows.

use std::path::PathBuf;

use crate::brief;
use crate::events::Format;
use crate::vocab::Mode;

/// Who answers for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// `-p PROMPT`: nobody.
    None,
    /// `--input-format stream-json`: an SDK host; `asks` with `--permission-prompt-tool stdio`.
    Control { asks: bool },
    /// No `-p`: a person at a terminal.
    Terminal,
}

#[derive(Clone)]
pub struct Config {
    pub prompt: String,
    pub model: String,
    pub format: Format,
    pub session_id: String,
    pub mode: Mode,
    pub max_turns: Option<u64>,
    pub base_url: String,
    pub api_key: Option<String>,
    /// The claude.ai OAuth token (only without an API key): the Messages API's credential then,
    /// and always the upload credential.
    pub oauth_token: Option<String>,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// `--mcp-config` values (files or JSON) and `--strict-mcp-config`.
    pub mcp_config: Vec<String>,
    pub strict_mcp_config: bool,
    /// `--include-hook-events`.
    pub include_hook_events: bool,
    /// `--add-dir` roots.
    pub add_dirs: Vec<PathBuf>,
    /// The optional built-in tools on offer.
    pub offer: Offer,
    /// `--plugin-dir` directories.
    pub plugin_dirs: Vec<PathBuf>,
    /// Brief mode: on, asked for without entitlement, or off.
    pub brief: brief::State,
    pub host: HostKind,
    /// `--allowedTools` / `--disallowedTools` rules.
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    /// The attached claude.ai Project's context block, fetched at start.
    pub attached_project: Option<String>,
    /// The saved session this one goes on with (`--resume`, `--continue`).
    pub resume: Option<Resume>,
    /// Whether the session file is written (not with `--no-session-persistence`).
    pub persist: bool,
    /// The host's own system prompt, from the command line or an SDK host's `initialize`.
    pub system_prompt: SystemPrompt,
    /// `--replay-user-messages`: each user message from stdin is echoed back.
    pub replay_user_messages: bool,
    /// `--include-partial-messages`: the API's own events as `stream_event` lines.
    pub include_partial_messages: bool,
    /// `--fallback-model`: the main loop's model after overload, for the rest of that turn.
    pub fallback_model: Option<String>,
    /// `--task-budget`: the tokens the main loop's requests say the task may take.
    pub task_budget: Option<u64>,
    /// `--max-budget-usd`: the run ends once its cost reaches this.
    pub max_budget_usd: Option<f64>,
    /// `--thinking`, `--max-thinking-tokens`, `--thinking-display`, `--effort`.
    pub thinking: Thinking,
    /// `--json-schema`: the final answer comes through StructuredOutput.
    pub json_schema: Option<serde_json::Value>,
    /// `--betas` the CLI lets through.
    pub betas: Vec<String>,
}

/// How the host asked the model to think (recorded on 2.1.235, sdk.invocation/thinking).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Thinking {
    /// `--thinking disabled` or `--max-thinking-tokens 0`.
    pub disabled: bool,
    /// `--max-thinking-tokens`: the budget of a model that is given one.
    pub budget: Option<u64>,
    /// `--thinking-display`: `summarized` or `omitted`.
    pub display: Option<String>,
    /// `--effort`, for a model that decides how much to think.
    pub effort: Option<String>,
}

/// What the host says of the system prompt (`--system-prompt[-file]`, `--append-system-prompt[-file]`,
/// `initialize`'s `systemPrompt` and `appendSystemPrompt`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemPrompt {
    /// Replaces ours after the identity line; empty leaves the identity line alone.
    pub replace: Option<String>,
    /// Ends the last block, after a blank line.
    pub append: Option<String>,
}

/// A saved session to go on with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// The session id to read, as given (`--resume`) or found (`--continue`).
    pub from: String,
    /// `--fork-session`: a new id and file; otherwise `session_id` is `from` and its file grows.
    pub fork: bool,
    /// `--resume` named the id (not found by `--continue`): the session is known before start-up
    /// ends, which changes how often 2.1.235 builds the first context (`projects::context`).
    pub named: bool,
}

/// Which optional built-in tools a session offers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Offer {
    /// `--allowedTools` names Glob or Grep.
    pub search_tools: bool,
    /// TodoWrite: on when the task tools are switched off (`CLAUDE_CODE_ENABLE_TASKS=0`), as
    /// 2.1.235 swaps them.
    pub todo: bool,
    /// TaskCreate, TaskGet, TaskList, TaskUpdate: the other side of that switch.
    pub tasks: bool,
    /// NotebookEdit (deferred under tool search: on offer, out of tools[] until loaded).
    pub notebook: bool,
    /// StructuredOutput: the host gave a JSON Schema for the final answer (`--json-schema`).
    pub structured_output: bool,
    /// The schema came in an SDK host's `initialize`: 2.1.235 then adds StructuredOutput after
    /// the sorted built-ins (recorded: sdk.control/json-schema).
    pub structured_output_last: bool,
    /// LSP: registered once a language server is (from request 2 on, as in 2.1.235).
    pub lsp: bool,
    /// SendUserMessage: Brief mode is on.
    pub brief: bool,
    /// SendUserFile: a remote surface (`send_user_file::offered`).
    pub send_user_file: bool,
    /// ListConnectors, SearchMcpRegistry, SuggestConnectors: a remote session on Anthropic's
    /// provider.
    pub connectors: bool,
    /// ListPlugins, SearchPlugins, SuggestPluginInstall, ListSkills, SearchSkills, SuggestSkills:
    /// as the connector tools, for an organization without the hipaa taint.
    pub catalog: bool,
    /// ShowOnboardingRolePicker: a remote session.
    pub role_picker: bool,
    /// ReadNotifications: a remote session run by a host or `-p`, not at a terminal.
    pub notifications: bool,
    /// AskUserQuestion, EnterPlanMode, ExitPlanMode: someone can answer (a host with a
    /// permission-prompt tool, or a terminal).
    pub user: bool,
    /// Plan mode: the file-changing tools are withdrawn (seed 004).
    pub plan_mode: bool,
    /// ClaudeDesign: its four gates passed (seed 000).
    pub design: bool,
    /// Projects: a Project is attached and the policy allows it (seed 000 part B).
    pub projects: bool,
    /// DesignSync: 2.1.235's `design_sync::offered` (beyond the seeds); deferred under tool
    /// search.
    pub design_sync: bool,
    /// EnterWorktree and ExitWorktree (deferred under tool search).
    pub worktree: bool,
    /// CronCreate, CronDelete, CronList: on unless switched off (seed 004 §Cron); deferred under
    /// tool search.
    pub cron: bool,
    /// Workflow: on unless switched off (`CLAUDE_CODE_DISABLE_WORKFLOWS`, managed
    /// `disableWorkflows`), as 2.1.235 withdraws it.
    pub workflow: bool,
    /// ToolSearch: tool search is on (`ENABLE_TOOL_SEARCH`); the deferred tools stay on offer
    /// but out of tools[] until loaded.
    pub tool_search: bool,
    /// ListMcpResourcesTool, ReadMcpResourceTool, ReadMcpResourceDirTool: a connected MCP server
    /// declares resources.
    pub mcp_resources: bool,
    /// Artifact: `CLAUDE_CODE_ARTIFACT` asks for it (seed 004 §Artifact).
    pub artifact: bool,
    /// 2.1.235's fork-subagent mode: on at a terminal, or with `CLAUDE_CODE_FORK_SUBAGENT` (see
    /// `fork_subagent`); Agent then has no `run_in_background`.
    pub fork_subagent: bool,
    /// Background tasks are allowed (`CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` unset); without
    /// them Agent has no `run_in_background` either.
    pub background_tasks: bool,
    /// `--tools`: only these built-ins (by name or alias) are on offer; `None` for all of them.
    /// Naming Glob or Grep offers it, as `--allowedTools` does.
    pub only: Option<&'static [String]>,
    /// `only` came from `--agent`'s type: its tools keep that type's order, not the name order.
    pub only_in_order: bool,
    /// Tools a blanket `--disallowedTools` rule (a name without a pattern) takes out of tools[],
    /// as 2.1.235 does (recorded: tools.surface/disallowed); a rule with a pattern leaves the
    /// tool on offer and only refuses matching calls.
    pub denied: &'static [String],
}

impl Offer {
    /// `--tools` lists `name`.
    pub fn lists(&self, name: &str) -> bool {
        self.only.is_some_and(|only| only.iter().any(|n| n == name))
    }
}
