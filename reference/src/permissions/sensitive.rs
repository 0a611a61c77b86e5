//! The safety check on files a change may not touch unasked: shell start-up files, tool
//! configurations, and the directories of git, editors, package managers and Claude itself.
//! Every mode but bypassPermissions puts such a write to a person (acceptEdits included), and
//! nobody answering refuses it with the check's text. The names are 2.1.235's (recorded in
//! `core.permission-modes/protected-*`; the lists are facts of its bundle).

use std::path::{Component, Path};

/// File names that are sensitive in any directory, compared without case.
const FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".envrc",
    ".ripgreprc",
    ".mcp.json",
    ".claude.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    "pyrightconfig.json",
];

/// Directories whose whole contents are sensitive, wherever they are on the path.
const DIRS: &[&str] = &[
    ".git",
    ".vscode",
    ".idea",
    ".claude",
    ".husky",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
];

/// What under `.claude/` Claude Code writes in its own work (worktrees, skills, agents,
/// commands, the scheduled-task file), so not a safety question.
const CLAUDE_OWN: &[&str] = &[
    "worktrees",
    "skills",
    "agents",
    "commands",
    "scheduled_tasks.json",
];

/// Claude Code's own settings files: changing them changes the rules themselves.
const SETTINGS: &[&str] = &["settings.json", "settings.local.json"];

/// The check's text when `path` is sensitive (what the model is told when nobody can answer,
/// and the question's reason); `None` when it is not.
pub fn check(path: &Path) -> Option<String> {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    let shown = path.display();
    for (i, part) in parts.iter().enumerate() {
        if !DIRS.contains(&part.as_str()) {
            continue;
        }
        let next = parts.get(i + 1).map(String::as_str);
        if part == ".claude" {
            if next.is_some_and(|n| CLAUDE_OWN.contains(&n)) {
                break;
            }
            if i + 2 == parts.len() && next.is_some_and(|n| SETTINGS.contains(&n)) {
                return Some(format!(
                    "Claude requested permissions to write to {shown}, but you haven't granted it yet."
                ));
            }
        }
        return Some(format!(
            "Claude requested permissions to edit {shown} which is a sensitive file."
        ));
    }
    let under_config_git = parts.windows(2).any(|w| w[0] == ".config" && w[1] == "git");
    let name = parts.last().map(String::as_str).unwrap_or_default();
    (under_config_git || FILES.contains(&name))
        .then(|| format!("Claude requested permissions to edit {shown} which is a sensitive file."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: &str) -> Option<String> {
        check(Path::new(p))
    }

    #[test]
    fn shell_files_tool_directories_and_claude_settings_are_sensitive() {
        assert_eq!(
            text("/w/.bashrc").as_deref(),
            Some("Claude requested permissions to edit /w/.bashrc which is a sensitive file.")
        );
        assert!(text("/w/.git/info/exclude").is_some());
        assert!(text("/w/sub/.VSCode/settings.json").is_some());
        assert!(text("/home/u/.config/git/config").is_some());
        assert!(text("/w/.claude/other.json")
            .unwrap()
            .ends_with("which is a sensitive file."));
        assert_eq!(
            text("/w/.claude/settings.json").as_deref(),
            Some("Claude requested permissions to write to /w/.claude/settings.json, but you haven't granted it yet.")
        );
    }

    #[test]
    fn ordinary_files_and_claude_s_own_work_are_not() {
        assert_eq!(text("/w/notes.txt"), None);
        assert_eq!(text("/w/src/git/main.rs"), None);
        assert_eq!(text("/w/.claude/worktrees/side/a.txt"), None);
        assert_eq!(text("/w/.claude/skills/x/SKILL.md"), None);
    }
}
