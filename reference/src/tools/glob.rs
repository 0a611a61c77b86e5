//! Glob: `rg --files` with the pattern as a glob, oldest first, ignore files not honoured and
//! hidden files included (2.1.235's defaults), at most 100 paths a page.

use std::ffi::OsString;

use serde_json::{json, Value};

use super::grep::{relative, run};
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};

pub struct Glob;

impl Tool for Glob {
    fn name(&self) -> &'static str {
        "Glob"
    }

    fn description(&self) -> &'static str {
        "Finds files by name with a glob pattern such as \"**/*.rs\" or \"src/*.toml\", searching the \
         working directory or the given path. Paths come back oldest first, at most 100 of them."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "pattern": {"description": "The glob to match file paths against.", "type": "string"},
                "path": {"description": "Directory to search; leave it out for the working directory.", "type": "string"},
            }),
            &["pattern"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::GLOB_RESULT_BUDGET)
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::ReadFile(ctx.resolve(input["path"].as_str().unwrap_or(".")))
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let mut pattern = input["pattern"].as_str().unwrap_or_default().to_owned();
        let given = input["path"].as_str();
        let mut dir = given.map_or_else(|| ctx.cwd.clone(), |p| ctx.resolve(p));
        if let Some(p) = given {
            if !dir.exists() {
                return Err(ToolError::wrapped(format!(
                    "Directory does not exist: {p}. Note: your current working directory is {}.",
                    ctx.cwd.display()
                )));
            }
            if !dir.is_dir() {
                return Err(ToolError::wrapped(format!("Path is not a directory: {p}")));
            }
        }
        // An absolute pattern searches from its fixed leading directories.
        if pattern.starts_with('/') {
            let fixed: Vec<&str> = pattern
                .split('/')
                .take_while(|part| !part.contains(['*', '?', '[', '{']))
                .collect();
            let base = fixed.join("/");
            if !base.is_empty() && std::path::Path::new(&base).is_dir() {
                dir = base.clone().into();
                pattern = pattern[base.len()..].trim_start_matches('/').to_owned();
            }
        }
        let argv: Vec<OsString> = [
            "--files",
            "--glob",
            &pattern,
            "--sort=modified",
            "--no-ignore",
            "--hidden",
        ]
        .into_iter()
        .map(OsString::from)
        .chain(std::iter::once(dir.clone().into_os_string()))
        .collect();
        let files: Vec<String> = run(argv, &ctx.cwd)?
            .into_iter()
            .map(|f| relative(&ctx.cwd, &f))
            .collect();
        let limit = limits::GLOB_MAX_RESULTS.usize();
        let shown: Vec<String> = files.iter().take(limit).cloned().collect();
        let truncated = files.len() > limit;
        let mut text = if shown.is_empty() {
            "No files found".to_owned()
        } else {
            shown.join("\n")
        };
        if truncated {
            text.push_str(&format!(
                "\n(Showing {} of {} matching files; {} more are not listed. Narrow the pattern or path to see the rest.)",
                shown.len(),
                files.len(),
                files.len() - shown.len()
            ));
        }
        Ok(ToolOutput {
            content: text,
            structured: json!({"filenames": shown, "durationMs": 0, "numFiles": shown.len(),
                "truncated": truncated, "totalMatches": files.len(), "countIsComplete": true}),
            is_error: None,
            blocks: None,
        })
    }
}
