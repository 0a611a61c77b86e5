//! The axum server behind the scripted Messages API.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::Value;

use crate::loopback::Loopback;

use super::record::{RecordedRequest, RequestKind};
use super::script::{Split, Turn};
use super::sse::{encode_turn, split_chunks};

/// What one stub instance plays.
#[derive(Debug, Clone)]
pub struct StubConfig {
    /// The model the target was started with; Messages requests for another model are helpers.
    pub main_model: String,
    pub turns: Vec<Turn>,
    pub split: Split,
}

/// A running stub. Dropping it stops the server.
pub struct MessagesStub {
    server: Loopback,
    shared: Arc<Shared>,
    app: Router,
}

struct Shared {
    config: StubConfig,
    started: Instant,
    state: Mutex<StubState>,
}

#[derive(Default)]
struct StubState {
    turns: VecDeque<Turn>,
    main_requests: usize,
    exhausted_at: Option<usize>,
    requests: Vec<RecordedRequest>,
}

impl MessagesStub {
    /// Binds 127.0.0.1 on an ephemeral port and serves until dropped.
    pub async fn start(config: StubConfig) -> anyhow::Result<Self> {
        Self::start_with(config, Router::new()).await
    }

    /// As [`start`](Self::start), with `routes` (the mock claude.ai's) served on the same port
    /// ahead of the Messages API: a target sends uploads to its `ANTHROPIC_BASE_URL`.
    pub async fn start_with(config: StubConfig, routes: Router) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        Self::start_on(listener, config, routes)
    }

    /// As [`start_with`](Self::start_with), on a listener bound inside an isolated network.
    pub fn start_on(
        listener: tokio::net::TcpListener,
        config: StubConfig,
        routes: Router,
    ) -> anyhow::Result<Self> {
        let state = StubState {
            turns: config.turns.iter().cloned().collect(),
            ..Default::default()
        };
        let shared = Arc::new(Shared {
            config,
            started: Instant::now(),
            state: Mutex::new(state),
        });
        let app = routes.merge(
            Router::new()
                .fallback(handle)
                // Long conversations exceed axum's 2 MiB default; the stub must never be the limit.
                .layer(DefaultBodyLimit::disable())
                .with_state(shared.clone()),
        );
        let server = Loopback::serve_on(listener, |_| Ok(app.clone()))?;
        Ok(Self {
            server,
            shared,
            app,
        })
    }

    /// The stub's routes (Messages and whatever was merged), to serve on a second listener too:
    /// an isolated run's `api.anthropic.com`. Both share one state.
    pub fn app(&self) -> Router {
        self.app.clone()
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.state.lock().unwrap().requests.clone()
    }

    /// The 1-based main-loop request number that found the script exhausted, if any.
    pub fn exhausted_at(&self) -> Option<usize> {
        self.shared.state.lock().unwrap().exhausted_at
    }

    /// Scripted turns not yet played.
    pub fn turns_left(&self) -> usize {
        self.shared.state.lock().unwrap().turns.len()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (response, delay) = respond(&shared, method, uri, headers, body);
    if let Some(ms) = delay {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    response
}

/// Records the request and picks its answer, with the scripted delay before sending it.
fn respond(
    shared: &Shared,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (Response, Option<u64>) {
    let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let path = uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/")
        .to_owned();
    let header_map: BTreeMap<String, String> = headers
        .iter()
        .map(|(k, v)| {
            let name = k.as_str().to_ascii_lowercase();
            let value = crate::redact::header_value(&name, v.to_str().unwrap_or("<non-utf8>"));
            (name, value)
        })
        .collect();

    let mut delay = None;
    let mut state = shared.state.lock().unwrap();
    let kind = classify(&method, uri.path(), &json, &shared.config.main_model);
    let (kind, response) = match kind {
        Classified::Main => {
            state.main_requests += 1;
            let n = state.main_requests;
            let response = match state.turns.pop_front() {
                Some(turn) => match apply_touches(&turn) {
                    Ok(()) if turn.delay_ms.is_some() => {
                        delay = turn.delay_ms;
                        answer(&turn, n, &json, shared.config.split)
                    }
                    Ok(()) => answer(&turn, n, &json, shared.config.split),
                    // Answered as an API error so the failing scenario says why.
                    Err(message) => {
                        error_response(StatusCode::INTERNAL_SERVER_ERROR, "api_error", &message)
                    }
                },
                None => {
                    state.exhausted_at.get_or_insert(n);
                    error_response(
                        StatusCode::BAD_REQUEST,
                        "invalid_request_error",
                        &format!("conformance stub: script exhausted at main-loop request {n}"),
                    )
                }
            };
            (RequestKind::Main(n), response)
        }
        Classified::Side(why) => {
            // A structured request gets JSON its schema accepts (one string per required key).
            let text = match json.pointer("/output_config/format/schema/required") {
                Some(Value::Array(keys)) => Value::Object(
                    keys.iter()
                        .filter_map(Value::as_str)
                        .map(|k| (k.to_owned(), Value::String("side answer".into())))
                        .collect(),
                )
                .to_string(),
                _ => "side answer".into(),
            };
            let turn = Turn {
                text: Some(text),
                ..Default::default()
            };
            (
                RequestKind::Side(why),
                answer(&turn, 0, &json, Split::Whole),
            )
        }
        Classified::Other => {
            let mut response = Response::new(Body::empty());
            if method != Method::HEAD {
                *response.body_mut() = Body::from("{}");
            }
            (RequestKind::Other, response)
        }
    };
    state.requests.push(RecordedRequest {
        at_ms: shared.started.elapsed().as_millis() as u64,
        at_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default(),
        method: method.to_string(),
        path,
        headers: header_map,
        body: json,
        kind,
        status: response.status().as_u16(),
    });
    (response, delay)
}

fn apply_touches(turn: &Turn) -> Result<(), String> {
    for write in &turn.touch {
        std::fs::write(&write.path, &write.content)
            .map_err(|e| format!("conformance stub: touch {} failed: {e}", write.path))?;
    }
    Ok(())
}

enum Classified {
    Main,
    Side(String),
    Other,
}

fn classify(method: &Method, path: &str, body: &Value, main_model: &str) -> Classified {
    if method != Method::POST || !path.starts_with("/v1/messages") {
        return Classified::Other;
    }
    if path != "/v1/messages" {
        return Classified::Side(path.trim_start_matches("/v1/messages/").to_owned());
    }
    // A structured-output request (the session title the real binary asks for when nonessential
    // traffic is allowed) is a helper even on the main model.
    if body.pointer("/output_config/format").is_some() {
        return Classified::Side("structured output".into());
    }
    match body.get("model").and_then(Value::as_str) {
        Some(model) if model == main_model => Classified::Main,
        Some(model) => Classified::Side(format!("model {model}")),
        None => Classified::Side("no model".into()),
    }
}

fn answer(turn: &Turn, n: usize, request: &Value, split: Split) -> Response {
    if let Some(err) = &turn.error {
        let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = json_response(status, &err.body());
        if let Some(secs) = err.retry_after {
            response.headers_mut().insert("retry-after", secs.into());
        }
        return response;
    }
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let message_id = format!("msg_stub_{n:04}");
    let streaming = request
        .get("stream")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !streaming {
        return json_response(StatusCode::OK, &turn.message_json(&message_id, model));
    }
    let mut events = encode_turn(turn, &message_id, model);
    let cut = turn.cut_after_events.map(|n| n.min(events.len()));
    if let Some(n) = cut {
        events.truncate(n);
    }
    let bytes: Vec<u8> = events.iter().flat_map(|e| e.to_bytes()).collect();
    let chunks = split_chunks(&bytes, split);
    let stream = futures_util::stream::unfold(
        (chunks.into_iter(), cut.is_some()),
        |(mut chunks, cut)| async move {
            match chunks.next() {
                Some(chunk) => {
                    // Yielding hands each chunk to the socket on its own instead of coalescing them.
                    tokio::task::yield_now().await;
                    Some((Ok(Bytes::from(chunk)), (chunks, cut)))
                }
                None if cut => {
                    // A short pause lets the bytes before the cut reach the client first.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Some((Err(std::io::Error::other("scripted cut")), (chunks, false)))
                }
                None => None,
            }
        },
    );
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .header("request-id", format!("req_stub_{n:04}"))
        .body(Body::from_stream(stream))
        .expect("static response parts are valid")
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("static response parts are valid")
}

fn error_response(status: StatusCode, kind: &str, message: &str) -> Response {
    json_response(
        status,
        &serde_json::json!({"type": "error", "error": {"type": kind, "message": message}}),
    )
}
