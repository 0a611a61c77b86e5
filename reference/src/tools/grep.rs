//! Grep: the command line the real binary hands its embedded rg, run in process by the same
//! engine as the `rg` mode, then shaped as 2.1.235 shapes each output mode (head_limit and
//! offset, paths relative to cwd, files by modification time, totals).

use std::ffi::OsString;
use std::path::Path;

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};
use crate::search;

pub struct Grep;

/// Version-control directories the search never enters.
const VCS_DIRS: &[&str] = &[".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];
const REJECTED: &str =
    "Search failed — ripgrep rejected the pattern, glob, or file type without searching:";

impl Tool for Grep {
    fn name(&self) -> &'static str {
        "Grep"
    }

    fn description(&self) -> &'static str {
        "Searches file contents with a regular expression (ripgrep syntax), honouring ignore files. \
         output_mode picks matching lines (content), the files that match (files_with_matches, the \
         default) or match counts (count). glob and type narrow the files; -A/-B/-C add context; \
         head_limit and offset page through long results."
    }

    fn input_schema(&self) -> Value {
        let n = |d: &str| json!({"description": d, "type": "number"});
        let b = |d: &str| json!({"description": d, "type": "boolean"});
        object_schema(
            json!({
                "pattern": {"description": "The regular expression to search for.", "type": "string"},
                "path": {"description": "File or directory to search; the working directory when absent.", "type": "string"},
                "glob": {"description": "Only files matching this glob (e.g. \"*.rs\").", "type": "string"},
                "output_mode": {"description": "content, files_with_matches (default) or count.", "type": "string", "enum": ["content", "files_with_matches", "count"]},
                "-B": n("Lines of context before each match (content mode)."),
                "-A": n("Lines of context after each match (content mode)."),
                "-C": n("Lines of context around each match (content mode)."),
                "context": n("Same as -C."),
                "-n": b("Show line numbers (content mode; on by default)."),
                "-i": b("Ignore case."),
                "-o": b("Print only the matching parts (content mode)."),
                "type": {"description": "Only files of this type (e.g. rust, py).", "type": "string"},
                "head_limit": n("At most this many lines or entries (default 250; 0 for all)."),
                "offset": n("Skip this many lines or entries first."),
                "multiline": b("Let patterns span lines."),
            }),
            &["pattern"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::GREP_RESULT_BUDGET)
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::ReadFile(ctx.resolve(input["path"].as_str().unwrap_or(".")))
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let given = input["path"].as_str();
        let target = given.map_or_else(|| ctx.cwd.clone(), |p| ctx.resolve(p));
        if !target.exists() {
            return Err(ToolError::wrapped(format!(
                "Path does not exist: {}. Note: your current working directory is {}.",
                given.unwrap_or_default(),
                ctx.cwd.display()
            )));
        }
        let mode = input["output_mode"]
            .as_str()
            .unwrap_or("files_with_matches");
        let argv = command_line(input, mode, &target);
        let lines = run(argv, &ctx.cwd)?;
        let head_limit = input["head_limit"].as_u64().map(|n| n as usize);
        let offset = input["offset"].as_u64().unwrap_or(0) as usize;
        let rel = |p: &str| relative(&ctx.cwd, p);
        Ok(match mode {
            "content" => {
                let (items, applied) = page(&lines, head_limit, offset);
                let shown: Vec<String> = items
                    .iter()
                    .map(|l| relative_prefix(l, ':', false, &rel))
                    .collect();
                let content = shown.join("\n");
                let mut text = if !content.is_empty() {
                    content.clone()
                } else if offset > 0 && !lines.is_empty() {
                    "No entries at this offset".into()
                } else {
                    "No matches found".into()
                };
                if let Some(p) = pagination(applied, offset) {
                    text.push_str(&format!("\n\n[Showing results with pagination = {p}]"));
                }
                let mut structured = json!({"mode": "content", "numFiles": 0, "filenames": [], "content": content,
                    "numLines": shown.len(), "totalLines": lines.len()});
                extras(&mut structured, applied, offset);
                output(text, structured)
            }
            "count" => {
                let (items, applied) = page(&lines, head_limit, offset);
                let shown: Vec<String> = items
                    .iter()
                    .map(|l| relative_prefix(l, ':', true, &rel))
                    .collect();
                let (mut matches, mut files) = (0u64, 0u64);
                for l in &lines {
                    if let Some(n) = l.rsplit_once(':').and_then(|(_, n)| n.parse::<u64>().ok()) {
                        matches += n;
                        files += 1;
                    }
                }
                let content = shown.join("\n");
                let head = if !content.is_empty() {
                    content.clone()
                } else if matches > 0 {
                    "No entries at this offset".into()
                } else {
                    "No matches found".into()
                };
                let text = format!(
                    "{head}\n\nFound {matches} total {} across {files} {}.{}",
                    if matches == 1 {
                        "occurrence"
                    } else {
                        "occurrences"
                    },
                    if files == 1 { "file" } else { "files" },
                    pagination(applied, offset)
                        .map_or(String::new(), |p| format!(" with pagination = {p}"))
                );
                let mut structured = json!({"mode": "count", "numFiles": files, "filenames": [], "content": content, "numMatches": matches});
                extras(&mut structured, applied, offset);
                output(text, structured)
            }
            _ => {
                let mut files: Vec<(String, Option<std::time::SystemTime>)> = lines
                    .iter()
                    .map(|f| {
                        (
                            f.clone(),
                            std::fs::metadata(f).and_then(|m| m.modified()).ok(),
                        )
                    })
                    .collect();
                // Newest first; ties by name.
                files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                let names: Vec<String> = files.into_iter().map(|(f, _)| f).collect();
                let (items, applied) = page(&names, head_limit, offset);
                let shown: Vec<String> = items.iter().map(|f| rel(f)).collect();
                let p = pagination(applied, offset);
                let text = if shown.is_empty() {
                    match (&p, offset > 0 && !names.is_empty()) {
                        (Some(p), true) => format!(
                            "No entries at this offset. [Showing results with pagination = {p}]"
                        ),
                        _ => "No files found".into(),
                    }
                } else {
                    format!(
                        "Found {} {}{}\n{}",
                        shown.len(),
                        if shown.len() == 1 { "file" } else { "files" },
                        p.map_or(String::new(), |p| format!(" {p}")),
                        shown.join("\n")
                    )
                };
                let mut structured = json!({"mode": "files_with_matches", "filenames": shown, "numFiles": shown.len(), "totalFiles": names.len()});
                extras(&mut structured, applied, offset);
                output(text, structured)
            }
        })
    }
}

