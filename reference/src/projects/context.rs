//! The attached Project in the first message's context (`# attachedProject`): fetched at start
//! with the same credential a call would use (so a scope-expanding refresh happens here,
//! before the first request, as in 2.1.235), given 5,000 ms, and left out on any failure. The
//! layout (name, description, instructions, the doc and file lists, synced sources) is 2.1.235's;
//! the guidance sentences are ours.

use serde_json::Value;
use std::path::Path;

use super::api::Api;
use super::auth;
use super::dispatch::safe_inline;
use crate::limits;

/// How a session starts, as far as the first context's builds go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    Fresh,
    /// `--continue`: the session is found after start-up.
    Continue,
    /// `--resume <id>`: the session is named before start-up ends.
    Resume,
}

/// The block as a start reads it. 2.1.235 keeps the first context per session id and builds
/// it, reading the detail each time, once per miss: its setup prefetch builds it under the id the
/// process starts with; its `-p` prefetch builds it again when `--resume` has switched to the
/// named id by then (`--continue` finds its id later); and a resume or continue clears every
/// session's context before the first request, which builds it once more. Recorded on 2.1.235
/// with `CLAUDE_CODE_DIAGNOSTICS_FILE` (`user_context_started`) beside the mock's detail reads: a
/// fresh start 1, `--continue` 2, `--resume <id>` 3. The last build is the one sent.
pub async fn at_start(home: &Path, project: &str, start: Start) -> Option<String> {
    let builds = match start {
        Start::Fresh => 1,
        Start::Continue => 2,
        Start::Resume => 3,
    };
    let mut last = None;
    for _ in 0..builds {
        last = block(home, project).await;
    }
    last
}

/// The block, or `None` when no Project is attached or it could not be had in time.
async fn block(home: &Path, project: &str) -> Option<String> {
    let fetch = async {
        let credential = auth::credential(home).await.ok()?;
        let api = Api::new(home, project, credential);
        api.detail().await.ok()
    };
    let detail = tokio::time::timeout(limits::PROJECTS_CONTEXT_FETCH_TIMEOUT.duration(), fetch)
        .await
        .ok()??;
    Some(render(&detail))
}

fn listed(lines: Vec<String>) -> String {
    let more = lines
        .len()
        .saturating_sub(limits::PROJECTS_CONTEXT_LIST_MAX.usize());
    let mut out = lines
        .into_iter()
        .take(limits::PROJECTS_CONTEXT_LIST_MAX.usize())
        .collect::<Vec<_>>()
        .join("\n");
    if more > 0 {
        out.push_str(&format!(
            "\n- \u{2026} and {more} more \u{2014} call `project_info` for the full list"
        ));
    }
    out
}

fn source(s: &Value) -> String {
    let kind = match s["type"].as_str().unwrap_or("source") {
        "gdrive" => "Google Drive".to_owned(),
        "github" => "GitHub".to_owned(),
        "outlin" => "Outline".to_owned(),
        "mcpres" => "MCP resource".to_owned(),
        other => safe_inline(other),
    };
    let config = safe_inline(&s["config"].to_string());
    let max = limits::PROJECTS_CONTEXT_CONFIG_CHARS.usize();
    let shown: String = if config.chars().count() > max {
        config.chars().take(max).chain(['\u{2026}']).collect()
    } else {
        config
    };
    format!("- {kind}: `{shown}`")
}

/// The block's text for a Project detail.
pub fn render(d: &Value) -> String {
    let names = |key: &str| -> Vec<&Value> {
        d[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|x| x["file_name"].is_string())
            .collect()
    };
    let docs = names("documents");
    let files = names("files");
    let sources: Vec<&Value> = d["sync_sources"].as_array().into_iter().flatten().collect();
    let mut out = vec![
        format!(
            "This session works in the claude.ai Project **\"{}\"**.",
            safe_inline(d["name"].as_str().unwrap_or_default())
        ),
        String::new(),
    ];
    for (heading, key) in [
        ("## Project description", "description"),
        ("## Project instructions", "prompt_template"),
    ] {
        if let Some(text) = d[key].as_str().filter(|t| !t.is_empty()) {
            out.extend([heading.to_owned(), text.to_owned(), String::new()]);
        }
    }
    out.push(format!("## Project docs ({})", docs.len()));
    let doc_lines: Vec<String> = docs
        .iter()
        .map(|x| {
            format!(
                "- `{}`",
                safe_inline(x["file_name"].as_str().unwrap_or_default())
            )
        })
        .collect();
    out.push(if doc_lines.is_empty() {
        "(none yet)".into()
    } else {
        listed(doc_lines)
    });
    out.push(String::new());
    if !files.is_empty() {
        out.push(format!("## Project files ({})", files.len()));
        out.push(listed(
            files
                .iter()
                .map(|x| {
                    format!(
                        "- `{}` ({})",
                        safe_inline(x["file_name"].as_str().unwrap_or_default()),
                        safe_inline(x["file_kind"].as_str().unwrap_or_default())
                    )
                })
                .collect(),
        ));
        out.push(String::new());
    }
    if !sources.is_empty() {
        out.push(format!("## Synced sources ({})", sources.len()));
        out.push(listed(sources.iter().map(|s| source(s)).collect()));
        out.push("These stay in sync by themselves; read them with the connector tool for their service.".into());
        out.push(String::new());
    }
    out.push("## When to use the Projects tool".into());
    out.extend(
        [
            "- Questions about a doc listed above: look it up with `project_search` or read it with `project_read`. These docs live in the Project, not on the local disk, so searching the filesystem will not find them.",
            "- Work worth keeping alongside these docs (a new doc, a revision, a decision the team will look for): save it with `project_write`. Everyone on the Project sees it in every Claude product, so save what belongs there, not every draft.",
            "- Changing a doc: `project_read` it, edit the text, and `project_write` the whole new version to the same path. There is no partial update.",
            "- A request that has nothing to do with the Project needs none of this.",
        ]
        .map(str::to_owned),
    );
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_layout_lists_what_the_project_holds() {
        let d = json!({
            "name": "Q4\nplan",
            "description": "The launch",
            "prompt_template": null,
            "documents": [{"file_name": "notes/a.md"}, {"file_name": null}],
            "files": [{"file_name": "spec.pdf", "file_kind": "document"}],
            "sync_sources": [{"type": "github", "config": {"repo": "a/b"}}],
        });
        let text = render(&d);
        assert!(text.starts_with("This session works in the claude.ai Project **\"Q4 plan\"**.\n\n## Project description\nThe launch\n\n## Project docs (1)\n- `notes/a.md`\n\n## Project files (1)\n- `spec.pdf` (document)\n\n## Synced sources (1)\n- GitHub: `{\"repo\":\"a/b\"}`\n"), "{text}");
        assert!(!text.contains("## Project instructions"));
    }

    #[test]
    fn long_lists_stop_at_fifty_and_an_empty_project_says_so() {
        let docs: Vec<Value> = (0..52)
            .map(|i| json!({"file_name": format!("d{i}")}))
            .collect();
        let text = render(&json!({"name": "p", "documents": docs}));
        assert!(
            text.contains(
                "- `d49`\n- \u{2026} and 2 more \u{2014} call `project_info` for the full list\n"
            ),
            "{text}"
        );
        assert!(render(&json!({"name": "p", "documents": []}))
            .contains("## Project docs (0)\n(none yet)\n"));
    }
}
