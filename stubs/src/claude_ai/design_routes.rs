//! The ClaudeDesign routes of the mock claude.ai: `POST /v1/design/mcp` (initialize, tools/list,
//! tools/call, with an MCP session the server can forget), `GET/POST/DELETE /v1/design/consent`
//! and `GET/POST /v1/design/grants`, and DesignSync's RPCs (`design_sync.rs`), each request
//! recorded before its answer is sent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

use super::design::{
    error_body, put_token, render, scrub, scrub_str, Bearer, Body, DesignAnswer, DesignEndpoint,
    DesignMethod, DesignRequest, DesignScript,
};
use super::design_sync::{self, SyncProject};

/// The Design backend's state; clones share it.
#[derive(Clone)]
pub(super) struct DesignState {
    inner: Arc<Mutex<Runtime>>,
}

struct Runtime {
    script: DesignScript,
    /// The session `initialize` last handed out, while the server remembers it.
    session: Option<String>,
    /// Requests so far by JSON-RPC method (or endpoint) and tool, for `nth`.
    seen: HashMap<(String, Option<String>), usize>,
    consent: Option<bool>,
    grants: Vec<String>,
    /// DesignSync's projects as writes and deletes leave them.
    sync: Vec<SyncProject>,
    requests: Vec<DesignRequest>,
}

impl DesignState {
    pub(super) fn new(script: DesignScript) -> Self {
        DesignState {
            inner: Arc::new(Mutex::new(Runtime::new(script))),
        }
    }

    pub(super) fn replace(&self, script: DesignScript) {
        *self.inner.lock().expect("not poisoned") = Runtime::new(script);
    }

    pub(super) fn requests(&self) -> Vec<DesignRequest> {
        self.inner.lock().expect("not poisoned").requests.clone()
    }
}

impl Runtime {
    fn new(script: DesignScript) -> Self {
        Runtime {
            session: None,
            seen: HashMap::new(),
            consent: script.consent,
            grants: script.grants.clone(),
            sync: script.sync_project.clone(),
            requests: Vec::new(),
            script,
        }
    }

    /// Counts the request and says which occurrence it is.
    fn count(&mut self, key: &str, tool: Option<&str>) -> usize {
        let n = self
            .seen
            .entry((key.to_owned(), tool.map(str::to_owned)))
            .or_default();
        *n += 1;
        *n
    }

    /// Records the request with every copy of a token taken out.
    fn record(&mut self, mut request: DesignRequest, token: Option<&str>) {
        let secrets: Vec<&str> = token
            .into_iter()
            .chain(self.script.account_token())
            .collect();
        for value in [
            &mut request.id,
            &mut request.arguments,
            &mut request.params,
            &mut request.body,
        ]
        .into_iter()
        .flatten()
        {
            scrub(value, &secrets);
        }
        for text in [&mut request.session, &mut request.tool]
            .into_iter()
            .flatten()
        {
            *text = scrub_str(text, &secrets);
        }
        self.requests.push(request);
    }
}

/// The Design routes, for any router whose state yields the Design state.
pub(super) fn routes<S>() -> Router<S>
where
    DesignState: FromRef<S>,
    S: Clone + Send + Sync + 'static,
{
    Router::new()
        .route("/v1/design/mcp", post(mcp))
        .route(
            "/v1/design/consent",
            get(consent).post(consent).delete(consent),
        )
        .route("/v1/design/grants", get(grants).post(grants))
        .route(
            &format!("{}/{{rpc}}", design_sync::SERVICE_PATH),
            post(sync),
        )
}

/// An answer before it is rendered.
struct Reply {
    status: u16,
    body: Option<Body>,
    content_type: Option<String>,
    pad_to: Option<usize>,
    delay_ms: Option<u64>,
    session: Option<String>,
}

impl Reply {
    fn json(status: u16, body: Value) -> Self {
        Reply {
            status,
            body: Some(Body::Json(body)),
            content_type: None,
            pad_to: None,
            delay_ms: None,
            session: None,
        }
    }

