use serde_json::{json, Value};
use stubs::jsonlog::LogEntry;
use stubs::messages::{RecordedRequest, RequestKind};

use super::apply::{added_request, note};
use super::mutation::Mutation;
use super::*;
use crate::mcp::ServerRecord;

fn spec(toml_src: &str) -> CheckSpec {
    toml::from_str(toml_src).unwrap()
}

fn request(n: usize, body: Value) -> RecordedRequest {
    added_request(body, RequestKind::Main(n))
}

/// One run with evidence for every check kind the table below states.
fn run() -> RunOutcome {
    let mut run = RunOutcome::blank();
    let events = [
        json!({"type": "system", "subtype": "init", "session_id": "s"}),
        json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "Reading it"}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello world"}]}, "tool_use_result": {"bytes": 12, "path": "a.txt", "ok": true}}),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "All done"}),
    ];
    run.stdout = events.iter().map(|e| format!("{e}\n")).collect();
    run.stderr = "warming up\n".into();
    let tools = json!([
        {"name": "Read", "description": "Reads a file", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}},
        {"name": "Bash", "description": "Runs a command", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
    ]);
    let ask = json!({"role": "user", "content": [{"type": "text", "text": "<context>cwd</context>"}, {"type": "text", "text": "read a.txt"}]});
    let uses = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]});
    let answers = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello world"}]});
    run.requests = vec![
        request(
            1,
            json!({"model": "m", "system": "You are a test.", "tools": tools, "messages": [ask]}),
        ),
        request(
            2,
            json!({"model": "m", "system": "You are a test.", "tools": tools, "messages": [ask, uses, answers]}),
        ),
    ];
    let entry = |t_ms, dir: &str, msg: Value| LogEntry {
        t_ms,
        pid: 7,
        dir: dir.into(),
        msg,
        note: None,
    };
    let mut log = vec![note(1000, "start argv=[]")];
    log.push(entry(1000, "in", json!({"id": 0, "method": "initialize"})));
    log.push(entry(1010, "out", json!({"id": 0, "result": {}})));
    log.push(entry(1020, "in", json!({"method": "tools/list"})));
    log.push(entry(1600, "in", json!({"method": "tools/list"})));
    log.push(note(1700, "stdin EOF"));
    run.mcp.insert(
        "docs".into(),
        ServerRecord {
            transport: Default::default(),
            entries: log,
            log_error: None,
        },
    );
    run.uploads.push(stubs::claude_ai::RecordedUpload {
        filename: Some("a.png".into()),
        size: 70,
        status: 200,
        ..Default::default()
    });
    std::fs::write(run.cwd.join("notes.md"), "# Notes\nkept\n").unwrap();
    run
}

