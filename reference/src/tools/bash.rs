//! Bash: one command through `bash -c` in the session's shell cwd, stdout and stderr merged in
//! order, the exit code reported. A command asked to run in the background, or still running at
//! its timeout, goes on as a task of its own (`shell_task`).

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{object_schema, shell_task, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};

pub struct Bash;

impl Tool for Bash {
    fn name(&self) -> &'static str {
        "Bash"
    }

    fn description(&self) -> &'static str {
        "Runs a bash command in the project's shell and returns its combined output. A non-zero exit \
         code is reported with the output. `cd` persists between calls within the project. Give a short \
         description of what the command does."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "command": {"description": "The command to run.", "type": "string"},
                "timeout": {"description": "Timeout in milliseconds.", "type": "number"},
                "description": {"description": "A few words on what the command does.", "type": "string"},
                "run_in_background": {"description": "Start the command in the background.", "type": "boolean"},
                "dangerouslyDisableSandbox": {"description": "Run outside the sandbox.", "type": "boolean"},
            }),
            &["command"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::BASH_RESULT_BUDGET)
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        // A command the sandbox confines runs without asking unless the settings say otherwise;
        // deny and ask rules still apply (recorded: sandbox.filesystem).
        let command = input["command"].as_str().unwrap_or_default().to_owned();
        match crate::sandbox::Sandbox::usable(&ctx.home, &ctx.cwd) {
            Some(s) if s.escapes(input) => Access::Unsandboxed(command),
            Some(s) if s.auto_allow && s.confines(input) => Access::Checked,
            _ => Access::Execute(command),
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let command = input["command"].as_str().unwrap_or_default();
        let timeout_ms = input["timeout"]
            .as_f64()
            .map(|t| t as u64)
            .unwrap_or(limits::BASH_DEFAULT_TIMEOUT.get())
            .min(limits::BASH_MAX_TIMEOUT.get());
        let err = |e: std::io::Error| ToolError::wrapped(e.to_string());
        // The output goes to a file beside the session's task outputs: a command that goes on in
        // the background keeps writing to what becomes its task's output file.
        let place = ctx.agents.as_ref().map(shell_task::Place::new);
        let dir = place
            .as_ref()
            .and_then(|p| p.output_file.parent().map(Path::to_path_buf))
            .unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&dir).map_err(err)?;
        let out = tempfile::NamedTempFile::new_in(&dir).map_err(err)?;
        let cwd_file = tempfile::NamedTempFile::new().map_err(err)?;
        // One open file for both streams: they share its offset, so they interleave in order.
        let sink = out.reopen().map_err(err)?;
        // The trap records where the command left the shell, however it exits. What the session's
        // hooks left for its commands runs first (`hooks::env_file`). The three variables that
        // carry all this are taken out of the environment first: the command's `env` shows only
        // what 2.1.235's would (seen: sandbox.credentials).
        let script = r#"__reference_cwd_file=$__REFERENCE_CWD_FILE __reference_env=$__REFERENCE_ENV __reference_command=$__REFERENCE_COMMAND; unset __REFERENCE_CWD_FILE __REFERENCE_ENV __REFERENCE_COMMAND; trap 'pwd -P >| "$__reference_cwd_file"' EXIT; eval "$__reference_env"; eval "$__reference_command""#;
        // Seed 004 line 31: after permission, the sandbox, when the settings turn it on.
        let sandbox = crate::sandbox::Sandbox::usable(&ctx.home, &ctx.cwd);
        let escaped = sandbox.as_ref().is_some_and(|s| s.escapes(input));
        let confined = sandbox.filter(|s| s.confines(input));
        let network = match &confined {
            Some(sandbox) => Some(network(sandbox, ctx).map_err(err)?),
            None => None,
        };
        let mut shell_command = match (&confined, &network) {
            (Some(sandbox), Some((proxy, credentials))) => sandbox
                .command(
                    &ctx.cwd,
                    &[cwd_file.path()],
                    proxy.socket(),
                    credentials,
                    script,
                )
                .map_err(err)?,
            _ => {
                let mut c = Command::new("bash");
                c.arg("-c").arg(script);
                c
            }
        };
        let child = shell_command
            .env(
                "__REFERENCE_ENV",
                crate::hooks::env_file::script(&ctx.home, &ctx.session_id).unwrap_or_default(),
            )
            .env("__REFERENCE_COMMAND", command)
            .envs(crate::environment::child_vars(
                &ctx.session_id,
                &crate::api::wire::get().entrypoint,
            ))
            .envs(std::env::current_exe().map(|p| ("CLAUDE_CODE_EXECPATH", p)))
            .env("__REFERENCE_CWD_FILE", cwd_file.path())
            .current_dir(&ctx.shell_cwd)
            .stdin(Stdio::null())
            .stdout(sink.try_clone().map_err(err)?)
            .stderr(sink)
            .process_group(0)
            .spawn()
            .map_err(|e| ToolError::wrapped(format!("cannot start bash: {e}")))?;
        let pid = child.id() as i32;
        let description = input["description"]
            .as_str()
            .filter(|d| !d.is_empty())
            .unwrap_or(command);
        // The command with the files it holds, whether it stays in the foreground or not.
        let mut shell = shell_task::Shell {
            child,
            out,
            cwd_file,
            command,
            description,
        };
        if input["run_in_background"].as_bool() == Some(true) {
            let (Some(agents), Some(place)) = (ctx.agents.as_ref(), place.as_ref()) else {
                kill_group(pid, &mut shell.child);
                return Err(ToolError::wrapped(
                    "a background command needs a session to run in",
                ));
            };
            return to_background(agents, place, shell, &ctx.tool_use_id, None);
        }
        let started = Instant::now();
        let status = loop {
            if let Some(status) = shell.child.try_wait().map_err(err)? {
                break status;
            }
            if started.elapsed() >= Duration::from_millis(timeout_ms) {
                // 2.1.235 moves a command still running at its timeout to the background.
                if let (Some(agents), Some(place)) = (ctx.agents.as_ref(), place.as_ref()) {
                    return to_background(agents, place, shell, &ctx.tool_use_id, Some(timeout_ms));
                }
                kill_group(pid, &mut shell.child);
                return Err(ToolError::wrapped(format!(
                    "Command timed out after {}",
                    seconds(timeout_ms)
                )));
            }
            if ctx.cancelled() {
                // TaskStop ended this loop's task: the command goes with it, group and all.
                kill_group(pid, &mut shell.child);
                return Err(ToolError::interrupted());
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        // Anything the command left running goes with it.
        kill_group(pid, &mut shell.child);
        let mut output = std::fs::read(shell.out.path())
            .map(|b| String::from_utf8_lossy(&b).trim_end().to_owned())
            .unwrap_or_default();
        // Nothing there when the script never ran (a sandbox that could not start): the shell
        // did not move.
        if let Some(dir) = std::fs::read_to_string(shell.cwd_file.path())
            .ok()
            .filter(|d| !d.trim().is_empty())
        {
            let dir = std::path::PathBuf::from(dir.trim_end());
            // The shell may move within the project; leaving it resets the shell, as the real CLI does.
            if dir.starts_with(&ctx.cwd) {
                ctx.shell_cwd = dir;
            } else {
                ctx.shell_cwd = ctx.cwd.clone();
                let note = format!("Shell cwd was reset to {}", ctx.cwd.display());
                output = if output.is_empty() {
                    note
                } else {
                    format!("{output}\n{note}")
                };
            }
        }
        // A failed command says which connections the sandbox refused it (recorded:
        // sandbox.network); one that succeeded does not.
        let violations = network
            .map(|(proxy, credentials)| proxy.take_violations(&credentials))
            .unwrap_or_default();
        if status.code() != Some(0) && !violations.is_empty() {
            output = format!(
                "{output}\n\n<sandbox_violations>\n{}\n</sandbox_violations>",
                violations.join("\n")
            );
        }
        let mut structured = json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": no_output_expected(command)});
        // A command let out of the sandbox says so (recorded: sandbox.escape).
        if escaped {
            structured["dangerouslyDisableSandbox"] = json!(true);
        }
        let (content, is_error) = match status.code() {
            Some(0) if output.is_empty() => ("(Bash completed with no output)".to_owned(), false),
            Some(0) => (output, false),
            Some(n) => (
                format!("Exit code {n}\n{output}").trim_end().to_owned(),
                true,
            ),
            None => (
                format!("Killed by a signal\n{output}")
                    .trim_end()
                    .to_owned(),
                true,
            ),
        };
        // A failed command's stream-json result is its error text, as for other failed tools.
        let structured = if is_error {
            json!(format!("Error: {content}"))
        } else {
            structured
        };
        Ok(ToolOutput {
            content,
            structured,
            is_error: Some(is_error),
            blocks: None,
        })
    }
}

