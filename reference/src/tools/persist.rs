//! A tool result over its budget: the whole text saved to a file under the session's folder, the
//! model given a preview and the path, in the real 2.1.235's `<persisted-output>` wrapping.

use std::path::{Path, PathBuf};

use crate::environment::project_dir;
use crate::limits;

/// Saves `content` under the session's tool-results; the preview the model sees, and the file
/// (Bash names it in its structured result). `name` names the file (2.1.235 uses the tool_use id
/// for most tools, a random 9-char id for Bash's own output).
pub fn persist(
    home: &Path,
    cwd: &Path,
    session_id: &str,
    name: Option<&str>,
    content: &str,
) -> std::io::Result<(String, PathBuf)> {
    persist_as(home, cwd, session_id, name, content, "txt")
}

/// A result of content blocks, saved as their JSON (2.1.235 pretty-prints it to `<id>.json`).
pub fn persist_blocks(
    home: &Path,
    cwd: &Path,
    session_id: &str,
    name: &str,
    blocks: &serde_json::Value,
) -> std::io::Result<String> {
    let text = serde_json::to_string_pretty(blocks).unwrap_or_default();
    persist_as(home, cwd, session_id, Some(name), &text, "json").map(|(text, _)| text)
}

fn persist_as(
    home: &Path,
    cwd: &Path,
    session_id: &str,
    name: Option<&str>,
    content: &str,
    extension: &str,
) -> std::io::Result<(String, PathBuf)> {
    let dir = project_dir(home, cwd).join(session_id).join("tool-results");
    std::fs::create_dir_all(&dir)?;
    let id: String = match name {
        Some(n) => n.to_owned(),
        None => uuid::Uuid::new_v4()
            .simple()
            .to_string()
            .chars()
            .take(9)
            .collect(),
    };
    let path = dir.join(format!("{id}.{extension}"));
    std::fs::write(&path, content)?;
    // One decimal, without a trailing `.0` (JavaScript's number formatting: 39.1KB, 43KB).
    let kb = format!("{:.1}", content.len() as f64 / 1024.0);
    let kb = kb.strip_suffix(".0").unwrap_or(&kb);
    let text = format!(
        "<persisted-output>\nOutput too large ({kb}KB). Full output saved to: {}\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
        path.display(),
        preview(content)
    );
    Ok((text, path))
}

/// The first chars of the budget's preview, cut back to the last line end when there is one.
fn preview(content: &str) -> &str {
    let max = limits::TOOL_RESULT_PREVIEW.usize();
    let end = content
        .char_indices()
        .nth(max)
        .map_or(content.len(), |(i, _)| i);
    let head = &content[..end];
    // Back to a line end only when one falls in the window's second half: a long first line
    // (one JSON string, say) is previewed as far as the window goes.
    match head.rfind('\n') {
        Some(nl) if end < content.len() && nl > head.len() / 2 => &head[..nl],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_cuts_to_a_line_end_within_the_limit() {
        let lines: String = (1..5000).map(|n| format!("{n}\n")).collect();
        let p = preview(&lines);
        assert!(p.len() <= limits::TOOL_RESULT_PREVIEW.usize());
        assert!(lines.starts_with(p) && lines[p.len()..].starts_with('\n'));
        let flat = "x".repeat(40_000);
        assert_eq!(preview(&flat).len(), limits::TOOL_RESULT_PREVIEW.usize());
    }

    #[test]
    fn a_line_end_early_in_the_window_is_not_where_the_preview_stops() {
        let json = format!(
            "[\n  {{\n    \"text\": \"{}\"\n  }}\n]",
            "d".repeat(100_000)
        );
        assert_eq!(
            preview(&json).chars().count(),
            limits::TOOL_RESULT_PREVIEW.usize()
        );
    }

    #[test]
    fn persisted_text_names_size_and_file() {
        let home = tempfile::tempdir().unwrap();
        let text = persist(
            home.path(),
            Path::new("/w/p"),
            "s1",
            None,
            &"x".repeat(40_001),
        )
        .unwrap()
        .0;
        assert!(
            text.starts_with(
                "<persisted-output>\nOutput too large (39.1KB). Full output saved to: "
            ),
            "{text}"
        );
        assert!(text.contains("/.claude/projects/-w-p/s1/tool-results/"));
        assert!(text.ends_with("\n...\n</persisted-output>"));
        let whole = persist(
            home.path(),
            Path::new("/w/p"),
            "s1",
            Some("toolu_1"),
            &"y".repeat(44_032),
        )
        .unwrap()
        .0;
        assert!(whole.contains("Output too large (43KB)"), "{whole}");
        assert!(whole.contains("/tool-results/toolu_1.txt"), "{whole}");
    }
}
