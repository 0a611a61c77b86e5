//! Stage two: the session's configuration decided from what stage one read, and nothing else:
//! which optional tools are offered, which credential the Messages API gets, the model. A pure
//! function of [`Inputs`], so each rule is tested with inputs made by hand.

use super::read::{Inputs, DEFAULT_MODEL};
use crate::config::{Config, HostKind, Offer};

/// The configuration `inputs` call for.
pub fn decide(inputs: &Inputs) -> Config {
    let args = &inputs.args;
    Config {
        prompt: inputs.prompt.clone(),
        model: args
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        format: inputs.format,
        session_id: inputs.session_id.clone(),
        mode: inputs.mode,
        max_turns: args.max_turns,
        base_url: inputs
            .base_url
            .clone()
            .unwrap_or_else(|| "https://api.anthropic.com".into()),
        // With an API key there is no OAuth token, as in 2.1.235 (real-binary.md).
        oauth_token: inputs
            .oauth_env
            .clone()
            .or_else(|| inputs.login_token.clone())
            .filter(|_| inputs.api_key.is_none()),
        api_key: inputs.api_key.clone(),
        cwd: inputs.cwd.clone(),
        home: inputs.home.clone(),
        brief: inputs.brief,
        mcp_config: args.mcp_config.clone(),
        strict_mcp_config: args.strict_mcp_config,
        include_hook_events: args.include_hook_events,
        add_dirs: args.add_dir.iter().map(Into::into).collect(),
        plugin_dirs: args.plugin_dir.iter().map(Into::into).collect(),
        offer: offer(inputs),
        host: inputs.host,
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
        attached_project: None,
        resume: inputs.resume.clone(),
        persist: !args.no_session_persistence,
        system_prompt: inputs.system_prompt.clone(),
        replay_user_messages: args.replay_user_messages,
        include_partial_messages: args.include_partial_messages,
        fallback_model: args.fallback_model.clone(),
        max_budget_usd: inputs.max_budget_usd,
        task_budget: inputs.task_budget,
        thinking: inputs.thinking.clone(),
        json_schema: inputs.json_schema.clone(),
        betas: inputs.betas.clone(),
    }
}

/// The tools of the agent type the main loop runs as (`--agent`), when it names them: the user's
/// type's, or the status-line agent's (recorded: sdk.invocation/main-agent-builtin).
fn main_agent_tools(inputs: &Inputs) -> Option<Vec<String>> {
    if inputs.main_builtin.as_deref() == Some("statusline-setup") {
        return Some(
            crate::agents::STATUSLINE_TOOLS
                .iter()
                .map(|t| (*t).to_owned())
                .collect(),
        );
    }
    inputs.main_agent.as_ref()?.tools.clone()
}

/// Tools out of tools[]: a blanket `--disallowedTools` rule's, and what a read-only built-in
/// agent type the main loop runs as goes without (`--agent Explore`, recorded:
/// sdk.invocation/main-agent-builtin).
fn denied(inputs: &Inputs) -> Vec<String> {
    let mut denied = crate::tools::blanket_rules(&inputs.args.disallowed_tools);
    if inputs
        .main_builtin
        .as_deref()
        .is_some_and(crate::agents::read_only)
    {
        denied.extend(
            crate::agents::READ_ONLY_WITHOUT
                .iter()
                .map(|t| (*t).to_owned()),
        );
    }
    denied
}

