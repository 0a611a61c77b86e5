//! An SDK host's in-process MCP server (`type: "sdk"` in `--mcp-config`, or named in
//! `initialize`'s `sdkMcpServers`): no process and no socket, each JSON-RPC message goes to the
//! host through the control channel, which lives in a layer above; [`HostChannel`] is how it is
//! reached from here. Recorded on 2.1.235 (sdk.mcp-servers): every message, notifications too,
//! is an `mcp_message` control request, and a request's answer is the reply's `mcp_response`.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::super::connection::{Close, Incoming};
use super::super::error::McpError;

/// The control channel to the host, as the MCP client needs it.
pub trait HostChannel: Send + Sync {
    /// Sends `message` to the host's server `server`; returns the host's `mcp_response`, or
    /// its error text. Blocks until the host answers or goes away.
    fn mcp_message(&self, server: &str, message: &Value) -> Result<Value, String>;
}

/// Where an SDK server's messages go: the host's channel, once the session has one.
#[derive(Clone, Default)]
pub struct SdkSpec {
    pub channel: Option<Arc<dyn HostChannel>>,
}

impl std::fmt::Debug for SdkSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SdkSpec")
            .field("channel", &self.channel.is_some())
            .finish()
    }
}

pub struct SdkTransport {
    server: String,
    channel: Arc<dyn HostChannel>,
    incoming: mpsc::UnboundedSender<Incoming>,
}

impl SdkTransport {
    /// An error without a host to reach (a `-p` run whose config names an SDK server).
    pub fn new(
        server: &str,
        spec: &SdkSpec,
        incoming: mpsc::UnboundedSender<Incoming>,
    ) -> Result<Self, McpError> {
        let channel = spec.channel.clone().ok_or_else(|| {
            McpError::Closed(format!(
                "MCP server \"{server}\": an SDK server needs an SDK host"
            ))
        })?;
        Ok(SdkTransport {
            server: server.to_owned(),
            channel,
            incoming,
        })
    }

    /// Hands the message to the host and returns at once; a request's answer arrives later as
    /// an incoming message (a host's error as a JSON-RPC error for that id), so the connection's
    /// own timeouts apply as on any transport.
    pub async fn send(&self, msg: &Value) -> Result<(), McpError> {
        let (server, channel, incoming) = (
            self.server.clone(),
            self.channel.clone(),
            self.incoming.clone(),
        );
        let msg = msg.clone();
        tokio::task::spawn_blocking(move || {
            let answer = channel.mcp_message(&server, &msg);
            // A notification's reply (the SDKs send a placeholder) answers nothing.
            let Some(id) = msg.get("id").filter(|_| msg.get("method").is_some()) else {
                return;
            };
            let message = match answer {
                Ok(response) => response,
                Err(error) => json!({
                    "jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": error},
                }),
            };
            let _ = incoming.send(Incoming::Message(message));
        });
        Ok(())
    }

    /// Nothing to end: the server lives in the host.
    pub async fn shutdown(&self) {
        let _ = self.incoming.send(Incoming::Closed(Close {
            why: "closed".into(),
            may_reconnect: false,
            tell_user: false,
        }));
    }
}
