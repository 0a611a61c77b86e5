//! Secrets of any shape never reach what the harness writes or shows.
//!
//! Each case gives the reference agent generated credentials (API key, OAuth token, the planted
//! login's access and refresh tokens, the session JWT) and runs two scenarios that make it leak
//! every one of them through every channel it has: a Bash tool printing the env key into a
//! tool_result (stdout, the next request's body, the trace), a failing Bash command printing the
//! session token (an error result), `cat` of the planted credentials file (the tokens JSON-escaped
//! inside a tool_result), a fake MCP server receiving all five as tool arguments (its log), the
//! headers the agent sends (redacted by the stubs), and a check that fails quoting the leaked text
//! (the report's failure texts, JUnit, HTML). It then asserts that no secret, raw or in any
//! encoding those files apply, is in the record files, the trace, the snapshot file, the report
//! JSON, JUnit or HTML, or the error texts; and that the secrets' names are there instead, so the
//! leak was real.
//!
//! Bound: a secret is 8..=200 characters with at least 5 distinct ones and is not part of a
//! redaction name. Shorter or plainer values could be ordinary text the harness writes itself
//! (a JSON key, a word of a check's name), which no redaction can tell from a leak. Generated
//! secrets are printable (no control characters: an environment value cannot hold NUL, and a
//! terminal or a tool's output may rewrite the others) and do not start or end with a space (a
//! tool's output may be trimmed); `probes::secrets`'s unit tests cover those shapes.

use std::path::Path;

use probes::report::Doc;
use probes::{Scenario, Secrets, Target};
use proptest::prelude::*;
use proptest::test_runner::Config;

const NAMES: [&str; 5] = [
    "[api key]",
    "[oauth token]",
    "[account access token]",
    "[account refresh token]",
    "[session token]",
];

/// The reference agent beside this test's binary (`target/debug/`), built when missing; or
/// `$CLAUDE_REFERENCE_BIN`. The harness never links it, so it is found as a program.
fn reference() -> Target {
    if let Some(exe) = std::env::var_os("CLAUDE_REFERENCE_BIN") {
        return Target::reference(exe.into());
    }
    let test = std::env::current_exe().unwrap();
    let exe = test
        .parent()
        .and_then(Path::parent)
        .expect("target/debug/deps/<test>")
        .join("claude-reference");
    if !exe.is_file() {
        let status = probes::cargo::command()
            .args([
                "build",
                "-p",
                "claude-reference",
                "--bin",
                "claude-reference",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "cannot build the reference agent");
    }
    Target::reference(exe)
}

/// A TOML basic string holding `s` exactly.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The API key printed by Bash, and every secret handed to a fake MCP server as arguments.
fn key_scenario(s: &Secrets) -> String {
    format!(
        r#"
id = "secrets.key"
title = "leaks the API key and hands every secret to an MCP server"
targets = ["reference"]
prompt = "Leak."
args = ["--mcp-config", "{{mcp_config}}", "--strict-mcp-config", "--dangerously-skip-permissions"]

[[mcp_server]]
name = "sink"
[[mcp_server.generation]]
[[mcp_server.generation.tool]]
name = "store"
result = "STORED"

[[turn]]
[[turn.block]]
type = "tool_use"
id = "leak_key"
name = "Bash"
input = {{ command = 'printf "%s\n" "$ANTHROPIC_API_KEY"', description = "print the key" }}

[[turn]]
[[turn.block]]
type = "tool_use"
id = "leak_mcp"
name = "mcp__sink__store"
input = {{ a = {}, b = {}, c = {}, d = {}, e = {} }}

[[turn]]
text = "DONE"

[[check]]
name = "fails quoting the leaked key"
kind = "tool_result"
tool_use_id = "leak_key"
contains = "NEVER_PRINTED_MARKER"
"#,
        toml_string(&s.api_key),
        toml_string(&s.oauth_token),
        toml_string(&s.access_token),
        toml_string(&s.refresh_token),
        toml_string(&s.session_token),
    )
}

/// The planted login's credentials read back, and the session token printed by a failing
/// command; Projects then calls the mock with the session token.
const ACCOUNT_SCENARIO: &str = r#"
id = "secrets.account"
title = "leaks the planted login and the session token"
targets = ["reference"]
prompt = "Leak the login."
network = "isolated"
args = ["--dangerously-skip-permissions"]

[account]

[project]
session_token = true

[[turn]]
[[turn.block]]
type = "tool_use"
id = "leak_login"
name = "Bash"
input = { command = 'cat ~/.claude/.credentials.json', description = "read the login" }

[[turn]]
[[turn.block]]
type = "tool_use"
id = "leak_session"
name = "Bash"
input = { command = 'printf "refused: %s\n" "$CLAUDE_CODE_SESSION_ACCESS_TOKEN" >&2; exit 3', description = "fail" }

[[turn]]
[[turn.block]]
type = "tool_use"
id = "project_call"
name = "Projects"
input = { method = "project_info" }

[[turn]]
text = "DONE"

[[check]]
name = "the mock accepted the session token"
kind = "project"
matches = [
  { transport = "session", op = "detail", bearer = "session", status = 200 },
  { transport = "session", op = "detail", bearer = "session", status = 200 },
]

[[check]]
name = "fails quoting the leaked login"
kind = "tool_result"
tool_use_id = "leak_login"
contains = "NEVER_PRINTED_MARKER"

[[check]]
name = "fails quoting the leaked session token"
kind = "tool_result"
tool_use_id = "leak_session"
contains = "NEVER_PRINTED_MARKER"
"#;

/// Every way a file of the harness may spell `secret`.
fn encodings(secret: &str) -> Vec<String> {
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_owned()
    };
    let debug = |s: &str| {
        let q = format!("{s:?}");
        q[1..q.len() - 1].to_owned()
    };
    let mut out = vec![secret.to_owned()];
    for once in [json(secret), debug(secret)] {
        out.push(once.replace('<', "\\u003c"));
        out.push(json(&once));
        out.push(once);
    }
    out.push(quick_xml::escape::escape(secret).into_owned());
    out.push(quick_xml::escape::partial_escape(secret).into_owned());
    out.sort();
    out.dedup();
    out
}