    /// The scripted answer over this default; `wrap` makes a JSON body of a result or error.
    fn scripted(
        mut self,
        answer: Option<&DesignAnswer>,
        token: &str,
        wrap: impl Fn(&str, Value) -> Value,
    ) -> Self {
        let Some(a) = answer else { return self };
        let with_token = |v: &Value| {
            let mut v = v.clone();
            put_token(&mut v, token);
            v
        };
        self.status = a.status.unwrap_or(self.status);
        if let Some(body) = &a.body {
            self.body = Some(Body::Raw(body.replace("{access_token}", token)));
        } else if let Some(error) = &a.error {
            self.body = Some(Body::Json(wrap("error", with_token(error))));
        } else if let Some(result) = &a.result {
            self.body = Some(Body::Json(wrap("result", with_token(result))));
        } else if a.status.is_some() && !(200..300).contains(&self.status) {
            self.body = Some(Body::Json(error_body(self.status)));
        }
        self.content_type = a.content_type.clone();
        self.pad_to = a.pad_to;
        self.delay_ms = a.delay_ms;
        self
    }

    fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    async fn send(self) -> Response {
        if let Some(ms) = self.delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        let content_type = self
            .content_type
            .unwrap_or_else(|| "application/json".into());
        let sse = content_type.starts_with("text/event-stream");
        let text = self
            .body
            .map(|b| render(b, self.pad_to, sse))
            .unwrap_or_default();
        let mut response = Response::builder()
            .status(StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
            .header("content-type", content_type);
        if let Some(session) = self.session {
            response = response.header("mcp-session-id", session);
        }
        response.body(text.into()).expect("valid response")
    }
}

/// The bearer token and the request's headers as a record still to be completed.
fn seen(
    endpoint: DesignEndpoint,
    method: &Method,
    headers: &HeaderMap,
    account: Option<&str>,
) -> (Option<String>, DesignRequest) {
    let header = |k: &str| {
        headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let token = header("authorization")
        .and_then(|a| a.strip_prefix("Bearer ").map(str::to_owned))
        .filter(|t| !t.is_empty());
    let record = DesignRequest {
        endpoint,
        http_method: method.to_string(),
        rpc: None,
        id: None,
        tool: None,
        arguments: None,
        params: None,
        session: header("mcp-session-id"),
        accept: header("accept"),
        client: header("x-anthropic-client"),
        anthropic_version: header("anthropic-version"),
        platform: headers.contains_key("anthropic-client-platform"),
        content_type: header("content-type"),
        bearer: Bearer::classify(token.as_deref(), account),
        body: None,
        status: 0,
    };
    (token, record)
}

fn unauthorized() -> Reply {
    Reply::json(401, json!({"error": "unauthorized"}))
}

fn session_not_found() -> Reply {
    Reply::json(404, json!({"error": "session not found"}))
}

async fn mcp(State(state): State<DesignState>, headers: HeaderMap, body: Bytes) -> Response {
    let reply = answer_mcp(&state, &headers, &body);
    reply.send().await
}

fn answer_mcp(state: &DesignState, headers: &HeaderMap, body: &[u8]) -> Reply {
    let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let rpc = json["method"].as_str().map(str::to_owned);
    let id = json.get("id").cloned();
    let method = rpc.as_deref().and_then(DesignMethod::from_rpc);
    let tool = (method == Some(DesignMethod::ToolsCall))
        .then(|| json["params"]["name"].as_str().map(str::to_owned))
        .flatten();

    let mut rt = state.inner.lock().expect("not poisoned");
    let (token, mut record) = seen(
        DesignEndpoint::Mcp,
        &Method::POST,
        headers,
        rt.script.account_token(),
    );
    record.rpc = rpc.clone();
    record.id = id.clone();
    record.tool = tool.clone();
    match method {
        Some(DesignMethod::ToolsCall) => {
            record.arguments = json["params"].get("arguments").cloned()
        }
        Some(DesignMethod::Initialize) => record.params = json.get("params").cloned(),
        _ => {}
    }
    let key = rpc.as_deref().unwrap_or("");
    let nth = rt.count(key, None);
    let nth_of_tool = match &tool {
        Some(tool) => rt.count(key, Some(tool)),
        None => nth,
    };
    let answer = method.and_then(|m| {
        let answer = rt.script.find_answer(m, tool.as_deref(), nth, nth_of_tool);
        answer.cloned()
    });
    let envelope = |key: &str, value: Value| json!({"jsonrpc": "2.0", "id": id, key: value});

    let session_ok = rt.session.is_some() && rt.session == record.session;
    let reply = match (&token, method) {
        (None, _) => unauthorized(),
        (Some(_), _) if rpc.is_none() => Reply::json(
            400,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}}),
        ),
        (Some(_), Some(DesignMethod::ToolsList | DesignMethod::ToolsCall)) if !session_ok => {
            session_not_found()
        }
        (Some(_), Some(_)) if answer.as_ref().is_some_and(|a| a.forget_session) => {
            rt.session = None;
            Reply {
                delay_ms: answer.as_ref().and_then(|a| a.delay_ms),
                ..session_not_found()
            }
        }
        (Some(token), Some(method)) => {
            let result = match method {
                DesignMethod::Initialize => json!({
                    "protocolVersion": "2025-03-26",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "mock-claude-design", "version": "1"},
                }),
                DesignMethod::ToolsList => rt.script.tools_result(),
                _ => json!({"content": [{
                    "type": "text",
                    "text": format!("{} ok", tool.as_deref().unwrap_or("")),
                }]}),
            };
            let mut reply = Reply::json(200, envelope("result", result)).scripted(
                answer.as_ref(),
                token,
                envelope,
            );
            // A session exists once a handshake succeeds; numbering by initialize request keeps a
            // failed first attempt visible in the id of the retry.
            if method == DesignMethod::Initialize && reply.ok() {
                let session = rt.script.session_id(nth);
                rt.session = Some(session.clone());
                reply.session = Some(session);
            }
            reply
        }
        // Notifications need no answer; streamable HTTP acknowledges them with 202.
        (Some(_), None) if id.is_none() => Reply {
            body: None,
            ..Reply::json(202, Value::Null)
        },
        (Some(_), None) => Reply::json(
            200,
            envelope(
                "error",
                json!({"code": -32601, "message": format!("method not found: {}", rpc.as_deref().unwrap_or(""))}),
            ),
        ),
    };
    record.status = reply.status;
    rt.record(record, token.as_deref());
    reply
}