/// Every kind of check, each passing on `run()`: the mutations must fail every one, each
/// with a diff that says what it saw.
const CHECKS: &[&str] = &[
    "kind = \"exit\"\nequals = 0",
    "kind = \"result\"\nsubtype = \"success\"\nis_error = false\ncontains = \"done\"",
    "kind = \"requests\"\nequals = 2",
    "kind = \"requests\"\nrequest = 2\nmatches = { model = \"m\" }",
    "kind = \"requests\"\nagent = \"helper\"\nequals = 0",
    "kind = \"requests\"\nrequest = 2\ncontains = \"hello world\"\nnot_contains = \"cleared\"",
    "kind = \"tools\"\nincludes = [\"Read\"]\nexcludes = [\"Write\"]",
    "kind = \"tools\"\norder = [\"Read\", \"Bash\"]",
    "kind = \"tool_result\"\ntool_use_id = \"toolu_1\"\nis_error = false\nequals = \"hello world\"",
    "kind = \"tool_result\"\ntool_use_id = \"toolu_1\"\nnot_contains = \"secret\"",
    "kind = \"pairing\"",
    "kind = \"file\"\npath = \"notes.md\"\ncontains = \"kept\"",
    "kind = \"file\"\npath = \"gone.md\"\nabsent = true",
    "kind = \"events\"\nevents = [\"system/init\", \"assistant\", \"user\", \"result/success\"]",
    "kind = \"events\"\nkeys = { \"result/success\" = [\"type\", \"subtype\", \"is_error\", \"result\"] }",
    "kind = \"stderr\"\nequals = \"warming up\\n\"",
    "kind = \"stdout\"\nnot_contains = \"panicked\"",
    "kind = \"process\"\nmax_rss_mib = 512",
    "kind = \"tool_def\"\ntool = \"Read\"\nincludes = [\"file_path\"]\nmatches = { required = [\"file_path\"] }",
    "kind = \"system\"\ncontains = \"a test\"",
    "kind = \"user_context\"\ncontains = \"<context>\"",
    "kind = \"mcp\"\nserver = \"docs\"\ncounts = { initialize = 1, \"tools/list\" = 2 }",
    "kind = \"mcp\"\nserver = \"docs\"\norder = [\"initialize\", \"tools/list\", \"tools/list\"]",
    "kind = \"mcp\"\nserver = \"docs\"\nexcludes = [\"tools/call\"]",
    "kind = \"mcp\"\nserver = \"docs\"\nmethod = \"tools/list\"\ngaps_ms = [500]",
    "kind = \"mcp\"\nserver = \"docs\"\nreleased_ms = [600, 800]",
    "kind = \"mcp\"\nserver = \"docs\"\nsurvives = false",
    "kind = \"mcp\"\nserver = \"search\"\nabsent = true",
    "kind = \"tool_use_result\"\ntool_use_id = \"toolu_1\"\nmatches = { bytes = 12, ok = true }",
    "kind = \"view\"\nview = \"transcript\"\ncontains = \"Reading it\"",
    "kind = \"uploads\"\nequals = 1\nmatches = [{ filename = \"a.png\", size = 70 }]",
    "kind = \"design\"\nequals = 0",
    "kind = \"oauth\"\nequals = 0",
    "kind = \"project\"\nmethod = \"write-doc\"\nequals = 0",
    "kind = \"site\"\nequals = 0",
];

#[test]
fn every_kind_of_check_fails_on_some_mutation_with_a_diff() {
    let run = run();
    let specs: Vec<CheckSpec> = CHECKS.iter().map(|s| spec(s)).collect();
    for spec in &specs {
        let outcome = evaluate(spec, "reference", &run);
        assert!(outcome.ok, "{}: {}", outcome.name, outcome.detail);
    }
    let refs: Vec<&CheckSpec> = specs.iter().collect();
    let survey = survey(&refs, "reference", &run);
    assert_eq!(survey.survivors, Vec::<String>::new());
    assert_eq!(survey.mute, Vec::<String>::new());
    assert_eq!(survey.killed.len(), CHECKS.len());
    for (name, mutation, detail) in &survey.killed {
        assert!(!detail.trim().is_empty(), "{name} on {mutation}");
    }
    // The file the mutations changed on disk is as it was.
    assert_eq!(
        std::fs::read_to_string(run.cwd.join("notes.md")).unwrap(),
        "# Notes\nkept\n"
    );
    assert!(!run.cwd.join("gone.md").exists());
}

#[test]
fn a_check_no_mutation_fails_is_reported_by_name() {
    let run = run();
    let exit = spec("name = \"exits cleanly\"\nkind = \"exit\"\nequals = 0");
    let survey = survey_with(&[&exit], "reference", &run, vec![Mutation::RssHuge]);
    assert_eq!(survey.survivors, ["exits cleanly"]);
    // The RSS mutation does not touch what an exit check reads, so it is not even tried.
    assert_eq!((survey.checked, survey.mutants), (1, 0));
    let survey = survey_with(&[&exit], "reference", &run, vec![Mutation::ExitChanged]);
    assert!(survey.survivors.is_empty());
    assert_eq!(survey.killed[0].1, "exit status changed");
    assert_eq!(survey.killed[0].2, "expected 0, seen 1");
}

