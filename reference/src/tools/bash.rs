//! Bash: one command through `bash -c` in the session's shell cwd, stdout and stderr merged in
//! order, the exit code reported, a timeout enforced on the command's whole process group.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
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

    fn access(&self, input: &Value, _ctx: &ToolContext) -> Access {
        Access::Execute(input["command"].as_str().unwrap_or_default().to_owned())
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let command = input["command"].as_str().unwrap_or_default();
        let timeout_ms = input["timeout"]
            .as_f64()
            .map(|t| t as u64)
            .unwrap_or(limits::BASH_DEFAULT_TIMEOUT.get())
            .min(limits::BASH_MAX_TIMEOUT.get());
        let cwd_file =
            tempfile::NamedTempFile::new().map_err(|e| ToolError::wrapped(e.to_string()))?;
        let (mut reader, writer) =
            std::io::pipe().map_err(|e| ToolError::wrapped(e.to_string()))?;
        let mut child = Command::new("bash")
            // The trap records where the command left the shell, however it exits.
            .arg("-c")
            .arg(r#"trap 'pwd -P >| "$__REFERENCE_CWD_FILE"' EXIT; eval "$__REFERENCE_COMMAND""#)
            .env("__REFERENCE_COMMAND", command)
            .env("__REFERENCE_CWD_FILE", cwd_file.path())
            .current_dir(&ctx.shell_cwd)
            .stdin(Stdio::null())
            .stdout(
                writer
                    .try_clone()
                    .map_err(|e| ToolError::wrapped(e.to_string()))?,
            )
            .stderr(writer)
            .process_group(0)
            .spawn()
            .map_err(|e| ToolError::wrapped(format!("cannot start bash: {e}")))?;
        let pid = child.id() as i32;
        let reading = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = reader.read_to_end(&mut out);
            out
        });
        let started = Instant::now();
        let mut interrupted = false;
        let status = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(|e| ToolError::wrapped(e.to_string()))?
            {
                break Some(status);
            }
            if started.elapsed() >= Duration::from_millis(timeout_ms) {
                interrupted = true;
                break None;
            }
            if ctx.cancelled() {
                // TaskStop ended this loop's task: the command goes with it, group and all.
                // SAFETY: signalling the process group this call created.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
                let _ = child.wait();
                return Err(ToolError::interrupted());
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        // The group goes either way: a background child must not outlive the call holding the pipe.
        // SAFETY: signalling the process group this call created.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = child.wait();
        let mut output = String::from_utf8_lossy(&reading.join().unwrap_or_default())
            .trim_end()
            .to_owned();
        if let Ok(dir) = std::fs::read_to_string(cwd_file.path()) {
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
        let structured = json!({"stdout": output, "stderr": "", "interrupted": interrupted, "isImage": false, "noOutputExpected": false});
        let code = status.and_then(|s| s.code());
        let (content, is_error) = match code {
            // The real CLI moves most timed-out commands to the background; this agent ends them
            // with the text it gives a timed-out `sleep`.
            _ if interrupted => (
                format!(
                    "Exit code 143\nCommand timed out after {}s\n{output}",
                    timeout_ms.div_ceil(1000)
                )
                .trim_end()
                .to_owned(),
                true,
            ),
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
