//! One non-interactive session: the request is assembled from the current state every time (the
//! tool catalog is read at assembly, so a catalog that changes applies from the next request on),
//! streamed, its tool_uses run through the pipeline, their results paired back, until the model
//! ends its turn.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::events::{uuid, Format, Output};
use super::prompt;
use super::usage::Usage;
use crate::api::{ApiError, Client};
use crate::brief;
use crate::context;
use crate::limits;
use crate::mcp::{self, McpRuntime, McpTool};
use crate::permissions::{Decision, Mode, Permissions};
use crate::tools::{self, Access, FileState, Tool, ToolContext};

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
    /// `--add-dir` roots.
    pub add_dirs: Vec<PathBuf>,
    /// The optional built-in tools on offer.
    pub offer: tools::Offer,
    /// `--plugin-dir` directories.
    pub plugin_dirs: Vec<PathBuf>,
    /// Brief mode: on, asked for without entitlement, or off.
    pub brief: brief::State,
}

/// Runs the session and returns the process exit status. MCP servers are started first (after
/// configuration, trust and policy) and shut down on every way out.
pub async fn run(config: Config) -> i32 {
    let started = Instant::now();
    let mcp = start_mcp(&config).await;
    let code = converse(&config, &mcp, started).await;
    report_mcp_errors(&mcp);
    mcp.shutdown().await;
    code
}

