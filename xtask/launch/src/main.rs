//! `cargo xtask …` runs this first (the alias in `.cargo/config.toml`): it builds `xtask`, passing
//! cargo's lines through only when something compiles, so the first run on a fresh clone shows
//! minutes of work from its first second and every later run prints nothing of its own. Then it
//! becomes `xtask` with the same arguments.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};

// The harness's own rule for a cargo started from a cargo-run process, shared as a file because
// this crate has no dependencies: without it the nested build reruns ring's build script and
// recompiles everything above it, every other time.
#[path = "../../../probes/src/cargo.rs"]
mod cargo;

fn main() -> ExitCode {
    let mut build = match cargo::command()
        .args(["build", "--package", "xtask", "--bin", "xtask"])
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("cargo xtask: cannot run cargo: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stderr = build.stderr.take().expect("piped");
    let mut quiet = Quiet::default();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        if let Some(shown) = quiet.pass(&line) {
            let _ = writeln!(std::io::stderr(), "{shown}");
        }
    }
    match build.wait() {
        Ok(status) if status.success() => {}
        Ok(_) => return ExitCode::FAILURE,
        Err(e) => {
            eprintln!("cargo xtask: waiting for cargo build: {e}");
            return ExitCode::FAILURE;
        }
    }
    // xtask sits beside this binary, in the same target directory and profile.
    let xtask = std::env::current_exe()
        .map(|me| me.with_file_name("xtask"))
        .unwrap_or_else(|_| "target/debug/xtask".into());
    let e = Command::new(&xtask)
        .args(std::env::args_os().skip(1))
        .exec();
    eprintln!("cargo xtask: cannot run {}: {e}", xtask.display());
    ExitCode::FAILURE
}

/// Which of cargo's lines a person sees: all of them once something compiles, none when the
/// build was fresh (cargo then says only `Finished`).
#[derive(Default)]
struct Quiet {
    working: bool,
}

impl Quiet {
    fn pass<'a>(&mut self, line: &'a str) -> Option<&'a str> {
        let word = line.split_whitespace().next().unwrap_or_default();
        if !self.working && word == "Finished" {
            return None;
        }
        self.working = true;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_build_is_silent_and_a_real_one_shows_every_line() {
        let mut fresh = Quiet::default();
        assert_eq!(
            fresh.pass("    Finished `dev` profile [unoptimized] target(s) in 0.31s"),
            None
        );
        let mut first = Quiet::default();
        let lines = [
            "   Compiling tokio v1.48.0",
            "   Compiling xtask v0.0.0 (/w/xtask)",
            "    Finished `dev` profile [unoptimized] target(s) in 3m 58s",
        ];
        let shown: Vec<_> = lines.iter().filter_map(|l| first.pass(l)).collect();
        assert_eq!(shown, lines);
        // A wait for another cargo is work to see too, and what follows it.
        let mut waiting = Quiet::default();
        assert!(waiting
            .pass("    Blocking waiting for file lock on build directory")
            .is_some());
        assert!(waiting.pass("    Finished `dev` profile").is_some());
    }
}