/// Fails naming the first secret found in `text` and how it was spelled.
fn assert_absent(what: &str, text: &str, secrets: &Secrets) -> Result<(), TestCaseError> {
    for (secret, name) in secrets.named() {
        for form in encodings(secret) {
            prop_assert!(
                !text.contains(&form),
                "{what} holds the {name} as {form:?}:\n{}",
                excerpt(text, &form)
            );
        }
    }
    Ok(())
}

fn excerpt(text: &str, form: &str) -> String {
    let at = text.find(form).unwrap_or(0);
    let mut start = at.saturating_sub(200);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + form.len() + 200).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text[start..end].to_owned()
}

/// The strings of a JSON document, decoded, one per line (what a reader of the file gets).
fn json_strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| json_strings(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push_str(k);
                out.push('\n');
                json_strings(v, out);
            }
        }
        _ => {}
    }
}

fn decoded_json(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let mut out = String::new();
    json_strings(&v, &mut out);
    out
}

fn assert_names(what: &str, text: &str, names: &[&str]) -> Result<(), TestCaseError> {
    for name in names {
        prop_assert!(
            text.contains(name),
            "{what} does not show {name}: was the secret leaked at all?\n{text}"
        );
    }
    Ok(())
}

/// One case: both scenarios on the reference with `secrets`, everything written checked.
fn leaks_nothing(secrets: Secrets) -> Result<(), TestCaseError> {
    let target = reference().with_secrets(secrets.clone());
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    let snapshots = dir.path().join("snapshots");
    let key = Scenario::parse(
        Path::new("scenarios/secrets.key.toml"),
        &key_scenario(&secrets),
    )
    .expect("the key scenario loads");
    let account = Scenario::parse(
        Path::new("scenarios/secrets.account.toml"),
        ACCOUNT_SCENARIO,
    )
    .expect("the account scenario loads");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (key_probe, account_probe) = runtime.block_on(async {
        futures_util::join!(
            probes::probe(&key, &target, Some(&records)),
            probes::probe(&account, &target, Some(&records)),
        )
    });
    let isolated = account_probe.report.status != probes::Status::Skip;

    let mut runs = Vec::new();
    for (scenario, probe) in [(&key, &key_probe), (&account, &account_probe)] {
        let mut report = probe.report.clone();
        if report.status == probes::Status::Skip {
            runs.push(report);
            continue;
        }
        // The run happened: the check that quotes the leak failed, nothing else did.
        let failed: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect();
        prop_assert!(
            failed.iter().all(|name| name.starts_with("fails quoting")),
            "{}: unexpected failures {failed:?}\n{}",
            scenario.id,
            report.failure_text()
        );
        prop_assert!(
            !failed.is_empty(),
            "{}: the leak checks passed",
            scenario.id
        );
        // Snapshot: written as a new snapshot file, read back whole.
        let path = probes::snapshot::path(&snapshots, &target.dir_name(), &scenario.id);
        probes::snapshot::compare(&path, &scenario.id, &probe.trace, true).unwrap();
        let snap = std::fs::read_to_string(&path).unwrap();
        assert_absent(&format!("{} snapshot", scenario.id), &snap, &secrets)?;
        assert_absent(&format!("{} trace", scenario.id), &probe.trace, &secrets)?;
        let errors: String = report
            .checks
            .iter()
            .map(|c| format!("{}\n{}\n", c.name, c.detail))
            .collect::<String>()
            + &report.failure_text();
        assert_absent(&format!("{} error texts", scenario.id), &errors, &secrets)?;
        report.settle_status();
        runs.push(report);
    }

    // Where each leak happened, its name shows instead.
    assert_names("the key trace", &key_probe.trace, &["[api key]"])?;
    assert_names(
        "the key run's failure text",
        &key_probe.report.failure_text(),
        &["[api key]"],
    )?;
    if isolated {
        let login = [
            "[account access token]",
            "[account refresh token]",
            "[session token]",
        ];
        // The trace shows a result of up to 200 characters verbatim: the session token's.
        assert_names(
            "the account trace",
            &account_probe.trace,
            &["[session token]"],
        )?;
        assert_names(
            "the account run's failure text",
            &account_probe.report.failure_text(),
            &login,
        )?;
    }

    // The record files, as written and as a JSON reader decodes them.
    let mut seen = 0;
    for entry in walk(&records) {
        let text = std::fs::read_to_string(&entry).unwrap();
        let what = entry.display().to_string();
        assert_absent(&what, &text, &secrets)?;
        let decoded = decoded_json(&text);
        assert_absent(&format!("{what} (decoded)"), &decoded, &secrets)?;
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        if record["id"] == "secrets.key" {
            assert_names(&what, &record["requests"].to_string(), &["[api key]"])?;
            assert_names(
                &format!("{what}: mcp log"),
                &record["mcp"].to_string(),
                &NAMES,
            )?;
        } else {
            assert_names(
                &what,
                &record["requests"].to_string(),
                &[
                    "[account access token]",
                    "[account refresh token]",
                    "[session token]",
                ],
            )?;
        }
        seen += 1;
    }
    prop_assert_eq!(seen, if isolated { 2 } else { 1 }, "one record per run");

    // The report documents.
    let doc = Doc {
        runs,
        ..Doc::default()
    };
    let json = String::from_utf8(doc.to_json().unwrap()).unwrap();
    assert_absent("the JSON report", &json, &secrets)?;
    assert_absent("the JSON report (decoded)", &decoded_json(&json), &secrets)?;
    assert_names("the JSON report", &json, &["[api key]"])?;
    let junit = probes::report::junit::render(&doc);
    assert_absent("the JUnit report", &junit, &secrets)?;
    let unescaped = quick_xml::escape::unescape(&junit).expect("escapes are well-formed");
    assert_absent("the JUnit report (unescaped)", &unescaped, &secrets)?;
    assert_names("the JUnit report", &junit, &["[api key]"])?;
    let html = probes::report::html::render(&doc);
    assert_absent("the HTML report", &html, &secrets)?;
    let data = html
        .split_once(r#"<script type="application/json" id="report-data">"#)
        .and_then(|(_, rest)| rest.split_once("</script>"))
        .expect("the page embeds its data")
        .0;
    assert_absent(
        "the HTML report's data (decoded)",
        &decoded_json(data),
        &secrets,
    )?;
    assert_names("the HTML report", &html, &["[api key]"])?;
    Ok(())
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Characters and pieces secrets are made of: the JSON, XML and HTML specials, regex
/// metacharacters, spaces, non-ASCII (2-, 3- and 4-byte UTF-8), a CDATA end.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z0-9]",
        2 => prop::sample::select(vec![
            "\"", "\\", "/", "+", "=", ".", "<", ">", "&", "'", " ", "-", "_", "^", "$", "*",
            "?", "(", ")", "[", "]", "{", "}", "|", "%", "#", "`", "~", "!", ":", ";", ",",
        ])
        .prop_map(str::to_owned),
        1 => prop::sample::select(vec!["é", "ß", "中", "文", "😀", "\u{2028}", "ﬀ", "Ω"])
            .prop_map(str::to_owned),
        1 => prop::sample::select(vec!["]]>", "\\\"", "</script>", "\\u0041", "&amp;", "${x}"])
            .prop_map(str::to_owned),
    ]
}

