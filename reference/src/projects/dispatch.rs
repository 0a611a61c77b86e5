//! The five methods on the attached Project (seed 000 part B §10, §13–16), each starting from a
//! fresh detail (the doc list and the knowledge counters are a snapshot, not a lock). Results are
//! JSON objects whose keys and order are 2.1.235's; failures are the text the model is shown.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{json, Map, Value};

use super::api::{Api, ApiError};
use super::local_path;
use super::paths;
use crate::limits;

/// Where a call's downloads go: the session's tool-results folder.
pub struct Downloads {
    pub dir: PathBuf,
}

/// A text for the model on one line, without backticks that would break its Markdown.
pub fn safe_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_break = false;
    for c in s.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
            continue;
        }
        in_break = false;
        out.push(if c == '`' { '\'' } else { c });
    }
    out
}

fn api(e: ApiError) -> String {
    e.to_string()
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v[key].as_str()
}

/// The detail's lists: text docs and file uploads.
const DOCS: &str = "documents";
const UPLOADS: &str = "files";

fn entries<'a>(detail: &'a Value, list: &str) -> impl Iterator<Item = &'a Value> {
    detail[list].as_array().into_iter().flatten()
}

/// The paths a list holds, in its order.
fn names<'a>(detail: &'a Value, list: &str) -> impl Iterator<Item = &'a str> {
    entries(detail, list).filter_map(|d| text(d, "file_name"))
}

fn find<'a>(detail: &'a Value, list: &str, path: &str) -> Option<&'a Value> {
    entries(detail, list).find(|d| text(d, "file_name") == Some(path))
}

/// A path the Project has neither as a doc nor as an upload: the refusal lists what it has.
fn missing(detail: &Value, path: &str) -> String {
    let paths: Vec<String> = names(detail, DOCS)
        .chain(names(detail, UPLOADS))
        .map(safe_inline)
        .collect();
    let max = limits::PROJECTS_READ_MISSING_SUGGESTIONS_MAX.usize();
    let available = if paths.is_empty() {
        " The project has no docs or files.".to_owned()
    } else {
        let more = if paths.len() > max {
            format!(", \u{2026} and {} more", paths.len() - max)
        } else {
            String::new()
        };
        format!(
            " Available: {}{more}",
            paths[..paths.len().min(max)].join(", ")
        )
    };
    format!("No doc or file at \"{}\".{available}", safe_inline(path))
}

fn created_at(v: &Value) -> Value {
    v.get("created_at").cloned().unwrap_or(Value::Null)
}

/// Runs one method. `input` passed the schema and the tool's own checks.
pub async fn run(
    api: &Api,
    input: &Value,
    cwd: &Path,
    downloads: &Downloads,
) -> Result<Value, String> {
    let path = input["path"].as_str().unwrap_or_default();
    match input["method"].as_str().unwrap_or_default() {
        "project_info" => info(api).await,
        "project_read" => read(api, path, downloads).await,
        "project_search" => {
            let query = input["query"].as_str().unwrap_or_default();
            let n = input["n"]
                .as_u64()
                .unwrap_or(limits::PROJECTS_SEARCH_DEFAULT_N.get());
            search(api, query, n).await
        }
        "project_write" => write(api, input, cwd).await,
        "project_delete" => delete(api, path).await,
        other => Err(format!("unknown method {other}")),
    }
}

async fn info(api: &Api) -> Result<Value, String> {
    let d = api.detail().await.map_err(self::api)?;
    let docs: Vec<Value> = entries(&d, DOCS)
        .filter(|x| x["file_name"].is_string())
        .map(|x| json!({"path": x["file_name"], "created_at": created_at(x)}))
        .collect();
    let files: Vec<Value> = entries(&d, UPLOADS)
        .filter(|x| x["file_name"].is_string())
        .map(|x| json!({"path": x["file_name"], "file_kind": x["file_kind"], "created_at": created_at(x)}))
        .collect();
    let sync: Vec<Value> = entries(&d, "sync_sources")
        .map(|x| json!({"type": x["type"], "config": x["config"]}))
        .collect();
    Ok(json!({
        "method": "project_info",
        "name": d["name"],
        "description": text(&d, "description").unwrap_or_default(),
        "instructions": text(&d, "prompt_template").unwrap_or_default(),
        "docs": docs,
        "files": files,
        "sync_sources": sync,
        "knowledge": {
            "knowledge_size": d["knowledge_stats"]["knowledge_size"],
            "max_knowledge_size": d["knowledge_stats"]["max_knowledge_size"],
        },
    }))
}

