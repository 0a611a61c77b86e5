//! Worktree sessions (seed 004, EnterWorktree / ExitWorktree): a new git worktree under
//! `<repo>/.claude/worktrees/<name>` on branch `worktree-<name>`, or a registered one entered by
//! path; the session works there until it returns to where it came from. Changes are never
//! discarded without `discard_changes`, and a worktree that cannot be removed is kept and said so.
//!
//! The tools are `tools/worktree.rs`; this module owns the git plumbing and the texts of its
//! failures, recorded from 2.1.235.

pub mod git;
pub mod name;
pub mod repo;

use std::path::{Component, Path, PathBuf};

/// The worktree the session is in, and where it came from.
#[derive(Debug, Clone)]
pub struct Active {
    pub path: PathBuf,
    pub branch: Option<String>,
    /// The main working tree of its repository.
    pub repo: PathBuf,
    /// The session's cwd and the shell's before the first EnterWorktree: where it returns.
    pub original_cwd: PathBuf,
    pub original_shell_cwd: PathBuf,
    /// Where the worktree started: commits after it are its own work.
    pub base_commit: Option<String>,
    /// Not this session's to remove: entered by path, or held by another live session.
    pub entered_existing: bool,
    /// A directory the session was given write access to for this worktree, taken back on exit.
    pub added_dir: Option<PathBuf>,
    /// Made by the user's WorktreeCreate hook, not by git: its WorktreeRemove hook removes it
    /// (seed 004 line 226).
    pub by_hook: bool,
}

/// A worktree made (or found again) for a name.
#[derive(Debug)]
pub struct Created {
    pub path: PathBuf,
    pub branch: String,
    pub base_commit: String,
    /// It already existed and was taken up as it was.
    pub resumed: bool,
}

/// Where 2.1.235 keeps a worktree's starting commit, in the worktree's git directory.
const BASELINE_FILE: &str = "CLAUDE_BASE";

/// Makes the worktree for `name` in `repo`, or takes up the one already there.
pub fn create(repo: &Path, name: &str) -> Result<Created, String> {
    let path = name::dir_for(repo, name);
    let branch = name::branch_for(name);
    refuse_symlinks(repo, &path)?;
    if let Some(head) = checkout_head(&path) {
        let base_commit = read_baseline(&path).unwrap_or(head);
        return Ok(Created {
            path,
            branch,
            base_commit,
            resumed: true,
        });
    }
    std::fs::create_dir_all(name::managed_dir(repo))
        .map_err(|e| format!("Cannot create worktree: {e}"))?;
    let base = base_ref(repo);
    let resolved = git::run(repo, &["rev-parse", &base])
        .ok()
        .filter(git::Output::ok);
    let Some(resolved) = resolved else {
        return Err(format!(
            "Failed to resolve base branch \"{base}\": git rev-parse failed"
        ));
    };
    let base_commit = resolved.stdout.trim().to_owned();
    let path_arg = path.to_string_lossy();
    let args = [
        "-c",
        "core.fsmonitor=",
        "worktree",
        "add",
        "--no-track",
        "-B",
        &branch,
        &path_arg,
        &base,
    ];
    let added = git::run(repo, &args)?;
    if !added.ok() {
        return Err(add_failure(name, &path, &branch, added.stderr.trim()));
    }
    write_baseline(&path, &base_commit);
    Ok(Created {
        path,
        branch,
        base_commit,
        resumed: false,
    })
}

/// A new worktree branches from the remote's default branch when the repository tracks one
/// (2.1.235's default `fresh` base), else from HEAD. Nothing is fetched.
fn base_ref(repo: &Path) -> String {
    let remote_head = git::run(
        repo,
        &["symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"],
    );
    match remote_head {
        Ok(out) if out.ok() && !out.stdout.trim().is_empty() => out.stdout.trim().to_owned(),
        _ => "HEAD".into(),
    }
}

fn add_failure(name: &str, path: &Path, branch: &str, stderr: &str) -> String {
    let p = path.display();
    let in_use = regex::Regex::new(r#"(?m)already used by worktree at ['"]?([^'"\n]+?)['"]?$"#)
        .expect("a valid pattern");
    if let Some(at) = in_use.captures(stderr) {
        let at = &at[1];
        return format!("branch \"{branch}\" for worktree \"{name}\" is already checked out in a worktree at {at}. cd into that directory and run `claude`, remove it with `git worktree remove {at}`, or pass a different --worktree name.");
    }
    let exists = regex::Regex::new(r"(?m)^fatal: .* already exists").expect("a valid pattern");
    if exists.is_match(stderr) {
        return format!("worktree \"{name}\" already exists at {p} but cannot be reused ({stderr}). Remove that directory (`git worktree remove {p}` if it's a registered worktree, or `rm -rf {p}` if it's a stray directory) or pass a different --worktree name.");
    }
    format!("Failed to create worktree: {stderr}")
}

/// A committed symlink at `.claude`, `.claude/worktrees` or the worktree's own place could send
/// the checkout outside the repository.
fn refuse_symlinks(repo: &Path, path: &Path) -> Result<(), String> {
    for dir in [
        repo.join(".claude"),
        name::managed_dir(repo),
        path.to_owned(),
    ] {
        match dir.symlink_metadata() {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!("Cannot create worktree: {} is a symlink. A repository-committed symlink at .claude, .claude/worktrees, or .claude/worktrees/<name> could redirect worktree creation outside the repository. Remove the symlink and retry.", dir.display()));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(format!(
                    "Cannot create worktree: failed to lstat {}: {e}",
                    dir.display()
                ))
            }
        }
    }
    Ok(())
}

