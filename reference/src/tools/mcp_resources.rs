//! The resource tools 2.1.235 adds once a connected MCP server declares resources:
//! ListMcpResourcesTool (every server's listing, or one's), ReadMcpResourceTool (`resources/read`,
//! a binary blob saved under the session's tool-results) and ReadMcpResourceDirTool (directory
//! listing, off in 2.1.235's build). Texts recorded on 2.1.235 (recon toolsearch14 exp.res-*).

use std::path::PathBuf;

use base64::Engine;
use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};
use crate::mcp::{Lookup, McpError, McpRuntime, RESOURCE_NOT_FOUND};

pub struct ListMcpResources;
pub struct ReadMcpResource;
pub struct ReadMcpResourceDir;

const NO_RESOURCES: &str =
    "No resources found. MCP servers may still provide tools even if they have no resources.";
const DIR_LISTING_OFF: &str = "Directory listing is not enabled in this build.";

/// A server the model named that cannot answer: an error, in 2.1.235's words.
fn lookup_error(e: Lookup, asked: &str) -> ToolError {
    ToolError::plain(match e {
        Lookup::NotFound { available } => format!(
            "Server \"{asked}\" not found. Available servers: {}",
            available.join(", ")
        ),
        Lookup::NotConnected(name) => format!("Server \"{name}\" is not connected"),
        Lookup::NoResources(name) => format!("Server \"{name}\" does not support resources"),
    })
}

fn runtime(ctx: &ToolContext) -> Result<McpRuntime, ToolError> {
    ctx.mcp
        .clone()
        .ok_or_else(|| ToolError::plain("No MCP servers are connected"))
}

fn server_uri_schema(uri: &str) -> Value {
    object_schema(
        json!({
            "server": {"description": "The MCP server's name.", "type": "string"},
            "uri": {"description": uri, "type": "string"},
        }),
        &["server", "uri"],
    )
}

impl Tool for ListMcpResources {
    fn name(&self) -> &'static str {
        "ListMcpResourcesTool"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ListMcpResources"]
    }

    fn description(&self) -> &'static str {
        "Lists the resources the connected MCP servers offer, each with the server it comes \
         from; name a server to list only its resources."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({"server": {"description": "Only this server's resources.", "type": "string"}}),
            &[],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::MCP_RESOURCE_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let mcp = runtime(ctx)?;
        let server = input["server"].as_str();
        let listed = super::block_on(mcp.list_resources(server))
            .map_err(|e| lookup_error(e, server.unwrap_or_default()))?;
        let content = if listed.is_empty() {
            NO_RESOURCES.to_owned()
        } else {
            Value::Array(listed.clone()).to_string()
        };
        Ok(output(content, Value::Array(listed)))
    }
}

impl Tool for ReadMcpResource {
    fn name(&self) -> &'static str {
        "ReadMcpResourceTool"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ReadMcpResource"]
    }

    fn description(&self) -> &'static str {
        "Reads one resource of an MCP server by its uri. Text comes back as is; binary content \
         is saved to a file whose path is given."
    }

    fn input_schema(&self) -> Value {
        server_uri_schema("The resource's uri.")
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::MCP_RESOURCE_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let mcp = runtime(ctx)?;
        let asked = input["server"].as_str().unwrap_or_default();
        let uri = input["uri"].as_str().unwrap_or_default();
        let (server, answer) =
            super::block_on(mcp.read_resource(asked, uri)).map_err(|e| lookup_error(e, asked))?;
        let result = match answer {
            Ok(result) => result,
            Err(McpError::Rpc { code, .. }) if code == McpError::METHOD_NOT_FOUND => {
                return Ok(failed(format!("Server \"{server}\" advertises resource support but does not implement resource reads.")));
            }
            Err(McpError::Rpc { code, .. })
                if code == RESOURCE_NOT_FOUND || code == McpError::INVALID_PARAMS =>
            {
                return Ok(failed(format!("Resource not found: {uri} \u{2014} it may have been deleted or the URI is stale. Re-run ListMcpResourcesTool to refresh.")));
            }
            Err(e) => return Err(ToolError::plain(e.to_string())),
        };
        let dir = crate::environment::project_dir(&ctx.home, &ctx.cwd)
            .join(&ctx.session_id)
            .join("tool-results");
        let contents: Vec<Value> = result["contents"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| content(c, i, &server, &dir))
            .collect();
        let structured = json!({"contents": contents});
        Ok(output(structured.to_string(), structured))
    }
}

impl Tool for ReadMcpResourceDir {
    fn name(&self) -> &'static str {
        "ReadMcpResourceDirTool"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ReadMcpResourceDir"]
    }

    fn description(&self) -> &'static str {
        "Lists the direct children of a directory resource of an MCP server that supports \
         directory listing."
    }

    fn input_schema(&self) -> Value {
        server_uri_schema("The directory resource's uri.")
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::MCP_RESOURCE_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let mcp = runtime(ctx)?;
        let asked = input["server"].as_str().unwrap_or_default();
        mcp.resource_server(asked)
            .map_err(|e| lookup_error(e, asked))?;
        // 2.1.235 ships with directory listing switched off: every call that names a
        // resource server ends here.
        Ok(output(
            DIR_LISTING_OFF.into(),
            json!({"resources": [], "error": DIR_LISTING_OFF}),
        ))
    }
}

fn output(content: String, structured: Value) -> ToolOutput {
    ToolOutput {
        content,
        structured,
        is_error: None,
        blocks: None,
    }
}

/// A read that found nothing to return: the reason as the result, not an error.
fn failed(reason: String) -> ToolOutput {
    output(reason.clone(), json!({"contents": [], "error": reason}))
}

