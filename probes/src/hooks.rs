//! The hook recorder the harness provides (`{hook_recorder}` in a scenario): a script a settings
//! file names as a hook command. Each time a target runs it, it appends one line to the run's hook
//! log (the exit it will give, the `CLAUDE*` variables it was given, and its stdin), then answers
//! as its arguments say. The harness reads the log back as [`HookRun`]s, so checks can say which
//! event ran, in which order, with which input, on either target: the recorder is a process the
//! target starts, like any hook, and the harness reads only the file it leaves.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One invocation of the recorder.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct HookRun {
    /// `hook_event_name` from its stdin.
    pub event: String,
    /// The `--label` it was given, to tell two hooks on one event apart.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    pub exit: i32,
    /// The names of the `CLAUDE*` variables in its environment, sorted.
    pub env: Vec<String>,
    /// Its stdin as JSON (a string when it was not JSON).
    pub stdin: Value,
}

impl crate::secrets::Redact for HookRun {
    fn redact(&mut self, r: &crate::secrets::Redactor) {
        let HookRun {
            event: _,
            label,
            exit: _,
            env: _,
            stdin,
        } = self;
        label.redact(r);
        stdin.redact(r);
    }
}

/// The recorder's file name under a run's base directory, and its log's.
pub const SCRIPT: &str = "hook-recorder";
pub const LOG: &str = "hooks.log";

/// The script, appending to `log`. Arguments: `--label L`, `--exit N`, `--stdout TEXT`,
/// `--stderr TEXT` (each written as given), `--sleep S` (before answering, for a timeout),
/// `--after TEXT` (record only once the log holds TEXT, at most 10 s: orders a hook after another
/// that a target starts without waiting for it, by that hook's record rather than by a sleep).
pub fn script(log: &Path) -> String {
    format!(
        r#"#!/bin/sh
# Written by the conformance harness: records one hook invocation, then answers as told.
input=$(cat | tr '\n' ' ')
names=$(env | sed -n 's/^\(CLAUDE[A-Za-z0-9_]*\)=.*/\1/p' | sort | tr '\n' ' ')
label= code=0 out= err= nap= after=
while [ $# -gt 1 ]; do
  case $1 in
    --label) label=$2 ;; --exit) code=$2 ;; --stdout) out=$2 ;; --stderr) err=$2 ;; --sleep) nap=$2 ;; --after) after=$2 ;;
  esac
  shift 2
done
tries=200
while [ -n "$after" ] && [ $tries -gt 0 ] && ! grep -qF -- "$after" '{log}' 2>/dev/null; do
  sleep 0.05; tries=$((tries - 1))
done
printf '%s\t%s\t%s\t%s\n' "$code" "$label" "$names" "$input" >> '{log}'
[ -n "$nap" ] && sleep "$nap"
[ -n "$out" ] && printf '%s' "$out"
[ -n "$err" ] && printf '%s' "$err" >&2
exit "$code"
"#,
        log = log.display()
    )
}

/// Writes the recorder into `base`, executable, and returns its path.
pub fn install(base: &Path) -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = base.join(SCRIPT);
    std::fs::write(&path, script(&base.join(LOG)))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(path)
}

/// The invocations the log under `base` holds, in the order they started; none when no hook ran.
pub fn read(base: &Path) -> Vec<HookRun> {
    let text = std::fs::read_to_string(base.join(LOG)).unwrap_or_default();
    text.lines().filter_map(parse).collect()
}

fn parse(line: &str) -> Option<HookRun> {
    let mut fields = line.splitn(4, '\t');
    let exit = fields.next()?.trim().parse().unwrap_or(-1);
    let label = fields.next()?.to_owned();
    let env = fields
        .next()?
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let raw = fields.next()?.trim();
    let stdin = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
    Some(HookRun {
        event: stdin["hook_event_name"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        label,
        exit,
        env,
        stdin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    fn run_recorder(base: &Path, args: &[&str], stdin: &str) -> std::process::Output {
        let script = base.join(SCRIPT);
        if !script.exists() {
            install(base).unwrap();
        }
        let mut child = Command::new(&script)
            .args(args)
            .env("CLAUDE_PROJECT_DIR", base)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    #[test]
    fn the_recorder_logs_its_input_and_answers_as_told() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_recorder(
            dir.path(),
            &[
                "--label",
                "guard",
                "--exit",
                "2",
                "--stderr",
                "no\n",
                "--stdout",
                "{\"a\":1}",
            ],
            "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\"}\n",
        );
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"a\":1}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "no\n");
        let runs = read(dir.path());
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].event, "PreToolUse");
        assert_eq!(runs[0].label, "guard");
        assert_eq!(runs[0].exit, 2);
        assert!(runs[0].env.contains(&"CLAUDE_PROJECT_DIR".to_owned()));
        assert_eq!(runs[0].stdin["tool_name"], "Bash");
    }

    #[test]
    fn a_recorder_told_after_waits_for_that_record() {
        let dir = tempfile::tempdir().unwrap();
        install(dir.path()).unwrap();
        let base = dir.path().to_owned();
        // Started first, so without --after it would record first.
        let later = std::thread::spawn(move || {
            run_recorder(
                &base,
                &["--after", "StopFailure"],
                "{\"hook_event_name\":\"SessionEnd\"}",
            )
        });
        run_recorder(dir.path(), &[], "{\"hook_event_name\":\"StopFailure\"}");
        assert_eq!(later.join().unwrap().status.code(), Some(0));
        let events: Vec<String> = read(dir.path()).into_iter().map(|r| r.event).collect();
        assert_eq!(events, ["StopFailure", "SessionEnd"]);
    }

    #[test]
    fn input_that_is_not_json_is_kept_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_recorder(dir.path(), &[], "not json");
        assert_eq!(out.status.code(), Some(0));
        let runs = read(dir.path());
        assert_eq!(runs[0].stdin, Value::String("not json".into()));
        assert_eq!(runs[0].event, "");
    }
}
