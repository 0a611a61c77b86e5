//! The Projects API routes of the mock claude.ai, both transports onto one [`Project`]:
//! the organization routes (`/api/organizations/:org/projects/:project/…`, each operation its own
//! method and path, replace = PATCH) and the session route (`POST /v2/ccr-sessions/-/chat-project`,
//! the operation in `op`, no replace). Each request is recorded before its answer is held or sent,
//! so a request the client gave up on (a timeout) is still seen.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRef, Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

use super::projects::{
    sha256, Answer, Op, Project, ProjectAnswer, ProjectRequest, ProjectScript, ProjectState,
    Transport,
};

/// The Project's state; clones share it. Absent until a scenario scripts one: every route then
/// answers 404, as for an account without Projects.
#[derive(Clone, Default)]
pub(super) struct ProjectsState {
    inner: Arc<Mutex<Option<Project>>>,
}

impl ProjectsState {
    pub(super) fn replace(&self, script: ProjectScript) {
        *self.lock() = Some(Project::new(script));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Project>> {
        self.inner.lock().expect("not poisoned")
    }

    pub(super) fn requests(&self) -> Vec<ProjectRequest> {
        self.lock()
            .as_ref()
            .map(|p| p.requests.clone())
            .unwrap_or_default()
    }

    pub(super) fn state(&self) -> Option<ProjectState> {
        self.lock().as_ref().map(Project::state)
    }
}

pub(super) fn routes<S>() -> Router<S>
where
    ProjectsState: FromRef<S>,
    S: Clone + Send + Sync + 'static,
{
    const BASE: &str = "/api/organizations/{org}/projects/{project}";
    Router::new()
        .route(&format!("{BASE}/detail"), get(org))
        .route(&format!("{BASE}/docs"), post(org))
        .route(
            &format!("{BASE}/docs/{{id}}"),
            get(org).patch(org).delete(org),
        )
        .route(&format!("{BASE}/files/{{id}}/extracted"), get(org))
        .route(&format!("{BASE}/files/{{id}}/raw"), get(org))
        .route(&format!("{BASE}/kb/search"), get(org))
        .route("/v2/ccr-sessions/-/chat-project", post(session))
}

/// What one request asks, whichever transport carried it.
struct Call {
    transport: Transport,
    http_method: Method,
    path: String,
    op: Option<Op>,
    scoped: Option<bool>,
    bearer: Option<String>,
    id: Option<String>,
    args: Value,
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned)
}

/// Any organization route; its path names the organization, the Project and maybe a doc or file.
async fn org(
    State(state): State<ProjectsState>,
    Path(params): Path<HashMap<String, String>>,
    method: Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let param = |k: &str| params.get(k).cloned().unwrap_or_default();
    let (org, project, id) = (param("org"), param("project"), params.get("id").cloned());
    let mut path = uri.path().to_owned();
    let op = match (&method, path.rsplit('/').next().unwrap_or_default(), &id) {
        (&Method::GET, "detail", _)
            if query.get("include").map(String::as_str) == Some("melange_memory") =>
        {
            Some(Op::DetailMemory)
        }
        (&Method::GET, "detail", _) => Some(Op::Detail),
        (&Method::POST, "docs", None) => Some(Op::WriteDoc),
        (&Method::GET, _, Some(_)) if path.ends_with("/extracted") => Some(Op::ReadFile),
        (&Method::GET, _, Some(_)) if path.ends_with("/raw") => Some(Op::ReadFileRaw),
        (&Method::GET, _, Some(_)) => Some(Op::ReadDoc),
        (&Method::PATCH, _, Some(_)) => Some(Op::UpdateDoc),
        (&Method::DELETE, _, Some(_)) => Some(Op::DeleteDoc),
        (&Method::GET, "search", _) => Some(Op::KbSearch),
        _ => None,
    };
    // The memory read is told apart by its query: recorded with it.
    if op == Some(Op::DetailMemory) {
        if let Some(q) = uri.query() {
            path = format!("{path}?{q}");
        }
    }
    let organization = headers
        .get("x-organization-uuid")
        .and_then(|v| v.to_str().ok());
    let mut args: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if op == Some(Op::KbSearch) {
        args = json!({
            "query": query.get("query"),
            "n": query.get("n").and_then(|n| n.parse::<u64>().ok()),
        });
    }
    let scoped = {
        let guard = state.lock();
        guard.as_ref().map(|p| {
            let want = p.script.organization.as_deref();
            Some(org.as_str()) == want && organization == want && project == p.script.uuid
        })
    };
    let call = Call {
        transport: Transport::Org,
        http_method: method,
        path,
        op,
        scoped,
        bearer: bearer(&headers),
        id,
        args,
    };
    serve(&state, call).await
}

