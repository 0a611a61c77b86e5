//! The streamable-HTTP transport of the fake MCP server, in process: `POST /mcp` carries JSON-RPC
//! (answered as JSON, or as an event stream when a notification rides along), `GET /mcp` is the
//! optional server stream (405 unless scripted; a scripted 200 is a stream that ends at once),
//! `DELETE /mcp` ends the session. Sessions are
//! `Mcp-Session-Id: sess-N`, issued by initialize; several can be live at once, as on a real
//! server (2.1.332 opens two fresh ones at once after a 404), and a forgotten session is every
//! session.

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::Value;

use super::announce::Announcer;
use super::behaviour::{Action, Behaviour};
use super::script::McpScript;
use crate::cues::Waiter;
use crate::jsonlog::McpLog;
use crate::loopback::Loopback;

const SESSION: &str = "mcp-session-id";

/// A running server. Dropping it stops it.
pub struct HttpMcpServer {
    server: Loopback,
}

struct Shared {
    log: McpLog,
    announcer: Announcer,
    state: Mutex<HttpState>,
}

struct HttpState {
    behaviour: Behaviour,
    sessions: std::collections::BTreeSet<String>,
    issued: usize,
}

impl HttpMcpServer {
    /// Binds 127.0.0.1 on an ephemeral port, logging to `log` and announcing what it sees
    /// through `waiter`.
    pub async fn start(script: McpScript, log: &Path, waiter: Waiter) -> anyhow::Result<Self> {
        let server = Loopback::serve(|addr| {
            let shared = Arc::new(Shared {
                log: McpLog::create(log)?,
                announcer: Announcer::new(waiter.clone(), script.name.clone()),
                state: Mutex::new(HttpState {
                    behaviour: Behaviour::new(script),
                    sessions: Default::default(),
                    issued: 0,
                }),
            });
            shared.log.note(format!("start http {addr}"));
            Ok(Router::new().fallback(handle).with_state(shared))
        })
        .await?;
        Ok(HttpMcpServer { server })
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.server.addr())
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = headers
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    // Whether a credential came, never its value.
    let auth = if headers.contains_key("authorization") {
        "present"
    } else {
        "absent"
    };
    shared.log.note(format!(
        "{method} {} session={} authorization={auth} accept={}",
        uri.path(),
        session.as_deref().unwrap_or("-"),
        headers
            .get("accept")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-")
    ));
    if uri.path() != "/mcp" {
        return status(&shared, StatusCode::NOT_FOUND, None);
    }
    match method {
        Method::POST => post(&shared, session, &body).await,
        Method::GET => {
            shared.announcer.received_get();
            let fault = shared
                .state
                .lock()
                .expect("not poisoned")
                .behaviour
                .fault_for("GET");
            match fault.and_then(|f| f.status) {
                // A server stream that ends at once: the client decides when to open it again.
                Some(200) => {
                    shared.log.note("GET stream opened and ended");
                    Response::builder()
                        .status(StatusCode::OK)
                        .header("content-type", "text/event-stream")
                        .body(Body::from(": stream ends\n\n"))
                        .expect("valid response")
                }
                Some(code) => status(
                    &shared,
                    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    None,
                ),
                None => status(&shared, StatusCode::METHOD_NOT_ALLOWED, None),
            }
        }
        Method::DELETE => {
            if let Some(id) = &session {
                shared
                    .state
                    .lock()
                    .expect("not poisoned")
                    .sessions
                    .remove(id);
            }
            status(&shared, StatusCode::OK, None)
        }
        _ => status(&shared, StatusCode::METHOD_NOT_ALLOWED, None),
    }
}

async fn post(shared: &Shared, session: Option<String>, body: &[u8]) -> Response {
    let msg: Value = match serde_json::from_slice(body) {
        Ok(m) => m,
        Err(e) => {
            shared.log.note(format!("malformed body ({e})"));
            return status(shared, StatusCode::BAD_REQUEST, None);
        }
    };
    shared.log.message("in", &msg);
    shared.announcer.received(&msg);
    let is_initialize = msg["method"] == "initialize";
    let actions = {
        let mut state = shared.state.lock().expect("not poisoned");
        if !is_initialize
            && session
                .as_ref()
                .is_some_and(|id| !state.sessions.contains(id))
        {
            drop(state);
            return status(shared, StatusCode::NOT_FOUND, None);
        }
        state.behaviour.on_message(&msg)
    };
    let mut sends = Vec::new();
    for action in actions {
        match action {
            Action::Send(v) => sends.push(v),
            Action::Await(after, what) => shared.announcer.wait(&after, &what).await,
            Action::Sleep(d) => tokio::time::sleep(d).await,
            Action::Never => std::future::pending::<()>().await,
            Action::Drop => {
                shared
                    .log
                    .note("drop: connection closed without a response");
                let broken = futures_util::stream::once(async {
                    Err::<Bytes, std::io::Error>(std::io::Error::other("scripted drop"))
                });
                return Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "application/json")
                    .body(Body::from_stream(broken))
                    .expect("valid response");
            }
            Action::Flood(n) => {
                shared.log.note(format!("flood {n} bytes as the body"));
                return Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "application/json")
                    .body(Body::from(vec![b'x'; n]))
                    .expect("valid response");
            }
            Action::Status {
                code,
                www_authenticate,
            } => {
                let code = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                return status(shared, code, www_authenticate);
            }
            Action::ForgetSession => {
                shared.state.lock().expect("not poisoned").sessions.clear();
                shared.log.note("session forgotten");
                return status(shared, StatusCode::NOT_FOUND, None);
            }
        }
    }
    if sends.is_empty() {
        return status(shared, StatusCode::ACCEPTED, None);
    }
    for s in &sends {
        shared.log.message("out", s);
        shared.announcer.sent(s);
    }
    let mut response = if sends.len() == 1 {
        Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "application/json")
            .body(Body::from(sends[0].to_string()))
    } else {
        let stream: String = sends
            .iter()
            .map(|s| format!("event: message\ndata: {s}\n\n"))
            .collect();
        Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/event-stream")
            .body(Body::from(stream))
    }
    .expect("valid response");
    if is_initialize && sends.iter().any(|s| s.get("result").is_some()) {
        let mut state = shared.state.lock().expect("not poisoned");
        state.issued += 1;
        let id = format!("sess-{}", state.issued);
        state.sessions.insert(id.clone());
        response
            .headers_mut()
            .insert(SESSION, HeaderValue::from_str(&id).expect("ascii"));
    }
    response
}

fn status(shared: &Shared, code: StatusCode, www_authenticate: Option<String>) -> Response {
    shared.log.note(format!("status {}", code.as_u16()));
    let mut builder = Response::builder().status(code);
    if let Some(w) = www_authenticate {
        builder = builder.header("www-authenticate", w);
    }
    builder.body(Body::empty()).expect("valid response")
}
