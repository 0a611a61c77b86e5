//! The fake language server's loop: log each message, answer requests from the script, exit on
//! `exit` or end of input.

use std::io::{BufReader, Write};

use serde_json::{json, Value};

use super::framing::{read_message, write_message};
use super::script::LspScript;
use crate::jsonlog::McpLog;

pub fn serve(script: &LspScript, log: &McpLog) -> std::io::Result<()> {
    log.note(format!(
        "start argv={:?}",
        std::env::args().collect::<Vec<_>>()
    ));
    let stdin = std::io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut last_uri = String::new();
    loop {
        let msg = match read_message(&mut input) {
            Ok(Some(m)) => m,
            Ok(None) => {
                log.note("stdin EOF");
                return Ok(());
            }
            Err(e) => {
                log.note(format!("bad frame: {e}"));
                return Ok(());
            }
        };
        log.message("in", &msg);
        let method = msg["method"].as_str().unwrap_or_default().to_owned();
        if method == "textDocument/didOpen" {
            last_uri = msg["params"]["textDocument"]["uri"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
        }
        if method == "exit" {
            log.note("exit");
            return Ok(());
        }
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        if msg.get("method").is_none() {
            continue; // an answer to a request of ours (none are sent)
        }
        let result = match method.as_str() {
            "initialize" => {
                json!({"capabilities": script.capabilities(), "serverInfo": {"name": "fake-lsp", "version": "1.0.0"}})
            }
            "shutdown" => Value::Null,
            other => expand(
                script.results.get(other).cloned().unwrap_or(Value::Null),
                &last_uri,
            ),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        log.message("out", &answer);
        write_message(&mut out, &answer)?;
        out.flush()?;
    }
}

fn expand(v: Value, uri: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{file}", uri)),
        Value::Array(items) => Value::Array(items.into_iter().map(|i| expand(i, uri)).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, expand(v, uri))).collect())
        }
        other => other,
    }
}