async fn session(State(state): State<ProjectsState>, headers: HeaderMap, body: Bytes) -> Response {
    let args: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let op = args["op"].as_str().and_then(Op::parse);
    // The session route has no replace (a client replaces by delete + create) and no memory read.
    let op = op.filter(|o| !matches!(o, Op::UpdateDoc | Op::DetailMemory));
    let id = args["doc_uuid"]
        .as_str()
        .or(args["file_uuid"].as_str())
        .map(str::to_owned);
    let call = Call {
        transport: Transport::Session,
        http_method: Method::POST,
        path: "/v2/ccr-sessions/-/chat-project".into(),
        op,
        scoped: None,
        bearer: bearer(&headers),
        id,
        args,
    };
    serve(&state, call).await
}

/// Records the call, plays what the scenario scripted for it (a swap, a delay, a status or body),
/// else the operation's own answer on the Project.
async fn serve(state: &ProjectsState, call: Call) -> Response {
    let (status, body, script, index) = {
        let mut guard = state.lock();
        let Some(project) = guard.as_mut() else {
            return (
                StatusCode::NOT_FOUND,
                axum::Json(json!({"error": "no project"})),
            )
                .into_response();
        };
        let script = call.op.and_then(|op| project.scripted(op));
        let authorized = match call.transport {
            Transport::Org => call.bearer.is_some() && call.scoped == Some(true),
            Transport::Session => {
                call.bearer.is_some() && call.bearer == project.script.tokens.session
            }
        };
        // Recorded before it operates, so a deleted doc is still named.
        let record = record(project, &call);
        // A scripted status wins over everything; a scripted body over the body it would send.
        let scripted_body = script.as_ref().and_then(|s| s.body.clone());
        let (status, own_body) = match script.as_ref().and_then(|s| s.status) {
            Some(status) => (status, json!({"error": format!("scripted {status}")})),
            None if !authorized => (
                if call.bearer.is_none() { 401 } else { 403 },
                json!({"error": "not authorized for this project"}),
            ),
            None => {
                let answer = operate(project, &call, script.as_ref());
                (answer.status, answer.body)
            }
        };
        let body = scripted_body.unwrap_or_else(|| match own_body {
            Value::Null => String::new(),
            other => other.to_string(),
        });
        project.requests.push(record);
        (status, body, script, project.requests.len() - 1)
    };
    if let Some(script) = &script {
        if let Some((path, target)) = &script.replace_with_symlink {
            let _ = std::fs::remove_file(path);
            if let Err(e) = std::os::unix::fs::symlink(target, path) {
                eprintln!("projects mock: cannot replace {path} by a symlink: {e}");
            }
        }
        if let Some(ms) = script.delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
    if let Some(project) = state.lock().as_mut() {
        project.requests[index].status = status;
    }
    let mut response = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    if !body.is_empty() {
        response = response.header("content-type", "application/json");
    }
    response.body(body.into()).expect("valid response")
}

/// The operation's own answer, changing the Project when it writes.
fn operate(project: &mut Project, call: &Call, script: Option<&ProjectAnswer>) -> Answer {
    let id = call.id.as_deref().unwrap_or_default();
    let content = call.args["content"].as_str().unwrap_or_default();
    match call.op {
        None => Answer {
            status: 404,
            body: json!({"error": "unknown operation"}),
        },
        Some(Op::Detail) => Answer {
            status: 200,
            body: project.detail(),
        },
        Some(Op::DetailMemory) => Answer {
            status: 200,
            body: project.detail_memory(),
        },
        Some(Op::ReadDoc) => project.read_doc(id),
        Some(Op::ReadFile) => project.read_file(id),
        Some(Op::ReadFileRaw) => project.read_file_raw(id, script.is_some_and(|s| s.size_mismatch)),
        Some(Op::WriteDoc) => match call.args["file_name"].as_str() {
            Some(name) => project.create_doc(name, content),
            None => Answer {
                status: 400,
                body: json!({"error": "file_name is required"}),
            },
        },
        Some(Op::UpdateDoc) => project.update_doc(id, content),
        Some(Op::DeleteDoc) => project.delete_doc(id),
        Some(Op::KbSearch) => project.search(call.args["n"].as_u64().unwrap_or(5)),
    }
}

fn record(project: &Project, call: &Call) -> ProjectRequest {
    let content = call.args["content"].as_str();
    let secrets: Vec<&str> = [
        project.script.tokens.account.as_deref(),
        project.script.tokens.session.as_deref(),
        call.bearer.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let scrub = |s: &str| {
        secrets
            .iter()
            .fold(s.to_owned(), |s, t| s.replace(t, "[token]"))
    };
    ProjectRequest {
        transport: call.transport,
        http_method: call.http_method.to_string(),
        op: call.op,
        path: scrub(&call.path),
        scoped: call.scoped,
        bearer: project.script.tokens.classify(call.bearer.as_deref()),
        file_name: call.args["file_name"].as_str().map(scrub),
        content_bytes: content.map(str::len),
        content_sha256: content.map(|c| sha256(c.as_bytes())),
        query: call.args["query"].as_str().map(scrub),
        n: call.args["n"].as_u64(),
        names: call.id.as_deref().and_then(|id| project.name_of(id)),
        status: 0,
        at_unix_ms: crate::jsonlog::now_ms(),
    }
}
