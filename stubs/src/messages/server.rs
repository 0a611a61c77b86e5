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

use crate::cues::Event;
use crate::loopback::Loopback;

use super::record::{RecordedRequest, RequestKind};
use super::script::{AgentScript, Block, Split, Turn};
use super::sse::{encode_turn, split_chunks};

/// What one stub instance plays.
#[derive(Debug, Clone)]
pub struct StubConfig {
    /// The model the target was started with; Messages requests for another model are helpers.
    pub main_model: String,
    /// Other models whose requests are the main loop too (a fallback model after overload).
    pub more_main_models: Vec<String>,
    pub turns: Vec<Turn>,
    /// Second agent loops, told apart from the main loop by their first user message.
    pub agents: Vec<AgentScript>,
    pub split: Split,
    /// The run's board: every request is published to it, and a turn's `after` waits on it.
    pub cues: crate::cues::Cues,
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
    /// The main loop's last request, when a final error answered it.
    main_refused: Option<Refused>,
    agents: Vec<AgentLoop>,
    requests: Vec<RecordedRequest>,
}

/// Where one scripted second loop stands.
#[derive(Default)]
struct AgentLoop {
    turns: VecDeque<Turn>,
    requests: usize,
    exhausted_at: Option<usize>,
    refused: Option<Refused>,
}

/// A request a scripted final error (a 4xx the API means: not 401, 408, 409 or 429, which a
/// client retries) answered. The API answers the same request the same way, so when a client
/// sends it again (from 2.1.332: once without a newer beta, "sending the request again without
/// the … beta"; a compaction summary request once more) it gets that error again, recorded as a
/// side request, and the script does not move: the model never saw either.
#[derive(Clone)]
struct Refused {
    request: Value,
    turn: Turn,
}

impl Refused {
    fn after(turn: &Turn, request: &Value) -> Option<Self> {
        let status = turn.error.as_ref()?.status;
        let final_4xx = (400..500).contains(&status) && !matches!(status, 401 | 408 | 409 | 429);
        final_4xx.then(|| Refused {
            request: request.clone(),
            turn: turn.clone(),
        })
    }

    /// The same request: the same model, conversation and output budget (the betas and what
    /// only a beta allows, such as `thinking.display`, may differ).
    fn answers(&self, request: &Value) -> bool {
        ["model", "messages", "max_tokens", "system"]
            .iter()
            .all(|k| self.request.get(k) == request.get(k))
    }
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
            agents: config
                .agents
                .iter()
                .map(|a| AgentLoop {
                    turns: a.turns.iter().cloned().collect(),
                    ..Default::default()
                })
                .collect(),
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

    /// Scripted turns not yet played, the second loops' included.
    pub fn turns_left(&self) -> usize {
        let state = self.shared.state.lock().unwrap();
        state.turns.len() + state.agents.iter().map(|a| a.turns.len()).sum::<usize>()
    }

    /// Each second loop whose script ran out: its label and the 1-based request that found it so.
    pub fn agents_exhausted(&self) -> Vec<(String, usize)> {
        let state = self.shared.state.lock().unwrap();
        self.shared
            .config
            .agents
            .iter()
            .zip(&state.agents)
            .filter_map(|(script, at)| Some((script.label().to_owned(), at.exhausted_at?)))
            .collect()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (response, Hold { after, delay }) = respond(&shared, method, uri, headers, body);
    if let Some((after, who)) = after {
        // Past its bound the answer goes out anyway: the miss fails the run, naming the event.
        shared.config.cues.wait(&after, &who).await;
    }
    if let Some(ms) = delay {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    response
}

/// What holds an answer back: the event it waits for (and who waits, for the miss) and a delay.
#[derive(Default)]
struct Hold {
    after: Option<(crate::cues::After, String)>,
    delay: Option<u64>,
}

/// The body as JSON text: a `Content-Encoding: gzip` body inflated (2.1.332 compresses large
/// requests, as a real server allows), anything else as sent.
fn decoded<'a>(headers: &HeaderMap, body: &'a Bytes) -> std::borrow::Cow<'a, [u8]> {
    use std::io::Read;
    let gzip = headers
        .get("content-encoding")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
    let mut inflated = Vec::new();
    if gzip
        && flate2::read::GzDecoder::new(&body[..])
            .read_to_end(&mut inflated)
            .is_ok()
    {
        return inflated.into();
    }
    body[..].into()
}

