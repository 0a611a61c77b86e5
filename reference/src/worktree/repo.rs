//! The git side of worktrees: the repository a directory belongs to, its registered worktrees,
//! the liveness locks, adding and removing one. Error texts are 2.1.235's (recorded).

use std::path::{Path, PathBuf};

use super::git;

/// The main working tree of the repository `dir` is in (from a linked worktree too), or `None`
/// outside a repository.
pub fn root(dir: &Path) -> Option<PathBuf> {
    let out = git::run(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .ok()?;
    if !out.ok() {
        return None;
    }
    let common = PathBuf::from(out.stdout.trim_end());
    // A bare repository has no working tree to branch a worktree from.
    (common.file_name()? == ".git").then(|| common.parent().map(Path::to_owned))?
}

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entry {
    pub path: PathBuf,
    pub branch: Option<String>,
    pub lock_reason: Option<String>,
    pub prunable: bool,
}

pub fn list(repo: &Path) -> Result<Vec<Entry>, String> {
    let shown = repo.display();
    let out = git::run(repo, &["worktree", "list", "--porcelain"])
        .map_err(|e| format!("`git -C {shown} worktree list` failed: {e}"))?;
    if !out.ok() {
        let why = match out.stderr.trim() {
            "" => format!("exit {}", out.code.unwrap_or(-1)),
            e => e.to_owned(),
        };
        return Err(format!("`git -C {shown} worktree list` failed: {why}"));
    }
    Ok(parse_list(&out.stdout))
}

fn parse_list(porcelain: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for line in porcelain.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            entries.push(Entry {
                path: PathBuf::from(path),
                ..Entry::default()
            });
        } else if let Some(entry) = entries.last_mut() {
            if let Some(branch) = line.strip_prefix("branch ") {
                entry.branch = Some(branch.trim_start_matches("refs/heads/").to_owned());
            } else if line == "locked" || line.starts_with("locked ") {
                entry.lock_reason = Some(line["locked".len()..].trim().to_owned());
            } else if line == "prunable" || line.starts_with("prunable ") {
                entry.prunable = true;
            }
        }
    }
    entries
}

/// The registered entry whose directory is `real` (a resolved path).
pub fn entry_of(repo: &Path, real: &Path) -> Result<Option<Entry>, String> {
    Ok(list(repo)?
        .into_iter()
        .find(|e| std::fs::canonicalize(&e.path).is_ok_and(|p| p == real)))
}

/// The lock reason a session writes: `claude session <name> (pid <pid>)`, the shape 2.1.235's
/// own locks have (it adds the process start time).
pub fn lock_reason(name: &str) -> String {
    format!("claude session {name} (pid {})", std::process::id())
}

/// Whether `reason` is the lock of another Claude Code process that is still running.
pub fn held_by_live_session(reason: &str) -> bool {
    session_pid(reason).is_some_and(|pid| pid != std::process::id() && alive(pid))
}

/// Whether this session may take down a lock with `reason`: none, its own, or a dead session's.
/// A reason no Claude Code session wrote is someone's deliberate hold.
pub fn may_release(reason: Option<&str>) -> bool {
    match reason {
        None => true,
        Some(r) => session_pid(r).is_some() && !held_by_live_session(r),
    }
}

fn session_pid(reason: &str) -> Option<u32> {
    let pattern = regex::Regex::new(
        r"^claude (?:agent|session) .{1,255} \(pid (\d{1,10})(?: start (.{1,255}))?\)$",
    )
    .expect("a valid pattern");
    pattern.captures(reason)?[1].parse().ok()
}

fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only asks whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Locks the worktree for this session; `false` when another live session holds it (this session
/// is then a guest that must not remove it).
pub fn lock(repo: &Path, path: &Path, name: &str) -> bool {
    let reason = lock_reason(name);
    let path_arg = path.to_string_lossy();
    let attempt = || git::run(repo, &["worktree", "lock", "--reason", &reason, &path_arg]);
    if attempt().is_ok_and(|o| o.ok()) {
        return true;
    }
    let held = match std::fs::canonicalize(path) {
        Ok(real) => entry_of(repo, &real)
            .ok()
            .flatten()
            .and_then(|e| e.lock_reason),
        Err(_) => None,
    };
    match held {
        None => true,
        Some(r) if session_pid(&r) == Some(std::process::id()) => true,
        Some(r) if !may_release(Some(&r)) => false,
        // A dead session's lock: taken over.
        Some(_) => {
            unlock(repo, path);
            let _ = attempt();
            true
        }
    }
}

pub fn unlock(repo: &Path, path: &Path) {
    let _ = git::run(repo, &["worktree", "unlock", &path.to_string_lossy()]);
}

/// Releases this session's hold on the worktree when the lock is one it may take down.
pub fn release(repo: &Path, path: &Path) {
    let reason = std::fs::canonicalize(path)
        .ok()
        .and_then(|real| entry_of(repo, &real).ok().flatten())
        .and_then(|e| e.lock_reason);
    if reason.is_some() && may_release(reason.as_deref()) {
        unlock(repo, path);
    }
}

/// Uncommitted files in the worktree and commits on it since `base`; `None` when git cannot
/// tell (the caller then refuses to guess).
pub fn changes(path: &Path, base: Option<&str>) -> Option<(usize, usize)> {
    let status = git::run(path, &["status", "--porcelain"]).ok()?;
    if !status.ok() {
        return None;
    }
    let files = status
        .stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    let range = format!("{}..HEAD", base?);
    let count = git::run(path, &["rev-list", "--count", &range]).ok()?;
    if !count.ok() {
        return None;
    }
    Some((files, count.stdout.trim().parse().unwrap_or(0)))
}

/// `git worktree remove --force`, then the branch; `false` (nothing deleted) when the worktree
/// is held by a lock this session may not take down or git cannot remove it.
pub fn remove(repo: &Path, path: &Path, branch: Option<&str>) -> bool {
    let reason = std::fs::canonicalize(path)
        .ok()
        .and_then(|real| entry_of(repo, &real).ok().flatten())
        .and_then(|e| e.lock_reason);
    if !may_release(reason.as_deref()) {
        return false;
    }
    unlock(repo, path);
    let removed = git::run(
        repo,
        &["worktree", "remove", "--force", &path.to_string_lossy()],
    )
    .is_ok_and(|o| o.ok());
    if !removed && path.symlink_metadata().is_ok() {
        return false;
    }
    if let Some(branch) = branch {
        let _ = git::run(repo, &["branch", "-D", "--end-of-options", branch]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_entries_with_branch_lock_and_prunable() {
        let text = "worktree /r\nHEAD abc\nbranch refs/heads/main\n\nworktree /r/.claude/worktrees/a\nHEAD abc\nbranch refs/heads/worktree-a\nlocked claude session a (pid 7 start 9)\n\nworktree /gone\nHEAD abc\ndetached\nprunable gitdir file points to non-existent location\n";
        let entries = parse_list(text);
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].branch.as_deref(), Some("main"));
        assert_eq!(
            entries[1].lock_reason.as_deref(),
            Some("claude session a (pid 7 start 9)")
        );
        assert_eq!(entries[2].branch, None);
        assert!(entries[2].prunable);
    }

    #[test]
    fn only_a_dead_or_own_session_lock_may_be_released() {
        assert!(may_release(None));
        assert!(may_release(Some(&lock_reason("x"))));
        // No process has pid 4,000,000,000 (above Linux's pid_max).
        assert!(may_release(Some("claude session x (pid 4000000000)")));
        assert!(!may_release(Some("manual hold")));
        assert!(!may_release(Some("")));
        // pid 1 is always running.
        assert!(held_by_live_session("claude agent y (pid 1 start 5)"));
        assert!(!may_release(Some("claude agent y (pid 1 start 5)")));
    }
}
