//! git as a child process: its own process group, stdin closed, a bound (the limits table's
//! `worktree.git_timeout`), ended by pid past it. Messages are parsed, so the locale is C.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

pub use crate::child::Output;
use crate::limits::WORKTREE_GIT_TIMEOUT;

/// Runs `git ARGS` in `dir`. Failing to start git at all is the error; a non-zero exit is an
/// `Output` for the caller to judge.
pub fn run(dir: &Path, args: &[&str]) -> Result<Output, String> {
    run_bounded(dir, args, WORKTREE_GIT_TIMEOUT.duration())
}

fn run_bounded(dir: &Path, args: &[&str], bound: Duration) -> Result<Output, String> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        // Never wait for a password or an editor: nobody is there to answer.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true");
    let mut out = crate::child::run(&mut command, None, bound, usize::MAX)
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.timed_out {
        out.stderr = format!(
            "git {} timed out after {} ms",
            args.join(" "),
            bound.as_millis()
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_non_zero_exit_is_an_output_with_its_message() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(dir.path(), &["rev-parse", "--show-toplevel"]).unwrap();
        assert!(!out.ok());
        assert!(
            out.stderr.contains("not a git repository"),
            "{}",
            out.stderr
        );
    }

    #[test]
    fn a_command_past_its_bound_is_ended() {
        let dir = tempfile::tempdir().unwrap();
        // An alias that runs a shell which sleeps: git waits for it, the bound does not.
        let started = Instant::now();
        let out = run_bounded(
            dir.path(),
            &["-c", "alias.nap=!sleep 5", "nap"],
            Duration::from_millis(200),
        )
        .unwrap();
        assert_eq!(out.code, None);
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            out.stderr.contains("timed out after 200 ms"),
            "{}",
            out.stderr
        );
    }
}