/// The HEAD commit of a checkout at `path`, when one is there.
fn checkout_head(path: &Path) -> Option<String> {
    path.join(".git").symlink_metadata().ok()?;
    let out = git::run(path, &["rev-parse", "HEAD"]).ok()?;
    out.ok().then(|| out.stdout.trim().to_owned())
}

fn git_dir(path: &Path) -> Option<PathBuf> {
    let out = git::run(path, &["rev-parse", "--absolute-git-dir"]).ok()?;
    out.ok().then(|| PathBuf::from(out.stdout.trim_end()))
}

fn write_baseline(path: &Path, commit: &str) {
    // Without it a later session counts commits from the worktree's HEAD instead: a safe loss.
    if let Some(dir) = git_dir(path) {
        let _ = std::fs::write(dir.join(BASELINE_FILE), commit);
    }
}

fn read_baseline(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(git_dir(path)?.join(BASELINE_FILE)).ok()?;
    let commit = text.trim();
    (commit.len() >= 40 && commit.chars().all(|c| c.is_ascii_hexdigit())).then(|| commit.into())
}

/// Checks that `given` (absolute) is a linked worktree of the repository `cwd` is in, one this
/// session may enter; returns its resolved path and branch.
pub fn check_existing(
    cwd: &Path,
    given: &Path,
    managed_only: bool,
) -> Result<(PathBuf, Option<String>), String> {
    let e = given.display();
    let repo = repo::root(cwd).ok_or(
        "Cannot enter an existing worktree: the current directory is not in a git repository.",
    )?;
    let real = std::fs::canonicalize(given).map_err(|err| {
        let why = match err.kind() {
            std::io::ErrorKind::NotFound => {
                format!("ENOENT: no such file or directory, lstat '{e}'")
            }
            _ => err.to_string(),
        };
        format!("Cannot enter worktree: {e}: {why}")
    })?;
    let repo_real = std::fs::canonicalize(&repo).unwrap_or_else(|_| repo.clone());
    if real == repo_real {
        return Err(format!(
            "Cannot enter worktree: {e} is the main working tree, not a linked worktree."
        ));
    }
    if std::fs::canonicalize(cwd).is_ok_and(|c| c == real) {
        return Err(format!(
            "Cannot enter worktree: {e} is the current working directory."
        ));
    }
    if managed_only {
        let managed = name::managed_dir(&repo_real);
        let g = managed.display();
        let Ok(managed_real) = std::fs::canonicalize(&managed) else {
            return Err(format!("Cannot enter worktree: {g} does not exist, so {e} cannot be a worktree managed by Claude Code."));
        };
        if managed_real != managed {
            return Err(format!("Cannot enter worktree: {g} resolves to {}; the managed worktrees directory must not be a symlink.", managed_real.display()));
        }
        if !real.starts_with(&managed) || real == managed {
            return Err(format!("Cannot enter worktree: {e} is not under {g}. Switching from this session is limited to worktrees managed by Claude Code (created under .claude/worktrees/ of this repository)."));
        }
    }
    let r = repo.display();
    let Some(entry) = repo::entry_of(&repo, &real)? else {
        return Err(format!("Cannot enter worktree: {e} is not a registered worktree of {r}. Run 'git -C {r} worktree list' to see registered worktrees."));
    };
    if entry.prunable {
        return Err(format!("Cannot enter worktree: {e} is marked prunable by git (its directory or administrative files are missing or broken)."));
    }
    if let Some(reason) = entry
        .lock_reason
        .as_deref()
        .filter(|r| repo::held_by_live_session(r))
    {
        return Err(format!("Cannot enter worktree: {e} belongs to another running Claude Code session (locked: {reason}). Wait for that session to finish or choose a different worktree."));
    }
    Ok((real, entry.branch))
}

/// Whether `path` resolves into the managed directory of the repository `cwd` is in: entering it
/// needs no permission, and only such a worktree may be switched to from inside another.
pub fn is_managed(cwd: &Path, path: &Path) -> bool {
    let Some(repo) = repo::root(cwd).and_then(|r| std::fs::canonicalize(r).ok()) else {
        return false;
    };
    let managed = name::managed_dir(&repo);
    let managed_is_real = std::fs::canonicalize(&managed).is_ok_and(|m| m == managed);
    managed_is_real
        && std::fs::canonicalize(path).is_ok_and(|p| p.starts_with(&managed) && p != managed)
}

/// `dir` joined with `path` and its `.` and `..` resolved by name, as Node's `path.resolve`.
pub fn resolve(dir: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in dir.join(path).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_by_name_like_node() {
        let cwd = Path::new("/w/repo");
        assert_eq!(resolve(cwd, "."), Path::new("/w/repo"));
        assert_eq!(resolve(cwd, "side/"), Path::new("/w/repo/side"));
        assert_eq!(resolve(cwd, "../x/./y"), Path::new("/w/x/y"));
        assert_eq!(resolve(cwd, "/abs/../z"), Path::new("/z"));
    }

    #[test]
    fn add_failures_say_what_to_do() {
        let p = Path::new("/r/.claude/worktrees/x");
        let exists = add_failure("x", p, "worktree-x", "Preparing worktree (new branch 'worktree-x')\nfatal: '/r/.claude/worktrees/x' already exists");
        assert!(exists.starts_with("worktree \"x\" already exists at /r/.claude/worktrees/x but cannot be reused (Preparing"), "{exists}");
        let used = add_failure(
            "x",
            p,
            "worktree-x",
            "fatal: 'worktree-x' is already used by worktree at '/elsewhere'",
        );
        assert!(used.starts_with("branch \"worktree-x\" for worktree \"x\" is already checked out in a worktree at /elsewhere."), "{used}");
        assert_eq!(
            add_failure("x", p, "b", "fatal: odd"),
            "Failed to create worktree: fatal: odd"
        );
    }
}
