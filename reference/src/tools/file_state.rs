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

    /// An SDK host's `seed_read_state`: the file counts as read as it is now, when it has not
    /// changed since `mtime_ms` (recorded on 2.1.235: sdk.control/seed-read; a file changed
    /// since, or missing, is left unread).
    pub fn seed(&mut self, path: &Path, mtime_ms: u64) {
        let Ok(modified) = std::fs::metadata(path).and_then(|m| m.modified()) else {
            return;
        };
        let since = modified
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        if since <= u128::from(mtime_ms) {
            self.record(path, std::fs::read_to_string(path).ok());
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_counts_only_for_a_file_unchanged_since_its_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "one").unwrap();
        let mut state = FileState::default();
        state.seed(&file, 1);
        assert!(matches!(state.check_write(&file), Err(Gate::NotRead)));
        state.seed(&dir.path().join("missing.txt"), u64::MAX);
        state.seed(&file, u64::MAX);
        assert!(state.check_write(&file).is_ok());
    }
}
