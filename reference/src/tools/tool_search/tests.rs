use serde_json::json;

use super::*;
use crate::tools::{notebook::NotebookEdit, read::Read, write::Write, Tool};

fn mcp_tool(server: &str, name: &str, always_load: bool) -> McpTool {
    McpTool {
        wire_name: crate::mcp::wire_name(server, name),
        server: server.into(),
        name: name.into(),
        description: "Echoes.".into(),
        input_schema: json!({"type": "object"}),
        always_load,
        annotations: json!({}),
    }
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| {
            let mark = if t["defer_loading"] == true {
                "[D]"
            } else {
                ""
            };
            format!("{}{mark}", t["name"].as_str().unwrap())
        })
        .collect()
}

fn offered() -> Vec<&'static dyn Tool> {
    vec![&NotebookEdit, &Read, &ToolSearch, &Write]
}

fn loaded_by(names: &[&str]) -> Vec<Value> {
    let refs: Vec<Value> = names
        .iter()
        .map(|n| json!({"type": "tool_reference", "tool_name": n}))
        .collect();
    vec![
        json!({"role": "user", "content": [{"type": "text", "text": "go"}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": refs}]}),
    ]
}

#[test]
fn deferred_tools_wait_for_a_tool_reference_then_ride_marked_in_place() {
    let mcp = [
        mcp_tool("pinned", "p", true),
        mcp_tool("probe", "echo", false),
    ];
    let mut state = State::new(true);
    state.refresh(&offered(), &mcp, &loaded_by(&[]));
    // The placeholder goes in before the last entry, as 2.1.235 splices it.
    assert_eq!(
        names(&state.request_tools(&offered(), &mcp)),
        [
            "Read",
            "ToolSearch",
            "Write",
            "DeferredToolPlaceholder[D]",
            "mcp__pinned__p"
        ]
    );
    state.refresh(
        &offered(),
        &mcp,
        &loaded_by(&["NotebookEdit", "mcp__probe__echo"]),
    );
    assert_eq!(
        names(&state.request_tools(&offered(), &mcp)),
        [
            "NotebookEdit[D]",
            "Read",
            "ToolSearch",
            "Write",
            "mcp__pinned__p",
            "DeferredToolPlaceholder[D]",
            "mcp__probe__echo[D]"
        ]
    );
}

#[test]
fn off_means_every_tool_as_is_and_nothing_to_search() {
    let state = State::new(false);
    assert_eq!(
        names(&state.request_tools(&offered(), &[])),
        ["NotebookEdit", "Read", "ToolSearch", "Write"]
    );
    assert!(state.unloaded_note(&NotebookEdit).is_none());
}

#[test]
fn nothing_deferred_means_no_tool_search() {
    let state = State::new(true);
    let plain: Vec<&'static dyn Tool> = vec![&Read, &ToolSearch];
    assert_eq!(names(&state.request_tools(&plain, &[])), ["Read"]);
    assert!(listing(&plain, &[]).is_none());
}

#[test]
fn the_listing_names_every_deferred_tool_sorted() {
    let mcp = [
        mcp_tool("probe", "echo", false),
        mcp_tool("pinned", "p", true),
    ];
    let text = listing(&offered(), &mcp).unwrap();
    assert!(
        text.ends_with("\nNotebookEdit\nmcp__probe__echo\n</system-reminder>"),
        "{text}"
    );
    assert!(!text.contains("mcp__pinned__p"));
}

#[test]
fn select_takes_names_and_aliases_once_in_order_and_drops_unknown_ones() {
    let all = vec![
        rank::Entry {
            name: "Agent".into(),
            aliases: vec!["Task".into()],
            description: String::new(),
            hint: None,
            mcp: None,
        },
        builtin_entry(&NotebookEdit),
        builtin_entry(&Read),
    ];
    let deferred = vec![builtin_entry(&NotebookEdit)];
    assert_eq!(
        select(
            " NotebookEdit, Nope,Read,NotebookEdit,notebookedit",
            &deferred,
            &all
        ),
        ["NotebookEdit", "Read"]
    );
    assert_eq!(select("Task", &deferred, &all), ["Agent"]);
    assert_eq!(strip_select("SELECT:A,B"), Some("A,B"));
    assert_eq!(strip_select("select:"), None);
    assert_eq!(strip_select("notebook"), None);
}

#[test]
fn an_unloaded_deferred_tool_gets_its_schema_in_the_error_until_loaded() {
    let mut state = State::new(true);
    state.refresh(&offered(), &[], &loaded_by(&[]));
    let note = state.unloaded_note(&NotebookEdit).unwrap();
    assert!(note.contains("query \"select:NotebookEdit\""), "{note}");
    assert!(note.ends_with(&NotebookEdit.input_schema().to_string()));
    assert!(state.unloaded_note(&Read).is_none());
    state.refresh(&offered(), &[], &loaded_by(&["NotebookEdit"]));
    assert!(state.unloaded_note(&NotebookEdit).is_none());
}

#[test]
fn keyword_rankings_match_the_recorded_ones_with_our_descriptions_and_hints() {
    use crate::tools::{cron, task_output::TaskOutput, task_stop::TaskStop, tasks};
    let offered: Vec<&'static dyn Tool> = vec![
        &cron::CronCreate,
        &cron::CronDelete,
        &cron::CronList,
        &NotebookEdit,
        &Read,
        &tasks::TaskCreate,
        &tasks::TaskGet,
        &tasks::TaskList,
        &TaskOutput,
        &TaskStop,
        &tasks::TaskUpdate,
        &ToolSearch,
    ];
    let mut state = State::new(true);
    state.refresh(&offered, &[], &[]);
    let search = |q: &str, max: f64| rank::keyword(q, &state.deferred, &state.all, max);
    // recon toolsearch14 exp.ts-1, exp.ts-2, exp.ts-4 on 2.1.235.
    assert_eq!(search("cron schedule", 2.0), ["CronCreate", "CronDelete"]);
    assert_eq!(search("notebook", 5.0), ["NotebookEdit"]);
    assert_eq!(search("task", 3.0), ["TaskCreate", "TaskGet", "TaskOutput"]);
    assert_eq!(
        search("+task stop", 5.0),
        [
            "TaskStop",
            "TaskCreate",
            "TaskGet",
            "TaskOutput",
            "TaskUpdate"
        ]
    );
    assert_eq!(search("webfetch", 5.0), Vec::<String>::new());
    assert_eq!(search("read", 5.0), ["Read"]);
}

#[test]
fn a_round_that_loads_tools_gets_the_note_once_before_its_reminders() {
    let mut blocks = vec![json!({"type": "tool_result", "tool_use_id": "a",
                                 "content": [{"type": "tool_reference", "tool_name": "CronList"}]})];
    let reminder = "<system-reminder>\nx\n</system-reminder>".to_owned();
    crate::context::reminders::append_to_round(&mut blocks, std::slice::from_ref(&reminder));
    note_loaded(&mut blocks);
    note_loaded(&mut blocks);
    let kinds: Vec<&str> = blocks
        .iter()
        .map(|b| b["text"].as_str().or(b["type"].as_str()).unwrap())
        .collect();
    assert_eq!(kinds, ["tool_result", LOADED_NOTE, reminder.as_str()]);

    let mut plain = vec![json!({"type": "tool_result", "tool_use_id": "c", "content": "done"})];
    note_loaded(&mut plain);
    assert_eq!(plain.len(), 1);
}