/// The rg arguments 2.1.235 builds for this input, in its order.
fn command_line(input: &Value, mode: &str, target: &Path) -> Vec<OsString> {
    let mut a: Vec<String> = vec!["--hidden".into()];
    for dir in VCS_DIRS {
        a.extend(["--glob".into(), format!("!{dir}")]);
    }
    a.extend([
        "--max-columns".into(),
        limits::GREP_MAX_COLUMNS.get().to_string(),
    ]);
    if input["multiline"] == true {
        a.extend(["-U".into(), "--multiline-dotall".into()]);
    }
    if input["-i"] == true {
        a.push("-i".into());
    }
    match mode {
        "files_with_matches" => a.push("-l".into()),
        "count" => a.extend(["-c".into(), "-H".into()]),
        _ => {}
    }
    if mode == "content" {
        if input["-n"] != false {
            a.push("-n".into());
        }
        if input["-o"] == true {
            a.push("-o".into());
        }
        let num = |k: &str| input[k].as_f64().map(|n| (n as u64).to_string());
        if let Some(c) = num("context").or_else(|| num("-C")) {
            a.extend(["-C".into(), c]);
        } else {
            if let Some(b) = num("-B") {
                a.extend(["-B".into(), b]);
            }
            if let Some(n) = num("-A") {
                a.extend(["-A".into(), n]);
            }
        }
    }
    let pattern = input["pattern"].as_str().unwrap_or_default();
    if pattern.starts_with('-') {
        a.extend(["-e".into(), pattern.into()]);
    } else {
        a.push(pattern.into());
    }
    if let Some(t) = input["type"].as_str() {
        a.extend(["--type".into(), t.into()]);
    }
    if let Some(globs) = input["glob"].as_str() {
        for g in split_globs(globs) {
            a.extend(["--glob".into(), g]);
        }
    }
    let mut out: Vec<OsString> = a.into_iter().map(OsString::from).collect();
    out.push(target.as_os_str().to_owned());
    out
}

