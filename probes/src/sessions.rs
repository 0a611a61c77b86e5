//! The session files a run left in its HOME: `~/.claude/projects/<project>/<session>.jsonl`, the
//! sub-agents' `<session>/subagents/agent-<id>.jsonl` and their `.meta.json`. Read once, after the
//! last step, so checks, traces and records see what a later `--resume` would find, and nothing
//! that reads them needs the run's directories.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// Where the CLI keeps its transcripts, under HOME.
pub const PROJECTS: &str = ".claude/projects";

/// One file under [`PROJECTS`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SessionFile {
    /// Relative to [`PROJECTS`], `/`-separated: `<project>/<session>.jsonl`.
    pub path: String,
    pub text: String,
}

impl SessionFile {
    /// The session id a transcript belongs to: its file name, or the folder a sub-agent's sits in.
    pub fn session(&self) -> Option<&str> {
        let mut parts = self.path.split('/');
        let _project = parts.next()?;
        let name = parts.next()?;
        Some(name.strip_suffix(".jsonl").unwrap_or(name))
    }

    /// Whether this is a session's main transcript (not a sub-agent's, not metadata).
    pub fn is_main(&self) -> bool {
        self.path.ends_with(".jsonl") && self.path.matches('/').count() == 1
    }

    /// Its records: one JSON value a line (a `.json` file is one value); a line that does not
    /// parse is kept as a string.
    pub fn records(&self) -> Vec<Value> {
        if self.path.ends_with(".json") {
            return vec![serde_json::from_str(&self.text)
                .unwrap_or_else(|_| Value::String(self.text.clone()))];
        }
        self.text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_owned())))
            .collect()
    }
}

/// `records` with what changes from run to run named: a record's own `uuid` is `#N` (it is the
/// file's N-th record that has one: bookkeeping records between them do not shift it) and every reference to it (`parentUuid`, `sourceToolAssistantUUID`,
/// `leafUuid`, …) reads the same `#N`, so the chain is compared, not the ids; a session id of
/// `names` reads `{session_id:STEP}`, any other uuid `{uuid}`, an ISO timestamp `{timestamp}`.
pub fn normalize(records: &[Value], names: &[(String, String)]) -> Vec<Value> {
    let mut places = std::collections::HashMap::new();
    let ids = records.iter().filter_map(|r| r["uuid"].as_str());
    for (i, id) in ids.enumerate() {
        places.entry(id.to_owned()).or_insert(format!("#{}", i + 1));
    }
    let rename = |s: &str| -> Option<String> {
        if let Some(place) = places.get(s) {
            return Some(place.clone());
        }
        if let Some((_, step)) = names.iter().find(|(id, _)| id == s) {
            return Some(format!("{{session_id:{step}}}"));
        }
        if is_uuid(s) {
            return Some("{uuid}".into());
        }
        is_timestamp(s).then(|| "{timestamp}".into())
    };
    records.iter().map(|r| renamed(r, &rename)).collect()
}

fn renamed(v: &Value, rename: &impl Fn(&str) -> Option<String>) -> Value {
    match v {
        Value::String(s) => Value::String(rename(s).unwrap_or_else(|| s.clone())),
        Value::Array(a) => Value::Array(a.iter().map(|x| renamed(x, rename)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), renamed(x, rename)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `2026-12-04T11:28:58.477Z`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z'
}

impl crate::secrets::Redact for SessionFile {
    fn redact(&mut self, r: &crate::secrets::Redactor) {
        let SessionFile { path, text } = self;
        path.redact(r);
        text.redact(r);
    }
}

/// What a `keys` expectation calls a record: its `type`, and `user/tool_result` for a user
/// record that answers a call (it names the answer that made it; a prompt's record does not).
pub fn record_kind(r: &Value) -> String {
    let kind = r["type"].as_str().unwrap_or("?");
    if kind == "user" && r.get("sourceToolAssistantUUID").is_some() {
        return "user/tool_result".into();
    }
    kind.to_owned()
}

/// Every file under `home`'s [`PROJECTS`], sorted by path.
pub fn read(home: &Path) -> Vec<SessionFile> {
    let root = home.join(PROJECTS);
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(path),
                Ok(t) if t.is_file() => {
                    let Ok(rel) = path.strip_prefix(&root) else {
                        continue;
                    };
                    let text = std::fs::read(&path)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                    out.push(SessionFile {
                        path: rel.to_string_lossy().into_owned(),
                        text,
                    });
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_main_and_sidechain_files_in_path_order() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join(PROJECTS).join("-tmp-work");
        std::fs::create_dir_all(project.join("s1/subagents")).unwrap();
        std::fs::write(project.join("s1.jsonl"), "{\"type\":\"user\"}\nnot json\n").unwrap();
        std::fs::write(project.join("s1/subagents/agent-a.jsonl"), "{}\n").unwrap();
        let files = read(home.path());
        let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["-tmp-work/s1.jsonl", "-tmp-work/s1/subagents/agent-a.jsonl"]
        );
        assert!(files[0].is_main() && !files[1].is_main());
        assert_eq!(files[0].session(), Some("s1"));
        assert_eq!(files[1].session(), Some("s1"));
        assert_eq!(files[0].records()[1], Value::String("not json".into()));
    }

    #[test]
    fn the_chain_reads_as_places_and_ids_as_names() {
        let a = "11111111-2222-3333-4444-555555555555";
        let b = "21111111-2222-3333-4444-555555555555";
        let sid = "31111111-2222-3333-4444-555555555555";
        let other = "41111111-2222-3333-4444-555555555555";
        let records = [
            serde_json::json!({"uuid": a, "parentUuid": null, "sessionId": sid, "timestamp": "2026-12-04T11:28:58.477Z"}),
            serde_json::json!({"uuid": b, "parentUuid": a, "promptId": other, "x": ["keep", a]}),
        ];
        let names = [(sid.to_owned(), "first".to_owned())];
        let out = normalize(&records, &names);
        assert_eq!(
            out[0],
            serde_json::json!({"uuid": "#1", "parentUuid": null, "sessionId": "{session_id:first}", "timestamp": "{timestamp}"})
        );
        assert_eq!(
            out[1],
            serde_json::json!({"uuid": "#2", "parentUuid": "#1", "promptId": "{uuid}", "x": ["keep", "#1"]})
        );
    }

    #[test]
    fn no_projects_folder_is_no_files() {
        let home = tempfile::tempdir().unwrap();
        assert!(read(home.path()).is_empty());
    }
}
