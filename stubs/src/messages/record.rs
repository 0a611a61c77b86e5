//! What the Messages stub keeps of each request.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// Whether a request was the agent's main loop (it consumed a scripted turn) or something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "why")]
pub enum RequestKind {
    /// A main-loop request; the number is 1-based among main-loop requests.
    Main(usize),
    /// A request of a second agent loop: its label and the 1-based request number within it.
    Agent { agent: String, n: usize },
    /// A Messages request outside the main loop (another model, `count_tokens`, a helper).
    Side(String),
    /// Any other HTTP request (e.g. `HEAD /api/hello`).
    Other,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    /// Milliseconds since the stub started.
    pub at_ms: u64,
    /// Milliseconds since the Unix epoch, to line requests up with the MCP servers' logs.
    pub at_unix_ms: u64,
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Lower-case header names; credentials redacted.
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or `null` when there was none or it was not JSON.
    pub body: Value,
    pub kind: RequestKind,
    /// The HTTP status the stub answered with.
    pub status: u16,
}

impl RecordedRequest {
    pub fn main_index(&self) -> Option<usize> {
        match self.kind {
            RequestKind::Main(n) => Some(n),
            _ => None,
        }
    }
}
