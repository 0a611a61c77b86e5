//! What an interrupted harness must clean up: the process groups of targets still running and
//! the private directories of runs not yet finished. `process::spawn` and `run_scenario`
//! register them here; a signal handler (`cargo xtask probe`'s) calls [`abort_all`] before
//! exiting, since the targets run in their own process groups and a terminal's Ctrl-C does not
//! reach them, and no destructor runs on `exit`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
static ROOTS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// A target's process group, registered while its leader has not been reaped.
pub struct Group(i32);

impl Group {
    pub fn register(pgid: i32) -> Group {
        lock(&GROUPS).insert(pgid);
        Group(pgid)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        lock(&GROUPS).remove(&self.0);
    }
}

/// A run's private directory, removed with it; registered while it exists.
#[derive(Debug)]
pub struct Root {
    dir: tempfile::TempDir,
}

impl Root {
    pub fn new(dir: tempfile::TempDir) -> Root {
        lock(&ROOTS).insert(dir.path().to_owned());
        Root { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        lock(&ROOTS).remove(self.dir.path());
    }
}

/// What [`abort_all`] did.
#[derive(Debug, Default)]
pub struct Aborted {
    pub groups: usize,
    pub roots: usize,
}

/// Kills every registered process group and removes every registered run directory. Called once,
/// from a signal handler task, right before the process exits.
pub fn abort_all() -> Aborted {
    let groups: Vec<i32> = lock(&GROUPS).iter().copied().collect();
    for pgid in &groups {
        super::group::kill_group(Some(*pgid));
    }
    let roots: Vec<PathBuf> = lock(&ROOTS).iter().cloned().collect();
    // A killed target's children may still be writing for a moment; a second pass catches what
    // they created meanwhile.
    for _ in 0..2 {
        for root in &roots {
            let _ = std::fs::remove_dir_all(root);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Aborted {
        groups: groups.len(),
        roots: roots.len(),
    }
}

/// A poisoned lock still holds a valid set: a panic elsewhere must not stop the cleanup.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
