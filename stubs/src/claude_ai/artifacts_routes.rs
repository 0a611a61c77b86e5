//! The artifact routes of the mock claude.ai onto one [`Artifacts`]: each request is recorded
//! before its answer is held, dropped or sent, so a request whose answer never arrived is still
//! seen, and a write a fault followed (`after_apply`) is recorded as applied.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRef, Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::artifacts::{ArtifactOp, ArtifactRequest, Artifacts, ArtifactsScript, Reply};
use super::design::Bearer;

/// The artifacts; clones share them. Absent until a scenario scripts `[artifacts]`: every route
/// then answers 404, as for an account without the feature.
#[derive(Clone, Default)]
pub(super) struct ArtifactsState {
    inner: Arc<Mutex<Option<Artifacts>>>,
    /// The planted login's access token, to classify bearers.
    account: Arc<Mutex<Option<String>>>,
}

impl ArtifactsState {
    pub(super) fn replace(&self, script: ArtifactsScript, account_token: Option<String>) {
        *self.lock() = Some(Artifacts::new(script));
        *self.account.lock().expect("not poisoned") = account_token;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Artifacts>> {
        self.inner.lock().expect("not poisoned")
    }

    pub(super) fn requests(&self) -> Vec<ArtifactRequest> {
        self.lock()
            .as_ref()
            .map(|a| a.requests.clone())
            .unwrap_or_default()
    }

    pub(super) fn state(&self) -> Option<Vec<super::artifacts::Artifact>> {
        self.lock().as_ref().map(|a| a.artifacts.clone())
    }
}

pub(super) fn routes<S>() -> Router<S>
where
    ArtifactsState: FromRef<S>,
    S: Clone + Send + Sync + 'static,
{
    Router::new()
        .route("/api/frame/deploy/direct", post(deploy))
        .route("/api/frame/comments/{slug}", get(comments))
        .route("/api/frame/comments/{slug}/{thread}", post(reply))
        .route("/api/frame/frames", get(frames))
        .route("/api/frame/contract/{version}", get(contract))
        .route("/api/frame/blob/{slug}/agent-upload", post(asset_upload))
        .route("/api/frame/blob/{slug}/agent-list", post(asset_list))
        .route(
            "/api/frame/blob/{slug}/{id}/agent-delete",
            post(asset_delete),
        )
        .route("/api/frame/{slug}", get(boot))
        .route("/_f/{ver}/", get(content))
        .route("/_f/{ver}/_blob/{id}", get(asset_read))
}

struct Seen {
    op: ArtifactOp,
    method: Method,
    path: String,
    slug: Option<String>,
    bearer: Bearer,
    body: Value,
}

impl Seen {
    /// The request as it arrived, its bearer classified against the planted login.
    fn of(
        state: &ArtifactsState,
        headers: &HeaderMap,
        op: ArtifactOp,
        method: Method,
        path: String,
        slug: Option<String>,
        body: Value,
    ) -> Self {
        Seen {
            op,
            method,
            path,
            slug,
            bearer: bearer(state, headers),
            body,
        }
    }
}

fn bearer(state: &ArtifactsState, headers: &HeaderMap) -> Bearer {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let account = state.account.lock().expect("not poisoned").clone();
    Bearer::classify(token, account.as_deref())
}

/// Records the request, applies it (unless a scripted answer replaces it) and answers.
async fn serve(
    state: ArtifactsState,
    seen: Seen,
    apply: impl FnOnce(&mut Artifacts) -> Reply,
) -> Response {
    let (scripted, reply) = {
        let mut guard = state.lock();
        let Some(artifacts) = guard.as_mut() else {
            return (
                StatusCode::NOT_FOUND,
                axum::Json(json!({"error": "not found"})),
            )
                .into_response();
        };
        let scripted = artifacts.scripted(seen.op);
        let replaced = scripted
            .as_ref()
            .is_some_and(|a| !a.after_apply && (a.status.is_some() || a.body.is_some() || a.drop));
        let reply = if replaced {
            None
        } else {
            Some(apply(artifacts))
        };
        let status = match (&scripted, &reply) {
            (Some(a), _) if a.drop => 0,
            (Some(a), _) if a.status.is_some() => a.status.unwrap_or_default(),
            (_, Some(r)) => r.status,
            _ => 200,
        };
        artifacts.requests.push(ArtifactRequest {
            op: seen.op,
            http_method: seen.method.to_string(),
            path: seen.path,
            slug: seen.slug,
            bearer: seen.bearer,
            body: seen.body,
            status,
            applied: reply.as_ref().is_some_and(|r| r.applied),
            fault: scripted
                .as_ref()
                .filter(|a| a.drop)
                .map(|_| "dropped".into()),
        });
        (scripted, reply)
    };
    if let Some(ms) = scripted.as_ref().and_then(|a| a.delay_ms) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if scripted.as_ref().is_some_and(|a| a.drop) {
        let broken = futures_util::stream::once(async {
            Err::<Bytes, std::io::Error>(std::io::Error::other("scripted drop"))
        });
        return Response::builder()
            .status(StatusCode::OK)
            .body(Body::from_stream(broken))
            .expect("valid");
    }
    let (status, content_type, body) = match (&scripted, reply) {
        (Some(a), reply) if a.status.is_some() || a.body.is_some() => (
            a.status.or(reply.as_ref().map(|r| r.status)).unwrap_or(200),
            "application/json".to_owned(),
            Body::from(a.body.clone().unwrap_or_default()),
        ),
        (_, Some(r)) => (
            r.status,
            r.content_type,
            match (r.bytes, r.body) {
                (Some(bytes), _) => Body::from(bytes),
                (None, Value::String(s)) => Body::from(s),
                (None, other) => Body::from(other.to_string()),
            },
        ),
        _ => (200, "application/json".to_owned(), Body::empty()),
    };
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", content_type)
        .body(body)
        .expect("valid response")
}

async fn boot(
    State(state): State<ArtifactsState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Boot,
        Method::GET,
        uri.to_string(),
        Some(slug.clone()),
        Value::Null,
    );
    serve(state, seen, move |a| a.boot(&slug)).await
}

