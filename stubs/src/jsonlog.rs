//! The log every fake JSON-RPC server (MCP, LSP) keeps: one JSON line per message in or out, with a
//! timestamp and the server's pid, plus notes (start, stdin EOF, signals, HTTP statuses). The
//! probe reads it after the run; checks count and order what crossed the wire from it.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogEntry {
    /// Milliseconds since the Unix epoch, so entries of several servers can be merged.
    pub t_ms: u64,
    pub pid: u32,
    /// `in` (client → server), `out` (server → client) or `note`.
    pub dir: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub msg: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl LogEntry {
    /// The JSON-RPC method of a message, `response` for an answer.
    pub fn method(&self) -> Option<&str> {
        if self.msg.is_null() {
            return None;
        }
        Some(self.msg["method"].as_str().unwrap_or("response"))
    }
}

pub struct McpLog {
    file: Mutex<std::fs::File>,
}

impl McpLog {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(McpLog {
            file: Mutex::new(file),
        })
    }

    pub fn message(&self, dir: &str, msg: &Value) {
        self.write(LogEntry {
            t_ms: now_ms(),
            pid: std::process::id(),
            dir: dir.into(),
            msg: msg.clone(),
            note: None,
        });
    }

    pub fn note(&self, note: impl Into<String>) {
        self.write(LogEntry {
            t_ms: now_ms(),
            pid: std::process::id(),
            dir: "note".into(),
            msg: Value::Null,
            note: Some(note.into()),
        });
    }

    fn write(&self, entry: LogEntry) {
        let mut line = serde_json::to_string(&entry).unwrap_or_default();
        line.push('\n');
        // One write per line under the lock: concurrent handlers never interleave entries.
        if let Ok(mut file) = self.file.lock() {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Every entry of a log; a missing file is an empty log (the server never started).
pub fn read(path: &Path) -> Vec<LogEntry> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}