/// Hands a running command to a background task and says so.
fn to_background(
    agents: &crate::agents::Agents,
    place: &shell_task::Place,
    shell: shell_task::Shell,
    tool_use_id: &str,
    timed_out: Option<u64>,
) -> Result<ToolOutput, ToolError> {
    shell_task::adopt(agents, place, shell, tool_use_id)
        .map(|()| backgrounded(place, timed_out))
        .map_err(|e| ToolError::wrapped(e.to_string()))
}

/// Ends a command's whole process group and reaps it.
fn kill_group(pid: i32, child: &mut std::process::Child) {
    // SAFETY: signalling the process group this call created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let _ = child.wait();
}

/// A timeout as 2.1.235 words it: `1s`, `1.5s`.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}

/// The result of a command that runs on in the background: its task id and output file (the
/// facts 2.1.235's result carries, first sentence and file as it words them, the rest ours).
fn backgrounded(place: &shell_task::Place, timed_out: Option<u64>) -> ToolOutput {
    let (id, file) = (&place.id, place.output_file.display());
    let opening = match timed_out {
        Some(ms) => format!(
            "Command did not complete within its {} timeout and was moved to the background (ID: {id}).",
            seconds(ms)
        ),
        None => format!("Command running in background with ID: {id}."),
    };
    let content = format!(
        "{opening} Output is being written to: {file}. A notification comes when it ends; until \
         then, Read that file for what it has printed so far."
    );
    let mut structured = json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false,
                                "noOutputExpected": false, "backgroundTaskId": id});
    if let Some(ms) = timed_out {
        structured["timedOutAfterMs"] = json!(ms);
    }
    ToolOutput {
        content,
        structured,
        is_error: Some(false),
        blocks: None,
    }
}

