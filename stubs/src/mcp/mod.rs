//! Fake MCP servers with scriptable faults: the stdio server (`fake-mcp` binary) and the
//! streamable-HTTP server (in process, axum). Both play an [`McpScript`] through the same
//! [`Behaviour`] and log every message to a JSONL file the probe reads.

mod announce;
mod behaviour;
pub mod http;
mod script;
pub mod stdio;

pub use crate::jsonlog::{read as read_log, LogEntry, McpLog};
pub use behaviour::{Action, Behaviour};
pub use http::HttpMcpServer;
pub use script::{expand, Fault, Generation, McpScript, Place, RpcError, ToolSpec, Transport};
