//! Running one command hook: `sh -c` in the session's directory with the event's JSON on stdin,
//! `CLAUDE_PROJECT_DIR` set, ended by its own pid at its timeout.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a hook ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The exit status; `None` when it was ended at its timeout or could not start.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// What a hook may write that is kept; the rest is read and dropped so it never blocks.
const KEPT_OUTPUT: usize = 1 << 20;

pub fn run(command: &str, stdin: &str, cwd: &Path, timeout: Duration) -> Outcome {
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("CLAUDE_PROJECT_DIR", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so what it started ends with it at the timeout.
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return Outcome {
                code: None,
                stdout: String::new(),
                stderr: e.to_string(),
            }
        }
    };
    let mut input = child.stdin.take().expect("piped");
    let stdin = stdin.to_owned();
    // A hook that never reads its stdin must not hold up the session.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let out = drain(child.stdout.take().expect("piped"));
    let err = drain(child.stderr.take().expect("piped"));
    let started = Instant::now();
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() >= timeout => {
                // SAFETY: signalling the process group this call created.
                unsafe {
                    libc::kill(-(child.id() as i32), libc::SIGKILL);
                }
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let _ = writer.join();
    Outcome {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

fn drain(mut from: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(n) = from.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let room = KEPT_OUTPUT.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..n.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_reaches_the_command_and_its_exit_and_streams_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let o = run(
            "cat; echo oops >&2; exit 2",
            "{\"a\":1}",
            dir.path(),
            Duration::from_secs(10),
        );
        assert_eq!(o.code, Some(2));
        assert_eq!(o.stdout, "{\"a\":1}");
        assert_eq!(o.stderr, "oops\n");
    }

    #[test]
    fn a_hook_past_its_timeout_is_ended() {
        let dir = tempfile::tempdir().unwrap();
        let o = run("sleep 30; true", "", dir.path(), Duration::from_millis(200));
        assert_eq!(o.code, None);
    }
}
