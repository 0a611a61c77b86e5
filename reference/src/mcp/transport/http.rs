//! Streamable HTTP: each client message is a POST; the answer is JSON or an event stream, both
//! delivered as incoming messages. The session id from initialize rides on every later request;
//! the optional GET stream is opened once and a 405 means the server has none. Bodies are read
//! under the 16 MiB guard.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::mpsc;

use super::super::connection::{Close, Incoming};
use super::super::error::McpError;
use crate::limits;

#[derive(Debug, Clone)]
pub struct HttpSpec {
    pub url: String,
    pub headers: BTreeMap<String, String>,
}

pub struct HttpTransport {
    spec: HttpSpec,
    client: reqwest::Client,
    session: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
    incoming: mpsc::UnboundedSender<Incoming>,
    closed: AtomicBool,
}

const SESSION: &str = "mcp-session-id";

impl HttpTransport {
    pub fn new(spec: &HttpSpec, incoming: mpsc::UnboundedSender<Incoming>) -> Self {
        HttpTransport {
            spec: spec.clone(),
            client: reqwest::Client::builder()
                .user_agent(format!("claude-code/{} (sdk-cli)", crate::CONTRACT_VERSION))
                .build()
                .unwrap_or_default(),
            session: Mutex::new(None),
            protocol_version: Mutex::new(None),
            incoming,
            closed: AtomicBool::new(false),
        }
    }

    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut r = self.client.request(method, &self.spec.url);
        for (k, v) in &self.spec.headers {
            r = r.header(k, v);
        }
        if let Some(s) = self.session.lock().expect("not poisoned").as_deref() {
            r = r.header(SESSION, s);
        }
        if let Some(v) = self
            .protocol_version
            .lock()
            .expect("not poisoned")
            .as_deref()
        {
            r = r.header("mcp-protocol-version", v);
        }
        r
    }

    /// Forget the session, so the next initialize starts a new one.
    pub fn reset_session(&self) {
        *self.session.lock().expect("not poisoned") = None;
        *self.protocol_version.lock().expect("not poisoned") = None;
    }

    pub fn set_protocol_version(&self, v: &str) {
        *self.protocol_version.lock().expect("not poisoned") = Some(v.to_owned());
    }

    pub async fn send(&self, msg: &Value) -> Result<(), McpError> {
        let had_session = self.session.lock().expect("not poisoned").is_some();
        let response = self
            .request(reqwest::Method::POST)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(msg.to_string())
            .send()
            .await
            .map_err(|e| match e.is_connect() {
                true => McpError::Closed(format!("fetch failed: {e}")),
                // Connected, then closed before any answer.
                false => McpError::SocketClosed,
            })?;
        let status = response.status().as_u16();
        if let Some(id) = response
            .headers()
            .get(SESSION)
            .and_then(|v| v.to_str().ok())
        {
            *self.session.lock().expect("not poisoned") = Some(id.to_owned());
        }
        match status {
            202 => return Ok(()),
            200..=299 => {}
            404 if had_session => return Err(McpError::SessionExpired),
            401 | 403 => {
                return Err(McpError::Auth {
                    status,
                    www_authenticate: response
                        .headers()
                        .get("www-authenticate")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned),
                })
            }
            _ => {
                let text = read_capped(response).await.unwrap_or_default();
                return Err(McpError::Http {
                    status,
                    text: String::from_utf8_lossy(&text).chars().take(200).collect(),
                });
            }
        }
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let read = if is_stream {
            self.read_events(response).await
        } else {
            self.read_json(response).await
        };
        // A body past the guard is not a protocol answer: the connection is closed for good.
        if let Err(McpError::Other(why)) = &read {
            if why.starts_with(OVERFLOW) {
                self.closed.store(true, Ordering::SeqCst);
                let _ = self.incoming.send(Incoming::Closed(Close {
                    why: why.clone(),
                    may_reconnect: false,
                    tell_user: false,
                }));
            }
        }
        read
    }

    async fn read_json(&self, response: reqwest::Response) -> Result<(), McpError> {
        let body = read_capped(response).await?;
        if body.is_empty() {
            return Ok(());
        }
        let value: Value = serde_json::from_slice(&body)
            .map_err(|e| McpError::Other(format!("invalid JSON-RPC body: {e}")))?;
        let messages = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        for m in messages {
            let _ = self.incoming.send(Incoming::Message(m));
        }
        Ok(())
    }

    /// An event stream: each `data:` payload is one message; an event longer than the guard ends
    /// the read.
    async fn read_events(&self, response: reqwest::Response) -> Result<(), McpError> {
        let cap = limits::MCP_HTTP_MAX_BODY_BYTES.usize();
        let mut stream = response.bytes_stream();
        let mut buf: Vec<u8> = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|_| McpError::SocketClosed)?;
            buf.extend_from_slice(&chunk);
            while let Some(end) = find_event_end(&buf) {
                let event: Vec<u8> = buf.drain(..end).collect();
                let data: String = String::from_utf8_lossy(&event)
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect::<Vec<_>>()
                    .join("\n");
                if let Ok(m) = serde_json::from_str::<Value>(&data) {
                    let _ = self.incoming.send(Incoming::Message(m));
                }
            }
            if buf.len() > cap {
                return Err(McpError::Other(body_cap_message(cap)));
            }
        }
        Ok(())
    }

    /// Opens the optional server stream; 405 (or any refusal) means there is none, which is not
    /// an error and not an expired session. A stream that ends or breaks is opened again after
    /// 1, 2 and 4 s; then the budget is spent and POSTs carry on alone.
    pub async fn open_server_stream(&self) {
        let backoff = [
            &limits::MCP_RECONNECT_BACKOFF_1,
            &limits::MCP_RECONNECT_BACKOFF_2,
            &limits::MCP_RECONNECT_BACKOFF_3,
        ];
        let mut attempt = 0;
        loop {
            if self.closed.load(Ordering::SeqCst) {
                return;
            }
            let opened = self
                .request(reqwest::Method::GET)
                .header("accept", "text/event-stream")
                .send()
                .await;
            match opened {
                Ok(response) if response.status().is_success() => {
                    let _ = self.read_events(response).await;
                }
                // Refused with a status: the server has no stream to offer.
                Ok(_) => return,
                // Not reachable: counts against the same budget.
                Err(_) => {}
            }
            let Some(delay) = backoff.get(attempt) else {
                return;
            };
            attempt += 1;
            tokio::time::sleep(Duration::from_millis(delay.get())).await;
        }
    }

    /// What a client does for a 401 without a user-supplied header: look for the OAuth
    /// metadata (protected resource, path-specific first; authorization server; OpenID), in the
    /// order 2.1.235 asks. Answers are not needed to classify the server as needing auth.
    pub async fn discover_oauth(&self) {
        let Ok(url) = reqwest::Url::parse(&self.spec.url) else {
            return;
        };
        let origin = url.origin().ascii_serialization();
        let path = url.path().trim_end_matches('/');
        for well_known in [
            format!("/.well-known/oauth-protected-resource{path}"),
            "/.well-known/oauth-protected-resource".into(),
            "/.well-known/oauth-authorization-server".into(),
            "/.well-known/openid-configuration".into(),
        ] {
            let _ = self
                .client
                .get(format!("{origin}{well_known}"))
                .header("accept", "application/json")
                .send()
                .await;
        }
    }

    /// Stops the server stream. No DELETE: 2.1.235 sends none (the seed is silent).
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

fn find_event_end(buf: &[u8]) -> Option<usize> {
    buf.windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| i + 2)
        .or_else(|| buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4))
}

async fn read_capped(response: reqwest::Response) -> Result<Vec<u8>, McpError> {
    let cap = limits::MCP_HTTP_MAX_BODY_BYTES.usize();
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| McpError::SocketClosed)?;
        body.extend_from_slice(&chunk);
        if body.len() > cap {
            return Err(McpError::Other(body_cap_message(cap)));
        }
    }
    Ok(body)
}

const OVERFLOW: &str = "HttpBodyOverflowError";

pub fn body_cap_message(cap: usize) -> String {
    format!("{OVERFLOW}: streamed >{}MB ({cap} bytes) without an SSE event boundary or a complete message", cap >> 20)
}