async fn read(api: &Api, path: &str, downloads: &Downloads) -> Result<Value, String> {
    let detail = api.detail().await.map_err(self::api)?;
    if let Some(doc) = find(&detail, DOCS, path) {
        let id = text(doc, "uuid").unwrap_or_default();
        let answer = api.read_doc(id).await.map_err(self::api)?;
        let extra = json!({"created_at": created_at(&answer)});
        return inline_or_file(path, &answer, id, downloads, extra);
    }
    let upload = find(&detail, UPLOADS, path).ok_or_else(|| missing(&detail, path))?;
    let id = text(upload, "file_uuid").unwrap_or_default();
    if text(upload, "file_kind") == Some("document") {
        let answer = api.read_file(id).await.map_err(self::api)?;
        if text(&answer, "file_kind") == Some("document") {
            let extra =
                json!({"file_kind": answer["file_kind"], "created_at": created_at(&answer)});
            return inline_or_file(path, &answer, id, downloads, extra);
        }
    }
    download(api, path, id, downloads).await
}

/// The answer's text up to the inline cap comes back in the result; more is written to a 0600
/// file whose path comes back instead.
fn inline_or_file(
    path: &str,
    answer: &Value,
    id: &str,
    downloads: &Downloads,
    extra: Value,
) -> Result<Value, String> {
    let content = text(answer, "content").unwrap_or_default();
    let mut out = Map::new();
    out.insert("method".into(), json!("project_read"));
    out.insert("path".into(), json!(path));
    if content.len() <= limits::PROJECTS_READ_INLINE_MAX.usize() {
        out.insert("content".into(), json!(content));
    } else {
        let name: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let file = save_private(
            downloads,
            &format!("project-doc-{name}.txt"),
            content.as_bytes(),
        )?;
        out.insert("local_file".into(), json!(file));
    }
    if let Value::Object(extra) = extra {
        out.extend(extra);
    }
    Ok(Value::Object(out))
}

/// Writes a download readable by its owner only.
fn save_private(downloads: &Downloads, name: &str, bytes: &[u8]) -> Result<String, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::create_dir_all(&downloads.dir).map_err(|e| e.to_string())?;
    let file = downloads.dir.join(name);
    let mode = limits::PROJECTS_READ_DOWNLOAD_FILE_MODE.get() as u32;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&file)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| e.to_string())?;
    Ok(file.display().to_string())
}

/// A raw upload downloaded whole; a decoded length that disagrees with the reported size is
/// fetched once more in full, then refused.
async fn download(api: &Api, path: &str, id: &str, downloads: &Downloads) -> Result<Value, String> {
    let max = limits::PROJECTS_READ_RAW_MAX.get();
    let fetch = || async {
        let answer = api.read_file_raw(id).await.map_err(self::api)?;
        let size = answer["file_size_bytes"].as_u64().unwrap_or_default();
        if size > max {
            return Err(format!("project_read: \"{}\" is {size} bytes, above the {max}-byte limit for in-session downloads.", safe_inline(path)));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text(&answer, "content_base64").unwrap_or_default())
            .unwrap_or_default();
        Ok((answer, size, bytes))
    };
    let mut got = fetch().await?;
    for _ in 0..limits::PROJECTS_READ_RAW_SIZE_MISMATCH_RETRIES.get() {
        if got.2.len() as u64 == got.1 {
            break;
        }
        got = fetch().await?;
    }
    let (answer, size, bytes) = got;
    if bytes.len() as u64 != size {
        return Err("project_read: downloaded bytes do not match the reported file size (corrupt response, or the file is being modified concurrently \u{2014} retry if a save was just issued).".into());
    }
    let uuid = text(&answer, "uuid").unwrap_or_default();
    if uuid != id {
        return Err("project_read: server returned a different file.".into());
    }
    if !is_uuid(uuid) {
        return Err("project_read: server returned a malformed file id.".into());
    }
    let file_name = text(&answer, "file_name").unwrap_or_default();
    let file = save_private(
        downloads,
        &format!("project-file-{uuid}-{}", safe_file_name(file_name)),
        &bytes,
    )?;
    let kind = text(&answer, "file_kind").unwrap_or_default();
    Ok(json!({
        "method": "project_read",
        "path": path,
        "file_kind": answer["file_kind"],
        "local_file": file,
        "created_at": created_at(&answer),
        "notice": format!("\"{}\" is a {} upload with no text extract; its original bytes ({size}) were saved to local_file. Open it with file-appropriate tooling.", safe_inline(path), safe_inline(kind)),
    }))
}

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The last path segment with only safe characters, its last 64, no leading dots.
fn safe_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let safe: Vec<char> = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let tail: String = safe[safe
        .len()
        .saturating_sub(limits::PROJECTS_READ_RAW_FILENAME_TAIL.usize())..]
        .iter()
        .collect();
    let trimmed = tail.trim_start_matches('.');
    if trimmed.is_empty() {
        "file".into()
    } else {
        trimmed.to_owned()
    }
}