/// Records the request and picks its answer, with what holds it back.
fn respond(
    shared: &Shared,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (Response, Hold) {
    let json: Value = serde_json::from_slice(&decoded(&headers, &body)).unwrap_or(Value::Null);
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

    let mut hold = Hold::default();
    let mut state = shared.state.lock().unwrap();
    // The record keeps the body as sent; the script is played as if Vertex's path had said
    // `/v1/messages` and the body had named the model (a copy only then).
    let vertex = vertex_model(uri.path()).map(|model| {
        let mut named = json.clone();
        if let Some(o) = named.as_object_mut() {
            o.insert("model".into(), Value::String(model));
        }
        named
    });
    let (route, played) = match &vertex {
        Some(named) => ("/v1/messages", named),
        None => (uri.path(), &json),
    };
    let kind = classify(&method, route, played, &shared.config);
    let (kind, response) = match kind {
        Classified::Main
            if state
                .main_refused
                .as_ref()
                .is_some_and(|r| r.answers(played)) =>
        {
            let turn = state.main_refused.as_ref().expect("checked").turn.clone();
            (
                RequestKind::Side("sent again after a final error".into()),
                answer(
                    &turn,
                    state.main_requests,
                    played,
                    Split::Whole,
                    &shared.config.cues,
                ),
            )
        }
        Classified::Main => {
            state.main_requests += 1;
            let n = state.main_requests;
            state.main_refused = state.turns.front().and_then(|t| Refused::after(t, played));
            let response = match state.turns.pop_front() {
                Some(turn) => {
                    hold = Hold::of(
                        &turn,
                        format!("main-loop turn {n}"),
                        played,
                        &shared.config.cues,
                    );
                    play(&turn, n, played, &shared.config)
                }
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
        Classified::Agent(i)
            if state.agents[i]
                .refused
                .as_ref()
                .is_some_and(|r| r.answers(played)) =>
        {
            let turn = state.agents[i]
                .refused
                .as_ref()
                .expect("checked")
                .turn
                .clone();
            let n = 100 * (i + 1) + state.agents[i].requests;
            (
                RequestKind::Side("sent again after a final error".into()),
                answer(&turn, n, played, Split::Whole, &shared.config.cues),
            )
        }
        Classified::Agent(i) => {
            let label = shared.config.agents[i].label().to_owned();
            let agent = &mut state.agents[i];
            agent.refused = agent.turns.front().and_then(|t| Refused::after(t, played));
            agent.requests += 1;
            let n = agent.requests;
            let response = match agent.turns.pop_front() {
                // Message ids stay unique across loops: the agent's number in the hundreds.
                Some(turn) => {
                    hold = Hold::of(
                        &turn,
                        format!("turn {n} of loop `{label}`"),
                        played,
                        &shared.config.cues,
                    );
                    play(&turn, 100 * (i + 1) + n, played, &shared.config)
                }
                None => {
                    agent.exhausted_at.get_or_insert(n);
                    error_response(
                        StatusCode::BAD_REQUEST,
                        "invalid_request_error",
                        &format!("conformance stub: script of agent `{label}` exhausted at its request {n}"),
                    )
                }
            };
            (RequestKind::Agent { agent: label, n }, response)
        }
        Classified::Side(why) if why == "count_tokens" => {
            let counted = serde_json::json!({"input_tokens": counted_tokens(played)});
            (
                RequestKind::Side(why),
                json_response(StatusCode::OK, &counted),
            )
        }
        Classified::Side(why) => {
            // A structured request gets JSON its schema accepts (one string per required key).
            let text = match played.pointer("/output_config/format/schema/required") {
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
                answer(&turn, 0, played, Split::Whole, &shared.config.cues),
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
    // The loop a request belongs to, for the board: side and other requests are nobody's turn.
    let looped = match &kind {
        RequestKind::Main(_) => Some(None),
        RequestKind::Agent { agent, .. } => Some(Some(agent.clone())),
        _ => None,
    };
    state.requests.push(RecordedRequest {
        at_ms: shared.started.elapsed().as_millis() as u64,
        at_unix_ms: crate::jsonlog::now_ms(),
        method: method.to_string(),
        path,
        headers: header_map,
        body: json,
        kind,
        status: response.status().as_u16(),
    });
    drop(state);
    if let Some(agent) = looped {
        shared.config.cues.publish(Event::Request { agent });
    }
    (response, hold)
}

impl Hold {
    /// A file cue's path may name what the target made up (`{capture:…}` in it), read back from
    /// the request being answered; a capture that finds nothing is a miss at once.
    fn of(turn: &Turn, who: String, request: &Value, cues: &crate::cues::Cues) -> Hold {
        let who = format!("Messages stub, {who}");
        let filled = turn.after.as_ref().map(|a| {
            a.filled(|path| {
                let filled = super::capture::fill(&Value::String(path.to_owned()), request)?;
                Ok(filled.as_str().unwrap_or_default().to_owned())
            })
        });
        let after = match filled {
            Some(Ok(after)) => Some((after, who)),
            Some(Err(e)) => {
                cues.miss(format!("{who} could not wait: {e}"));
                None
            }
            None => None,
        };
        Hold {
            after,
            delay: turn.delay_ms,
        }
    }
}

/// Answers a request with a scripted turn: the world changes first (`touch`), run-time ids are
/// filled in (`{capture:…}`), then the message is sent once what holds it back let go.
fn play(turn: &Turn, n: usize, request: &Value, config: &StubConfig) -> Response {
    let filled = apply_touches(turn).and_then(|()| fill_captures(turn, request));
    match filled {
        Ok(turn) => answer(&turn, n, request, config.split, &config.cues),
        // Answered as an API error so the failing scenario says why.
        Err(message) => error_response(StatusCode::INTERNAL_SERVER_ERROR, "api_error", &message),
    }
}

fn fill_captures(turn: &Turn, request: &Value) -> Result<Turn, String> {
    let mut turn = turn.clone();
    for block in &mut turn.blocks {
        if let Block::ToolUse { input, .. } = block {
            *input = super::capture::fill(input, request)?;
        }
    }
    Ok(turn)
}

fn apply_touches(turn: &Turn) -> Result<(), String> {
    for write in &turn.touch {
        std::fs::write(&write.path, &write.content)
            .map_err(|e| format!("conformance stub: touch {} failed: {e}", write.path))?;
    }
    Ok(())
}

/// Google Vertex AI's streaming Messages path names the model instead of the body:
/// `…/publishers/anthropic/models/MODEL:streamRawPredict`.
fn vertex_model(path: &str) -> Option<String> {
    let (_, tail) = path.split_once("/publishers/anthropic/models/")?;
    let model = tail.strip_suffix(":streamRawPredict")?;
    (!model.is_empty() && !model.contains('/')).then(|| model.to_owned())
}

enum Classified {
    Main,
    /// The second loop with this index in the script.
    Agent(usize),
    Side(String),
    Other,
}

fn classify(method: &Method, path: &str, body: &Value, config: &StubConfig) -> Classified {
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
    // A one-token request without tools, not streamed, checks that a model answers (2.1.332's
    // set_model); no model turn is spent on it.
    if body.get("max_tokens").and_then(Value::as_u64) == Some(1)
        && body.get("tools").is_none()
        && body.get("stream").and_then(Value::as_bool) != Some(true)
    {
        return Classified::Side("model probe".into());
    }
    // A second loop may run on another model (an agent type's own): its content decides first.
    if let Some(i) = agent_of(body, &config.agents) {
        return Classified::Agent(i);
    }
    match body.get("model").and_then(Value::as_str) {
        Some(model) if model == config.main_model => Classified::Main,
        Some(model) if config.more_main_models.iter().any(|m| m == model) => Classified::Main,
        Some(model) => Classified::Side(format!("model {model}")),
        None => Classified::Side("no model".into()),
    }
}

/// A `count_tokens` answer: the request's message text at four characters a token (rounded),
/// the estimate a client makes itself, so a count agrees with what the scenario's sizes imply.
fn counted_tokens(body: &Value) -> u64 {
    fn chars(v: &Value) -> usize {
        match v {
            Value::String(s) => s.chars().count(),
            Value::Array(items) => items.iter().map(chars).sum(),
            Value::Object(o) => o.get("text").or_else(|| o.get("content")).map_or(0, chars),
            _ => 0,
        }
    }
    let total: usize = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| chars(&m["content"]))
        .sum();
    (total as f64 / 4.0).round() as u64
}

/// The scripted loop whose marker the request's first user message contains, if any.
fn agent_of(body: &Value, agents: &[AgentScript]) -> Option<usize> {
    if agents.is_empty() {
        return None;
    }
    let first = body.pointer("/messages/0")?;
    if first["role"] != "user" {
        return None;
    }
    let text = match &first["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    agents.iter().position(|a| text.contains(&a.matches))
}

fn answer(
    turn: &Turn,
    n: usize,
    request: &Value,
    split: Split,
    cues: &crate::cues::Cues,
) -> Response {
    if let Some(err) = &turn.error {
        let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = json_response(status, &err.body());
        // The API's own answers carry a request id; from 2.1.332 the CLI takes a 400 without one
        // for a proxy's rejection and sends the request again (`non_anthropic_rejection`).
        response.headers_mut().insert(
            "request-id",
            format!("req_stub_{n:04}").parse().expect("ascii"),
        );
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
    // The end held back for an event: the last two events (message_delta, message_stop) wait.
    let end: Vec<u8> = match &turn.end_after {
        Some(_) if cut.is_none() => {
            let at = events.len().saturating_sub(2);
            events.drain(at..).flat_map(|e| e.to_bytes()).collect()
        }
        _ => Vec::new(),
    };
    let bytes: Vec<u8> = events.iter().flat_map(|e| e.to_bytes()).collect();
    let mut chunks = split_chunks(&bytes, split);
    let held = turn.end_after.clone().filter(|_| !end.is_empty());
    if held.is_some() {
        chunks.push(Vec::new());
        chunks.push(end);
    }
    let cues = cues.clone();
    let stream = futures_util::stream::unfold(
        (chunks.into_iter(), cut.is_some(), held, cues),
        |(mut chunks, cut, mut held, cues)| async move {
            match chunks.next() {
                // The place of the held end: the wait, then the end's own chunk.
                Some(chunk) if chunk.is_empty() => {
                    if let Some(after) = held.take() {
                        cues.wait(&after, "Messages stub, the answer's end").await;
                    }
                    Some((Ok(Bytes::new()), (chunks, cut, held, cues)))
                }
                Some(chunk) => {
                    // Yielding hands each chunk to the socket on its own instead of coalescing them.
                    tokio::task::yield_now().await;
                    Some((Ok(Bytes::from(chunk)), (chunks, cut, held, cues)))
                }
                None if cut => {
                    // A short pause lets the bytes before the cut reach the client first.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let e = Err(std::io::Error::other("scripted cut"));
                    Some((e, (chunks, false, held, cues)))
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

/// The stub's own error (a script exhausted), with a request id as the API's errors have.
fn error_response(status: StatusCode, kind: &str, message: &str) -> Response {
    let mut response = json_response(
        status,
        &serde_json::json!({"type": "error", "error": {"type": kind, "message": message}}),
    );
    response
        .headers_mut()
        .insert("request-id", "req_stub_error".parse().expect("ascii"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_vertex_streaming_path_names_its_model_and_nothing_else_does() {
        let p = "/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict";
        assert_eq!(vertex_model(p).as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(
            vertex_model(&p.replace(":streamRawPredict", ":rawPredict")),
            None
        );
        assert_eq!(vertex_model("/v1/messages"), None);
    }

    #[test]
    fn a_gzip_body_is_read_inflated_and_any_other_as_sent() {
        use std::io::Write;
        let json = br#"{"model":"m"}"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(json).unwrap();
        let body = Bytes::from(gz.finish().unwrap());
        let mut headers = HeaderMap::new();
        headers.insert("content-encoding", "GZIP".parse().unwrap());
        assert_eq!(&decoded(&headers, &body)[..], json);
        assert_eq!(&decoded(&HeaderMap::new(), &body)[..], &body[..]);
        // Not gzip after all: kept as sent, for the record to show.
        let plain = Bytes::from_static(json);
        assert_eq!(&decoded(&headers, &plain)[..], json);
    }

    fn turn(text: &str) -> Turn {
        Turn {
            text: Some(text.into()),
            ..Default::default()
        }
    }

    fn agent(matches: &str, texts: &[&str]) -> AgentScript {
        AgentScript {
            name: None,
            matches: matches.into(),
            turns: texts.iter().map(|t| turn(t)).collect(),
        }
    }

    /// One non-streaming request whose first user message says `first`; the answer's text.
    async fn ask(stub: &MessagesStub, first: &str, rest: Vec<Value>) -> (u16, Value) {
        let mut messages =
            vec![json!({"role": "user", "content": [{"type": "text", "text": first}]})];
        messages.extend(rest);
        let response = reqwest::Client::new()
            .post(format!("{}/v1/messages", stub.base_url()))
            .json(&json!({"model": "m", "messages": messages}))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    fn config(agents: Vec<AgentScript>) -> StubConfig {
        StubConfig {
            main_model: "m".into(),
            more_main_models: Vec::new(),
            turns: vec![turn("MAIN_1"), turn("MAIN_2")],
            agents,
            split: Split::Whole,
            cues: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_turn_held_by_after_goes_out_once_its_event_happened() {
        let mut config = config(vec![agent("CHILD_A", &["A_1"])]);
        let after = |src: &str| toml::from_str::<Turn>(src).unwrap().after.unwrap();
        config.turns[0].after = Some(after(r#"after = { request = 1, agent = "CHILD_A" }"#));
        let cues = config.cues.clone();
        let stub = std::sync::Arc::new(MessagesStub::start(config).await.unwrap());
        let main = tokio::spawn({
            let stub = stub.clone();
            async move { ask(&stub, "the user's prompt", vec![]).await }
        });
        // The main turn waits for the child's request; the child's own turn waits for nothing.
        assert!(cues.wait(&after("after = { request = 1 }"), "test").await);
        let (_, a1) = ask(&stub, "CHILD_A go", vec![]).await;
        let (_, m1) = main.await.unwrap();
        assert_eq!(a1["content"][0]["text"], "A_1");
        assert_eq!(m1["content"][0]["text"], "MAIN_1");
        let kinds: Vec<RequestKind> = stub.requests().into_iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds[0],
            RequestKind::Main(1),
            "the main request arrived first"
        );
        assert!(cues.missed().is_empty(), "{:?}", cues.missed());
    }

    #[tokio::test]
    async fn the_same_request_after_a_final_error_gets_it_again_and_the_script_stays() {
        let mut config = config(vec![]);
        let refusal = |status: u16| {
            toml::from_str::<Turn>(&format!(
                "error = {{ status = {status}, message = \"no\" }}"
            ))
            .unwrap()
        };
        config.turns = vec![refusal(400), turn("AFTER"), refusal(429), turn("RETRIED")];
        let stub = MessagesStub::start(config).await.unwrap();
        let first = ask(&stub, "the prompt", vec![]).await;
        let again = ask(&stub, "the prompt", vec![]).await;
        assert_eq!((first.0, again.0), (400, 400));
        assert_eq!(first.1, again.1);
        // Another conversation moves the script on.
        let next = |t: &str| vec![json!({"role": "assistant", "content": t})];
        let (_, after) = ask(&stub, "the prompt", next("x")).await;
        assert_eq!(after["content"][0]["text"], "AFTER");
        // A retryable error's retry is the script's next turn, as before.
        let (busy, _) = ask(&stub, "the prompt", next("y")).await;
        let (_, retried) = ask(&stub, "the prompt", next("y")).await;
        assert_eq!(busy, 429);
        assert_eq!(retried["content"][0]["text"], "RETRIED");
        let kinds: Vec<RequestKind> = stub.requests().into_iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds[..3],
            [
                RequestKind::Main(1),
                RequestKind::Side("sent again after a final error".into()),
                RequestKind::Main(2)
            ]
        );
        assert_eq!(kinds[4], RequestKind::Main(4));
    }

    #[tokio::test]
    async fn loops_are_told_apart_by_content_whatever_the_arrival_order() {
        let stub = MessagesStub::start(config(vec![
            agent("CHILD_A", &["A_1", "A_2"]),
            agent("CHILD_B", &["B_1"]),
        ]))
        .await
        .unwrap();
        // Interleaved as concurrent loops would: B before A, main between A's two requests.
        let (_, b1) = ask(&stub, "context then CHILD_B go", vec![]).await;
        let (_, a1) = ask(&stub, "CHILD_A go", vec![]).await;
        let (_, m1) = ask(&stub, "the user's prompt", vec![]).await;
        let (_, a2) = ask(
            &stub,
            "CHILD_A go",
            vec![json!({"role": "assistant", "content": "A_1"})],
        )
        .await;
        let (_, m2) = ask(&stub, "the user's prompt", vec![]).await;
        let text = |v: &Value| v["content"][0]["text"].as_str().unwrap().to_owned();
        assert_eq!(
            [text(&b1), text(&a1), text(&m1), text(&a2), text(&m2)],
            ["B_1", "A_1", "MAIN_1", "A_2", "MAIN_2"]
        );
        assert_eq!(stub.turns_left(), 0);
        let kinds: Vec<RequestKind> = stub.requests().into_iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds[0],
            RequestKind::Agent {
                agent: "CHILD_B".into(),
                n: 1
            }
        );
        assert_eq!(
            kinds[3],
            RequestKind::Agent {
                agent: "CHILD_A".into(),
                n: 2
            }
        );
        assert_eq!(kinds[4], RequestKind::Main(2));
    }

    #[tokio::test]
    async fn an_exhausted_loop_is_reported_by_name_and_leaves_the_others_alone() {
        let stub = MessagesStub::start(config(vec![agent("CHILD_A", &[])]))
            .await
            .unwrap();
        let (status, body) = ask(&stub, "CHILD_A go", vec![]).await;
        assert_eq!(status, 400);
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("agent `CHILD_A` exhausted at its request 1"));
        assert_eq!(stub.agents_exhausted(), vec![("CHILD_A".to_owned(), 1)]);
        assert_eq!(stub.exhausted_at(), None);
        let (status, _) = ask(&stub, "main", vec![]).await;
        assert_eq!(status, 200);
    }

    #[tokio::test]
    async fn a_capture_reads_an_id_back_from_the_request() {
        let mut cfg = config(vec![]);
        cfg.turns = vec![Turn {
            blocks: vec![Block::ToolUse {
                id: "t1".into(),
                name: "TaskOutput".into(),
                input: json!({"task_id": "{capture:agentId: (a[0-9a-f]+)}"}),
            }],
            ..Default::default()
        }];
        let stub = MessagesStub::start(cfg).await.unwrap();
        let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t0",
            "content": [{"type": "text", "text": "launched\nagentId: a0123abcd"}]}]});
        let (_, body) = ask(
            &stub,
            "prompt",
            vec![json!({"role": "assistant", "content": "x"}), result],
        )
        .await;
        assert_eq!(body["content"][0]["input"], json!({"task_id": "a0123abcd"}));
    }
}
