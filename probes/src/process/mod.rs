//! A target process: started in its own process group, waited for with a bound, its peak memory
//! sampled on the way, and ended by its pid (with everything it started) when the bound passes.
//! `interrupt` keeps what a Ctrl-C must end and remove; `group` signals a target's group.

mod group;
pub mod interrupt;

use std::time::Duration;

pub use group::{kill_group, signal_group};

/// Starts `command` in its own process group (so a timeout ends the target and every child it
/// started) with stdout and stderr piped and `stdin` as given; returns the child and its pid.
pub fn spawn(
    command: std::process::Command,
    stdin: std::process::Stdio,
) -> std::io::Result<(tokio::process::Child, Option<i32>)> {
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(stdin)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = command.spawn()?;
    let pid = child.id().map(|p| p as i32);
    Ok((child, pid))
}

/// A short helper's output (`npm view`, a trial `bwrap`), waited for at most `limit`: past it
/// the child is killed by its pid and the wait is an error.
pub fn output_within(
    mut child: std::process::Child,
    limit: Duration,
) -> std::io::Result<std::process::Output> {
    let started = std::time::Instant::now();
    while child.try_wait()?.is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(format!(
                "it did not end within {} s",
                limit.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output()
}

/// How a target process ended.
#[derive(Debug, Clone, Copy)]
pub struct Exited {
    pub code: Option<i32>,
    pub timed_out: bool,
    /// Peak resident set size (sampled VmHWM), when it exited by itself.
    pub peak_rss_kib: Option<u64>,
}

/// Waits for `pid` up to `timeout`; past it, kills its process group and reaps it.
pub async fn wait_or_kill(pid: Option<i32>, timeout: Duration) -> Exited {
    let _group = pid.map(interrupt::Group::register);
    let reaped = match pid {
        Some(pid) => tokio::time::timeout(timeout, reap(pid)).await.ok(),
        None => None,
    };
    match reaped {
        Some(r) => Exited {
            code: r.code,
            timed_out: false,
            peak_rss_kib: Some(r.max_rss_kib),
        },
        None => {
            kill_group(pid);
            if let Some(pid) = pid {
                let _ = reap(pid).await;
            }
            Exited {
                code: None,
                timed_out: true,
                peak_rss_kib: None,
            }
        }
    }
}

struct Reaped {
    code: Option<i32>,
    max_rss_kib: u64,
}

/// Waits for the target with wait4(2), polling without blocking a runtime thread, and samples
/// its peak resident set size (VmHWM) on the way. wait4's own ru_maxrss is not used: Linux carries
/// the high-water mark of the pre-exec memory (a copy of this harness) into the child.
async fn reap(pid: i32) -> Reaped {
    let mut peak = 0;
    loop {
        peak = peak.max(vm_hwm_kib(pid).unwrap_or(0));
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child's pid, with valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let code = if libc::WIFEXITED(status) {
                Some(libc::WEXITSTATUS(status))
            } else {
                None
            };
            return Reaped {
                code,
                max_rss_kib: peak,
            };
        }
        if r < 0 {
            return Reaped {
                code: None,
                max_rss_kib: 0,
            };
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A live process's peak resident set size, from `/proc/<pid>/status`.
pub fn vm_hwm_kib(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// What a reader task collected; pipes held open by a grandchild close when the group is killed,
/// and the wait is bounded regardless.
pub async fn collect<T: Default>(task: tokio::task::JoinHandle<T>) -> T {
    match tokio::time::timeout(Duration::from_secs(5), task).await {
        Ok(Ok(value)) => value,
        _ => T::default(),
    }
}

/// How much of one output stream of a target the harness keeps: a target that floods its output
/// is bounded in the harness's memory, and the run says so (`Kept::overflow`).
pub const OUTPUT_CAP_BYTES: usize = 64 << 20;

/// The first [`OUTPUT_CAP_BYTES`] of a stream, and how many bytes past them were read and dropped.
#[derive(Debug, Default)]
pub struct Kept {
    pub bytes: Vec<u8>,
    pub dropped: u64,
}

impl Kept {
    pub fn push(&mut self, chunk: &[u8]) {
        let room = OUTPUT_CAP_BYTES.saturating_sub(self.bytes.len());
        let (kept, dropped) = chunk.split_at(room.min(chunk.len()));
        self.bytes.extend_from_slice(kept);
        self.dropped += dropped.len() as u64;
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// What the run says about `stream` when it overflowed.
    pub fn overflow(&self, stream: &str) -> Option<String> {
        (self.dropped > 0).then(|| {
            format!(
                "{stream} went past the harness's bound of {} MiB: the first {} MiB are kept, {} more bytes were read and dropped",
                OUTPUT_CAP_BYTES >> 20,
                OUTPUT_CAP_BYTES >> 20,
                self.dropped
            )
        })
    }
}

/// Reads `pipe` to its end, keeping what [`Kept`] keeps.
pub fn read_capped(
    pipe: impl tokio::io::AsyncRead + Unpin + Send + 'static,
) -> tokio::task::JoinHandle<Kept> {
    read_capped_lines(pipe, |_| {})
}

/// [`read_capped`], handing each complete line (lossily decoded, without its newline) to
/// `on_line` as it arrives: how the harness announces what a target prints while it runs.
pub fn read_capped_lines(
    mut pipe: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    mut on_line: impl FnMut(String) + Send + 'static,
) -> tokio::task::JoinHandle<Kept> {
    use tokio::io::AsyncReadExt;
    tokio::spawn(async move {
        let mut kept = Kept::default();
        let mut buf = vec![0u8; 64 << 10];
        // Where the line being read started in `kept` (lines past the cap are not announced).
        let mut line_start = 0;
        while let Ok(n) = pipe.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let before = kept.bytes.len();
            kept.push(&buf[..n]);
            let ends = kept.bytes[before..].iter().enumerate();
            for end in ends.filter(|(_, b)| **b == b'\n').map(|(i, _)| before + i) {
                on_line(String::from_utf8_lossy(&kept.bytes[line_start..end]).into_owned());
                line_start = end + 1;
            }
        }
        kept
    })
}

/// Runs CPU-bound work (a run's redaction, its mutation survey) without stalling the runtime's
/// workers: on a multi-thread runtime the worker hands its other tasks on first, so a terminal
/// driver polling its screen every 10 ms is not held up for the second a survey can take.
pub fn cpu_bound<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_complete_line_is_handed_on_as_it_arrives_and_all_is_kept() {
        let (mut write, read) = tokio::io::duplex(64);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let task = read_capped_lines(read, move |line| tx.send(line).unwrap());
        use tokio::io::AsyncWriteExt;
        write.write_all(b"{\"type\":\"sys").await.unwrap();
        write.write_all(b"tem\"}\nsecond\n").await.unwrap();
        // Handed on before the stream ends: what a held answer waits for.
        assert_eq!(rx.recv().await.unwrap(), r#"{"type":"system"}"#);
        assert_eq!(rx.recv().await.unwrap(), "second");
        write.write_all(b"no newline").await.unwrap();
        drop(write);
        let kept = task.await.unwrap();
        assert_eq!(kept.text(), "{\"type\":\"system\"}\nsecond\nno newline");
        assert!(rx.recv().await.is_none(), "a cut last line is not a line");
    }
}
