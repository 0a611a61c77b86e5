//! The stdio transport of the fake MCP server: one JSON-RPC message per line on stdin and stdout,
//! stderr for its own chatter. Run as the `fake-mcp` binary, which the target spawns.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::signal::unix::{signal, SignalKind};

use super::announce::Announcer;
use super::behaviour::{Action, Behaviour};
use super::script::McpScript;
use crate::cues::Waiter;
use crate::jsonlog::{LogEntry, McpLog};

/// Serves stdin/stdout; `earlier` is what previous processes of this server logged (a restart);
/// what it sees is announced to the run's board through `waiter`.
pub async fn serve(
    script: McpScript,
    log: McpLog,
    earlier: &[LogEntry],
    waiter: Waiter,
) -> anyhow::Result<()> {
    let wire = Arc::new(Wire {
        log,
        announcer: Announcer::new(waiter, script.name.clone()),
    });
    let ignore_shutdown = script.ignore_shutdown;
    wire.log.note(format!(
        "start argv={:?}",
        std::env::args().collect::<Vec<_>>()
    ));
    // Names only: values may be secrets the client should not have passed.
    let mut names: Vec<String> = std::env::vars_os()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    names.sort();
    wire.log.note(format!("env {}", names.join(",")));
    eprintln!("fake-mcp: started (this line is stderr, not protocol)");
    let behaviour = Arc::new(Mutex::new(Behaviour::new(script).resume(earlier)));
    let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));

    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        let mut stream = signal(kind)?;
        let wire = wire.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                if ignore_shutdown {
                    wire.log.note(format!("{name} ignored"));
                } else {
                    wire.log.note(format!("{name} exit"));
                    std::process::exit(0);
                }
            }
        });
    }

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        let msg: Value = match parse_line(&line) {
            None => continue,
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                wire.log.note(format!("malformed line ({e}): {line:.200}"));
                let answer = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
                write_line(&stdout, &wire, &answer).await;
                continue;
            }
        };
        wire.log.message("in", &msg);
        wire.announcer.received(&msg);
        let actions = behaviour.lock().expect("not poisoned").on_message(&msg);
        let needs_time = actions
            .iter()
            .any(|a| matches!(a, Action::Sleep(_) | Action::Never | Action::Await(..)));
        if needs_time {
            // A slow answer must not hold up the messages after it.
            tokio::spawn(perform(actions, stdout.clone(), wire.clone()));
        } else {
            perform(actions, stdout.clone(), wire.clone()).await;
        }
    }
    wire.log.note("stdin EOF");
    if ignore_shutdown {
        std::future::pending::<()>().await;
    }
    Ok(())
}

/// One line of stdin as a message: `None` for a blank line (skipped), an error for a line that
/// is not JSON (answered with a JSON-RPC parse error).
pub fn parse_line(line: &str) -> Option<Result<Value, serde_json::Error>> {
    if line.trim().is_empty() {
        return None;
    }
    Some(serde_json::from_str(line))
}

type Stdout = Arc<tokio::sync::Mutex<tokio::io::Stdout>>;

/// The log every message goes to, and the board it is announced on.
struct Wire {
    log: McpLog,
    announcer: Announcer,
}

async fn perform(actions: Vec<Action>, stdout: Stdout, wire: Arc<Wire>) {
    for action in actions {
        match action {
            Action::Send(msg) => write_line(&stdout, &wire, &msg).await,
            Action::Await(after, what) => wire.announcer.wait(&after, &what).await,
            Action::Sleep(d) => tokio::time::sleep(d).await,
            Action::Never => return,
            Action::Drop => {
                wire.log.note("drop: exiting");
                std::process::exit(0);
            }
            Action::Flood(n) => {
                wire.log.note(format!("flood {n} bytes without a newline"));
                let chunk = vec![b'x'; 1 << 20];
                let mut out = stdout.lock().await;
                let mut left = n;
                while left > 0 {
                    let k = left.min(chunk.len());
                    if out.write_all(&chunk[..k]).await.is_err() {
                        wire.log.note("flood: stdout closed");
                        return;
                    }
                    left -= k;
                }
                let _ = out.flush().await;
            }
            Action::Status { .. } | Action::ForgetSession => {
                wire.log.note("HTTP-only fault ignored on stdio");
            }
        }
    }
}

async fn write_line(stdout: &Stdout, wire: &Wire, msg: &Value) {
    let mut line = msg.to_string();
    line.push('\n');
    wire.log.message("out", msg);
    let mut out = stdout.lock().await;
    let _ = out.write_all(line.as_bytes()).await;
    let _ = out.flush().await;
    // Announced once on its way, so what waits for it is let go after the client could read it.
    wire.announcer.sent(msg);
}
