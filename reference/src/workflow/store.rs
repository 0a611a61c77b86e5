//! Where a run lives on disk, as 2.1.235 lays it out under the session's folder
//! (`~/.claude/projects/<cwd slug>/<session>/`): the persisted script
//! `workflows/scripts/<name>-<run id>.js`, the transcript dir `subagents/workflows/<run id>/`
//! (journal and agent transcripts), and the run's record `workflows/<run id>.json`. And the ids.

use std::path::{Path, PathBuf};

/// The session's folder.
pub fn session_dir(home: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    crate::environment::project_dir(home, cwd).join(session_id)
}

pub fn transcript_dir(session_dir: &Path, run_id: &str) -> PathBuf {
    session_dir.join("subagents").join("workflows").join(run_id)
}

pub fn script_path(session_dir: &Path, workflow_name: &str, run_id: &str) -> PathBuf {
    session_dir
        .join("workflows")
        .join("scripts")
        .join(format!("{}-{run_id}.js", file_stem(workflow_name)))
}

pub fn record_path(session_dir: &Path, run_id: &str) -> PathBuf {
    session_dir.join("workflows").join(format!("{run_id}.json"))
}

/// A workflow name as a file name: lower case, every run of other characters one `-`, none at
/// either end; `workflow` when nothing is left.
pub fn file_stem(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "workflow".into()
    } else {
        trimmed.into()
    }
}

/// A new run id: `wf_` and the first 12 characters of a UUID (`wf_00c5e46b-f50`), as 2.1.235
/// makes them; `resumeFromRunId` must match `^wf_[a-z0-9-]{6,}$`.
pub fn new_run_id() -> String {
    let uuid = uuid::Uuid::new_v4().to_string();
    format!("wf_{}", &uuid[..12])
}

/// A new task id: `w` and 8 characters of `[0-9a-z]`, as 2.1.235 names workflow tasks.
pub fn new_task_id() -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let tail: String = bytes[..8]
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect();
    format!("w{tail}")
}

/// Writes the script where the tool result says it is (an inline or named script; a scriptPath
/// is already on disk).
pub fn persist_script(path: &Path, script: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, script)
}

/// Writes `value` as pretty JSON, creating the folder (the task's output file, the run record).
pub fn write_json(path: &Path, value: &serde_json::Value) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_file_stems() {
        assert_eq!(file_stem("wfrun"), "wfrun");
        assert_eq!(file_stem("Find Flaky  Tests!"), "find-flaky-tests");
        assert_eq!(file_stem("--"), "workflow");
    }

    #[test]
    fn ids_have_2_1_235s_shapes() {
        let run = new_run_id();
        assert!(run.starts_with("wf_") && run.len() == 15, "{run}");
        assert_eq!(&run[11..12], "-");
        let task = new_task_id();
        assert!(task.starts_with('w') && task.len() == 9, "{task}");
        assert!(task[1..]
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()));
    }

    #[test]
    fn a_runs_files_sit_under_the_session_folder() {
        let session = session_dir(Path::new("/h"), Path::new("/tmp/w"), "s1");
        assert_eq!(session, Path::new("/h/.claude/projects/-tmp-w/s1"));
        assert_eq!(
            script_path(&session, "wfrun", "wf_1"),
            Path::new("/h/.claude/projects/-tmp-w/s1/workflows/scripts/wfrun-wf_1.js")
        );
        assert_eq!(
            transcript_dir(&session, "wf_1"),
            Path::new("/h/.claude/projects/-tmp-w/s1/subagents/workflows/wf_1")
        );
        assert_eq!(
            record_path(&session, "wf_1"),
            Path::new("/h/.claude/projects/-tmp-w/s1/workflows/wf_1.json")
        );
    }
}
