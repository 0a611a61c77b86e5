//! The task registry on disk, laid out as 2.1.235 lays it out so either agent reads the other's
//! list: `<config dir>/tasks/<list id>/<id>.json` (pretty JSON, no trailing newline), `.lock` (the
//! list's lock target for creates) and `.highwatermark` (the highest id ever deleted, so ids are
//! never reused). Reads are strict: a file that is not a task is an error naming it and is never
//! overwritten (2.1.235 logs it and treats it as absent).
//!
//! Writes merge a patch into the task as read: the known fields in their fixed order, the
//! patch's new keys after them (2.1.235 spreads the patch over its parsed copy, so a key the file
//! lacked lands last until the next write reorders it).

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::lock;

pub const STATUSES: [&str; 3] = ["pending", "in_progress", "completed"];

/// The fields of a task file, in the order a write lays them out.
const FIELDS: [(&str, Field, bool); 9] = [
    ("id", Field::Text, true),
    ("subject", Field::Text, true),
    ("description", Field::Text, true),
    ("activeForm", Field::Text, false),
    ("owner", Field::Text, false),
    ("status", Field::Status, true),
    ("blocks", Field::Ids, true),
    ("blockedBy", Field::Ids, true),
    ("metadata", Field::Object, false),
];

#[derive(Clone, Copy)]
enum Field {
    Text,
    Status,
    Ids,
    Object,
}

#[derive(Debug)]
pub enum StoreError {
    /// Another holder has the file's lock (2.1.235's text).
    Locked,
    Corrupt {
        path: PathBuf,
        what: String,
    },
    Io {
        path: PathBuf,
        verb: &'static str,
        source: std::io::Error,
    },
}

impl StoreError {
    pub fn io(path: &Path, verb: &'static str, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_owned(),
            verb,
            source,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Locked => f.write_str("Lock file is already being held"),
            StoreError::Corrupt { path, what } => write!(
                f,
                "Task registry file {} is corrupt ({what}); it was left unchanged",
                path.display()
            ),
            StoreError::Io { path, verb, source } => write!(
                f,
                "Task registry file {} could not be {verb}: {source}",
                path.display()
            ),
        }
    }
}

/// One task as read: its fields in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Task(Map<String, Value>);

impl Task {
    /// The task in `value`, or what is wrong with it.
    fn parse(value: Value) -> Result<Task, String> {
        let Value::Object(mut raw) = value else {
            return Err("not a JSON object".into());
        };
        let mut fields = Map::new();
        for (name, kind, required) in FIELDS {
            match raw.remove(name) {
                None if required => return Err(format!("`{name}` is missing")),
                None => {}
                Some(v) => {
                    let ok = match kind {
                        Field::Text => v.is_string(),
                        Field::Status => v.as_str().is_some_and(|s| STATUSES.contains(&s)),
                        Field::Ids => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                        Field::Object => v.is_object(),
                    };
                    if !ok {
                        return Err(format!("`{name}` is {}", describe(kind)));
                    }
                    fields.insert(name.into(), v);
                }
            }
        }
        Ok(Task(fields))
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }
    pub fn id(&self) -> &str {
        self.text("id").unwrap_or_default()
    }
    pub fn status(&self) -> &str {
        self.text("status").unwrap_or_default()
    }
    pub fn ids(&self, name: &str) -> Vec<String> {
        let list = self.0.get(name).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    }
    pub fn metadata(&self) -> Option<&Map<String, Value>> {
        self.0.get("metadata").and_then(Value::as_object)
    }
    pub fn fields(&self) -> &Map<String, Value> {
        &self.0
    }
}

fn describe(kind: Field) -> &'static str {
    match kind {
        Field::Text => "not a string",
        Field::Status => "not one of pending, in_progress, completed",
        Field::Ids => "not a list of task ids",
        Field::Object => "not an object",
    }
}

/// What a new task starts with.
pub struct NewTask {
    pub subject: String,
    pub description: String,
    pub active_form: Option<String>,
    pub metadata: Option<Value>,
}

/// One task list's directory.
pub struct Registry {
    dir: PathBuf,
}

impl Registry {
    pub fn at(dir: PathBuf) -> Self {
        Registry { dir }
    }

