//! The routes behind the mock claude.ai, mountable on any axum server (the Messages stub's port,
//! where a target's `ANTHROPIC_BASE_URL` sends uploads) or served alone, where a fallback records
//! what else reaches the host.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::artifacts::{Artifact, ArtifactRequest, ArtifactsScript};
use super::artifacts_routes::{self, ArtifactsState};
use super::design::{DesignRequest, DesignScript, OtherRequest};
use super::design_routes::{self, DesignState};
use super::directories::{DirectoryRequest, DirectoryScript};
use super::directories_routes::{self, DirectoriesState};
use super::multipart::parse_single_file;
use super::oauth::{OAuthScript, RecordedTokenRequest};
use super::projects::{ProjectRequest, ProjectScript, ProjectState};
use super::projects_routes::{self, ProjectsState};
use crate::loopback::Loopback;

/// What the upload endpoint answers for a file: `[[upload]]` in a scenario.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UploadAnswer {
    /// The file name it answers (`*`, the default, for any file no other answer names).
    #[serde(default = "any_file")]
    pub file: String,
    /// HTTP status; 201 by default.
    #[serde(default)]
    pub status: Option<u16>,
    /// The body as is; by default `{"file_uuid": "file-000N"}` for 201 and empty otherwise.
    #[serde(default)]
    pub body: Option<String>,
    /// Wait before answering (past the client's timeout, to test it).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Close the connection without an answer.
    #[serde(default)]
    pub drop: bool,
}

fn any_file() -> String {
    "*".into()
}

impl Default for UploadAnswer {
    /// Any file, 201 with a fresh `file_uuid`.
    fn default() -> Self {
        UploadAnswer {
            file: any_file(),
            status: None,
            body: None,
            delay_ms: None,
            drop: false,
        }
    }
}

/// One upload as the endpoint saw it. The file's bytes are kept only as size and SHA-256.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RecordedUpload {
    pub filename: Option<String>,
    /// The part's Content-Disposition value as sent (escapes included).
    pub disposition: Option<String>,
    pub content_type: Option<String>,
    pub size: usize,
    pub sha256: Option<String>,
    /// The body's multipart boundary.
    pub boundary: Option<String>,
    /// Whether the request declared a Content-Length (the parser checks it against the body).
    pub length_declared: bool,
    /// Whether a bearer token came (never its value).
    pub bearer: bool,
    /// Why the body was refused, when it was.
    pub error: Option<String>,
    pub status: u16,
}

struct Shared {
    answers: Vec<UploadAnswer>,
    uploads: Mutex<Vec<RecordedUpload>>,
    issued: Mutex<u64>,
    oauth: Option<OAuthScript>,
    token_requests: Mutex<Vec<RecordedTokenRequest>>,
    design: DesignState,
    projects: ProjectsState,
    artifacts: ArtifactsState,
    directories: DirectoriesState,
    other_requests: Mutex<Vec<OtherRequest>>,
}

impl FromRef<Arc<Shared>> for DesignState {
    fn from_ref(shared: &Arc<Shared>) -> Self {
        shared.design.clone()
    }
}

impl FromRef<Arc<Shared>> for ProjectsState {
    fn from_ref(shared: &Arc<Shared>) -> Self {
        shared.projects.clone()
    }
}

impl FromRef<Arc<Shared>> for ArtifactsState {
    fn from_ref(shared: &Arc<Shared>) -> Self {
        shared.artifacts.clone()
    }
}

impl FromRef<Arc<Shared>> for DirectoriesState {
    fn from_ref(shared: &Arc<Shared>) -> Self {
        shared.directories.clone()
    }
}

/// The mock's state and routes; clones share both.
#[derive(Clone)]
pub struct ClaudeAi {
    shared: Arc<Shared>,
}

impl ClaudeAi {
    pub fn new(answers: Vec<UploadAnswer>) -> Self {
        Self::with_oauth(answers, None)
    }

