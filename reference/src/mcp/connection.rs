//! JSON-RPC over one transport: ids, pending requests with their timeouts, the server's
//! notifications handed to the runtime, and the server's own requests (`roots/list`, `ping`)
//! answered here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::error::McpError;
use super::transport::Transport;

/// A message the transport delivers, or its end.
#[derive(Debug)]
pub enum Incoming {
    Message(Value),
    Closed(Close),
}

/// Why a transport ended.
#[derive(Debug, Clone)]
pub struct Close {
    pub why: String,
    /// The transport went away (a process exit, a dropped stream) and may be dialled again; a
    /// protocol violation (the line cap) is not retried, it would only repeat.
    pub may_reconnect: bool,
    /// Shown to the user: the line cap, whose error the seed spells out (it blames non-protocol
    /// stdout). Other ends show only as the server's status, as in 2.1.235.
    pub tell_user: bool,
}

/// What the runtime hears from a server outside request/response.
#[derive(Debug, Clone)]
pub enum ServerEvent {
    Notification(String),
    Closed(Close),
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, McpError>>>>>;

pub struct Connection {
    transport: Transport,
    pending: Pending,
    next_id: AtomicU64,
    closed: Arc<Mutex<Option<String>>>,
}

impl Connection {
    /// Starts dispatching `incoming`; notifications and the end go to `events`; the server's
    /// `roots/list` is answered with `roots`.
    pub fn new(
        transport: Transport,
        mut incoming: mpsc::UnboundedReceiver<Incoming>,
        events: mpsc::UnboundedSender<ServerEvent>,
        roots: Value,
    ) -> Arc<Self> {
        let conn = Arc::new(Connection {
            transport: transport.clone(),
            pending: Arc::default(),
            next_id: AtomicU64::new(0),
            closed: Arc::default(),
        });
        let pending = conn.pending.clone();
        let closed = conn.closed.clone();
        tokio::spawn(async move {
            while let Some(item) = incoming.recv().await {
                match item {
                    Incoming::Message(msg) => {
                        dispatch(msg, &pending, &events, &transport, &roots).await
                    }
                    Incoming::Closed(close) => {
                        *closed.lock().expect("not poisoned") = Some(close.why.clone());
                        for (_, tx) in pending.lock().expect("not poisoned").drain() {
                            let _ = tx.send(Err(McpError::Closed(close.why.clone())));
                        }
                        let _ = events.send(ServerEvent::Closed(close));
                        return;
                    }
                }
            }
        });
        conn
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Sends a request (`params` left out when null) and waits for its answer.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        self.request_with(method, &|_| params.clone(), timeout)
            .await
    }

    /// As [`Connection::request`], with params built from the request's JSON-RPC id.
    pub async fn request_with(
        &self,
        method: &str,
        params: &(dyn Fn(u64) -> Value + Send + Sync),
        timeout: Duration,
    ) -> Result<Value, McpError> {
        if let Some(why) = self.closed.lock().expect("not poisoned").clone() {
            return Err(McpError::Closed(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("not poisoned").insert(id, tx);
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        let params = params(id);
        if !params.is_null() {
            msg["params"] = params;
        }
        if let Err(e) = self.transport.send(&msg).await {
            self.pending.lock().expect("not poisoned").remove(&id);
            return Err(e);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(McpError::Closed("connection dropped".into())),
            Err(_) => {
                self.pending.lock().expect("not poisoned").remove(&id);
                let _ = self
                    .transport
                    .send(
                        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "timed out"}}),
                    )
                    .await;
                Err(McpError::Timeout {
                    method: method.into(),
                    after: timeout,
                })
            }
        }
    }

    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.transport.send(&msg).await
    }
}

async fn dispatch(
    msg: Value,
    pending: &Pending,
    events: &mpsc::UnboundedSender<ServerEvent>,
    transport: &Transport,
    roots: &Value,
) {
    let method = msg["method"].as_str().map(str::to_owned);
    match (method, msg.get("id")) {
        // A response to one of ours.
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else { return };
            let Some(tx) = pending.lock().expect("not poisoned").remove(&id) else {
                return;
            };
            let answer = match msg.get("error") {
                Some(e) => Err(McpError::Rpc {
                    code: e["code"].as_i64().unwrap_or(-32603),
                    message: e["message"].as_str().unwrap_or_default().to_owned(),
                }),
                None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        }
        // The server's own request.
        (Some(method), Some(id)) => {
            let answer = match method.as_str() {
                "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": roots}}),
                "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                // Nobody can answer a form in a non-interactive run.
                "elicitation/create" => {
                    json!({"jsonrpc": "2.0", "id": id, "result": {"action": "cancel"}})
                }
                _ => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": McpError::METHOD_NOT_FOUND, "message": "Method not found"}}),
            };
            let _ = transport.send(&answer).await;
        }
        (Some(method), None) => {
            let _ = events.send(ServerEvent::Notification(method));
        }
        (None, None) => {}
    }
}