/// One `contents` entry as the tool reports it: text as is, a blob saved to a file.
fn content(c: &Value, index: usize, server: &str, dir: &std::path::Path) -> Value {
    let uri = c["uri"].clone();
    let mut out = json!({"uri": uri});
    if let Some(m) = c.get("mimeType") {
        out["mimeType"] = m.clone();
    }
    if let Some(text) = c.get("text").filter(|t| t.is_string()) {
        out["text"] = text.clone();
        return out;
    }
    let Some(blob) = c["blob"].as_str() else {
        return out;
    };
    let mime = c["mimeType"].as_str();
    let bytes = decode_lenient(blob);
    match save_blob(dir, index, mime, &bytes) {
        Ok(path) => {
            let path = path.display().to_string();
            out["blobSavedTo"] = json!(path);
            out["text"] = json!(format!(
                "[Resource from {server} at {}] Binary content ({}, {}) saved to {path}",
                uri.as_str().unwrap_or_default(),
                mime.filter(|m| !m.is_empty()).unwrap_or("unknown type"),
                size_text(bytes.len() as u64)
            ));
        }
        Err(e) => {
            out["text"] = json!(format!("Binary content could not be saved to disk: {e}"));
        }
    }
    out
}

/// Base64 as Node's `Buffer.from(s, "base64")` reads it: the URL-safe alphabet too, other
/// characters and padding skipped, a dangling last character dropped.
fn decode_lenient(s: &str) -> Vec<u8> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let mut clean: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_'))
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    if clean.len() % 4 == 1 {
        clean.pop();
    }
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    engine.decode(clean).unwrap_or_default()
}

/// `mcp-resource-<ms>-<index>-<6 random>.<ext>` under the session's tool-results.
fn save_blob(
    dir: &std::path::Path,
    index: usize,
    mime: Option<&str>,
    bytes: &[u8],
) -> std::io::Result<PathBuf> {
    let max = limits::MCP_RESOURCE_BLOB_MAX_BYTES.get();
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!(
            "content is {} bytes, over the {max} byte persist limit",
            bytes.len()
        )));
    }
    std::fs::create_dir_all(dir)?;
    let ms = crate::vocab::now_ms();
    let tag: String = uuid::Uuid::new_v4().simple().to_string()[..6].to_owned();
    let path = dir.join(format!(
        "mcp-resource-{ms}-{index}-{tag}.{}",
        extension(mime)
    ));
    std::fs::write(&path, bytes)?;
    Ok(path)
}

/// The file extension 2.1.235 gives a MIME type (parameters ignored), `bin` for the rest.
fn extension(mime: Option<&str>) -> &'static str {
    let m = mime
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match m.as_str() {
        "application/pdf" => "pdf",
        "application/json" => "json",
        "text/csv" => "csv",
        "text/plain" => "txt",
        "text/html" => "html",
        "text/markdown" => "md",
        "application/zip" => "zip",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation" => "pptx",
        "application/msword" => "doc",
        "application/vnd.ms-excel" => "xls",
        "audio/mpeg" => "mp3",
        "audio/wav" => "wav",
        "audio/ogg" => "ogg",
        "video/mp4" => "mp4",
        "video/webm" => "webm",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        _ => "bin",
    }
}

/// A byte count as 2.1.235 writes it: bytes under 1 KiB, then KB / MB / GB with one decimal
/// (a trailing `.0` dropped).
fn size_text(bytes: u64) -> String {
    let one = |v: f64| {
        let s = format!("{v:.1}");
        s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
    };
    let kb = bytes as f64 / 1024.0;
    if kb < 1.0 {
        return format!("{bytes} bytes");
    }
    if kb < 1024.0 {
        return format!("{}KB", one(kb));
    }
    let mb = kb / 1024.0;
    if mb < 1024.0 {
        return format!("{}MB", one(mb));
    }
    format!("{}GB", one(mb / 1024.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_the_recorded_texts() {
        assert_eq!(size_text(70), "70 bytes");
        assert_eq!(size_text(1200), "1.2KB");
        assert_eq!(size_text(2048), "2KB");
        assert_eq!(size_text(5 * 1024 * 1024), "5MB");
    }

    #[test]
    fn extensions_follow_the_mime_type_and_default_to_bin() {
        assert_eq!(extension(Some("image/png")), "png");
        assert_eq!(extension(Some("Text/Plain; charset=utf-8")), "txt");
        assert_eq!(extension(None), "bin");
        assert_eq!(extension(Some("application/x-thing")), "bin");
    }

    #[test]
    fn base64_is_read_leniently() {
        assert_eq!(decode_lenient("AAECAw=="), vec![0, 1, 2, 3]);
        assert_eq!(decode_lenient("AAEC\nAw"), vec![0, 1, 2, 3]);
        assert_eq!(decode_lenient("AAECA"), vec![0, 1, 2]);
    }

    #[test]
    fn a_blob_is_saved_and_described_a_text_kept() {
        let dir = tempfile::tempdir().unwrap();
        let blob = content(
            &json!({"uri": "file:///d.bin", "blob": "AAECAw=="}),
            0,
            "lib",
            dir.path(),
        );
        let saved = blob["blobSavedTo"].as_str().unwrap();
        assert!(saved.ends_with(".bin"), "{saved}");
        assert_eq!(std::fs::read(saved).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(
            blob["text"],
            format!("[Resource from lib at file:///d.bin] Binary content (unknown type, 4 bytes) saved to {saved}")
        );
        assert!(blob.get("mimeType").is_none());
        let text = content(
            &json!({"uri": "u", "mimeType": "text/plain", "text": "T"}),
            0,
            "lib",
            dir.path(),
        );
        assert_eq!(
            text,
            json!({"uri": "u", "mimeType": "text/plain", "text": "T"})
        );
    }
}
