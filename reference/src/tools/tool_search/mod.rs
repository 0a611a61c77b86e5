//! Tool search (`ENABLE_TOOL_SEARCH`): deferred tools stay out of tools[] until ToolSearch loads
//! them. A load is a `tool_reference` block in a tool_result; the set of loaded tools is read
//! back from the history at each request's assembly, and from then on each loaded tool rides in
//! tools[] in its usual place, marked `defer_loading`. Recorded on 2.1.235 (recon toolsearch14).

mod decide;
mod rank;

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};
use crate::mcp::McpTool;
pub use decide::{enabled, switched_off};
use rank::Entry;

pub const NAME: &str = "ToolSearch";

/// The built-ins 2.1.235 defers (recorded: its first request's listing and the resource tools;
/// LSP per seed 004:127; a remote session's directory tools, tools.surface/remote-deferred).
/// MCP tools are deferred unless their server is `alwaysLoad`.
const DEFERRED_BUILTINS: &[&str] = &[
    "CronCreate",
    "CronDelete",
    "CronList",
    "DesignSync",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "ListMcpResourcesTool",
    "ListConnectors",
    "ListPlugins",
    "ListSkills",
    "LSP",
    "NotebookEdit",
    "ReadMcpResourceDirTool",
    "ReadMcpResourceTool",
    "ScheduleWakeup",
    "SearchMcpRegistry",
    "SearchPlugins",
    "SearchSkills",
    "SendMessage",
    // SuggestSkills is loaded from the start only under the `tengu_saddle_lantern` flag, which
    // the reference does not read (off by default).
    "SuggestConnectors",
    "SuggestPluginInstall",
    "SuggestSkills",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "WebFetch",
    "WebSearch",
];

/// Our own short hints, which keyword search weighs above descriptions. Chosen so the recorded
/// rankings hold with our descriptions ("cron schedule" → CronCreate, CronDelete; "task" →
/// TaskCreate, TaskGet, TaskOutput: TaskList's hint names no task).
const HINTS: &[(&str, &str)] = &[
    ("CronCreate", "schedule a prompt to run later or repeatedly"),
    ("CronDelete", "take a prompt off the schedule"),
    ("CronList", "show the prompts set to run"),
    ("NotebookEdit", "change jupyter notebook cells"),
    (
        "ListMcpResourcesTool",
        "list what MCP servers offer to read",
    ),
    ("ReadMcpResourceTool", "read one MCP resource by uri"),
    ("ReadMcpResourceDirTool", "list an MCP directory resource"),
    ("TaskCreate", "add a task to the list"),
    ("TaskGet", "look up one task by id"),
    ("TaskList", "show everything on the list"),
    ("TaskOutput", "what a background task printed"),
    ("TaskStop", "end a background task"),
    ("TaskUpdate", "change a task"),
    ("WebFetch", "get a web page by url"),
    ("WebSearch", "look things up on the web"),
];

/// The entry the API needs to keep deferred loading on, spliced in before the last tool.
const PLACEHOLDER_NAME: &str = "DeferredToolPlaceholder";

/// The session's tool search: on or off, what this request's history loaded, and the catalog
/// ToolSearch searches (both as of the last assembly).
#[derive(Default)]
pub struct State {
    pub on: bool,
    loaded: BTreeSet<String>,
    deferred: Vec<Entry>,
    all: Vec<Entry>,
}

impl State {
    pub fn new(on: bool) -> Self {
        State {
            on,
            ..State::default()
        }
    }

    /// Reads the catalog and the loaded set as a request is assembled.
    pub fn refresh(&mut self, offered: &[&dyn Tool], mcp: &[McpTool], messages: &[Value]) {
        if !self.on {
            return;
        }
        self.loaded = loaded(messages);
        let entries: Vec<(Entry, bool)> = offered
            .iter()
            .map(|t| (builtin_entry(*t), is_deferred_builtin(t.name())))
            .chain(mcp.iter().map(|t| (mcp_entry(t), !t.always_load)))
            .collect();
        self.deferred = entries
            .iter()
            .filter(|(_, d)| *d)
            .map(|(e, _)| e.clone())
            .collect();
        self.all = entries.into_iter().map(|(e, _)| e).collect();
    }

