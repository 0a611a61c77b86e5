//! The session environment hooks leave for Bash: SessionStart's hooks (and 2.1.235's Setup,
//! CwdChanged and FileChanged ones) each get a file of their own (`CLAUDE_ENV_FILE`) in the
//! session's folder; what they write there (`export NAME=value` lines) runs before every Bash
//! command of the session, in event order, then hook order (hooks.events/session-start).

use std::path::{Path, PathBuf};

/// The events whose hooks get a file, in the order their files run.
pub const EVENTS: [&str; 4] = ["setup", "sessionstart", "cwdchanged", "filechanged"];

fn dir(home: &Path, session_id: &str) -> PathBuf {
    home.join(".claude/session-env").join(session_id)
}

/// The file hook `index` of `event` may write, its folder made.
pub fn path(home: &Path, session_id: &str, event: &str, index: usize) -> PathBuf {
    let dir = dir(home, session_id);
    // Without its folder the hook's write fails and says why; the session goes on.
    let _ = std::fs::create_dir_all(&dir);
    dir.join(format!("{}-hook-{index}.sh", event.to_lowercase()))
}

/// What runs before each Bash command: every hook file's text, trimmed, in order; `None` when
/// no hook left any.
pub fn script(home: &Path, session_id: &str) -> Option<String> {
    let mut files: Vec<(usize, usize, PathBuf)> = std::fs::read_dir(dir(home, session_id))
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (event, index) = name.strip_suffix(".sh")?.split_once("-hook-")?;
            let rank = EVENTS.iter().position(|e| *e == event)?;
            Some((rank, index.parse().ok()?, entry.path()))
        })
        .collect();
    files.sort();
    let parts: Vec<String> = files
        .iter()
        .filter_map(|(_, _, path)| std::fs::read_to_string(path).ok())
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_run_in_event_then_hook_order_and_others_are_ignored() {
        let home = tempfile::tempdir().unwrap();
        let at = |event, i| path(home.path(), "s1", event, i);
        std::fs::write(at("SessionStart", 10), "export B=2\n").unwrap();
        std::fs::write(at("SessionStart", 2), "export A=1\n").unwrap();
        std::fs::write(at("Setup", 0), "export S=0").unwrap();
        std::fs::write(at("SessionStart", 3), "  \n").unwrap();
        std::fs::write(dir(home.path(), "s1").join("notes.txt"), "ignored").unwrap();
        assert_eq!(
            script(home.path(), "s1").as_deref(),
            Some("export S=0\nexport A=1\nexport B=2")
        );
        assert_eq!(script(home.path(), "other"), None);
    }
}
