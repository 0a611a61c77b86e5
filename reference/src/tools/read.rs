//! Read: a text file with line numbers, by offset and limit; records read state for the gates.
//! Pictures and PDFs take their own path (`read_media`).

use serde_json::{json, Value};

use super::read_tokens::Capped;
use super::{missing_file, object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits;

pub struct Read;

const EMPTY_FILE: &str =
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

impl Tool for Read {
    fn name(&self) -> &'static str {
        "Read"
    }

    fn description(&self) -> &'static str {
        "Reads a file from the local filesystem and returns its lines, each prefixed with its 1-based \
         line number and a tab. Give an absolute file_path. offset (a line number) and limit (a count of \
         lines) select part of a long file. Reading a file is required before editing or overwriting it. \
         Pictures (PNG, JPEG, GIF, WebP) come back as images, PDFs as documents; pages picks at most \
         20 pages of a PDF, rendered as pictures."
    }

    fn input_schema(&self) -> Value {
        let max = 9_007_199_254_740_991_u64;
        object_schema(
            json!({
                "file_path": {"description": "Absolute path of the file to read.", "type": "string"},
                "offset": {"description": "Line number to start from; use with limit for long files.", "type": "integer", "minimum": 0, "maximum": max},
                "limit": {"description": "How many lines to read from offset.", "type": "integer", "exclusiveMinimum": 0, "maximum": max},
                "pages": {"description": "Page range of a PDF, e.g. \"1-5\".", "type": "string"},
            }),
            &["file_path"],
        )
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::ReadFile(ctx.resolve(input["file_path"].as_str().unwrap_or_default()))
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let path = ctx.resolve(input["file_path"].as_str().unwrap_or_default());
        super::read_media::validate(input, &path)
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let given = input["file_path"].as_str().unwrap_or_default();
        let path = ctx.resolve(given);
        if path.is_dir() {
            return Err(ToolError::plain(format!(
                "EISDIR: illegal operation on a directory, read '{}'",
                path.display()
            )));
        }
        if !path.exists() {
            return Err(ToolError::plain(missing_file(&ctx.cwd)));
        }
        if !super::notebook::is_notebook(&path) {
            if let Some(media) = super::read_media::media_of(&path) {
                return super::read_media::read(media, &path, input, ctx);
            }
        }
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let max = limits::READ_MAX_FILE_BYTES.get();
        if input.get("limit").is_none() && size > max {
            return Err(ToolError::plain(format!(
                "File content ({}KB) exceeds maximum allowed size ({}KB). Use offset and limit parameters to read specific \
                 portions of the file, or search for specific content instead of reading the whole file.",
                size / 1024,
                max / 1024
            )));
        }
        let bytes = std::fs::read(&path).map_err(|e| ToolError::wrapped(e.to_string()))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if super::notebook::is_notebook(&path) {
            if let Ok(nb) = serde_json::from_str::<Value>(&text) {
                ctx.files.record(&path, Some(text));
                let rendered = super::notebook::render(&nb);
                return Ok(ToolOutput {
                    content: rendered.clone(),
                    structured: super::notebook::structured(&path.display().to_string(), &nb),
                    is_error: None,
                    blocks: None,
                }
                .as_blocks(json!([{"text": rendered, "type": "text"}])));
            }
        }
        let partial = input.get("offset").is_some() || input.get("limit").is_some();
        if text.is_empty() {
            ctx.files.record(&path, Some(text));
            return Ok(ToolOutput {
                content: EMPTY_FILE.to_owned(),
                structured: file_json(given, "", 1, 0, 0),
                is_error: None,
                blocks: None,
            });
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let start = input["offset"].as_u64().unwrap_or(1).max(1) as usize;
        // No line cap and no line cut: the real 2.1.235 returns 2,500 lines and 3,000-char lines whole.
        let limit = input["limit"].as_u64().map_or(usize::MAX, |l| l as usize);
        if start > lines.len() {
            let offset = input["offset"].as_u64().unwrap_or_default();
            ctx.files.record(&path, None);
            return Ok(ToolOutput {
                content: format!(
                    "<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). The file has {} lines.</system-reminder>",
                    lines.len()
                ),
                structured: file_json(given, "", start, 0, lines.len()),
                is_error: None,
                blocks: None,
            });
        }
        let mut selected: Vec<&str> = lines.iter().skip(start - 1).take(limit).copied().collect();
        let asked_whole = start == 1 && input.get("limit").is_none();
        let raw = selected.join("\n");
        let count = |text: &str| count_tokens(ctx, text);
        let capped =
            super::read_tokens::cap(&raw, &path, asked_whole, count).map_err(ToolError::plain)?;
        let (excerpt, note) = match capped {
            Capped::Fits => (None, None),
            Capped::Page { lines, note } => {
                selected.truncate(lines);
                (None, Some(note))
            }
            Capped::Excerpt { chars, note } => {
                let cut: String = raw.chars().take(chars).collect();
                (Some(cut), Some(note))
            }
        };
        if let Some(cut) = &excerpt {
            selected = cut.split('\n').collect();
        }
        let content = selected
            .iter()
            .enumerate()
            .map(|(i, line)| format!("{}\t{line}", start + i))
            .collect::<Vec<_>>()
            .join("\n");
        let whole = !partial && note.is_none() && selected.len() == lines.len();
        ctx.files
            .record(&path, if whole { Some(text.clone()) } else { None });
        let mut structured = file_json(
            given,
            &selected.join("\n"),
            start,
            selected.len(),
            lines.len(),
        );
        // The note goes with this result, ahead of the round's own reminders.
        let content = match note {
            Some(note) => {
                structured["file"]["truncatedByTokenCap"] = json!(true);
                format!("{content}\n\n<system-reminder>\n{note}\n</system-reminder>")
            }
            None => content,
        };
        Ok(ToolOutput {
            structured,
            content,
            is_error: None,
            blocks: None,
        })
    }
}

/// The API's count of `text`, through the session's client; `None` where there is none.
fn count_tokens(ctx: &ToolContext, text: &str) -> Option<u64> {
    let agents = ctx.agents.as_ref()?;
    let config = &agents.config;
    let client = crate::api::Client::new(
        config.base_url.clone(),
        config.api_key.clone(),
        config.oauth_token.clone(),
        config.session_id.clone(),
    )
    .with_role(crate::api::wire::Role::Helper);
    agents
        .runtime
        .block_on(client.count_tokens(&config.model, text))
}

fn file_json(path: &str, content: &str, start: usize, num: usize, total: usize) -> Value {
    json!({"type": "text", "file": {"filePath": path, "content": content, "numLines": num, "startLine": start, "totalLines": total}})
}