    /// tools[] of a request: deferred tools only once loaded (marked `defer_loading`), the
    /// placeholder before the last entry while anything is deferred. Without any deferred tool
    /// there is no tool search at all: ToolSearch is left out too.
    pub fn request_tools(&self, offered: &[&dyn Tool], mcp: &[McpTool]) -> Vec<Value> {
        if !self.on {
            return offered
                .iter()
                .map(|t| super::definition(*t))
                .chain(mcp.iter().map(McpTool::definition))
                .collect();
        }
        let any_deferred = offered.iter().any(|t| is_deferred_builtin(t.name()))
            || mcp.iter().any(|t| !t.always_load);
        let mut tools: Vec<Value> = Vec::new();
        for t in offered {
            let deferred = is_deferred_builtin(t.name());
            if (deferred && !self.loaded.contains(t.name())) || (t.name() == NAME && !any_deferred)
            {
                continue;
            }
            let mut def = super::definition(*t);
            if deferred {
                def["defer_loading"] = json!(true);
            }
            tools.push(def);
        }
        for t in mcp {
            if t.always_load {
                tools.push(t.definition());
            } else if self.loaded.contains(&t.wire_name) {
                let mut def = t.definition();
                def["defer_loading"] = json!(true);
                tools.push(def);
            }
        }
        if any_deferred {
            let at = tools.len().saturating_sub(1);
            tools.insert(at, placeholder());
        }
        tools
    }

    /// The error note for a tool called while deferred and not loaded, when its input fails the
    /// schema: the model never saw the schema, so it is given here (2.1.235's text).
    pub fn unloaded_note(&self, tool: &dyn Tool) -> Option<String> {
        if !self.on || !is_deferred_builtin(tool.name()) || self.loaded.contains(tool.name()) {
            return None;
        }
        Some(format!(
            "This tool's schema was not sent to the API \u{2014} it was not in the discovered-tool set derived from message history. Without the schema in your prompt, typed parameters (arrays, numbers, booleans) get emitted as strings and the client-side parser rejects them. Load the tool first: call {NAME} with query \"select:{}\", then retry this call. For reference, this tool's input schema is: {}",
            tool.name(),
            tool.input_schema()
        ))
    }
}

/// The text 2.1.235 adds once to a tool round whose results load tools, after the results.
pub const LOADED_NOTE: &str = "Tool loaded.";

/// Adds the loaded note to a tool round's blocks when a result in it carries a `tool_reference`:
/// right after the last tool_result, so it lands before the round's reminders (2.1.235 adds it
/// to the results' message before merging its reminders in).
pub fn note_loaded(blocks: &mut Vec<Value>) {
    let loads = blocks.iter().any(|b| {
        b["type"] == "tool_result"
            && b["content"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p["type"] == "tool_reference"))
    });
    let noted = blocks.iter().any(|b| {
        b["type"] == "text"
            && b["text"]
                .as_str()
                .is_some_and(|t| t.starts_with(LOADED_NOTE))
    });
    if !loads || noted {
        return;
    }
    let at = blocks
        .iter()
        .rposition(|b| b["type"] == "tool_result")
        .map_or(blocks.len(), |i| i + 1);
    blocks.insert(at, json!({"type": "text", "text": LOADED_NOTE}));
}

/// The first message's reminder naming every deferred tool (our words; the names one a line,
/// sorted as 2.1.235 sorts them).
pub fn listing(offered: &[&dyn Tool], mcp: &[McpTool]) -> Option<String> {
    let mut names: Vec<&str> = offered
        .iter()
        .map(|t| t.name())
        .filter(|n| is_deferred_builtin(n))
        .chain(
            mcp.iter()
                .filter(|t| !t.always_load)
                .map(|t| t.wire_name.as_str()),
        )
        .collect();
    if names.is_empty() {
        return None;
    }
    names.sort_unstable();
    Some(crate::context::reminders::deferred_tools(&names))
}

