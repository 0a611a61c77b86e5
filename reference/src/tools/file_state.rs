//! Read state: what the session last saw of each file, so Edit and Write refuse to write over
//! content the model has not seen (the Read gate) or that changed since (the stale gate).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[derive(Debug, Clone)]
struct Seen {
    mtime: Option<SystemTime>,
    /// The whole content, when the whole file was read or written.
    content: Option<String>,
}

#[derive(Debug, Default)]
pub struct FileState {
    seen: HashMap<PathBuf, Seen>,
}

/// Why a write is refused.
pub enum Gate {
    NotRead,
    Stale,
}

impl FileState {
    /// Records a read (`content` when the whole file was read) or a write.
    pub fn record(&mut self, path: &Path, content: Option<String>) {
        let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        self.seen.insert(path.to_owned(), Seen { mtime, content });
    }

    /// Whether `path` (which exists) may be written now. A newer mtime alone is not a change when
    /// the whole content was seen and is unchanged (e.g. `touch`).
    pub fn check_write(&self, path: &Path) -> Result<(), Gate> {
        let seen = self.seen.get(path).ok_or(Gate::NotRead)?;
        let now = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if now == seen.mtime {
            return Ok(());
        }
        match (&seen.content, std::fs::read_to_string(path)) {
            (Some(old), Ok(current)) if *old == current => Ok(()),
            _ => Err(Gate::Stale),
        }
    }
}
