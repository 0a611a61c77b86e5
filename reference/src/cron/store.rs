//! Where jobs live: session-only jobs in memory (gone when the process ends), durable jobs in the
//! project's `.claude/scheduled_tasks.json`, read afresh at every use so another session's
//! changes are seen. Listings show the file's jobs first, then the session's, each in creation
//! order (as 2.1.235 does).
//!
//! The file is `{"tasks": [...]}`, two-space indented, one trailing newline; each task has the
//! keys 2.1.235 writes, in its order. A file that is not that shape is an error naming the file,
//! and it is never overwritten (2.1.235 reads it as empty and replaces it on the next durable
//! job). A single task 2.1.235 would skip (a missing field, an invalid expression) is skipped in
//! listings too, but kept as it is when the file is rewritten: the reference does not delete what
//! it cannot read.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Number, Value};

use super::clock::Clock;
use super::expr::Cron;

pub const FILE: &str = ".claude/scheduled_tasks.json";

#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    pub cron: String,
    pub prompt: String,
    /// Unix milliseconds, kept as written.
    pub created_at: Number,
    pub last_fired_at: Option<Number>,
    pub recurring: bool,
    /// Exempt from the maximum age.
    pub permanent: bool,
    pub created_by_session_id: Option<String>,
    pub created_by_pid: Option<Number>,
    pub created_by_proc_start: Option<String>,
    /// In the file (true) or in this session only.
    pub durable: bool,
}

impl Job {
    pub fn created_ms(&self) -> i64 {
        self.created_at.as_f64().unwrap_or(0.0).floor() as i64
    }

    /// The task as the file holds it.
    fn to_value(&self) -> Value {
        let mut task = Map::new();
        task.insert("id".into(), json!(self.id));
        task.insert("cron".into(), json!(self.cron));
        task.insert("prompt".into(), json!(self.prompt));
        task.insert("createdAt".into(), Value::Number(self.created_at.clone()));
        if let Some(at) = &self.last_fired_at {
            task.insert("lastFiredAt".into(), Value::Number(at.clone()));
        }
        if self.recurring {
            task.insert("recurring".into(), json!(true));
        }
        if self.permanent {
            task.insert("permanent".into(), json!(true));
        }
        if let Some(s) = &self.created_by_session_id {
            task.insert("createdBySessionId".into(), json!(s));
        }
        if let Some(pid) = &self.created_by_pid {
            task.insert("createdByPid".into(), Value::Number(pid.clone()));
        }
        if let Some(start) = &self.created_by_proc_start {
            task.insert("createdByProcStart".into(), json!(start));
        }
        Value::Object(task)
    }

    /// A task of the file, or `None` where 2.1.235 skips it.
    fn from_value(task: &Value) -> Option<Job> {
        let text = |key: &str| task.get(key).and_then(Value::as_str).map(str::to_owned);
        let number = |key: &str| match task.get(key) {
            Some(Value::Number(n)) => Some(n.clone()),
            _ => None,
        };
        let (id, cron, prompt) = (text("id")?, text("cron")?, text("prompt")?);
        Cron::parse(&cron)?;
        Some(Job {
            id,
            cron,
            prompt,
            created_at: number("createdAt")?,
            last_fired_at: number("lastFiredAt"),
            recurring: task.get("recurring").is_some_and(js_truthy),
            permanent: task.get("permanent").is_some_and(js_truthy),
            created_by_session_id: text("createdBySessionId"),
            created_by_pid: number("createdByPid"),
            created_by_proc_start: text("createdByProcStart"),
            durable: true,
        })
    }
}

fn js_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// One task of the file: a job, or something kept as it is.
enum Entry {
    Job(Job),
    Unreadable(Value),
}

/// A new job, before it has an id and a place.
pub struct NewJob<'a> {
    pub cron: &'a str,
    pub prompt: &'a str,
    pub recurring: bool,
    pub durable: bool,
}

pub struct Store {
    project: PathBuf,
    session_id: String,
    session: Vec<Job>,
    pub clock: Clock,
}

impl Store {
    pub fn new(project: &Path, session_id: &str, clock: Clock) -> Store {
        Store {
            project: project.to_owned(),
            session_id: session_id.to_owned(),
            session: Vec::new(),
            clock,
        }
    }

    pub fn path(&self) -> PathBuf {
        self.project.join(FILE)
    }

    /// Every visible job: the file's, then this session's.
    pub fn jobs(&self) -> Result<Vec<Job>, String> {
        let mut jobs: Vec<Job> = read(&self.path())?
            .into_iter()
            .filter_map(|e| match e {
                Entry::Job(job) => Some(job),
                Entry::Unreadable(_) => None,
            })
            .collect();
        jobs.extend(self.session.iter().cloned());
        Ok(jobs)
    }

    /// Stores the job; its id.
    pub fn add(&mut self, new: NewJob, now_ms: i64) -> Result<String, String> {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
        let mut job = Job {
            id: id.clone(),
            cron: new.cron.to_owned(),
            prompt: new.prompt.to_owned(),
            created_at: Number::from(now_ms),
            last_fired_at: None,
            recurring: new.recurring,
            permanent: false,
            created_by_session_id: None,
            created_by_pid: None,
            created_by_proc_start: None,
            durable: new.durable,
        };
        if !new.durable {
            self.session.push(job);
            return Ok(id);
        }
        let path = self.path();
        let mut entries = read(&path)?;
        job.created_by_session_id = Some(self.session_id.clone());
        job.created_by_pid = Some(Number::from(std::process::id()));
        job.created_by_proc_start = proc_start();
        entries.push(Entry::Job(job));
        write(&path, &entries)?;
        Ok(id)
    }