/// A result saved to a file (over Bash's budget): the structured result keeps the head of the
/// output, up to the budget, and names the file and its size in bytes, as 2.1.235's does.
pub fn note_persisted(structured: &mut Value, path: &std::path::Path, budget: usize) {
    let Some(fields) = structured.as_object_mut() else {
        return;
    };
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or_default();
    if let Some(stdout) = fields.get("stdout").and_then(Value::as_str) {
        let head: String = stdout.chars().take(budget).collect();
        fields.insert("stdout".into(), json!(head));
    }
    fields.insert("persistedOutputPath".into(), json!(path));
    fields.insert("persistedOutputSize".into(), json!(size));
}

/// The commands 2.1.235 expects to print nothing when they succeed.
const SILENT_COMMANDS: &[&str] = &[
    "mv", "cp", "rm", "mkdir", "rmdir", "chmod", "chown", "chgrp", "touch", "ln", "cd", "export",
    "unset", "wait",
];

/// `noOutputExpected`: every segment of the line starts with a silent command.
fn no_output_expected(command: &str) -> bool {
    let firsts: Vec<String> = crate::permissions::bash::segments(command)
        .iter()
        .filter_map(|s| s.text().split_whitespace().next().map(str::to_owned))
        .collect();
    !firsts.is_empty() && firsts.iter().all(|f| SILENT_COMMANDS.contains(&f.as_str()))
}

/// The session's proxy, set to judge this command's connections by the sandbox's lists and, for
/// a host on neither, by whoever the session can ask; and the command's credentials for it.
fn network(
    sandbox: &crate::sandbox::Sandbox,
    ctx: &ToolContext,
) -> std::io::Result<(
    &'static crate::sandbox::proxy::Proxy,
    crate::sandbox::proxy::Credentials,
)> {
    use crate::sandbox::proxy;
    let session = proxy::session()?;
    let asker = ctx.host.clone().map(|host| {
        std::sync::Arc::new(NetworkQuestion(host)) as std::sync::Arc<dyn proxy::NetworkAsker>
    });
    session.configure(proxy::Policy {
        domains: sandbox.network.domains.clone(),
        strict: sandbox.network.strict,
        asker,
    });
    let credentials = session.issue(&ctx.tool_use_id);
    Ok((session, credentials))
}

/// A host on neither list put to the person at the host, as 2.1.235 does: tool
/// `SandboxNetworkAccess`, the host as its input, "allow always" as a `WebFetch(domain:…)` rule.
struct NetworkQuestion(std::sync::Arc<dyn super::Host>);

impl crate::sandbox::proxy::NetworkAsker for NetworkQuestion {
    fn allow(&self, host: &str) -> bool {
        let input = json!({"host": host});
        let prompt = crate::vocab::Prompt {
            suggestions: Some(vec![json!({
                "type": "addRules",
                "rules": [{"toolName": "WebFetch", "ruleContent": format!("domain:{host}")}],
                "behavior": "allow",
                "destination": "localSettings",
            })]),
            ..Default::default()
        };
        let reply = self.0.ask(&crate::vocab::Ask {
            tool: "SandboxNetworkAccess",
            input: &input,
            tool_use_id: &crate::vocab::uuid(),
            description: Some(format!("Allow network connection to {host}?")),
            about: "",
            prompt: &prompt,
            interactive: false,
        });
        matches!(reply, crate::vocab::Reply::Allow { .. })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_lines_of_silent_commands_expect_no_output() {
        assert!(super::no_output_expected("touch a.txt"));
        assert!(super::no_output_expected("mkdir -p d && cd d"));
        assert!(!super::no_output_expected("touch a && ls"));
        assert!(!super::no_output_expected("echo hi"));
        assert!(!super::no_output_expected(""));
    }
}