/// The frame host names the artifact: `{slug}.frame.claudeusercontent.com`.
fn frame_slug(uri: &Uri, headers: &HeaderMap) -> String {
    let host = headers
        .get("host")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| uri.authority().map(|a| a.to_string()))
        .unwrap_or_default();
    host.split('.').next().unwrap_or_default().to_owned()
}

/// A GET on an artifact's frame host: the slug its host names, the token it carried, and its
/// record (whether that token is the one the boot read hands out).
fn frame_request(
    state: &ArtifactsState,
    op: ArtifactOp,
    uri: &Uri,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
) -> (Seen, String, Option<String>) {
    let slug = frame_slug(uri, headers);
    let token = query.get("__frame_t").cloned();
    let matches = token.as_deref() == Some(super::artifacts::asset_token(&slug).as_str());
    let seen = Seen::of(
        state,
        headers,
        op,
        Method::GET,
        uri.path().to_owned(),
        Some(slug.clone()),
        json!({ "token_matches": matches }),
    );
    (seen, slug, token)
}

async fn content(
    State(state): State<ArtifactsState>,
    Path(ver): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (seen, slug, token) = frame_request(&state, ArtifactOp::Content, &uri, &headers, &query);
    serve(state, seen, move |a| {
        a.content(&slug, &ver, token.as_deref())
    })
    .await
}

async fn deploy(State(state): State<ArtifactsState>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut recorded = body.clone();
    if let Some(content) = body["content"].as_str() {
        if let Some(o) = recorded.as_object_mut() {
            o.remove("content");
            o.insert("content_bytes".into(), json!(content.len()));
            o.insert(
                "content_sha256".into(),
                json!(format!("{:x}", Sha256::digest(content.as_bytes()))),
            );
        }
    }
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Deploy,
        Method::POST,
        "/api/frame/deploy/direct".into(),
        body["slug"].as_str().map(str::to_owned),
        recorded,
    );
    serve(state, seen, move |a| a.deploy(&body)).await
}

async fn comments(
    State(state): State<ArtifactsState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Comments,
        Method::GET,
        uri.path().to_owned(),
        Some(slug.clone()),
        Value::Null,
    );
    serve(state, seen, move |a| a.comments(&slug)).await
}

async fn reply(
    State(state): State<ArtifactsState>,
    Path((slug, thread)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Reply,
        Method::POST,
        uri.path().to_owned(),
        Some(slug.clone()),
        body.clone(),
    );
    serve(state, seen, move |a| a.reply(&slug, &thread, &body)).await
}

async fn asset_read(
    State(state): State<ArtifactsState>,
    Path((ver, id)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (seen, slug, token) = frame_request(&state, ArtifactOp::AssetRead, &uri, &headers, &query);
    serve(state, seen, move |a| {
        a.asset_read(&slug, &ver, &id, token.as_deref())
    })
    .await
}

async fn frames(
    State(state): State<ArtifactsState>,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let limit = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(200);
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Frames,
        Method::GET,
        uri.to_string(),
        None,
        Value::Null,
    );
    serve(state, seen, move |a| a.frames(limit)).await
}

async fn contract(
    State(state): State<ArtifactsState>,
    Path(version): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::Contract,
        Method::GET,
        uri.path().to_owned(),
        None,
        Value::Null,
    );
    serve(state, seen, move |a| a.contract(&version)).await
}

/// The upload's body is the file: recorded by its type, size and digest.
async fn asset_upload(
    State(state): State<ArtifactsState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::AssetUpload,
        Method::POST,
        uri.path().to_owned(),
        Some(slug.clone()),
        json!({
            "content_type": content_type,
            "bytes": body.len(),
            "sha256": format!("{:x}", Sha256::digest(&body)),
        }),
    );
    serve(state, seen, move |a| {
        a.asset_upload(&slug, &content_type, &body)
    })
    .await
}

async fn asset_list(
    State(state): State<ArtifactsState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::AssetList,
        Method::POST,
        uri.path().to_owned(),
        Some(slug.clone()),
        body.clone(),
    );
    serve(state, seen, move |a| a.asset_list(&slug, &body)).await
}

async fn asset_delete(
    State(state): State<ArtifactsState>,
    Path((slug, id)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let seen = Seen::of(
        &state,
        &headers,
        ArtifactOp::AssetDelete,
        Method::POST,
        uri.path().to_owned(),
        Some(slug.clone()),
        body,
    );
    serve(state, seen, move |a| a.asset_delete(&slug, &id)).await
}
