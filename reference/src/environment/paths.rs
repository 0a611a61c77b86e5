//! Where the CLI's own files are, as 2.1.235 finds them.

use std::path::{Path, PathBuf};

/// Managed settings, where an administrator puts them (the reference reads
/// `CLAUDE_REFERENCE_MANAGED_SETTINGS` instead when it is set: a test setting).
const MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// The managed settings file this process reads.
pub fn managed_settings() -> PathBuf {
    std::env::var_os("CLAUDE_REFERENCE_MANAGED_SETTINGS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(MANAGED_SETTINGS))
}

/// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn config_dir(home: &Path) -> PathBuf {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".claude"))
}

/// The global config file, as 2.1.235 finds it: `<config dir>/.config.json` when that exists,
/// else `.claude<suffix>.json` in `$CLAUDE_CONFIG_DIR` or the home directory, where a custom
/// OAuth endpoint (`CLAUDE_CODE_CUSTOM_OAUTH_URL`) has its own file, `.claude-custom-oauth.json`,
/// so the production login's account and cached flags do not carry over to it (recorded:
/// design.transport-limits/non-first-party).
pub fn global_config(home: &Path) -> PathBuf {
    let legacy = config_dir(home).join(".config.json");
    if legacy.is_file() {
        return legacy;
    }
    let custom = std::env::var_os("CLAUDE_CODE_CUSTOM_OAUTH_URL").is_some_and(|v| !v.is_empty());
    let name = if custom {
        ".claude-custom-oauth.json"
    } else {
        ".claude.json"
    };
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir).join(name),
        None => home.join(name),
    }
}

/// `~/.claude/projects/<cwd with / as ->`: the per-project folder the CLI keeps session files in.
pub fn project_dir(home: &Path, cwd: &Path) -> PathBuf {
    home.join(".claude/projects").join(cwd_slug(cwd))
}

/// The session file of `session_id` for a session in `cwd` (the transcript, the hooks'
/// `transcript_path`).
pub fn session_file(home: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(home, cwd).join(format!("{session_id}.jsonl"))
}

/// A sub-agent's sidechain file: `<session id>/subagents/agent-<agent id>.jsonl` beside the
/// session's own file.
pub fn sidechain_file(home: &Path, cwd: &Path, session_id: &str, agent_id: &str) -> PathBuf {
    project_dir(home, cwd)
        .join(session_id)
        .join("subagents")
        .join(format!("agent-{agent_id}.jsonl"))
}

/// A directory as one path segment: every character but ASCII letters and digits becomes `-`.
pub fn cwd_slug(cwd: &Path) -> String {
    cwd.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