async fn start_mcp(config: &Config) -> Arc<McpRuntime> {
    let managed = std::env::var_os("CLAUDE_REFERENCE_MANAGED_SETTINGS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(mcp::config::MANAGED_SETTINGS));
    let candidates = mcp::config::load(&mcp::Sources {
        mcp_config: &config.mcp_config,
        strict: config.strict_mcp_config,
        cwd: &config.cwd,
        home: &config.home,
        managed,
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

async fn converse(config: &Config, mcp: &McpRuntime, started: Instant) -> i32 {
    let config = config.clone();
    let out = Output {
        format: config.format,
        session_id: config.session_id.clone(),
    };
    let client = Client::new(
        config.base_url.clone(),
        config.api_key.clone(),
        config.oauth_token.clone(),
        config.session_id.clone(),
    );
    let catalog: Vec<&'static dyn Tool> = tools::builtin(config.offer);
    let (plugins, plugin_errors) = context::plugins::load(&config.plugin_dirs);
    for e in plugin_errors {
        eprintln!("{e}");
    }
    let skills = context::skills::discover(&config.home, &config.cwd, &plugins);
    let mut ctx = ToolContext {
        cwd: config.cwd.clone(),
        home: config.home.clone(),
        session_id: config.session_id.clone(),
        files: FileState::default(),
        permissions: Permissions::load(config.mode, &config.cwd, &config.home),
        shell_cwd: config.cwd.clone(),
        todos: Vec::new(),
        skills: skills.clone(),
        follow_up: Vec::new(),
        lsp: crate::lsp::LspManager::new(&plugins),
        brief: brief::Delivery::from_env(&config.base_url, config.oauth_token.clone()),
    };
    let enforce_brief = brief::enforcement_on(
        config.brief,
        &catalog.iter().map(|t| t.name()).collect::<Vec<_>>(),
        false,
    );
    // LSP registers once a language server does: it is offered from the second request on.
    let catalog_with_lsp: Vec<&'static dyn Tool> = tools::builtin(tools::Offer {
        lsp: true,
        ..config.offer
    });
    let cwd = config.cwd.display().to_string();
    let memory = context::memory::dir(&config.home, &config.cwd);
    let memory_dir = memory.as_ref().map(|d| format!("{}/", d.display()));
    let approved = std::fs::read_to_string(config.home.join(".claude.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| {
            v["projects"][cwd.as_str()]["hasClaudeMdExternalIncludesApproved"] == true
        });
    let instructions = context::instructions::discover(&context::instructions::Sources {
        home: &config.home,
        cwd: &config.cwd,
        add_dirs: &config.add_dirs,
        memory_index: memory.as_ref().map(|d| d.join("MEMORY.md")),
        external_includes_approved: approved,
    });
    let mut conditional_rules = instructions.conditional;
    let first_tools = mcp.current_tools();
    let mut names: Vec<&str> = catalog.iter().map(|t| t.name()).collect();
    names.extend(first_tools.iter().map(|t| t.wire_name.as_str()));
    let mut init = out.init(
        &cwd,
        &names,
        &config.model,
        config.mode.as_str(),
        memory_dir.as_deref(),
    );
    init["mcp_servers"] = json!(mcp.statuses());
    if config.api_key.is_none() {
        init["apiKeySource"] = json!("none");
    }
    out.event(&init);

    let mut first = Vec::new();
    if let Some(reminder) = prompt::mcp_instructions(&mcp.instructions()) {
        first.push(json!({"type": "text", "text": reminder}));
    }
    if let Some(listing) = context::skills::listing(&skills, context::skills::budget()) {
        first.push(json!({"type": "text", "text": listing}));
    }
    first.push(
        json!({"type": "text", "text": context::instructions::user_context(
            &instructions.entries,
            instructions.auto_index.as_deref(),
            &instructions.pinned,
            &today(),
        )}),
    );
    first.push(json!({"type": "text", "text": config.prompt}));
    let mut messages = vec![json!({"role": "user", "content": first})];
    let mut usage = Usage::default();
    let mut api_ms = 0;
    let mut turns = 0;
    let mut denials = Vec::new();
    loop {
        // The MCP catalogs as applied right now: a refresh that lands after this line reaches
        // the model in the next request, never this one.
        let mcp_tools = mcp.current_tools();
        let sent: &[&dyn Tool] = if turns >= 1 && ctx.lsp.has_servers() {
            &catalog_with_lsp
        } else {
            &catalog
        };
        let body = request_body(&config, sent, &mcp_tools, &messages);
        let answer = client
            .send(
                &body,
                |message, index, request_id| out.event(&out.assistant(message, index, request_id)),
                |retry| out.event(&out.api_retry(retry)),
            )
            .await;
        turns += 1;
        let answer = match answer {
            Ok(answer) => answer,
            Err(error) => return api_failure(&out, &client, &error, started, turns),
        };
        api_ms += answer.api_ms;
        usage.add(&answer.message);
        messages.push(answer.message.as_history());
        let tool_uses: Vec<Value> = answer.message.tool_uses().cloned().collect();
        // Brief mode: a turn that ends without SendUserMessage gets one meta message and goes on.
        if tool_uses.is_empty() && enforce_brief && !brief::turn_answered_or_reminded(&messages, 1)
        {
            let text = brief::turn_end_message();
            out.event(&out.synthetic_user(&text));
            messages.push(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
            continue;
        }
        if tool_uses.is_empty() {
            let result = result_event(
                &out,
                &config,
                ResultFields {
                    subtype: "success",
                    is_error: false,
                    terminal_reason: "completed",
                    stop_reason: answer.message.stop_reason.clone(),
                    text: Some(answer.message.text()),
                    turns,
                    usage,
                    api_ms,
                    started,
                    denials,
                    errors: None,
                },
            );
            out.finish(&result);
            return 0;
        }
        let mut blocks = Vec::new();
        for tool_use in &tool_uses {
            let name = tool_use["name"].as_str().unwrap_or_default();
            if let Some(tool) = mcp_tools.iter().find(|t| t.wire_name == name) {
                let (block, structured, denied) = mcp_call(mcp, tool, tool_use, &ctx).await;
                if let Some(message) = denied {
                    let id = tool_use["id"].as_str().unwrap_or_default();
                    out.event(&out.permission_denied(name, id, &message));
                    denials.push(json!({"tool_name": name, "tool_use_id": id, "tool_input": tool_use["input"]}));
                }
                out.event(&out.user_tool_result(&block, &structured));
                blocks.push(block);
                continue;
            }
            // The pipeline blocks on files and processes; let the runtime know.
            let mut result =
                tokio::task::block_in_place(|| tools::run_tool(sent, tool_use, &mut ctx));
            // A file read can bring in rules whose paths match it, appended to its result.
            if name == "Read" && result.is_error.is_none() && result.blocks.is_none() {
                let file = ctx.resolve(tool_use["input"]["file_path"].as_str().unwrap_or_default());
                for reminder in context::instructions::activate(&mut conditional_rules, &file) {
                    // Appended after the text without its trailing whitespace, as 2.1.235 does.
                    result.content.truncate(result.content.trim_end().len());
                    result.content.push_str("\n\n");
                    result.content.push_str(&reminder);
                }
            }
            if let Some(message) = &result.denied {
                let name = tool_use["name"].as_str().unwrap_or_default();
                out.event(&out.permission_denied(name, &result.tool_use_id, message));
                denials.push(json!({"tool_name": name, "tool_use_id": result.tool_use_id, "tool_input": tool_use["input"]}));
            }
            out.event(&out.user_tool_result(&result.block(), &result.structured));
            blocks.push(result.block());
        }
        // What tools added for the model after their results (a skill's body) follows them in the
        // same message; each is a turn of its own in the count.
        for text in std::mem::take(&mut ctx.follow_up) {
            out.event(&out.synthetic_user(&text));
            blocks.push(json!({"type": "text", "text": text}));
            turns += 1;
        }
        messages.push(json!({"role": "user", "content": blocks}));
        if config.max_turns.is_some_and(|max| turns + 1 > max) {
            let result = result_event(
                &out,
                &config,
                ResultFields {
                    subtype: "error_max_turns",
                    is_error: true,
                    terminal_reason: "max_turns",
                    stop_reason: answer.message.stop_reason.clone(),
                    text: None,
                    turns: turns + 1,
                    usage,
                    api_ms,
                    started,
                    denials,
                    errors: Some(format!(
                        "Reached maximum number of turns ({})",
                        config.max_turns.unwrap_or_default()
                    )),
                },
            );
            out.finish(&result);
            return 1;
        }
    }
}

/// An MCP tool call through the permission decision, as its tool_result block, the stream-json
/// `tool_use_result`, and the denial message when refused.
async fn mcp_call(
    mcp: &McpRuntime,
    tool: &McpTool,
    tool_use: &Value,
    ctx: &ToolContext,
) -> (Value, Value, Option<String>) {
    let id = tool_use["id"].as_str().unwrap_or_default();
    let error_block = |text: String| json!({"type": "tool_result", "content": text, "is_error": true, "tool_use_id": id});
    if let Decision::Ask(message) = ctx.permissions.decide(&Access::Mcp(tool.wire_name.clone())) {
        return (
            error_block(message.clone()),
            json!(format!("Error: {message}")),
            Some(message),
        );
    }
    let out = match mcp.call(tool, id, &tool_use["input"]).await {
        Ok(result) => mcp::map_result(&tool.server, &tool.wire_name, &result),
        Err(e) => mcp::map_error(&e),
    };
    let block = if out.is_error {
        json!({"type": "tool_result", "content": out.content, "is_error": true, "tool_use_id": id})
    } else {
        json!({"tool_use_id": id, "type": "tool_result", "content": out.content})
    };
    (block, out.structured, None)
}

/// The request as of now: the catalog and history are read here, at assembly, and nowhere else.
fn request_body(
    config: &Config,
    catalog: &[&dyn Tool],
    mcp_tools: &[McpTool],
    messages: &[Value],
) -> Value {
    let mut messages = messages.to_vec();
    // One cache breakpoint on the last block of the last message, as the real binary places it.
    if let Some(last) = messages
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|c| c.last_mut())
    {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    json!({
        "model": config.model,
        "messages": messages,
        "system": prompt::system_blocks(&config.cwd.display().to_string(), config.brief == brief::State::On),
        "tools": catalog
            .iter()
            .map(|t| tools::definition(*t))
            .chain(mcp_tools.iter().map(McpTool::definition))
            .collect::<Vec<_>>(),
        "metadata": {"user_id": json!({"session_id": config.session_id}).to_string()},
        "max_tokens": limits::API_MAX_TOKENS.get(),
        "stream": true,
    })
}

struct ResultFields {
    subtype: &'static str,
    is_error: bool,
    terminal_reason: &'static str,
    stop_reason: Option<String>,
    text: Option<String>,
    turns: u64,
    usage: Usage,
    api_ms: u64,
    started: Instant,
    denials: Vec<Value>,
    errors: Option<String>,
}

fn result_event(out: &Output, config: &Config, f: ResultFields) -> Value {
    let mut r = json!({
        "is_error": f.is_error, "duration_api_ms": f.api_ms, "num_turns": f.turns, "stop_reason": f.stop_reason,
        "session_id": out.session_id, "total_cost_usd": f.usage.cost(&config.model), "usage": f.usage.json(),
        "modelUsage": f.usage.model_usage(&config.model), "permission_denials": f.denials,
        "terminal_reason": f.terminal_reason, "fast_mode_state": "off", "fast_mode_disabled_reason": "sdk_opt_in_required",
        "subtype": f.subtype,
    });
    match (&f.text, &f.errors) {
        (_, Some(error)) => r["errors"] = json!([error]),
        (Some(text), None) => {
            r["api_error_status"] = Value::Null;
            r["result"] = json!(text);
            // Latency figures the real binary reports; this agent does not measure them apart.
            r["ttft_ms"] = json!(f.api_ms);
            r["ttft_stream_ms"] = json!(f.api_ms);
            r["time_to_request_ms"] = json!(0);
        }
        (None, None) => {}
    }
    r["type"] = json!("result");
    r["duration_ms"] = json!(f.started.elapsed().as_millis() as u64);
    r["uuid"] = json!(uuid());
    r
}

/// The API failed for good: a synthetic assistant message, then a result that is a `success`
/// subtype with `is_error` set, exit 1 (as the real binary ends such runs).
fn api_failure(
    out: &Output,
    client: &Client,
    error: &ApiError,
    started: Instant,
    turns: u64,
) -> i32 {
    let text = error.user_text(&client.gateway());
    out.event(&out.api_error_message(error, &text));
    let result = json!({
        "is_error": true, "duration_api_ms": 0, "num_turns": turns, "stop_reason": "stop_sequence",
        "session_id": out.session_id, "total_cost_usd": 0, "usage": Usage::default().json(), "modelUsage": {},
        "permission_denials": [], "terminal_reason": "api_error", "fast_mode_state": "off",
        "fast_mode_disabled_reason": "sdk_opt_in_required", "subtype": "success", "api_error_status": error.status(),
        "result": text, "type": "result", "duration_ms": started.elapsed().as_millis() as u64, "uuid": uuid(),
    });
    out.finish(&result);
    1
}

/// Today's date (UTC), `YYYY-MM-DD`: the date part of the events' timestamp.
fn today() -> String {
    let mut stamp = super::events::timestamp();
    stamp.truncate("YYYY-MM-DD".len());
    stamp
}