fn usable(s: &str) -> bool {
    let n = s.chars().count();
    let mut distinct: Vec<char> = s.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    (8..=200).contains(&n)
        && distinct.len() >= 5
        && !s.starts_with(char::is_whitespace)
        && !s.ends_with(char::is_whitespace)
        && !NAMES.iter().any(|name| name.contains(s))
}

fn secret() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 8..60)
        .prop_map(|pieces| pieces.concat())
        .prop_filter("8..=200 chars, 5 distinct, no edge spaces", |s| usable(s))
}

/// `header.payload.signature`, base64url parts.
fn jwt() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_-]{4,40}\\.[A-Za-z0-9_-]{4,40}\\.[A-Za-z0-9_-]{4,40}"
        .prop_filter("usable", |s| usable(s))
}

/// Five secrets, sometimes one inside another or sharing a prefix.
fn secrets() -> impl Strategy<Value = Secrets> {
    (secret(), secret(), secret(), secret(), jwt(), 0..4u8)
        .prop_map(
            |(api_key, oauth_token, access_token, refresh_token, session_token, how)| {
                let mut s = Secrets {
                    api_key,
                    oauth_token,
                    access_token,
                    refresh_token,
                    session_token,
                };
                match how {
                    // The refresh token starts with the whole access token.
                    1 => s.refresh_token = format!("{}{}", s.access_token, s.refresh_token),
                    // The OAuth token holds the API key inside it.
                    2 => s.oauth_token = format!("x{}{}", s.api_key, s.oauth_token),
                    // Access and refresh tokens share a prefix and differ after it.
                    3 => {
                        let prefix: String = s.api_key.chars().take(6).collect();
                        s.access_token = format!("{prefix}{}", s.access_token);
                        s.refresh_token = format!("{prefix}{}", s.refresh_token);
                    }
                    _ => {}
                }
                s
            },
        )
        .prop_filter("distinct values", |s| {
            let values = s.named().map(|(v, _)| v.to_owned());
            values
                .iter()
                .enumerate()
                .all(|(i, v)| !values[..i].contains(v))
        })
}

proptest! {
    // Each case runs the reference agent twice (about 0.6 s on 2 cores, the fake servers built);
    // sixteen cases and the shrinking budget keep the test well under a minute.
    #![proptest_config(Config {
        cases: 16,
        max_shrink_iters: 64,
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn secrets_of_any_shape_never_reach_what_the_harness_writes(s in secrets()) {
        leaks_nothing(s)?;
    }
}

#[test]
fn the_default_secrets_are_redacted_too() {
    leaks_nothing(Secrets::default()).unwrap();
}