    /// Removes the job from whichever store holds it; an id neither holds changes nothing.
    pub fn remove(&mut self, id: &str) -> Result<(), String> {
        let before = self.session.len();
        self.session.retain(|j| j.id != id);
        if self.session.len() != before {
            return Ok(());
        }
        let path = self.path();
        let mut entries = read(&path)?;
        let before = entries.len();
        entries.retain(|e| !matches!(e, Entry::Job(j) if j.id == id));
        if entries.len() == before {
            return Ok(());
        }
        write(&path, &entries)
    }
}

fn read(path: &Path) -> Result<Vec<Entry>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
    };
    let corrupt = |why: String| {
        format!(
            "{} is not a scheduled tasks file ({why}); it was left as it is: fix or remove it",
            path.display()
        )
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
    let Some(tasks) = value.get("tasks").and_then(Value::as_array) else {
        return Err(corrupt(r#"expected an object with a "tasks" array"#.into()));
    };
    Ok(tasks
        .iter()
        .map(|t| Job::from_value(t).map_or_else(|| Entry::Unreadable(t.clone()), Entry::Job))
        .collect())
}

/// The whole file, replaced in one rename so a reader never sees half of it.
fn write(path: &Path, entries: &[Entry]) -> Result<(), String> {
    let tasks: Vec<Value> = entries
        .iter()
        .map(|e| match e {
            Entry::Job(job) => job.to_value(),
            Entry::Unreadable(v) => v.clone(),
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({ "tasks": tasks }))
        .map_err(|e| format!("could not encode {}: {e}", path.display()))?;
    text.push('\n');
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let staging = dir.join(format!(".scheduled_tasks.json.{}.tmp", std::process::id()));
    std::fs::write(&staging, text)
        .and_then(|()| std::fs::rename(&staging, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&staging);
            format!("could not write {}: {e}", path.display())
        })
}

/// This process's start time in clock ticks since boot (`/proc/self/stat` field 22), which
/// 2.1.235 records beside the pid so a reused pid is not mistaken for the creator.
fn proc_start() -> Option<String> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> Store {
        Store::new(dir, "session-1", Clock::fixed(0, jiff::tz::TimeZone::UTC))
    }

    fn new<'a>(cron: &'a str, durable: bool) -> NewJob<'a> {
        NewJob {
            cron,
            prompt: "p",
            recurring: true,
            durable,
        }
    }

    #[test]
    fn durable_jobs_go_to_the_file_session_jobs_stay_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = store(dir.path());
        let a = s.add(new("0 9 * * *", false), 1_000).unwrap();
        let b = s.add(new("*/5 * * * *", true), 2_000).unwrap();
        assert_eq!(a.len(), 8);
        let jobs = s.jobs().unwrap();
        // The file's jobs first.
        assert_eq!(
            jobs.iter().map(|j| (&j.id, j.durable)).collect::<Vec<_>>(),
            [(&b, true), (&a, false)]
        );
        let text = std::fs::read_to_string(s.path()).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        let task = &file["tasks"][0];
        let keys: Vec<&str> = task
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "cron",
                "prompt",
                "createdAt",
                "recurring",
                "createdBySessionId",
                "createdByPid",
                "createdByProcStart"
            ]
        );
        assert_eq!(task["createdAt"], 2_000);
        assert_eq!(task["createdBySessionId"], "session-1");
        assert!(text.starts_with("{\n  \"tasks\": [\n    {\n      \"id\": "));
        assert!(text.ends_with("}\n"));

        s.remove(&b).unwrap();
        assert_eq!(
            std::fs::read_to_string(s.path()).unwrap(),
            "{\n  \"tasks\": []\n}\n"
        );
        s.remove(&a).unwrap();
        assert!(s.jobs().unwrap().is_empty());
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = store(dir.path());
        for corrupt in [
            "{\"tasks\": [ {\"id\": \"x\", ",
            "[]",
            "{\"tasks\": {}}",
            "",
        ] {
            std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
            std::fs::write(s.path(), corrupt).unwrap();
            let err = s.jobs().unwrap_err();
            assert!(
                err.starts_with(&format!(
                    "{} is not a scheduled tasks file",
                    s.path().display()
                )),
                "{err}"
            );
            assert!(s.add(new("0 9 * * *", true), 1).is_err());
            assert!(s.remove("x").is_err());
            assert_eq!(std::fs::read_to_string(s.path()).unwrap(), corrupt);
        }
    }

    #[test]
    fn unreadable_tasks_are_hidden_but_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = store(dir.path());
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            s.path(),
            r#"{"tasks":[{"id":"aaaa0001","cron":"0 9 * * *","prompt":"keep","createdAt":1,"recurring":true,"extra":1},
                         {"id":"aaaa0002","cron":"bad","prompt":"x","createdAt":1}]}"#,
        )
        .unwrap();
        let jobs = s.jobs().unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].id, "aaaa0001");
        s.remove("aaaa0001").unwrap();
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(s.path()).unwrap()).unwrap();
        assert_eq!(
            file["tasks"],
            json!([{"id":"aaaa0002","cron":"bad","prompt":"x","createdAt":1}])
        );
    }

    #[test]
    fn removing_an_unknown_id_leaves_the_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = store(dir.path());
        s.remove("nope").unwrap();
        assert!(!s.path().exists());
    }

    #[test]
    fn proc_start_is_a_tick_count() {
        let start = proc_start().unwrap();
        assert!(start.parse::<u64>().is_ok(), "{start}");
    }
}
