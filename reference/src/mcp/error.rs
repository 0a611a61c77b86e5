//! What can go wrong between the client and one MCP server, classified the way the seed's failure
//! table needs: retryable or not, auth or not, closed or timed out.

use std::time::Duration;

#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// A JSON-RPC error answer.
    #[error("MCP error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error("MCP error -32001: Request timed out")]
    Timeout { method: String, after: Duration },
    /// The transport ended; pending requests fail with this (the text and code the MCP SDK uses,
    /// as 2.1.235 shows them).
    #[error("MCP error -32000: Connection closed")]
    Closed(String),
    /// An HTTP answer whose body broke off: the connection closed mid-answer. The text is the one
    /// 2.1.235's fetch gives its caller (recorded: mcp.reconnect).
    #[error("The socket connection was closed unexpectedly. For more information, pass `verbose: true` in the second argument to fetch()")]
    SocketClosed,
    /// An HTTP answer that is not a protocol answer.
    #[error("HTTP {status}: {text}")]
    Http { status: u16, text: String },
    /// The server asks for credentials (401/403).
    #[error("HTTP {status}: authentication required")]
    Auth {
        status: u16,
        www_authenticate: Option<String>,
    },
    /// HTTP 404 to a request carrying a session id: the server no longer knows the session.
    #[error("HTTP 404: session expired")]
    SessionExpired,
    #[error("{0}")]
    Other(String),
}

impl McpError {
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const REQUEST_TIMEOUT: i64 = -32001;

    /// Whether a `tools/list` may be tried again after a pause: transient server and transport
    /// failures are; 4xx, invalid params, method not found and a request timeout are not.
    pub fn retryable(&self) -> bool {
        match self {
            McpError::Rpc { code, .. } => !matches!(
                *code,
                Self::METHOD_NOT_FOUND
                    | Self::INVALID_PARAMS
                    | Self::INVALID_REQUEST
                    | Self::REQUEST_TIMEOUT
            ),
            McpError::Http { status, .. } => !(400..500).contains(status),
            McpError::Closed(_) | McpError::SocketClosed | McpError::Other(_) => true,
            McpError::Timeout { .. } | McpError::Auth { .. } | McpError::SessionExpired => false,
        }
    }
}
