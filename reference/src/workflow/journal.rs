//! A run's journal: `<transcript dir>/journal.jsonl`, one line when an agent() call starts and
//! one when it returns a result, in 2.1.235's shapes (`{"type":"started","key","agentId"}`,
//! `{"type":"result","key","agentId","result"}`). A resumed run appends to the same file.
//!
//! 2.1.235 skips a line it cannot parse; here a journal that does not read is an error naming
//! the file and the line, and the file is left as it is (a resume must not quietly rerun agents
//! whose results are still on disk, nor overwrite the record).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::resume::Cached;

pub const FILE: &str = "journal.jsonl";

pub struct Journal {
    path: PathBuf,
}

impl Journal {
    pub fn in_dir(dir: &Path) -> Journal {
        Journal {
            path: dir.join(FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The results by key (the last one wins). No file is an empty journal.
    pub fn load(&self) -> Result<HashMap<String, Cached>, String> {
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| self.corrupt(0, "not UTF-8"))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
            Err(e) => {
                return Err(format!(
                    "Workflow journal {} cannot be read: {e}",
                    self.path.display()
                ))
            }
        };
        let mut results = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry: Value =
                serde_json::from_str(line).map_err(|e| self.corrupt(i + 1, &e.to_string()))?;
            let key = entry["key"].as_str();
            match (entry["type"].as_str(), key) {
                (Some("started"), Some(_)) => {}
                (Some("result"), Some(key)) => {
                    let cached = Cached {
                        agent_id: entry["agentId"].as_str().unwrap_or_default().to_owned(),
                        result: entry.get("result").cloned().unwrap_or(Value::Null),
                    };
                    results.insert(key.to_owned(), cached);
                }
                _ => {
                    return Err(self.corrupt(
                        i + 1,
                        "expected a \"started\" or \"result\" entry with a key",
                    ))
                }
            }
        }
        Ok(results)
    }

    fn corrupt(&self, line: usize, why: &str) -> String {
        let at = if line == 0 {
            String::new()
        } else {
            format!(" at line {line}")
        };
        format!(
            "Workflow journal {} is corrupt{at}: {why}. It was left as it is; move it aside to \
             start this run id afresh.",
            self.path.display()
        )
    }

    pub fn started(&self, key: &str, agent_id: &str) -> std::io::Result<()> {
        self.append(&json!({"type": "started", "key": key, "agentId": agent_id}))
    }

    pub fn result(&self, key: &str, agent_id: &str, result: &Value) -> std::io::Result<()> {
        self.append(&json!({"type": "result", "key": key, "agentId": agent_id, "result": result}))
    }

    fn append(&self, entry: &Value) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        writeln!(file, "{entry}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip_and_started_lines_carry_no_result() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::in_dir(&dir.path().join("wf_abcdef"));
        assert!(journal.load().unwrap().is_empty());
        journal.started("v2:1", "a1").unwrap();
        journal.result("v2:1", "a1", &json!("ALPHA")).unwrap();
        journal.started("v2:2", "a2").unwrap();
        let text = std::fs::read_to_string(journal.path()).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"type":"started","key":"v2:1","agentId":"a1"}"#
        );
        let loaded = journal.load().unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded["v2:1"].result, json!("ALPHA"));
    }

    #[test]
    fn a_corrupt_journal_is_an_error_naming_the_file_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::in_dir(dir.path());
        let garbage =
            "{\"type\":\"result\",\"key\":\"v2:1\",\"agentId\":\"a\",\"result\":1}\n{not json\n";
        std::fs::write(journal.path(), garbage).unwrap();
        let error = journal.load().unwrap_err();
        assert!(
            error.contains(&journal.path().display().to_string()),
            "{error}"
        );
        assert!(error.contains("line 2"), "{error}");
        assert_eq!(std::fs::read_to_string(journal.path()).unwrap(), garbage);
        std::fs::write(journal.path(), "{\"type\":\"other\"}\n").unwrap();
        assert!(journal.load().unwrap_err().contains("line 1"));
    }
}