    /// With an OAuth token endpoint; without one, token requests are answered 404.
    pub fn with_oauth(answers: Vec<UploadAnswer>, oauth: Option<OAuthScript>) -> Self {
        ClaudeAi {
            shared: Arc::new(Shared {
                answers,
                uploads: Mutex::new(Vec::new()),
                issued: Mutex::new(0),
                oauth,
                token_requests: Mutex::new(Vec::new()),
                design: DesignState::new(DesignScript::default()),
                projects: ProjectsState::default(),
                artifacts: ArtifactsState::default(),
                directories: DirectoriesState::default(),
                other_requests: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Plays `script` on the Design routes (an empty script until then), starting afresh: no
    /// session, no requests, consent and grants as scripted. Clones share the change.
    pub fn with_design(self, script: DesignScript) -> Self {
        self.shared.design.replace(script);
        self
    }

    /// Serves `script`'s Project on the Projects routes (none until then: they answer 404),
    /// starting afresh. Clones share the change.
    pub fn with_project(self, script: ProjectScript) -> Self {
        self.shared.projects.replace(script);
        self
    }

    /// Serves `script`'s artifacts on the artifact routes (none until then: they answer 404),
    /// starting afresh; `account_token` is the planted login's, to classify bearers.
    pub fn with_artifacts(self, script: ArtifactsScript, account_token: Option<String>) -> Self {
        self.shared.artifacts.replace(script, account_token);
        self
    }

    /// Serves `script`'s directories on the directory routes (none until then: they answer 404),
    /// starting afresh.
    pub fn with_directories(self, script: DirectoryScript) -> Self {
        self.shared.directories.replace(script);
        self
    }

    /// The claude.ai routes, to merge into a server. Without a fallback: axum refuses to merge
    /// two routers that both have one, and the Messages stub has its own.
    pub fn router(&self) -> Router {
        self.finish(self.routes())
    }

    /// The routes for serving the mock alone: any other path is answered 404 and recorded (see
    /// [`other_requests`](Self::other_requests)).
    pub fn router_alone(&self) -> Router {
        self.finish(self.routes().fallback(other))
    }

    fn routes(&self) -> Router<Arc<Shared>> {
        Router::new()
            .route("/api/oauth/file_upload", post(upload))
            .route("/v1/oauth/token", post(token))
            .merge(design_routes::routes())
            .merge(projects_routes::routes())
            .merge(artifacts_routes::routes())
            .merge(directories_routes::routes())
    }

    fn finish(&self, routes: Router<Arc<Shared>>) -> Router {
        routes
            // Over the 30 MiB cap, so a client that skips its own check is seen doing so.
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(self.shared.clone())
    }

    pub fn design_requests(&self) -> Vec<DesignRequest> {
        self.shared.design.requests()
    }

    pub fn project_requests(&self) -> Vec<ProjectRequest> {
        self.shared.projects.requests()
    }

    /// What the Project holds now, when one is served.
    pub fn project_state(&self) -> Option<ProjectState> {
        self.shared.projects.state()
    }

    pub fn artifact_requests(&self) -> Vec<ArtifactRequest> {
        self.shared.artifacts.requests()
    }

    /// The artifacts as they are now, when `[artifacts]` is served.
    pub fn artifacts_state(&self) -> Option<Vec<Artifact>> {
        self.shared.artifacts.state()
    }

    pub fn directory_requests(&self) -> Vec<DirectoryRequest> {
        self.shared.directories.requests()
    }

    /// Requests to paths no route serves, when served by [`router_alone`](Self::router_alone).
    pub fn other_requests(&self) -> Vec<OtherRequest> {
        self.shared
            .other_requests
            .lock()
            .expect("not poisoned")
            .clone()
    }

    pub fn uploads(&self) -> Vec<RecordedUpload> {
        self.shared.uploads.lock().expect("not poisoned").clone()
    }

    pub fn token_requests(&self) -> Vec<RecordedTokenRequest> {
        self.shared
            .token_requests
            .lock()
            .expect("not poisoned")
            .clone()
    }
}

/// The mock served alone on 127.0.0.1 (benchmarks, client tests); dropping it stops it.
pub struct ClaudeAiMock {
    server: Loopback,
    pub claude_ai: ClaudeAi,
}

impl ClaudeAiMock {
    pub async fn start(answers: Vec<UploadAnswer>) -> anyhow::Result<Self> {
        Self::serve(ClaudeAi::new(answers)).await
    }

    /// Serves `claude_ai`'s routes on 127.0.0.1, port chosen by the system, with the fallback.
    pub async fn serve(claude_ai: ClaudeAi) -> anyhow::Result<Self> {
        let server = Loopback::serve(|_| Ok(claude_ai.router_alone())).await?;
        Ok(ClaudeAiMock { server, claude_ai })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    pub fn uploads(&self) -> Vec<RecordedUpload> {
        self.claude_ai.uploads()
    }

    pub fn token_requests(&self) -> Vec<RecordedTokenRequest> {
        self.claude_ai.token_requests()
    }

    pub fn design_requests(&self) -> Vec<DesignRequest> {
        self.claude_ai.design_requests()
    }

    pub fn other_requests(&self) -> Vec<OtherRequest> {
        self.claude_ai.other_requests()
    }
}

/// Any path no route serves: recorded without headers or body, then 404.
async fn other(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    // HTTP/2 carries the host as the URI's authority, not a header.
    let host = headers
        .get("host")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| uri.authority().map(|a| a.to_string()));
    shared
        .other_requests
        .lock()
        .expect("not poisoned")
        .push(OtherRequest {
            method: method.to_string(),
            host,
            path: uri.path().to_owned(),
        });
    (
        StatusCode::NOT_FOUND,
        axum::Json(serde_json::json!({"error": "not found"})),
    )
        .into_response()
}

/// `POST /v1/oauth/token`: JSON or form-encoded, as OAuth clients send either.
async fn token(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(script) = &shared.oauth else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let form = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    let body: serde_json::Value = if form {
        serde_json::Value::Object(
            form_urlencoded::parse(&body)
                .map(|(k, v)| (k.into_owned(), serde_json::Value::String(v.into_owned())))
                .collect(),
        )
    } else {
        serde_json::from_slice(&body).unwrap_or_default()
    };
    let issued = {
        let mut n = shared.issued.lock().expect("not poisoned");
        *n += 1;
        *n
    };
    let (response, record) = super::oauth::answer(script, &body, issued);
    shared
        .token_requests
        .lock()
        .expect("not poisoned")
        .push(record);
    response
}

async fn upload(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let header = |k: &str| {
        headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let bearer = header("authorization").is_some_and(|a| a.starts_with("Bearer "));
    let length = header("content-length").and_then(|l| l.parse::<usize>().ok());
    let content_type = header("content-type");
    let boundary = content_type
        .as_deref()
        .and_then(|c| c.split_once("boundary="))
        .map(|(_, b)| b.to_owned());
    let mut record = RecordedUpload {
        filename: None,
        disposition: None,
        content_type: None,
        size: body.len(),
        sha256: None,
        boundary,
        length_declared: length.is_some(),
        bearer,
        error: None,
        status: 0,
    };
    let answer = match parse_single_file(content_type.as_deref(), length, &body) {
        Ok(part) => {
            let answer = [part.filename.as_str(), "*"]
                .iter()
                .find_map(|f| shared.answers.iter().find(|a| a.file == *f))
                .cloned()
                .unwrap_or_default();
            record.sha256 = Some(format!("{:x}", Sha256::digest(&part.bytes)));
            record.size = part.bytes.len();
            record.filename = Some(part.filename);
            record.disposition = Some(part.disposition);
            record.content_type = part.content_type;
            answer
        }
        Err(e) => {
            record.error = Some(e.to_string());
            UploadAnswer {
                status: Some(400),
                body: Some(serde_json::json!({"error": e.to_string()}).to_string()),
                ..Default::default()
            }
        }
    };
    let status = if bearer {
        answer.status.unwrap_or(201)
    } else {
        401
    };
    record.status = status;
    shared.uploads.lock().expect("not poisoned").push(record);
    if let Some(ms) = answer.delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if answer.drop {
        let broken = futures_util::stream::once(async {
            Err::<Bytes, std::io::Error>(std::io::Error::other("scripted drop"))
        });
        return Response::builder()
            .status(StatusCode::OK)
            .body(Body::from_stream(broken))
            .expect("valid");
    }
    let text = answer.body.unwrap_or_else(|| {
        if status == 201 {
            let mut n = shared.issued.lock().expect("not poisoned");
            *n += 1;
            format!("{{\"file_uuid\": \"file-{:04}\"}}", *n)
        } else {
            String::new()
        }
    });
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", "application/json")
        .body(Body::from(text))
        .expect("valid response")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over HTTP, form-encoded as OAuth clients send it: the issued body and a record without
    /// secrets.
    #[tokio::test]
    async fn the_token_endpoint_answers_over_http_and_records_no_secret() {
        let script = OAuthScript {
            refresh_token: "rt-secret".into(),
            scopes: vec!["user:inference".into()],
            expires_in: 3600,
            fail: None,
            grant_only: None,
        };
        let mock = ClaudeAiMock::serve(ClaudeAi::with_oauth(Vec::new(), Some(script)))
            .await
            .unwrap();
        let response = reqwest::Client::new()
            .post(format!("{}/v1/oauth/token", mock.base_url()))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("grant_type=refresh_token&refresh_token=rt-secret&scope=user%3Ainference+user%3Aprofile")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["scope"], "user:inference user:profile");
        assert_eq!(body["expires_in"], 3600);
        assert!(body["refresh_token"]
            .as_str()
            .unwrap()
            .starts_with("sk-ant-ort01-mock-refresh-"));
        let seen = mock.token_requests();
        assert_eq!(seen.len(), 1);
        assert!(seen[0].refresh_token_matched);
        assert!(!format!("{seen:?}").contains("rt-secret"));
    }
}
