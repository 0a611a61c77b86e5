//! The decisions a scenario scripts are checked, not assumed: a stand-in target (a shell script)
//! that asks something the user does not expect, or never asks, fails the run with what it
//! showed in the diff, and is ended at once instead of waiting out the timeout.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use probes::report::Status;
use probes::{Scenario, Target};

/// A run that would wait 60 s for an answer if the harness did not end it.
fn scenario(channel: &str) -> Scenario {
    let src = format!(
        r#"
id = "core.x"
title = "a stand-in target that asks what it likes"
targets = ["reference"]
prompt = "make a file"
channels = ["{channel}"]
{sdk}
timeout_ms = 30000

# Every scenario states a check; this one holds whatever the stand-in does.
[[check]]
kind = "stderr"
not_contains = "NEVER_PRINTED_MARKER"

[[decision]]
tool = "Bash"
asks = "touch made.txt"
answer = "allow"
"#,
        // A stand-in speaks the protocol, not the command line an Agent SDK starts.
        sdk = if channel == "control" {
            "not_through_sdk = \"a stand-in target: no Agent SDK can start it\""
        } else {
            ""
        }
    );
    Scenario::parse(Path::new("scenarios/core/core.x.toml"), &src).unwrap()
}

fn stand_in(dir: &Path, body: &str) -> Target {
    let script = dir.join("target.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    Target::reference(script)
}

fn run(channel: &str, body: &str) -> probes::Report {
    let dir = tempfile::tempdir().unwrap();
    let target = stand_in(dir.path(), body);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime
        .block_on(probes::probe(&scenario(channel), &target, None))
        .report
}

fn check<'a>(report: &'a probes::Report, name: &str) -> &'a probes::CheckOutcome {
    report
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check `{name}` in {:?}", report.checks))
}

/// Reads the initialize request and the prompt, then asks about another command.
const ASKS_SOMETHING_ELSE: &str = r#"read init; read prompt
echo '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -rf build"},"tool_use_id":"t1"}}'
sleep 60"#;

#[test]
fn an_unexpected_question_over_the_control_protocol_fails_the_run_at_once() {
    let report = run("control", ASKS_SOMETHING_ELSE);
    assert_eq!(report.status, Status::Fail);
    let decisions = check(&report, "decisions answered as scripted");
    assert!(!decisions.ok);
    assert!(
        decisions.detail.contains("rm -rf build")
            && decisions
                .detail
                .contains("decision 1 expects tool `Bash` asking \"touch made.txt\""),
        "{}",
        decisions.detail
    );
    assert!(
        check(&report, "finished before the timeout").ok,
        "ended by the harness, not the timeout"
    );
}

#[test]
fn a_question_never_asked_fails_the_run() {
    let report = run("control", "read init; read prompt; exit 0");
    let decisions = check(&report, "decisions answered as scripted");
    assert!(!decisions.ok);
    assert!(
        decisions.detail.contains("was never asked"),
        "{}",
        decisions.detail
    );
}

/// Offers its prompt, reads it, then shows a card about another command.
const SHOWS_ANOTHER_CARD: &str = r#"printf '──────────\n❯ \n──────────\n'
read prompt
printf '\n──────────\n Bash command\n\n   rm -rf build\n\n ❯ 1. Yes\n   2. No\n\n Esc to cancel\n'
sleep 60"#;

#[test]
fn an_unexpected_card_at_a_terminal_fails_the_run_with_the_card() {
    let report = run("pty", SHOWS_ANOTHER_CARD);
    let decisions = check(&report, "decisions answered as scripted");
    assert!(!decisions.ok);
    assert!(
        decisions
            .detail
            .contains("--- what it showed ---\n Bash command")
            && decisions.detail.contains("rm -rf build"),
        "{}",
        decisions.detail
    );
    assert!(
        check(&report, "finished before the timeout").ok,
        "ended by the harness, not the timeout"
    );
}
