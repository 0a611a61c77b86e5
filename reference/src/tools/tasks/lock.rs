//! The lock 2.1.235 takes around every task write (the `proper-lockfile` protocol): a directory
//! `<real path>.lock` made with `mkdir`, retried with doubling waits while someone else holds it,
//! taken over once its mtime is older than the stale age. Speaking the same protocol lets the
//! reference and the real binary share one task list safely.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::store::StoreError;
use crate::limits;

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct Guard {
    dir: PathBuf,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Takes the lock of `target`, an existing file.
pub fn acquire(target: &Path) -> Result<Guard, StoreError> {
    let real = std::fs::canonicalize(target).map_err(|e| StoreError::io(target, "locked", e))?;
    let mut dir = real.into_os_string();
    dir.push(".lock");
    let dir = PathBuf::from(dir);
    let mut wait = limits::TASKS_LOCK_MIN_WAIT.value;
    let mut retries_left = limits::TASKS_LOCK_RETRIES.value;
    loop {
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(Guard { dir }),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if stale(&dir) {
                    // An abandoned holder: its lock goes and the next attempt takes it at once.
                    std::fs::remove_dir_all(&dir)
                        .map_err(|e| StoreError::io(&dir, "removed", e))?;
                    continue;
                }
            }
            Err(e) => return Err(StoreError::io(&dir, "created", e)),
        }
        if retries_left == 0 {
            return Err(StoreError::Locked);
        }
        retries_left -= 1;
        std::thread::sleep(Duration::from_millis(wait));
        wait = (wait * 2).min(limits::TASKS_LOCK_MAX_WAIT.value);
    }
}

fn stale(dir: &Path) -> bool {
    let stale_after = Duration::from_millis(limits::TASKS_LOCK_STALE.value);
    std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .is_ok_and(|mtime| {
            SystemTime::now()
                .duration_since(mtime)
                .is_ok_and(|age| age > stale_after)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_released_on_drop_and_blocks_while_held() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("1.json");
        std::fs::write(&file, "{}").unwrap();
        let guard = acquire(&file).unwrap();
        let lock_dir = tmp.path().canonicalize().unwrap().join("1.json.lock");
        assert!(lock_dir.is_dir());
        let started = std::time::Instant::now();
        let second = acquire(&file);
        assert!(matches!(second, Err(StoreError::Locked)), "{second:?}");
        // 5 + 10 + 20 + 40 + 80 ms, then 100 ms for each of the other 25 retries.
        assert!(started.elapsed() >= Duration::from_millis(2_600));
        drop(guard);
        assert!(!lock_dir.exists());
        acquire(&file).unwrap();
    }

    #[test]
    fn a_stale_lock_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("1.json");
        std::fs::write(&file, "{}").unwrap();
        let lock_dir = tmp.path().join("1.json.lock");
        std::fs::create_dir(&lock_dir).unwrap();
        let old = SystemTime::now() - Duration::from_secs(20);
        std::fs::File::open(&lock_dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let started = std::time::Instant::now();
        let guard = acquire(&file).unwrap();
        assert!(started.elapsed() < Duration::from_millis(500));
        drop(guard);
        assert!(!lock_dir.exists());
    }

    #[test]
    fn a_missing_file_cannot_be_locked_and_says_which() {
        let tmp = tempfile::tempdir().unwrap();
        let err = acquire(&tmp.path().join("9.json")).unwrap_err().to_string();
        assert!(err.contains("9.json"), "{err}");
    }
}
