//! The two transports the reference speaks: a local process over stdio, and streamable HTTP.
//! Each delivers what the server sends as [`Incoming`] messages and ends with `Closed`.

mod http;
mod stdio;

use std::sync::Arc;

use serde_json::Value;

pub use http::{HttpSpec, HttpTransport};
pub use stdio::{parse_line, LineBuffer, StdioSpec, StdioTransport};

use super::error::McpError;

#[derive(Clone)]
pub enum Transport {
    Stdio(Arc<StdioTransport>),
    Http(Arc<HttpTransport>),
}

impl Transport {
    pub async fn send(&self, msg: &Value) -> Result<(), McpError> {
        match self {
            Transport::Stdio(t) => t.send(msg).await,
            Transport::Http(t) => t.send(msg).await,
        }
    }

    pub async fn shutdown(&self) {
        match self {
            Transport::Stdio(t) => t.shutdown().await,
            Transport::Http(t) => t.shutdown().await,
        }
    }
}