    /// The session's list: `CLAUDE_CODE_TASK_LIST_ID` when set (a list shared between sessions),
    /// else the session id, under the config directory.
    pub fn for_session(home: &Path, session_id: &str) -> Self {
        let list = std::env::var("CLAUDE_CODE_TASK_LIST_ID")
            .ok()
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| session_id.to_owned());
        let config = crate::environment::config_dir(home);
        Registry::at(config.join("tasks").join(file_safe(&list)))
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.json", file_safe(id)))
    }

    fn high_water_path(&self) -> PathBuf {
        self.dir.join(".highwatermark")
    }

    pub fn get(&self, id: &str) -> Result<Option<Task>, StoreError> {
        read(&self.path(id))
    }

    /// Every task, by numeric id.
    pub fn list(&self) -> Result<Vec<Task>, StoreError> {
        let mut tasks = Vec::new();
        for name in self.file_names()? {
            if let Some(task) = read(&self.dir.join(&name))? {
                tasks.push(task);
            }
        }
        // Numeric ids in numeric order, then any others by name.
        tasks.sort_by_key(|t| t.id().parse::<u64>().map_err(|_| t.id().to_owned()));
        Ok(tasks)
    }

    /// Writes a new task under the list's lock; its id is one past the highest ever used.
    pub fn create(&self, new: NewTask) -> Result<String, StoreError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| StoreError::io(&self.dir, "created", e))?;
        let list_lock = self.dir.join(".lock");
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&list_lock)
        {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                return Err(StoreError::io(&list_lock, "created", e))
            }
            _ => {}
        }
        let _guard = lock::acquire(&list_lock)?;
        let highest = self
            .file_names()?
            .iter()
            .filter_map(|n| n.strip_suffix(".json")?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        let id = (highest.max(self.high_water()?) + 1).to_string();
        let mut task = Map::new();
        task.insert("id".into(), json!(id));
        task.insert("subject".into(), json!(new.subject));
        task.insert("description".into(), json!(new.description));
        if let Some(form) = new.active_form {
            task.insert("activeForm".into(), json!(form));
        }
        task.insert("status".into(), json!("pending"));
        task.insert("blocks".into(), json!([]));
        task.insert("blockedBy".into(), json!([]));
        if let Some(metadata) = new.metadata {
            task.insert("metadata".into(), metadata);
        }
        write(&self.path(&id), &task)?;
        Ok(id)
    }

    /// Merges `patch` into the task in one write under its lock; `None` when there is no task.
    pub fn update(&self, id: &str, patch: Map<String, Value>) -> Result<Option<Task>, StoreError> {
        let path = self.path(id);
        if read(&path)?.is_none() {
            return Ok(None);
        }
        let _guard = lock::acquire(&path)?;
        let Some(Task(mut fields)) = read(&path)? else {
            return Ok(None);
        };
        fields.extend(patch);
        fields.insert("id".into(), json!(id));
        write(&path, &fields)?;
        Ok(Some(Task(fields)))
    }

    /// Removes the task, then every edge to it; `false` when there was none.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        if let Ok(n) = id.parse::<u64>() {
            if n > self.high_water()? {
                let path = self.high_water_path();
                std::fs::write(&path, n.to_string())
                    .map_err(|e| StoreError::io(&path, "written", e))?;
            }
        }
        let path = self.path(id);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(StoreError::io(&path, "removed", e)),
        }
        for task in self.list()? {
            let (blocks, blocked_by) = (task.ids("blocks"), task.ids("blockedBy"));
            let keep = |ids: &[String]| -> Vec<String> {
                ids.iter().filter(|i| *i != id).cloned().collect()
            };
            let (kept_blocks, kept_blocked_by) = (keep(&blocks), keep(&blocked_by));
            if kept_blocks.len() != blocks.len() || kept_blocked_by.len() != blocked_by.len() {
                let patch = json!({"blocks": kept_blocks, "blockedBy": kept_blocked_by});
                self.update(task.id(), patch.as_object().cloned().unwrap_or_default())?;
            }
        }
        Ok(true)
    }

    /// `from` blocks `to`: each end written on its own, `from` first; `false` (nothing written)
    /// when either task does not exist.
    pub fn add_edge(&self, from: &str, to: &str) -> Result<bool, StoreError> {
        let (Some(blocker), Some(blocked)) = (self.get(from)?, self.get(to)?) else {
            return Ok(false);
        };
        let mut blocks = blocker.ids("blocks");
        if !blocks.iter().any(|b| b == to) {
            blocks.push(to.to_owned());
            self.update(from, single("blocks", json!(blocks)))?;
        }
        let mut blocked_by = blocked.ids("blockedBy");
        if !blocked_by.iter().any(|b| b == from) {
            blocked_by.push(from.to_owned());
            self.update(to, single("blockedBy", json!(blocked_by)))?;
        }
        Ok(true)
    }

    /// The `*.json` names in the list's directory (none when it does not exist yet).
    fn file_names(&self) -> Result<Vec<String>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(&self.dir, "listed", e)),
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        Ok(names)
    }

    fn high_water(&self) -> Result<u64, StoreError> {
        let path = self.high_water_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => text.trim().parse().map_err(|_| StoreError::Corrupt {
                path,
                what: format!("{:?} is not a task id", text.trim()),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(StoreError::io(&path, "read", e)),
        }
    }
}

pub fn single(key: &str, value: Value) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(key.into(), value);
    map
}

/// A list or task id as a file name: every UTF-16 unit outside `[A-Za-z0-9_-]` becomes `-`.
fn file_safe(id: &str) -> String {
    id.chars()
        .flat_map(|c| {
            let keep = c.is_ascii_alphanumeric() || c == '_' || c == '-';
            let n = if keep { 1 } else { c.len_utf16() };
            std::iter::repeat_n(if keep { c } else { '-' }, n)
        })
        .collect()
}

fn read(path: &Path) -> Result<Option<Task>, StoreError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(path, "read", e)),
    };
    let corrupt = |what: String| StoreError::Corrupt {
        path: path.to_owned(),
        what,
    };
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("not valid JSON: {e}")))?;
    Task::parse(value).map(Some).map_err(corrupt)
}

#[cfg(test)]
thread_local! {
    /// Every task file written on this thread, in order: the tests count the update's phases.
    static WRITES: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Replaces the file whole (a new file renamed over it), so a reader never sees half a task.
fn write(path: &Path, fields: &Map<String, Value>) -> Result<(), StoreError> {
    #[cfg(test)]
    WRITES.with(|w| w.borrow_mut().push(path.to_owned()));
    let text = serde_json::to_string_pretty(fields).expect("a JSON map serializes");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("task");
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| StoreError::io(&tmp, "written", e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        StoreError::io(path, "written", e)
    })
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
