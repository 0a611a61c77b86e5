//! The log every fake JSON-RPC server (MCP, LSP) keeps: one JSON line per message in or out, with a
//! timestamp and the server's pid, plus notes (start, stdin EOF, signals, HTTP statuses). The
//! probe reads it after the run; checks count and order what crossed the wire from it.
//!
//! A log that could not be written must not read as a server that received nothing: the first
//! failure to open or write it is kept (`McpLog::first_error`) and written to a sidecar file next
//! to it (`<log>.error`, see [`error_path`]), and [`read`] returns an error when that sidecar
//! exists, when the log cannot be read, or when a line of it is not an entry.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
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
    path: PathBuf,
    file: Mutex<std::fs::File>,
    /// The first failure to write an entry, as reported in the sidecar.
    first_error: OnceLock<String>,
}

impl McpLog {
    /// Opens `path` for appending; a failure is also recorded in the sidecar, so a server that
    /// could not open its log is not mistaken for one that never started.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let opened = (|| {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        })();
        match opened {
            Ok(file) => Ok(Self::with_file(path, file)),
            Err(e) => {
                record_failure(path, &format!("cannot open log {}: {e}", path.display()));
                Err(e)
            }
        }
    }

    fn with_file(path: &Path, file: std::fs::File) -> Self {
        McpLog {
            path: path.to_owned(),
            file: Mutex::new(file),
            first_error: OnceLock::new(),
        }
    }

    /// The first write that failed, naming the log and the error; `None` while all succeeded.
    pub fn first_error(&self) -> Option<&str> {
        self.first_error.get().map(String::as_str)
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
        let written = match self.file.lock() {
            Ok(mut file) => file.write_all(line.as_bytes()).map_err(|e| e.to_string()),
            Err(_) => Err("its lock was poisoned by a panicking writer".to_owned()),
        };
        if let Err(e) = written {
            // Only the first failure is kept: the ones after it usually repeat it.
            let mut first = false;
            self.first_error.get_or_init(|| {
                first = true;
                format!("cannot write log {}: {e}", self.path.display())
            });
            if first {
                record_failure(&self.path, self.first_error().unwrap_or_default());
            }
        }
    }
}

/// Where the failure to open or write the log at `log` is recorded: `<log>.error`.
pub fn error_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".error");
    PathBuf::from(name)
}

/// Appends `what` to the log's sidecar; if even that fails, stderr is all that is left.
fn record_failure(log: &Path, what: &str) {
    let sidecar = error_path(log);
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&sidecar)
        .and_then(|mut f| f.write_all(format!("{what}\n").as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "jsonlog: {what}; and cannot record that in {}: {e}",
            sidecar.display()
        );
    }
}

/// Every entry of a log; a missing file is an empty log (the server never started). An error,
/// naming the log, when its writer recorded a failure (see [`error_path`]), when it cannot be read,
/// or when a line of it is not an entry: an incomplete log must not pass for a quiet server.
pub fn read(path: &Path) -> Result<Vec<LogEntry>, String> {
    match std::fs::read_to_string(error_path(path)) {
        Ok(failure) => return Err(failure.trim_end().to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(format!(
                "cannot read {} (a log's failure record): {e}",
                error_path(path).display()
            ))
        }
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read log {}: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                format!(
                    "log {} line {}: not a log entry ({e}): {l:.200}",
                    path.display(),
                    i + 1
                )
            })
        })
        .collect()
}

/// Wall-clock Unix milliseconds: how every stub stamps a record for ordering across wires.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_written_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log.jsonl");
        let log = McpLog::create(&path).unwrap();
        log.note("start");
        log.message("in", &serde_json::json!({"method": "initialize"}));
        assert_eq!(log.first_error(), None);
        let entries = read(&path).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].method(), Some("initialize"));
        assert!(read(&dir.path().join("never.log.jsonl"))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_failed_write_is_kept_and_read_as_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log.jsonl");
        std::fs::write(&path, "").unwrap();
        // A read-only descriptor: every write fails (EBADF).
        let log = McpLog::with_file(&path, std::fs::File::open(&path).unwrap());
        log.note("start");
        log.message("in", &serde_json::json!({"method": "initialize"}));
        let first = log.first_error().expect("the failure is kept").to_owned();
        assert!(first.contains(&path.display().to_string()), "{first}");
        assert!(first.contains("Bad file descriptor"), "{first}");
        let err = read(&path).expect_err("an empty log whose writes failed is not a quiet server");
        assert_eq!(err, first, "only the first failure is recorded");
    }

    #[test]
    fn a_log_that_cannot_be_opened_is_read_as_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log.jsonl");
        std::fs::create_dir(&path).unwrap();
        assert!(McpLog::create(&path).is_err());
        let err = read(&path).expect_err("an unopenable log is not a quiet server");
        assert!(err.starts_with("cannot open log"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
    }

    #[test]
    fn a_log_replaced_by_a_directory_or_holding_a_foreign_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log.jsonl");
        let log = McpLog::create(&path).unwrap();
        log.note("start");
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let err = read(&path).expect_err("a log that cannot be read is not a quiet server");
        assert!(err.starts_with("cannot read log"), "{err}");

        let torn = dir.path().join("torn.log.jsonl");
        std::fs::write(
            &torn,
            "{\"t_ms\":1,\"pid\":2,\"dir\":\"note\",\"note\":\"start\"}\n{\"t_ms\":",
        )
        .unwrap();
        let err = read(&torn).expect_err("a torn line is a lost entry");
        assert!(err.contains("line 2"), "{err}");
    }
}
