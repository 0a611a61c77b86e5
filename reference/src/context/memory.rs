//! Auto-memory: whether it is on, and where it lives (under HOME, by the sanitized project root:
//! the git root when there is one, else cwd).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The memory directory, or None when auto-memory is off: `CLAUDE_CODE_DISABLE_AUTO_MEMORY`
/// (truthy off, set but falsy forces on), `CLAUDE_CODE_SIMPLE`, a remote session without a
/// memory directory, then `autoMemoryEnabled` in the user's or the project's settings.
pub fn dir(home: &Path, cwd: &Path) -> Option<PathBuf> {
    match std::env::var("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        Ok(v) if crate::environment::truthy(&v) => return None,
        Ok(_) => return Some(location(home, cwd)),
        Err(_) => {}
    }
    if crate::environment::switched_on("CLAUDE_CODE_SIMPLE") {
        return None;
    }
    // A remote session keeps no memory unless its host gives it a place (2.1.235's rule;
    // recorded: brief.lanes/env-byoc has no memory_paths).
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty());
    if crate::environment::remote()
        && !set("CLAUDE_CODE_REMOTE_MEMORY_DIR")
        && !set("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    {
        return None;
    }
    let [user, project, _] = crate::environment::read_settings_files(home, cwd);
    for settings in [user, project].into_iter().flatten() {
        let off = std::fs::read_to_string(settings)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| v["autoMemoryEnabled"] == false);
        if off {
            return None;
        }
    }
    Some(location(home, cwd))
}

fn location(home: &Path, cwd: &Path) -> PathBuf {
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd);
    let slug: String = root
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    home.join(".claude/projects").join(slug).join("memory")
}
