//! The transports the reference speaks: a local process over stdio, streamable HTTP, and an SDK
//! host's in-process server through the control channel. Each delivers what the server sends as
//! [`Incoming`] messages and ends with `Closed`.

mod http;
mod sdk;
mod stdio;

use std::sync::Arc;

use serde_json::Value;

pub use http::{HttpSpec, HttpTransport};
pub use sdk::{HostChannel, SdkSpec, SdkTransport};
pub use stdio::{parse_line, LineBuffer, StdioSpec, StdioTransport};

use super::error::McpError;

#[derive(Clone)]
pub enum Transport {
    Stdio(Arc<StdioTransport>),
    Http(Arc<HttpTransport>),
    Sdk(Arc<SdkTransport>),
}

impl Transport {
    pub async fn send(&self, msg: &Value) -> Result<(), McpError> {
        match self {
            Transport::Stdio(t) => t.send(msg).await,
            Transport::Http(t) => t.send(msg).await,
            Transport::Sdk(t) => t.send(msg).await,
        }
    }

    pub async fn shutdown(&self) {
        match self {
            Transport::Stdio(t) => t.shutdown().await,
            Transport::Http(t) => t.shutdown().await,
            Transport::Sdk(t) => t.shutdown().await,
        }
    }
}