async fn search(api: &Api, query: &str, n: u64) -> Result<Value, String> {
    match api.search(query, n).await {
        Ok(answer) => Ok(json!({"method": "project_search", "rag": true, "hits": hits(&answer)})),
        // RAG refused: the doc list, and no hits made up from it.
        Err(e) if e.status() == Some(403) => {
            let detail = api.detail().await.map_err(self::api)?;
            let docs: Vec<&str> = names(&detail, DOCS).collect();
            Ok(json!({"method": "project_search", "rag": false, "docs": docs}))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Text and rich-content results as `{name, doc_uuid, text}`, fields the answer lacks left out.
fn hits(answer: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for key in ["text_results", "rich_content_results"] {
        for hit in answer[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h.is_object())
        {
            let mut h = Map::new();
            for (field, value) in [
                ("name", &hit["name"]),
                ("doc_uuid", &hit["doc_uuid"]),
                ("text", &hit["chunk"]["text"]),
            ] {
                if value.is_string() {
                    h.insert(field.into(), value.clone());
                }
            }
            out.push(Value::Object(h));
        }
    }
    out
}

async fn write(api: &Api, input: &Value, cwd: &Path) -> Result<Value, String> {
    let path = input["path"].as_str().unwrap_or_default();
    let local = input["local_path"].as_str();
    // The file is verified and read before anything is asked of the Project, as 2.1.235 does
    // (recorded: projects.local-path/swap): what uploads is what was verified, whatever the path
    // names by the time the detail answers.
    let (content, resolved) = match local {
        Some(l) => {
            let v = local_path::open_verified(cwd, l).map_err(|e| e.to_string())?;
            let resolved = v.resolved().display().to_string();
            (v.read_text().map_err(|e| e.to_string())?, Some(resolved))
        }
        None => (
            input["content"].as_str().unwrap_or_default().to_owned(),
            None,
        ),
    };
    let detail = api.detail().await.map_err(self::api)?;
    let existing: BTreeSet<String> = names(&detail, DOCS).map(str::to_owned).collect();
    let target = paths::write_path(path, &existing);
    let stats = &detail["knowledge_stats"];
    paths::check_budget(
        stats["knowledge_size"].as_u64().unwrap_or_default(),
        stats["max_knowledge_size"].as_u64().unwrap_or_default(),
        content.len(),
    )?;
    let current = find(&detail, DOCS, &target).and_then(|d| text(d, "uuid"));
    let written = match current {
        Some(id) => api.replace_doc(id, &target, &content).await,
        None => api.create_doc(&target, &content).await,
    }
    .map_err(self::api)?;
    let mut out = json!({
        "method": "project_write",
        "path": target,
        "doc_uuid": written["uuid"],
        "replaced": current.is_some(),
        "present_to_user": input["present_to_user"].as_bool().unwrap_or(false),
    });
    if let Some(resolved) = resolved {
        out["local_path"] = json!(resolved);
    }
    Ok(out)
}

async fn delete(api: &Api, path: &str) -> Result<Value, String> {
    let detail = api.detail().await.map_err(self::api)?;
    let Some(doc) = find(&detail, DOCS, path) else {
        if find(&detail, UPLOADS, path).is_some() {
            return Err(format!("\"{}\" is a file upload; project_delete only removes text docs. File uploads can be removed from the project in claude.ai.", safe_inline(path)));
        }
        return Err(missing(&detail, path));
    };
    api.delete_doc(text(doc, "uuid").unwrap_or_default())
        .await
        .map_err(self::api)?;
    Ok(json!({"method": "project_delete", "path": path, "deleted": true}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_keeps_one_line_and_no_backticks() {
        assert_eq!(safe_inline("a\r\n\nb`c`"), "a b'c'");
    }

    #[test]
    fn a_missing_path_lists_at_most_thirty_available() {
        let docs: Vec<Value> = (0..35)
            .map(|i| json!({"file_name": format!("d{i}.md")}))
            .collect();
        let e = missing(&json!({"documents": docs, "files": []}), "x.md");
        assert!(
            e.starts_with("No doc or file at \"x.md\". Available: d0.md, d1.md"),
            "{e}"
        );
        assert!(e.ends_with("d29.md, \u{2026} and 5 more"), "{e}");
        let e = missing(&json!({"documents": []}), "x\n`y`");
        assert_eq!(
            e,
            "No doc or file at \"x 'y'\". The project has no docs or files."
        );
    }

    #[test]
    fn downloaded_names_are_safe_and_short() {
        assert_eq!(safe_file_name("a/b\\..evil name?.png"), "evil_name_.png");
        assert_eq!(safe_file_name("..."), "file");
        let long = format!("{}.bin", "x".repeat(100));
        assert_eq!(safe_file_name(&long).len(), 64);
        assert!(is_uuid("f11e0000-0000-4000-8000-000000000002"));
        assert!(!is_uuid("../../etc/passwd"));
    }

    #[test]
    fn hits_keep_only_the_fields_present() {
        let answer = json!({"text_results": [{"name": "a.md", "chunk": {"text": "t"}}, 3], "rich_content_results": [{"doc_uuid": "u"}]});
        assert_eq!(
            hits(&answer),
            vec![
                json!({"name": "a.md", "text": "t"}),
                json!({"doc_uuid": "u"})
            ]
        );
    }
}
