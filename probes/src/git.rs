//! A scenario's `git_init = true`: the run's cwd becomes a git repository with the fixture files
//! committed, made fresh per run before the target starts (the worktree tools need a real one).
//!
//! git runs as every other spawned process: its own process group, a bound, killed by pid past it.
//! Its environment is cleared of the harness's own git settings so every run gets the same
//! repository (branch `main`, a fixed identity and commit date, no global or system config).

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// The bound on one git command; making a small repository takes milliseconds.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The identity and date of the fixture commit, so its hash is the same on every run.
const AUTHOR: (&str, &str) = ("Conformance Fixture", "fixture@example.invalid");
const DATE: &str = "2024-01-01T00:00:00Z";

/// `git init` in `cwd`, a local identity, then one commit of everything in it (possibly empty).
pub async fn init_repo(cwd: &Path, home: &Path) -> Result<()> {
    git(cwd, home, &["init", "-q", "-b", "main"]).await?;
    git(cwd, home, &["config", "user.name", AUTHOR.0]).await?;
    git(cwd, home, &["config", "user.email", AUTHOR.1]).await?;
    git(cwd, home, &["add", "-A"]).await?;
    git(
        cwd,
        home,
        &["commit", "-q", "--allow-empty", "-m", "fixture files"],
    )
    .await
}

async fn git(cwd: &Path, home: &Path, args: &[&str]) -> Result<()> {
    let mut command = std::process::Command::new("git");
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env(
            "PATH",
            std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
        )
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_DATE", DATE)
        .env("GIT_COMMITTER_DATE", DATE);
    let shown = format!("git {}", args.join(" "));
    let (child, pid) = crate::process::spawn(command, std::process::Stdio::null())
        .with_context(|| format!("`git_init`: cannot run `{shown}` (is git installed?)"))?;
    let output = match tokio::time::timeout(GIT_TIMEOUT, child.wait_with_output()).await {
        Ok(output) => output.with_context(|| format!("`git_init`: `{shown}`"))?,
        Err(_) => {
            crate::process::kill_group(pid);
            bail!(
                "`git_init`: `{shown}` did not finish within {} s",
                GIT_TIMEOUT.as_secs()
            );
        }
    };
    if !output.status.success() {
        bail!(
            "`git_init`: `{shown}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn makes_a_repository_with_the_files_committed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
        init_repo(dir.path(), dir.path()).await.unwrap();
        let out = std::process::Command::new("git")
            .args(["ls-files"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a.txt\n");
        let status = std::process::Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    }

    #[tokio::test]
    async fn a_failing_git_names_the_command_and_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = git(dir.path(), dir.path(), &["rev-parse", "HEAD"])
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("`git_init`: `git rev-parse HEAD` failed"),
            "{e}"
        );
        assert!(e.contains("not a git repository"), "{e}");
    }
}
