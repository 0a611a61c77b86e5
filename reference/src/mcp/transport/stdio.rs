//! A local MCP server as a child process: no shell, a controlled environment, one JSON-RPC message
//! per line, stderr kept apart, a line cap, and a shutdown that always ends the process.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::super::connection::{Close, Incoming};
use super::super::error::McpError;
use crate::limits;

#[derive(Debug, Clone)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
}

/// Variables a server inherits from the agent's environment; the config's `env` adds to them.
/// Everything else (API keys, tokens) stays with the agent.
const INHERITED_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR",
];

/// How long the server gets to exit after stdin closes, and after SIGTERM.
const EXIT_WAIT: Duration = Duration::from_millis(limits::MCP_STDIO_EXIT_WAIT.get());
const KILL_WAIT: Duration = Duration::from_millis(limits::MCP_STDIO_KILL_WAIT.get());

pub struct StdioTransport {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    child: Mutex<Option<Child>>,
    pid: Option<u32>,
}

impl StdioTransport {
    pub fn spawn(
        spec: &StdioSpec,
        incoming: mpsc::UnboundedSender<Incoming>,
    ) -> Result<Self, McpError> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .env_clear()
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for key in INHERITED_ENV {
            if let Some(v) = std::env::var_os(key) {
                command.env(key, v);
            }
        }
        command.envs(&spec.env);
        let mut child = command
            .spawn()
            .map_err(|e| McpError::Other(format!("spawn {} ENOENT: {e}", spec.command)))?;
        let stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        // The server's stderr is its log, never protocol: drained so it cannot block the server.
        tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink).await;
        });
        tokio::spawn(read_lines(stdout, incoming));
        Ok(StdioTransport {
            stdin: tokio::sync::Mutex::new(child.stdin.take()),
            pid: child.id(),
            child: Mutex::new(Some(child)),
        })
    }

    pub async fn send(&self, msg: &Value) -> Result<(), McpError> {
        let mut line = msg.to_string();
        line.push('\n');
        let mut stdin = self.stdin.lock().await;
        let pipe = stdin
            .as_mut()
            .ok_or_else(|| McpError::Closed("stdin closed".into()))?;
        pipe.write_all(line.as_bytes())
            .await
            .map_err(|e| McpError::Closed(format!("write EPIPE: {e}")))?;
        pipe.flush()
            .await
            .map_err(|e| McpError::Closed(format!("write EPIPE: {e}")))
    }

    /// Close stdin and wait 100 ms; then SIGTERM and wait 400 ms; then SIGKILL (the seed's order,
    /// 2.1.235's waits). Nothing is left running.
    pub async fn shutdown(&self) {
        self.stdin.lock().await.take();
        let Some(mut child) = self.child.lock().expect("not poisoned").take() else {
            return;
        };
        if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_ok() {
            return;
        }
        if let Some(pid) = self.pid {
            // SAFETY: kill(2) on the pid of our own child, which has not been reaped.
            unsafe {
                libc::kill(pid as i32, libc::SIGTERM);
            }
        }
        if tokio::time::timeout(KILL_WAIT, child.wait()).await.is_ok() {
            return;
        }
        let _ = child.kill().await;
    }
}

/// Splits stdout into lines; a line that grows past the cap closes the connection, because a
/// server that writes logs to stdout would otherwise grow the buffer without bound.
async fn read_lines(
    mut stdout: tokio::process::ChildStdout,
    incoming: mpsc::UnboundedSender<Incoming>,
) {
    let cap = limits::MCP_STDIO_MAX_LINE_BYTES.usize();
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match stdout.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                let _ = incoming.send(Incoming::Closed(Close {
                    why: "server process exited".into(),
                    may_reconnect: true,
                    tell_user: false,
                }));
                return;
            }
            Ok(n) => n,
        };
        let mut start = 0;
        for (i, b) in chunk[..n].iter().enumerate() {
            if *b == b'\n' {
                buf.extend_from_slice(&chunk[start..i]);
                start = i + 1;
                let line = std::mem::take(&mut buf);
                deliver(&line, &incoming);
            }
        }
        buf.extend_from_slice(&chunk[start..n]);
        if buf.len() > cap {
            let _ = incoming.send(Incoming::Closed(Close {
                why: line_cap_message(cap),
                may_reconnect: false,
                tell_user: true,
            }));
            return;
        }
    }
}

fn deliver(line: &[u8], incoming: &mpsc::UnboundedSender<Incoming>) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    // A line that is not JSON-RPC is the server's noise, not a reason to drop the connection.
    if let Ok(msg) = serde_json::from_str::<Value>(text) {
        let _ = incoming.send(Incoming::Message(msg));
    }
}

pub fn line_cap_message(cap: usize) -> String {
    format!(
        "MCP server stdout exceeded {cap} bytes without a newline; the server is probably writing logs or other non-protocol data to stdout"
    )
}
