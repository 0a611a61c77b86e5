//! Running one command hook: `/bin/sh -c` in the session's directory with the event's JSON on stdin
//! and `CLAUDE_PROJECT_DIR` set, as a bounded child (`crate::child`): its own process group,
//! ended at its timeout.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::child::Output;

/// What a hook may write that is kept; the rest is read and dropped so it never blocks.
const KEPT_OUTPUT: usize = 1 << 20;

pub fn run(
    command: &str,
    stdin: &str,
    cwd: &Path,
    env: &[(&str, String)],
    timeout: Duration,
) -> Output {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("CLAUDE_PROJECT_DIR", cwd)
        .envs(env.iter().map(|(k, v)| (k, v)));
    crate::child::run(&mut sh, Some(stdin), timeout, KEPT_OUTPUT).unwrap_or_else(|e| Output {
        code: None,
        stdout: String::new(),
        stderr: e.to_string(),
        timed_out: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_runs_in_the_project_with_its_directory_named() {
        let dir = tempfile::tempdir().unwrap();
        let o = run(
            "cat; echo \"$CLAUDE_PROJECT_DIR\" >&2; pwd >&2; exit 2",
            "{\"a\":1}",
            dir.path(),
            &[],
            Duration::from_secs(10),
        );
        let at = dir.path().display().to_string();
        assert_eq!(o.code, Some(2));
        assert_eq!(o.stdout, "{\"a\":1}");
        assert_eq!(o.stderr, format!("{at}\n{at}\n"));
    }
}