/// The JSON body of a REST request; a string when it is not JSON, nothing when empty.
fn rest_body(body: &[u8]) -> Option<Value> {
    if body.is_empty() {
        return None;
    }
    Some(serde_json::from_slice(body).unwrap_or_else(|_| json!(String::from_utf8_lossy(body))))
}

/// For consent and grants, a scripted `result` is the body itself and `error` its `error` field.
fn rest_wrap(key: &str, value: Value) -> Value {
    if key == "error" {
        json!({"error": value})
    } else {
        value
    }
}

/// A state change a REST answer makes, applied only when the final answer is 2xx.
type Effect = Box<dyn FnOnce(&mut Runtime) + Send>;

/// The consent and grants endpoints alike: recorded, the bearer required, the default answer
/// (`decide`, from the method and the JSON body) open to a scripted one, its effect applied on
/// success.
async fn rest(
    state: DesignState,
    endpoint: DesignEndpoint,
    scripted: DesignMethod,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
    decide: impl FnOnce(&Runtime, &Method, Option<&Value>) -> (Reply, Option<Effect>),
) -> Response {
    let reply = {
        let mut rt = state.inner.lock().expect("not poisoned");
        let (token, mut record) = seen(endpoint, &method, &headers, rt.script.account_token());
        record.body = rest_body(&body);
        let key = match endpoint {
            DesignEndpoint::Grants => "grants",
            _ => "consent",
        };
        let nth = rt.count(key, None);
        let answer = rt.script.find_answer(scripted, None, nth, nth).cloned();
        let reply = match &token {
            None => unauthorized(),
            Some(token) => {
                let (default, effect) = decide(&rt, &method, record.body.as_ref());
                let reply = default.scripted(answer.as_ref(), token, rest_wrap);
                if let (true, Some(effect)) = (reply.ok(), effect) {
                    effect(&mut rt);
                }
                reply
            }
        };
        record.status = reply.status;
        rt.record(record, token.as_deref());
        reply
    };
    reply.send().await
}

