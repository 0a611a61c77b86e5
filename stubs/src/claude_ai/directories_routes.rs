//! The directory routes of the mock onto one [`Directories`]: each request is recorded with the
//! status it was answered. Absent until a scenario scripts `[directory]`: every route then
//! answers 404, as for an organization the server does not know.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{FromRef, Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;
use axum::Router;
use serde_json::Value;

use super::directories::{Ask, Directories, DirectoryRequest, DirectoryScript, Headers, Route};

#[derive(Clone, Default)]
pub(super) struct DirectoriesState {
    inner: Arc<Mutex<Option<Directories>>>,
}

impl DirectoriesState {
    pub(super) fn replace(&self, script: DirectoryScript) {
        *self.inner.lock().expect("not poisoned") = Some(Directories::new(script));
    }

    pub(super) fn requests(&self) -> Vec<DirectoryRequest> {
        self.inner
            .lock()
            .expect("not poisoned")
            .as_ref()
            .map(|d| d.requests.clone())
            .unwrap_or_default()
    }
}

const BASE: &str = "/api/oauth/organizations/{org}";

pub(super) fn routes<S>() -> Router<S>
where
    DirectoriesState: FromRef<S>,
    S: Clone + Send + Sync + 'static,
{
    Router::new()
        .route(&format!("{BASE}/mcp/connectors/{{op}}"), post(serve))
        .route(&format!("{BASE}/plugins/{{op}}"), get(serve).post(serve))
        .route(&format!("{BASE}/skills/{{op}}"), get(serve).post(serve))
}

async fn serve(
    State(state): State<DirectoriesState>,
    method: Method,
    uri: Uri,
    Path((org, _)): Path<(String, String)>,
    Query(query): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let tail = uri.path().split_once(&format!("/{org}/")).map(|(_, t)| t);
    let Some(route) = tail.and_then(|t| Route::at(t, &method)) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    // A body that is not JSON is kept as its text, so a record shows what was sent.
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()))
    };
    let header_org = header("x-organization-uuid");
    let ask = Ask {
        route,
        path_org: &org,
        header_org: header_org.as_deref(),
        query: &query,
        body: &body,
    };
    let mut guard = state.inner.lock().expect("not poisoned");
    let Some(directories) = guard.as_mut() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (status, answer) = directories.answer(&ask);
    directories.record(
        &ask,
        Headers {
            method: method.to_string(),
            bearer: header("authorization")
                .and_then(|v| v.strip_prefix("Bearer ").map(str::to_owned)),
            anthropic_version: header("anthropic-version"),
            client_platform: header("anthropic-client-platform"),
            beta: header("anthropic-beta"),
        },
        status,
    );
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(answer)).into_response()
}
