//! One timed run of a program: wall time, peak RSS (wait4) and the number of lines it printed
//! (read from a pipe, so every contender really writes its output).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

pub struct Sample {
    pub wall: Duration,
    pub max_rss_kib: u64,
    pub lines: u64,
    pub exit: i32,
}

/// Runs `program` (as `argv0`) with `args` in `dir`; a run past `limit` is killed and an error.
pub fn run(
    program: &Path,
    argv0: &str,
    args: &[String],
    dir: &Path,
    limit: Duration,
) -> Result<Sample> {
    let started = Instant::now();
    let mut child = Command::new(program)
        .arg0(argv0)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    let pid = child.id() as i32;
    let mut stdout = child.stdout.take().expect("piped");
    // Samples the child's VmHWM until it is gone (wait4's ru_maxrss would include the
    // high-water mark of this process, copied into the child before its exec), and kills it past
    // its limit.
    let watchdog = std::thread::spawn(move || {
        let deadline = Instant::now() + limit;
        let mut peak = 0u64;
        while Instant::now() < deadline {
            match probes::process::vm_hwm_kib(pid) {
                Some(kib) => peak = peak.max(kib),
                None => return (false, peak),
            }
            // A zombie has no VmHWM line left: the loop ends there.
            std::thread::sleep(Duration::from_micros(500));
        }
        // SAFETY: the child is ours and still running past its limit.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        (true, peak)
    });
    let mut lines = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = stdout.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child with valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    // The std handle must not wait again: it is already reaped.
    std::mem::forget(child);
    if r != pid {
        bail!("wait4 failed for {}", program.display());
    }
    let (killed, peak) = watchdog.join().unwrap_or((false, 0));
    if killed {
        bail!(
            "{} {:?} ran past {:?} and was killed",
            program.display(),
            args,
            limit
        );
    }
    Ok(Sample {
        wall,
        max_rss_kib: peak,
        lines,
        exit: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
    })
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