async fn consent(
    State(state): State<DesignState>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    rest(
        state,
        DesignEndpoint::Consent,
        DesignMethod::Consent,
        method,
        headers,
        body,
        |rt, method, _| match (method, rt.consent) {
            (&Method::GET, Some(b)) => {
                (Reply::json(200, json!({"agent_design_projects": b})), None)
            }
            (&Method::GET, None) => (Reply::json(404, error_body(404)), None),
            (m, _) => {
                let b = m == Method::POST;
                let effect: Effect = Box::new(move |rt| rt.consent = Some(b));
                (
                    Reply::json(200, json!({"agent_design_projects": b})),
                    Some(effect),
                )
            }
        },
    )
    .await
}

/// Every grant carries this `created_at`, a fixed instant so snapshots stay stable.
const GRANT_CREATED_AT: &str = "2026-11-30T12:00:00Z";

async fn grants(
    State(state): State<DesignState>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    rest(
        state,
        DesignEndpoint::Grants,
        DesignMethod::Grants,
        method,
        headers,
        body,
        |rt, method, body| {
            let project = body
                .and_then(|b| b["project_id"].as_str())
                .map(str::to_owned);
            match (method, project) {
                (&Method::GET, _) => {
                    let grants: Vec<Value> = rt
                        .grants
                        .iter()
                        .map(|p| json!({"project_id": p, "created_at": GRANT_CREATED_AT}))
                        .collect();
                    (Reply::json(200, json!({ "grants": grants })), None)
                }
                (_, None) => (
                    Reply::json(400, json!({"error": "project_id required"})),
                    None,
                ),
                (_, Some(p)) if rt.script.grant_ineligible.contains(&p) => {
                    (Reply::json(404, error_body(404)), None)
                }
                (m, Some(p)) => {
                    let reply = Reply::json(201, json!({ "project_id": p }));
                    let effect: Option<Effect> = (m == Method::POST).then(|| {
                        Box::new(move |rt: &mut Runtime| {
                            if !rt.grants.contains(&p) {
                                rt.grants.push(p);
                            }
                        }) as Effect
                    });
                    (reply, effect)
                }
            }
        },
    )
    .await
}

/// A DesignSync RPC: recorded with its body, the bearer required, the default answer from the
/// projects (`design_sync::answer`) open to a scripted `method = "sync"` one naming the RPC.
async fn sync(
    State(state): State<DesignState>,
    Path(rpc): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let reply = {
        let mut rt = state.inner.lock().expect("not poisoned");
        let (token, mut record) = seen(
            DesignEndpoint::Sync,
            &Method::POST,
            &headers,
            rt.script.account_token(),
        );
        record.rpc = Some(rpc.clone());
        record.body = rest_body(&body);
        let nth = rt.count("sync", Some(&rpc));
        let answer = rt
            .script
            .find_answer(DesignMethod::Sync, Some(&rpc), nth, nth)
            .cloned();
        let reply = match &token {
            None => unauthorized(),
            Some(token) => match answer {
                Some(a) => Reply::json(200, json!({})).scripted(Some(&a), token, rest_wrap),
                None => {
                    let request = record.body.clone().unwrap_or(Value::Null);
                    let (status, body) = design_sync::answer(&mut rt.sync, &rpc, &request);
                    Reply::json(status, body)
                }
            },
        };
        record.status = reply.status;
        rt.record(record, token.as_deref());
        reply
    };
    reply.send().await
}