/// The optional built-ins on offer at start; the session adds what depends on its own state
/// (who answers, plan mode, language servers, MCP resources).
fn offer(inputs: &Inputs) -> Offer {
    let args = &inputs.args;
    let gates = &inputs.gates;
    // Recorded on 2.1.235 (recon tasks13 exp.tasks-4*): claude-sonnet-4-5 gets the task tools,
    // or TodoWrite when CLAUDE_CODE_ENABLE_TASKS switches them off; the default claude-opus-5
    // gets neither unless CLAUDE_CODE_ENABLE_TODO_TOOLS is set.
    let tracking = args.model.as_deref().is_some_and(|m| m != DEFAULT_MODEL) || gates.todo_tools;
    Offer {
        search_tools: args.allowed_tools.iter().any(|rule| {
            let name = rule.split('(').next().unwrap_or_default().trim();
            name == "Glob" || name == "Grep"
        }),
        todo: tracking && gates.tasks_off,
        tasks: tracking && !gates.tasks_off,
        // A deferred tool: out of request 1 when tool search is on (2.1.235 turns it on for a
        // non-Anthropic base URL only when asked).
        lsp: false,
        brief: inputs.brief == crate::brief::State::On,
        send_user_file: gates.send_user_file,
        connectors: gates.connectors,
        catalog: gates.catalog,
        role_picker: crate::environment::remote(),
        // 2.1.235's `jEi`: a remote session nobody answers at a terminal.
        notifications: crate::environment::remote()
            && inputs.host != crate::config::HostKind::Terminal,
        // Deferred under tool search: on offer, out of tools[] until ToolSearch loads it.
        notebook: true,
        // Set by the session: who can answer, and whether plan mode withdraws tools.
        user: false,
        plan_mode: false,
        design: gates.design,
        projects: gates.projects,
        design_sync: gates.design_sync,
        // Deferred like NotebookEdit.
        worktree: true,
        cron: gates.cron,
        workflow: gates.workflow,
        tool_search: gates.tool_search,
        // Set by the session once its MCP servers are connected.
        mcp_resources: false,
        structured_output: inputs.json_schema.is_some(),
        structured_output_last: false,
        artifact: gates.artifact
            || (inputs.host == HostKind::Terminal && gates.artifact_at_terminal),
        fork_subagent: gates.fork_subagent,
        background_tasks: gates.background_tasks,
        // Fixed for the whole process: kept for its lifetime so the offer stays `Copy`. The main
        // loop's agent type (`--agent`) names its tools (recorded: sdk.invocation/main-agent).
        only: main_agent_tools(inputs)
            .or_else(|| crate::tools::only_list(args.tools.as_deref()))
            .map(|names| &*Box::leak(names.into_boxed_slice())),
        only_in_order: main_agent_tools(inputs).is_some(),
        denied: Box::leak(denied(inputs).into_boxed_slice()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::Gates;

    /// Inputs of a `-p` run with `line` as its flags and nothing in the environment.
    fn inputs(line: &[&str]) -> Inputs {
        let args = crate::cli::parse(
            ["claude-reference", "-p", "hi"]
                .into_iter()
                .chain(line.iter().copied())
                .map(String::from),
        )
        .unwrap();
        Inputs {
            args,
            format: crate::events::Format::Text,
            mode: crate::vocab::Mode::Default,
            host: HostKind::None,
            prompt: "hi".into(),
            session_id: "s".into(),
            resume: None,
            cwd: "/work".into(),
            home: "/home/u".into(),
            api_key: Some("key".into()),
            oauth_env: None,
            login_token: None,
            base_url: None,
            brief: crate::brief::State::Off,
            gates: Gates::default(),
            system_prompt: Default::default(),
            main_agent: None,
            main_builtin: None,
            max_budget_usd: None,
            task_budget: None,
            thinking: Default::default(),
            json_schema: None,
            betas: Vec::new(),
        }
    }

    #[test]
    fn the_default_model_tracks_no_tasks_and_another_gets_the_task_tools() {
        let offer = decide(&inputs(&[])).offer;
        assert!(!offer.tasks && !offer.todo);
        let offer = decide(&inputs(&["--model", "claude-sonnet-4-5"])).offer;
        assert!(offer.tasks && !offer.todo);
        let mut off = inputs(&["--model", "claude-sonnet-4-5"]);
        off.gates.tasks_off = true;
        let offer = decide(&off).offer;
        assert!(
            !offer.tasks && offer.todo,
            "TodoWrite when the task tools are off"
        );
        let mut asked = inputs(&[]);
        asked.gates.todo_tools = true;
        assert!(
            decide(&asked).offer.tasks,
            "the switch gives the default model tasks"
        );
    }

    #[test]
    fn naming_glob_or_grep_in_allowed_tools_offers_the_search_tools() {
        assert!(!decide(&inputs(&[])).offer.search_tools);
        assert!(
            decide(&inputs(&["--allowedTools", "Grep(*.rs)"]))
                .offer
                .search_tools
        );
        assert!(
            !decide(&inputs(&["--allowedTools", "Bash"]))
                .offer
                .search_tools
        );
    }

    #[test]
    fn an_api_key_keeps_the_oauth_token_off_the_messages_api() {
        let mut with_key = inputs(&[]);
        with_key.oauth_env = Some("oat".into());
        assert_eq!(decide(&with_key).oauth_token, None);
        let mut without = with_key.clone();
        without.api_key = None;
        assert_eq!(decide(&without).oauth_token.as_deref(), Some("oat"));
        without.oauth_env = None;
        without.login_token = Some("stored".into());
        assert_eq!(decide(&without).oauth_token.as_deref(), Some("stored"));
    }

    #[test]
    fn artifact_needs_the_switch_or_a_terminal_whose_gates_pass() {
        let mut i = inputs(&[]);
        i.gates.artifact_at_terminal = true;
        assert!(!decide(&i).offer.artifact, "not at -p");
        i.host = HostKind::Terminal;
        assert!(decide(&i).offer.artifact);
        let mut asked = inputs(&[]);
        asked.gates.artifact = true;
        assert!(decide(&asked).offer.artifact);
    }

    #[test]
    fn defaults_fill_what_the_flags_and_environment_leave_open() {
        let config = decide(&inputs(&[]));
        assert_eq!(config.model, DEFAULT_MODEL);
        assert_eq!(config.base_url, "https://api.anthropic.com");
        assert!(config.offer.notebook && config.offer.worktree);
        assert!(
            !config.offer.user && !config.offer.lsp,
            "the session's to decide"
        );
    }
}
