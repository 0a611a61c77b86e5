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
    let mut lines = LineBuffer::new(cap);
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
        let within_cap = lines.push(&chunk[..n], |msg| {
            let _ = incoming.send(Incoming::Message(msg));
        });
        if !within_cap {
            let _ = incoming.send(Incoming::Closed(Close {
                why: line_cap_message(cap),
                may_reconnect: false,
                tell_user: true,
            }));
            return;
        }
    }
}

/// The pure part of [`read_lines`]: bytes in as they were read, JSON-RPC messages out.
#[derive(Debug)]
pub struct LineBuffer {
    /// The unterminated line so far.
    buf: Vec<u8>,
    cap: usize,
}

impl LineBuffer {
    pub fn new(cap: usize) -> Self {
        LineBuffer {
            buf: Vec::new(),
            cap,
        }
    }

    /// Feeds one read's bytes: the message of every line it completes goes to `on_message`, in
    /// order. `false` when the unterminated rest is then longer than the cap (the connection is
    /// to be closed).
    pub fn push(&mut self, chunk: &[u8], mut on_message: impl FnMut(Value)) -> bool {
        let mut start = 0;
        for (i, b) in chunk.iter().enumerate() {
            if *b == b'\n' {
                self.buf.extend_from_slice(&chunk[start..i]);
                start = i + 1;
                let line = std::mem::take(&mut self.buf);
                if let Some(msg) = parse_line(&line) {
                    on_message(msg);
                }
            }
        }
        self.buf.extend_from_slice(&chunk[start..]);
        self.buf.len() <= self.cap
    }
}

/// One line of a server's stdout as a message: `None` for a blank line, and for a line that is
/// not JSON (the server's noise, not a reason to drop the connection).
pub fn parse_line(line: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    serde_json::from_str::<Value>(text).ok()
}

pub fn line_cap_message(cap: usize) -> String {
    format!(
        "MCP server stdout exceeded {cap} bytes without a newline; the server is probably writing logs or other non-protocol data to stdout"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(cap: usize, chunks: &[&[u8]]) -> (Vec<Value>, bool) {
        let mut lines = LineBuffer::new(cap);
        let mut out = Vec::new();
        for c in chunks {
            if !lines.push(c, |m| out.push(m)) {
                return (out, false);
            }
        }
        (out, true)
    }

    #[test]
    fn lines_split_across_reads_give_the_same_messages_and_noise_is_skipped() {
        let text = b"{\"id\":1}\r\n\nnot json\n \xff{\"id\":2}\n[1,\n{\"id\":3}";
        let (whole, ok) = feed(1 << 20, &[text]);
        assert!(ok);
        assert_eq!(whole, vec![serde_json::json!({"id": 1})]);
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(feed(1 << 20, &bytes), (whole, true));
    }

    #[test]
    fn an_unterminated_rest_past_the_cap_closes() {
        assert_eq!(
            feed(4, &[b"{}\n12345"]),
            (vec![serde_json::json!({})], false)
        );
        assert_eq!(feed(4, &[b"{}\n1234"]), (vec![serde_json::json!({})], true));
    }
}
