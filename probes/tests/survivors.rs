//! The harness notices an MCP server process that outlives its target, and ends it. A stand-in
//! target (a shell script) starts the fake server the scenario declares and exits, either leaving
//! it running or killing it first.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use probes::report::Status;
use probes::{Scenario, Target};

const SCENARIO: &str = r#"
id = "mcp.leak"
title = "a stand-in target that starts the declared server itself"
targets = ["reference"]
prompt = "unused"
argv = ["--mcp-config", "{mcp_config}"]
timeout_ms = 20000

# Every scenario states a check; this one holds whatever the stand-in does.
[[check]]
kind = "stderr"
not_contains = "NEVER_PRINTED_MARKER"

[[mcp_server]]
name = "leak"
ignore_shutdown = true
"#;

fn stand_in(dir: &Path, fake: &Path, kill_first: bool) -> Target {
    let script = dir.join("target.sh");
    let ending = if kill_first {
        "kill -9 $! ; wait $! 2>/dev/null"
    } else {
        ""
    };
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nbase=$(dirname \"$2\")\n\"{}\" --script \"$base/mcp/leak.script.json\" --log \"$base/mcp/leak.log.jsonl\" </dev/null >/dev/null 2>&1 &\nsleep 0.5\n{ending}\nexit 0\n",
            fake.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    Target::reference(script)
}

fn probe(kill_first: bool) -> (probes::Report, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    let fake = probes::mcp::fake_mcp_binary().unwrap();
    let scenario = Scenario::parse(Path::new("scenarios/mcp/mcp.leak.toml"), SCENARIO).unwrap();
    let target = stand_in(dir.path(), &fake, kill_first);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // One run to see the pids (and that the harness ended them), one through `probe` for the
    // report; the stand-in behaves the same both times.
    let run = runtime
        .block_on(probes::run_scenario(
            &scenario,
            &target,
            stubs::messages::Split::Whole,
            probes::scenario::Channel::Print,
        ))
        .unwrap();
    let pids = run.mcp["leak"].pids();
    let report = runtime
        .block_on(probes::probe(&scenario, &target, None))
        .report;
    (report, pids)
}

fn outlived_check(report: &probes::Report) -> &probes::CheckOutcome {
    report
        .checks
        .iter()
        .find(|c| c.name == "no MCP server process outlived the target")
        .expect("the builtin check runs for every scenario with MCP servers")
}

#[test]
fn a_server_left_running_fails_the_run_and_is_ended() {
    let (report, pids) = probe(false);
    assert_eq!(report.status, Status::Fail);
    let check = outlived_check(&report);
    assert!(!check.ok);
    assert!(check.detail.contains("leak (pid "), "{}", check.detail);
    assert_eq!(pids.len(), 1, "the stand-in started the server once");
    for pid in pids {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false);
        assert!(!alive, "pid {pid} was ended by the harness");
    }
}

#[test]
fn a_server_ended_by_its_target_passes() {
    let (report, _) = probe(true);
    assert!(outlived_check(&report).ok, "{:?}", report.checks);
}