fn is_deferred_builtin(name: &str) -> bool {
    DEFERRED_BUILTINS.contains(&name)
}

fn placeholder() -> Value {
    json!({
        "name": PLACEHOLDER_NAME,
        "description": "Reserved; keeps deferred tool loading on. Never call it.",
        "input_schema": {"type": "object", "properties": {}},
        "defer_loading": true,
    })
}

/// The tools ToolSearch results in the history loaded.
fn loaded(messages: &[Value]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for m in messages {
        for block in m["content"].as_array().into_iter().flatten() {
            for part in block["content"].as_array().into_iter().flatten() {
                if part["type"] == "tool_reference" {
                    if let Some(name) = part["tool_name"].as_str() {
                        out.insert(name.to_owned());
                    }
                }
            }
        }
    }
    out
}

fn builtin_entry(t: &dyn Tool) -> Entry {
    Entry {
        name: t.name().to_owned(),
        aliases: t.aliases().iter().map(|a| (*a).to_owned()).collect(),
        description: t.description().to_owned(),
        hint: HINTS
            .iter()
            .find(|(n, _)| *n == t.name())
            .map(|(_, h)| (*h).to_owned()),
        mcp: None,
    }
}

fn mcp_entry(t: &McpTool) -> Entry {
    Entry {
        name: t.wire_name.clone(),
        aliases: Vec::new(),
        description: t.description.clone(),
        hint: None,
        mcp: Some((t.server.clone(), t.name.clone())),
    }
}

fn find<'e>(entries: &'e [Entry], name: &str) -> Option<&'e Entry> {
    entries
        .iter()
        .find(|e| e.name == name || e.aliases.iter().any(|a| a == name))
}

/// `select:A,B`: each name (or alias) as is, deferred or not, once; unknown names dropped.
fn select(list: &str, deferred: &[Entry], all: &[Entry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for wanted in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if let Some(e) = find(deferred, wanted).or_else(|| find(all, wanted)) {
            if !out.contains(&e.name) {
                out.push(e.name.clone());
            }
        }
    }
    out
}

pub struct ToolSearch;

impl Tool for ToolSearch {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Loads the schemas of deferred tools (named in a reminder) so they can be called. \
         `select:Name1,Name2` loads those tools; other queries are keywords, best matches \
         first; `+word` requires the word in the tool's name."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "query": {"description": "select:<name>[,<name>...], or keywords.", "type": "string"},
                "max_results": {"description": "Most keyword matches to return.",
                                "default": limits::TOOL_SEARCH_MAX_RESULTS_DEFAULT.get(), "type": "number"},
            }),
            &["query", "max_results"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::TOOL_SEARCH_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let query = input["query"].as_str().unwrap_or_default();
        let max = input["max_results"]
            .as_f64()
            .unwrap_or(limits::TOOL_SEARCH_MAX_RESULTS_DEFAULT.get() as f64);
        let state = &ctx.tool_search;
        let matches = match strip_select(query) {
            Some(list) => select(list, &state.deferred, &state.all),
            None => rank::keyword(query, &state.deferred, &state.all, max),
        };
        let structured = json!({"matches": matches, "query": query, "total_deferred_tools": state.deferred.len()});
        if matches.is_empty() {
            return Ok(ToolOutput {
                content: "No matching deferred tools found".into(),
                structured,
                is_error: None,
                blocks: None,
            });
        }
        let refs: Vec<Value> = matches
            .iter()
            .map(|m| json!({"type": "tool_reference", "tool_name": m}))
            .collect();
        Ok(ToolOutput {
            content: String::new(),
            structured,
            is_error: None,
            blocks: None,
        }
        .as_blocks(json!(refs)))
    }
}

/// The names after `select:` (any case), or `None` for a keyword query.
fn strip_select(query: &str) -> Option<&str> {
    let head = query.get(..7)?;
    let rest = &query[7..];
    (head.eq_ignore_ascii_case("select:") && !rest.is_empty() && !rest.contains('\n'))
        .then_some(rest)
}

#[cfg(test)]
mod tests;
