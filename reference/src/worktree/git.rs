//! git as a child process: its own process group, stdin closed, a bound (the limits table's
//! `worktree.git_timeout`), ended by pid past it. Messages are parsed, so the locale is C.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::limits::WORKTREE_GIT_TIMEOUT;

/// How one git command ended.
#[derive(Debug, Clone)]
pub struct Output {
    /// `None` when it did not exit by itself (killed, timed out).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `git ARGS` in `dir`. Failing to start git at all is the error; a non-zero exit is an
/// `Output` for the caller to judge.
pub fn run(dir: &Path, args: &[&str]) -> Result<Output, String> {
    run_bounded(dir, args, WORKTREE_GIT_TIMEOUT.duration())
}

fn run_bounded(dir: &Path, args: &[&str], bound: Duration) -> Result<Output, String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        // Never wait for a password or an editor: nobody is there to answer.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let pid = child.id() as i32;
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let started = Instant::now();
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() < bound => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                // SAFETY: signalling the process group this call created.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
                let _ = child.wait();
                break None;
            }
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let mut stderr = stderr.join().unwrap_or_default();
    if code.is_none() && started.elapsed() >= bound {
        stderr = format!(
            "git {} timed out after {} ms",
            args.join(" "),
            bound.as_millis()
        );
    }
    Ok(Output {
        code,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
