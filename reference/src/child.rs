//! A child process with a bound, as git and command hooks run: its own process group, stdin
//! given or closed, stdout and stderr drained on threads (so a full pipe never stalls it), and
//! the whole group ended by its pid once the bound has passed.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How the child ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// `None` when it did not exit by itself (ended at the bound, or lost).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// It was ended because the bound passed.
    pub timed_out: bool,
}

impl Output {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `command` with `stdin` (closed when `None`), keeping at most `keep` bytes of each output
/// stream (the rest is read and dropped). Failing to start is the error.
pub fn run(
    command: &mut Command,
    stdin: Option<&str>,
    bound: Duration,
    keep: usize,
) -> std::io::Result<Output> {
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    // A child that never reads its stdin must not hold up the caller.
    let writer = stdin.map(|text| {
        let mut pipe = child.stdin.take().expect("piped");
        let text = text.to_owned();
        std::thread::spawn(move || {
            let _ = pipe.write_all(text.as_bytes());
        })
    });
    let stdout = drain(child.stdout.take().expect("piped"), keep);
    let stderr = drain(child.stderr.take().expect("piped"), keep);
    let started = Instant::now();
    let mut timed_out = false;
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() < bound => std::thread::sleep(Duration::from_millis(2)),
            waited => {
                timed_out = waited.is_ok();
                // SAFETY: signalling the process group this call created.
                unsafe {
                    libc::kill(-(child.id() as i32), libc::SIGKILL);
                }
                let _ = child.wait();
                break None;
            }
        }
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Ok(Output {
        code,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        timed_out,
    })
}

fn drain(mut from: impl Read + Send + 'static, keep: usize) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(n) = from.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let room = keep.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..n.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn stdin_reaches_the_child_and_its_exit_and_streams_come_back() {
        let o = run(
            &mut sh("cat; echo oops >&2; exit 2"),
            Some("{\"a\":1}"),
            Duration::from_secs(10),
            1 << 20,
        )
        .unwrap();
        assert_eq!((o.code, o.timed_out), (Some(2), false));
        assert_eq!(o.stdout, "{\"a\":1}");
        assert_eq!(o.stderr, "oops\n");
    }

    #[test]
    fn past_its_bound_the_whole_group_is_ended() {
        // `sleep` is the shell's child: unless the group ends, it holds the pipes for 30 s.
        let o = run(
            &mut sh("sleep 30; true"),
            None,
            Duration::from_millis(200),
            1 << 20,
        )
        .unwrap();
        assert_eq!((o.code, o.timed_out), (None, true));
    }

    #[test]
    fn output_past_what_is_kept_is_read_and_dropped() {
        let o = run(
            &mut sh("head -c 100000 /dev/zero"),
            None,
            Duration::from_secs(10),
            10,
        )
        .unwrap();
        assert_eq!((o.code, o.stdout.len()), (Some(0), 10));
    }
}
