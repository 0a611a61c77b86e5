//! `cargo xtask probe` as a user runs it, interrupted or fed a target that floods its output:
//! what it leaves behind is checked from outside, by /proc and the temp directory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch place for one probe: its scenario, its fake target, its own TMPDIR.
struct Bench {
    dir: tempfile::TempDir,
}

impl Bench {
    /// `body` is the fake target's shell, after it has answered `--version`.
    fn new(id: &str, timeout_ms: u64, body: &str) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = dir.path().join("scenarios");
        std::fs::create_dir_all(&scenarios).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        std::fs::write(
            scenarios.join(format!("{id}.toml")),
            format!(
                "id = \"{id}\"\ntitle = \"t\"\ntargets = [\"claude\"]\nprompt = \"p\"\ntimeout_ms = {timeout_ms}\n\n[[check]]\nkind = \"exit\"\nequals = 0\n"
            ),
        )
        .unwrap();
        let target = dir.path().join("fake-claude");
        std::fs::write(
            &target,
            format!("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '0.0.0-harness-test (Claude Code)'; exit 0; fi\n{body}\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        Bench { dir }
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    fn probe(&self, extra: &[&str]) -> Child {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("probe")
            .arg("--target")
            .arg(format!(
                "claude:{}",
                self.dir.path().join("fake-claude").display()
            ))
            .arg("--scenarios")
            .arg(self.dir.path().join("scenarios"))
            .args(["--jobs", "1"])
            .args(extra)
            .env("TMPDIR", self.tmp())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Processes whose working directory is inside this bench's TMPDIR: the target and what it
    /// started (its cwd is the run's `work` directory).
    fn processes(&self) -> Vec<i32> {
        let tmp = self.tmp();
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/cwd"))
                    .is_ok_and(|cwd| cwd.starts_with(&tmp))
            })
            .collect()
    }

    fn run_dirs(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("conformance-"))
            .collect()
    }
}

fn wait_until(what: &str, bound: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < bound, "{what}: not within {bound:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for `child` with a bound, killing it past the bound so no test leaves it behind.
fn wait_bounded(child: &mut Child, bound: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("xtask probe still running after {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn interrupted_by(signal: i32, name: &str, code: i32) {
    // A target that starts a child and never ends: both must go.
    let bench = Bench::new("core.interrupted", 120_000, "sleep 300 &\nexec sleep 301");
    let mut probe = bench.probe(&[]);
    let mut target = Vec::new();
    wait_until(
        "the target and its child are running",
        Duration::from_secs(120),
        || {
            target = bench.processes();
            target.len() >= 2
        },
    );
    assert_eq!(bench.run_dirs().len(), 1);
    // SAFETY: kill(2) on the probe we spawned.
    unsafe {
        libc::kill(probe.id() as i32, signal);
    }
    let status = wait_bounded(&mut probe, Duration::from_secs(30));
    let stderr = stderr_of(&mut probe);
    assert_eq!(status.code(), Some(code), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{name}: ended 1 running target and removed 1 run directory"
        )),
        "{stderr}"
    );
    wait_until(
        "the target's processes are gone",
        Duration::from_secs(5),
        || {
            target
                .iter()
                .all(|pid| !Path::new(&format!("/proc/{pid}")).exists())
        },
    );
    assert_eq!(bench.run_dirs(), Vec::<String>::new());
}

#[test]
fn an_interrupted_probe_ends_its_targets_and_removes_its_run_directories() {
    interrupted_by(libc::SIGINT, "SIGINT", 130);
}

#[test]
fn a_terminated_probe_ends_its_targets_and_removes_its_run_directories() {
    interrupted_by(libc::SIGTERM, "SIGTERM", 143);
}

#[test]
fn a_target_that_floods_stdout_is_bounded_and_reported() {
    // Endless output with no newline, for longer than the harness keeps.
    let bench = Bench::new("core.flood", 8_000, "exec yes y | tr -d '\\n'");
    let report = bench.dir.path().join("report.json");
    let mut probe = bench.probe(&["--report", report.to_str().unwrap()]);
    let status = wait_bounded(&mut probe, Duration::from_secs(120));
    let stderr = stderr_of(&mut probe);
    assert_eq!(status.code(), Some(1), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let checks = &doc["runs"][0]["checks"];
    let bound = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "output within the harness's bound")
        .unwrap_or_else(|| panic!("{checks:#}"));
    assert_eq!(bound["ok"], false);
    let detail = bound["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("stdout went past the harness's bound of 64 MiB"),
        "{detail}"
    );
    assert_eq!(bench.processes(), Vec::<i32>::new());
    assert_eq!(bench.run_dirs(), Vec::<String>::new());
}