#[test]
fn text_removal_breaks_the_text_wherever_it_sits() {
    let run = run();
    let Some(mutant) = apply(&Mutation::TextRemoved("hello world".into()), &run) else {
        panic!("the text is in the run");
    };
    assert!(!mutant.run.requests[1]
        .body
        .to_string()
        .contains("hello world"));
    assert!(apply(&Mutation::TextRemoved("absent text".into()), &run).is_none());
}

/// A run of two steps whose session file the transcript checks read.
fn stepped() -> RunOutcome {
    let mut run = run();
    let sid = "11111111-2222-4333-8444-555555555555";
    let init = |id: &str| {
        format!(
            "{}\n",
            json!({"type": "system", "subtype": "init", "session_id": id})
        )
    };
    let step = |name: &str, exit, stdout: String| crate::outcome::StepRun {
        name: name.into(),
        command: Vec::new(),
        exit_code: Some(exit),
        timed_out: false,
        stdout,
        stderr: String::new(),
        stdin: Vec::new(),
    };
    run.steps = vec![
        step("first", 143, init(sid)),
        step("again", 0, run.stdout.clone()),
    ];
    run.step = Some("again".into());
    let records = [
        json!({"parentUuid": null, "type": "user", "uuid": "a1111111-2222-4333-8444-555555555555", "sessionId": sid, "message": {"content": "Log it."}}),
        json!({"parentUuid": "a1111111-2222-4333-8444-555555555555", "type": "assistant", "uuid": "b1111111-2222-4333-8444-555555555555", "sessionId": sid}),
        json!({"type": "last-prompt", "lastPrompt": "Log it."}),
    ];
    run.sessions = vec![crate::sessions::SessionFile {
        path: format!("-work/{sid}.jsonl"),
        text: records.iter().map(|r| format!("{r}\n")).collect(),
    }];
    run
}

#[test]
fn transcript_and_step_checks_fail_on_mutations_of_what_they_read() {
    let run = stepped();
    let checks = [
        "kind = \"exit\"\nstep = \"first\"\nequals = 143",
        "kind = \"transcript\"\nstep = \"first\"\ntypes = [\"user\", \"assistant\"]\nmatches = [{ message = { content = \"Log it.\" }, sessionId = \"{session_id:first}\" }, { parentUuid = \"#1\" }]",
        "kind = \"transcript\"\nstep = \"first\"\nkeys = { user = [\"parentUuid\", \"type\", \"uuid\", \"sessionId\", \"message\"] }",
        "kind = \"transcript\"\nstep = \"first\"\ntypes = [\"last-prompt\"]\nequals = 1",
        "kind = \"transcript\"\nstep = \"first\"\npath = \"subagents/*.jsonl\"\nabsent = true",
    ];
    let specs: Vec<CheckSpec> = checks.iter().map(|s| spec(s)).collect();
    for spec in &specs {
        let outcome = evaluate(spec, "reference", &run);
        assert!(outcome.ok, "{}: {}", outcome.name, outcome.detail);
    }
    // The last step's own exit is 0: the first step's check reads the first step.
    assert!(!evaluate(&spec("kind = \"exit\"\nequals = 143"), "reference", &run).ok);
    let refs: Vec<&CheckSpec> = specs.iter().collect();
    let survey = survey(&refs, "reference", &run);
    assert_eq!(survey.survivors, Vec::<String>::new());
    assert_eq!(survey.killed.len(), checks.len());
}

#[test]
fn a_transcript_check_names_what_is_missing() {
    let mut run = stepped();
    run.sessions.clear();
    let outcome = evaluate(
        &spec("kind = \"transcript\"\nstep = \"first\"\nequals = 1"),
        "reference",
        &run,
    );
    assert!(!outcome.ok);
    assert!(
        outcome
            .detail
            .contains("does not exist (no session files at all)"),
        "{}",
        outcome.detail
    );
}