/// Whitespace separates globs; a glob without braces may also list several with commas.
fn split_globs(globs: &str) -> Vec<String> {
    let mut out = Vec::new();
    for g in globs.split_whitespace() {
        if g.contains('{') && g.contains('}') {
            out.push(g.to_owned());
        } else {
            out.extend(g.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
        }
    }
    out
}

/// Runs the command line in process; its output lines, or the rejection the model sees.
pub(super) fn run(argv: Vec<OsString>, cwd: &Path) -> Result<Vec<String>, ToolError> {
    let rejected = |e: &dyn std::fmt::Display| ToolError::plain(format!("{REJECTED}\nrg: {e}"));
    let mut config = search::rg::parse_search(argv, cwd).map_err(|e| rejected(&e))?;
    // One thread, files in path order: a deterministic member of the orders ripgrep may print.
    if !config.sort_by_modified {
        config.sort_by_path = true;
    }
    let out = search::Capped::new(
        limits::GREP_RUNNER_MAX_BUFFER.usize(),
        limits::GREP_RUNNER_DEADLINE.duration(),
    );
    let (outcome, out) = search::search(&config, out).map_err(|e| rejected(&format!("{e:#}")))?;
    if out.timed_out() {
        return Err(ToolError::plain(format!(
            "Search timed out after {}s. Narrow the path or the pattern and try again.",
            limits::GREP_RUNNER_DEADLINE.duration().as_secs()
        )));
    }
    let _ = outcome;
    let text = String::from_utf8_lossy(&out.into_bytes()).into_owned();
    Ok(text
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

fn page<T: Clone>(
    items: &[T],
    head_limit: Option<usize>,
    offset: usize,
) -> (Vec<T>, Option<usize>) {
    if head_limit == Some(0) {
        return (items.iter().skip(offset).cloned().collect(), None);
    }
    let limit = head_limit.unwrap_or(limits::GREP_DEFAULT_HEAD_LIMIT.usize());
    let rest = items.len().saturating_sub(offset);
    let taken = items.iter().skip(offset).take(limit).cloned().collect();
    (taken, (rest > limit).then_some(limit))
}

fn pagination(limit: Option<usize>, offset: usize) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(l) = limit {
        parts.push(format!("limit: {l}"));
    }
    if offset > 0 {
        parts.push(format!("offset: {offset}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn extras(structured: &mut Value, applied: Option<usize>, offset: usize) {
    if let Some(l) = applied {
        structured["appliedLimit"] = json!(l);
    }
    if offset > 0 {
        structured["appliedOffset"] = json!(offset);
    }
}

/// A path under cwd as a relative path; anything else as it is.
pub(super) fn relative(cwd: &Path, path: &str) -> String {
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.to_owned(),
    }
}

/// `path:rest` with its path made relative (`last`: split at the last colon, for counts).
fn relative_prefix(line: &str, sep: char, last: bool, rel: &dyn Fn(&str) -> String) -> String {
    let at = if last {
        line.rfind(sep)
    } else {
        line.find(sep)
    };
    match at {
        Some(i) if i > 0 => format!("{}{}", rel(&line[..i]), &line[i..]),
        _ => line.to_owned(),
    }
}

fn output(text: String, structured: Value) -> ToolOutput {
    ToolOutput {
        content: text,
        structured,
        is_error: None,
        blocks: None,
    }
}
