//! The Python Agent SDK (`claude-agent-sdk`, pinned) as a host, on the reference and on 2.1.235:
//! the six cases a program that uses it meets first (`probes/sdk-host/python_cases.py`), each
//! against the harness's scripted Messages stub, no shim between SDK and target. Recorded on
//! 2.1.235 first; both targets must give the same.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use stubs::messages::{MessagesStub, RecordedRequest, StubConfig};

const PYTHON_SDK: &str = "0.2.184";
const CASE_TIMEOUT: Duration = Duration::from_secs(90);

/// What one case left: the script's summary, the workspace, the stub's requests.
struct Ran {
    seen: Value,
    cwd: tempfile::TempDir,
    requests: Vec<RecordedRequest>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Runs `case` with the SDK against `target`, the stub answering with `turns` (`{cwd}` in them
/// is the case's workspace).
fn run(python: &Path, target: &Path, case: &str, turns: &Value) -> Ran {
    let (home, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let turns = turns
        .to_string()
        .replace("{cwd}", &cwd.path().display().to_string());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let stub = runtime
        .block_on(MessagesStub::start(StubConfig {
            main_model: "claude-sonnet-4-5".into(),
            more_main_models: Vec::new(),
            turns: serde_json::from_str(&turns).unwrap(),
            agents: Vec::new(),
            split: Default::default(),
            cues: Default::default(),
        }))
        .unwrap();
    let child = Command::new(python)
        .arg(workspace_root().join("probes/sdk-host/python_cases.py"))
        .args([case, &target.display().to_string()])
        .current_dir(cwd.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("ANTHROPIC_BASE_URL", stub.base_url())
        .env("ANTHROPIC_API_KEY", "sk-ant-api03-conformance-fake-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("IS_SANDBOX", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python SDK");
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let output = match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: a signal to the process this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!(
                "{case} on {}: no answer within {CASE_TIMEOUT:?}",
                target.display()
            );
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "{case}: the script printed no summary\n--- stdout\n{stdout}\n--- stderr\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let requests = stub.requests();
    Ran {
        seen,
        cwd,
        requests,
    }
}

fn write_turns(content: &str) -> Value {
    json!([
        {"block": [{"type": "tool_use", "id": "toolu_py_write", "name": "Write",
                    "input": {"file_path": "{cwd}/a.txt", "content": content}}]},
        {"text": "WROTE"},
    ])
}

/// Every case on `target`; what each must show is what 2.1.235 showed.
fn six_cases(target: &Path) {
    let python =
        probes::target::install_python_agent_sdk(PYTHON_SDK, &probes::target::default_cache())
            .expect("install the Python Agent SDK");
    let results = |ran: &Ran| ran.seen["results"].clone();
    let result =
        |subtype: &str, text: &str| json!({"subtype": subtype, "result": text, "is_error": false});

    let text = run(&python, target, "text", &json!([{"text": "HI"}]));
    assert_eq!(results(&text), json!([result("success", "HI")]), "text");

    let deny = run(&python, target, "deny", &write_turns("from the model"));
    assert_eq!(
        deny.seen["asked"],
        json!(["Write"]),
        "deny: canUseTool asked"
    );
    assert_eq!(
        deny.seen["tool_results"]["toolu_py_write"],
        json!({"content": "no writes today", "is_error": true}),
        "deny: the host's words are the result"
    );
    assert!(
        !deny.cwd.path().join("a.txt").exists(),
        "deny: nothing written"
    );
    assert_eq!(results(&deny), json!([result("success", "WROTE")]));

    let allow = run(
        &python,
        target,
        "allow-updated",
        &write_turns("from the model"),
    );
    let written = std::fs::read_to_string(allow.cwd.path().join("a.txt")).unwrap_or_default();
    assert_eq!(
        written, "changed by the host",
        "allow: the host's input is what runs"
    );
    assert_eq!(
        allow.seen["tool_results"]["toolu_py_write"]["is_error"],
        false
    );

    let hook = run(
        &python,
        target,
        "hook",
        &json!([
            {"block": [{"type": "tool_use", "id": "toolu_py_bash", "name": "Bash",
                        "input": {"command": "touch hooked.txt", "description": "Make a file"}}]},
            {"text": "HOOK_OK"},
        ]),
    );
    assert_eq!(
        hook.seen["hooks"],
        json!([{"event": "PreToolUse", "tool": "Bash"}]),
        "hook: the host's PreToolUse function was called"
    );
    assert_eq!(
        hook.seen["tool_results"]["toolu_py_bash"],
        json!({"content": "blocked by the host's hook", "is_error": true}),
        "hook: its deny is the result"
    );
    assert!(
        !hook.cwd.path().join("hooked.txt").exists(),
        "hook: the command did not run"
    );

    let mcp = run(
        &python,
        target,
        "mcp",
        &json!([
            {"block": [{"type": "tool_use", "id": "toolu_py_add", "name": "mcp__calc__add",
                        "input": {"a": 1, "b": 2}}]},
            {"text": "THREE"},
        ]),
    );
    assert_eq!(
        mcp.seen["mcp_servers"],
        json!([{"name": "calc", "status": "connected"}])
    );
    assert_eq!(
        mcp.seen["tool_results"]["toolu_py_add"],
        json!({"content": "3", "is_error": false}),
        "mcp: the in-process tool answered"
    );

    let two = run(
        &python,
        target,
        "two-turns",
        &json!([{"text": "ONE"}, {"text": "TWO"}]),
    );
    assert_eq!(
        results(&two),
        json!([result("success", "ONE"), result("success", "TWO")])
    );
    let second = two
        .requests
        .iter()
        .filter(|r| r.body.get("messages").is_some())
        .nth(1)
        .expect("a second request");
    assert_eq!(
        second.body["messages"].as_array().map(Vec::len),
        Some(3),
        "two turns: the second prompt goes with the first exchange"
    );
}

#[test]
fn the_python_sdk_drives_the_reference() {
    six_cases(Path::new(env!("CARGO_BIN_EXE_claude-reference")));
}

#[test]
fn the_python_sdk_drives_the_contract_binary() {
    let real = probes::target::install_npm("2.1.235", &probes::target::default_cache())
        .expect("install claude@2.1.235");
    six_cases(&real);
}
