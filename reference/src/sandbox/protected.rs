//! Paths inside the working directory that a sandboxed command may not write although the
//! directory is writable (recorded on 2.1.235: sandbox.filesystem/git): what a shell, git, an
//! editor or Claude Code itself would later read and act on outside the sandbox. Each is bound
//! read-only; one that is not there is bound to an empty placeholder, which bubblewrap creates
//! in the working directory (as 2.1.235's does: the placeholders stay behind, and `git status`
//! shows them).

use std::path::{Path, PathBuf};

/// Shell, git and tool configuration a command could plant for the host to run.
const FILES: [&str; 9] = [
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".ripgreprc",
    ".mcp.json",
];

/// Editor folders: a placeholder file where they are missing, so none can be made.
const EDITOR_DIRS: [&str; 2] = [".vscode", ".idea"];

/// What Claude Code reads from the project's `.claude` folder.
const CLAUDE: [&str; 12] = [
    "settings.json",
    "settings.local.json",
    "commands",
    "agents",
    "skills",
    "hooks",
    "workflows",
    "routines",
    "output-styles",
    "loop.md",
    "launch.json",
    "scheduled_tasks.json",
];

/// In a git directory: the hooks and config git runs and reads, and the files that would
/// redirect it to others (`config.lock` held, so git cannot replace its config).
const GIT: [&str; 4] = ["hooks", "config", "config.lock", "config.worktree"];

/// Every protected path under `cwd`, in the order they are bound.
pub fn paths(cwd: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = FILES
        .iter()
        .chain(&EDITOR_DIRS)
        .map(|name| cwd.join(name))
        .collect();
    out.extend(CLAUDE.iter().map(|name| cwd.join(".claude").join(name)));
    let git = cwd.join(".git");
    if git.is_dir() {
        out.extend(GIT.iter().map(|name| git.join(name)));
    }
    out
}

/// The bubblewrap arguments that make them read-only.
pub fn binds(cwd: &Path) -> Vec<std::ffi::OsString> {
    let mut args = Vec::new();
    for path in paths(cwd) {
        let source = if path.exists() {
            path.clone()
        } else {
            PathBuf::from("/dev/null")
        };
        args.extend([
            "--ro-bind".into(),
            source.into_os_string(),
            path.into_os_string(),
        ]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_path_is_bound_to_itself_a_missing_one_to_a_placeholder() {
        let cwd = tempfile::tempdir().unwrap();
        std::fs::write(cwd.path().join(".bashrc"), "# kept\n").unwrap();
        let args = binds(cwd.path());
        let bashrc = cwd.path().join(".bashrc").into_os_string();
        let zshrc = cwd.path().join(".zshrc").into_os_string();
        assert!(args
            .windows(3)
            .any(|w| w == ["--ro-bind".into(), bashrc.clone(), bashrc.clone()]));
        assert!(args
            .windows(3)
            .any(|w| w == ["--ro-bind".into(), "/dev/null".into(), zshrc.clone()]));
        assert!(!paths(cwd.path())
            .iter()
            .any(|p| p.starts_with(cwd.path().join(".git"))));
        std::fs::create_dir(cwd.path().join(".git")).unwrap();
        assert!(paths(cwd.path()).contains(&cwd.path().join(".git/hooks")));
    }
}
