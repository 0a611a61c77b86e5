//! The command line behaves like the real CLI's: same flags, same usage errors, same exit codes.

use assert_cmd::Command;

fn reference() -> Command {
    let mut cmd = Command::cargo_bin("claude-reference").unwrap();
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("IS_SANDBOX", "1");
    cmd
}

/// `args` is a usage error: exit 1, exactly `stderr`, nothing on stdout.
fn usage_error(args: &[&str], stderr: &str) {
    reference()
        .args(args)
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(stderr.to_owned())
        .stdout("");
}

#[test]
fn unknown_option_is_named_like_commander_does() {
    usage_error(
        &["-p", "hi", "--bogus-flag"],
        "error: unknown option '--bogus-flag'\n",
    );
}

#[test]
fn stream_json_requires_verbose() {
    usage_error(
        &["-p", "hi", "--output-format", "stream-json"],
        "Error: When using --print, --output-format=stream-json requires --verbose\n",
    );
}

#[test]
fn an_invalid_output_format_lists_the_choices() {
    usage_error(
        &["-p", "hi", "--output-format", "xml"],
        "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.\n",
    );
}

#[test]
fn an_invalid_permission_mode_lists_the_choices() {
    usage_error(
        &["-p", "hi", "--permission-mode", "bogus"],
        "error: option '--permission-mode <mode>' argument 'bogus' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n",
    );
}

#[test]
fn a_session_id_must_be_a_uuid() {
    usage_error(
        &["-p", "hi", "--session-id", "notauuid"],
        "Error: Invalid session ID. Must be a valid UUID.\n",
    );
}

#[test]
fn print_without_a_prompt_or_stdin_fails() {
    usage_error(
        &["-p"],
        "Error: Input must be provided either through stdin or as a prompt argument when using --print\n",
    );
}

#[test]
fn version_names_the_contract() {
    reference()
        .arg("--version")
        .assert()
        .code(0)
        .stdout("2.1.235 (claude-reference)\n");
}

#[test]
fn an_unreachable_api_ends_in_an_api_error_result_with_exit_1() {
    // Port 9 on loopback refuses connections; no retries keeps the test short.
    let out = reference()
        .args(["-p", "hi", "--output-format", "json"])
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("HOME", std::env::temp_dir())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let result: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "api_error");
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .starts_with("API Error: "),
        "{result}"
    );
}

#[test]
fn an_unknown_value_of_a_test_setting_is_refused_at_startup() {
    for (name, value, accepted) in [
        (
            "CLAUDE_REFERENCE_HOST",
            "sdk_hosted",
            "repl-bridge, sdk-hosted, sdk-hosted-disabled",
        ),
        (
            "CLAUDE_REFERENCE_SEND_FILE_POLICY",
            "denied",
            "deny, unknown",
        ),
    ] {
        reference()
            .args(["-p", "hi", "--output-format", "json"])
            .env(name, value)
            // Were the value taken as the default, the run would go on to dial this.
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .env("HOME", std::env::temp_dir())
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "Error: {name}=\"{value}\" is not a value of this test setting; accepted: {accepted} (or unset)\n"
            ));
    }
}

#[test]
fn the_accepted_values_of_the_test_settings_start_a_session() {
    for (name, value) in [
        ("CLAUDE_REFERENCE_HOST", "sdk-hosted-disabled"),
        ("CLAUDE_REFERENCE_HOST", ""),
        ("CLAUDE_REFERENCE_SEND_FILE_POLICY", "unknown"),
    ] {
        let out = reference()
            .args(["-p", "hi", "--output-format", "json"])
            .env(name, value)
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .env("HOME", std::env::temp_dir())
            .assert()
            .code(1)
            .get_output()
            .clone();
        let result: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}={value:?}: {e}; stderr {:?}", out.stderr));
        assert_eq!(result["terminal_reason"], "api_error", "{name}={value:?}");
    }
}

/// The long options a `--help` text lists: every `--name` that opens an option line, both
/// spellings where there are two (`--allowedTools, --allowed-tools` in commander's help, an
/// `[alias: --allowed-tools]` in clap's).
fn listed_options(help: &str) -> std::collections::BTreeSet<String> {
    let is_option = |w: &&str| {
        w.strip_prefix("--").is_some_and(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    help.lines()
        .map(str::trim_start)
        .flat_map(|line| {
            let opening = line
                .split([',', ' ', '[', '<', '='])
                .take_while(|w| w.is_empty() || w.starts_with('-'));
            let aliases = line
                .split_once("[alias")
                .map(|(_, rest)| rest.split([' ', ',', ']']).collect::<Vec<_>>())
                .unwrap_or_default();
            opening
                .chain(aliases)
                .filter(is_option)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The contract's options, read from the installed 2.1.235 (installed with npm when missing):
/// a version that adds one fails here until the reference has it.
#[test]
fn every_option_in_the_contracts_help_is_in_the_references() {
    let cache = probes::target::default_cache();
    let real = probes::target::install_npm("2.1.235", &cache).expect("install claude@2.1.235");
    let real_help = std::process::Command::new(&real)
        .arg("--help")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .expect("run claude --help");
    let contract = listed_options(&String::from_utf8_lossy(&real_help.stdout));
    assert!(
        contract.len() > 60,
        "2.1.235 lists 62 options: {contract:?}"
    );
    let out = reference().arg("--help").output().unwrap();
    assert!(out.status.success(), "--help exits 0");
    let ours = listed_options(&String::from_utf8_lossy(&out.stdout));
    let missing: Vec<_> = contract.difference(&ours).collect();
    assert!(
        missing.is_empty(),
        "in 2.1.235's --help, not the reference's: {missing:?}"
    );
}

/// The options the Agent SDKs pass that 2.1.235 hides from `--help`: accepted, not refused as
/// unknown (each is given a value where it takes one; stdin is empty, so the run then stops
/// for want of a prompt, after the options were read).
#[test]
fn the_hidden_options_the_sdks_pass_are_accepted() {
    let hidden: &[&[&str]] = &[
        &["--system-prompt-file", "/nonexistent"],
        &["--append-system-prompt-file", "/nonexistent"],
        &["--max-turns", "3"],
        &["--permission-prompt-tool", "stdio"],
        &["--max-thinking-tokens", "1000"],
        &["--thinking", "adaptive"],
        &["--thinking-display", "summarized"],
        &["--task-budget", "1000"],
        &["--resume-session-at", "x"],
        &["--plugin-dir-no-mcp", "/nonexistent"],
        &["--managed-settings", "{}"],
    ];
    for line in hidden {
        let out = reference()
            .arg("-p")
            .args(*line)
            .write_stdin("")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("unknown option"), "{line:?}: {stderr}");
    }
}
