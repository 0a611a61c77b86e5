//! The MCP client: configuration and policy (nothing is spawned or dialled before they pass),
//! transports, JSON-RPC, discovery and schema conversion, the runtime that owns catalog
//! generations. Contract: seed 002 and the `mcp.*` rows.

mod catalog;
pub mod config;
mod connection;
mod error;
mod resources;
mod result;
mod runtime;
mod transport;

pub use catalog::{wire_name, McpTool};
pub use config::{Candidates, Sources};
pub use error::McpError;
pub use resources::{Lookup, RESOURCE_NOT_FOUND};
pub use result::{map_error, map_result, CallOutput};
pub use runtime::{Budgets, McpRuntime, Status};
pub use transport::HostChannel;
/// The stdio transport's line reading, pure (for tests and the `jsonrpc_lines` fuzz target).
pub use transport::{parse_line as parse_stdio_line, LineBuffer as StdioLineBuffer};

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
        .map(|d| json!({"uri": file_uri(d)}))
        .collect::<Vec<_>>())
}

/// `file://` and the path, with bytes outside the unreserved set and `/` percent-encoded.
fn file_uri(path: &Path) -> String {
    const PATH: &percent_encoding::AsciiSet = &crate::net::UNRESERVED.remove(b'/');
    let path = path.as_os_str().as_encoded_bytes();
    format!("file://{}", percent_encoding::percent_encode(path, PATH))
}
