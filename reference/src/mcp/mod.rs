//! The MCP client: configuration and policy (nothing is spawned or dialled before they pass),
//! transports, JSON-RPC, discovery and schema conversion, the runtime that owns catalog
//! generations. Contract: seed 002 and the `mcp.*` rows.

mod catalog;
pub mod config;
mod connection;
mod error;
mod runtime;
mod transport;

pub use catalog::{wire_name, McpTool};
pub use config::{Candidates, Sources};
pub use error::McpError;
pub use runtime::{Budgets, McpRuntime, Status};

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The roots the client answers `roots/list` with: cwd and the added directories, each once (by
/// normalized path), as `file://` URIs.
pub fn roots(cwd: &Path, add_dirs: &[PathBuf]) -> Value {
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in std::iter::once(cwd).chain(add_dirs.iter().map(PathBuf::as_path)) {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        if !seen.contains(&dir) {
            seen.push(dir);
        }
    }
    json!(seen
        .iter()
        .map(|d| json!({"uri": format!("file://{}", d.display())}))
        .collect::<Vec<_>>())
}

/// A `tools/call` result's content as tool_result blocks: text and images kept, embedded
/// resources as their text.
pub fn result_blocks(result: &Value) -> Value {
    let blocks: Vec<Value> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| match b["type"].as_str()? {
            "text" => Some(json!({"type": "text", "text": b["text"]})),
            "image" => Some(json!({"type": "image", "source": {"type": "base64", "media_type": b["mimeType"], "data": b["data"]}})),
            "resource" => Some(json!({"type": "text", "text": b["resource"]["text"]})),
            _ => None,
        })
        .collect();
    json!(blocks)
}

/// The tool_result text of a call that failed before a result came back.
pub fn call_error_text(e: &McpError) -> String {
    e.to_string()
}
