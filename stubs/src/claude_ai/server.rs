//! The axum server behind the mock claude.ai.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use super::multipart::parse_single_file;

/// What the upload endpoint answers for a file (by name; `*` for any other).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct UploadAnswer {
    /// HTTP status; 201 by default.
    #[serde(default)]
    pub status: Option<u16>,
    /// The body as is; by default `{"file_uuid": "<uuid>"}` for 201.
    #[serde(default)]
    pub body: Option<String>,
    /// Wait before answering (past the client's timeout, to test it).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Close the connection without an answer.
    #[serde(default)]
    pub drop: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordedUpload {
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub size: usize,
    pub sha256: Option<String>,
    /// Whether a bearer token came (never its value).
    pub bearer: bool,
    /// Why the body was refused, when it was.
    pub error: Option<String>,
    pub status: u16,
}

struct Shared {
    answers: BTreeMap<String, UploadAnswer>,
    uploads: Mutex<Vec<RecordedUpload>>,
    issued: Mutex<u64>,
}

/// A running mock; dropping it stops it.
pub struct ClaudeAiMock {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _shutdown: oneshot::Sender<()>,
}

impl ClaudeAiMock {
    pub async fn start(answers: BTreeMap<String, UploadAnswer>) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            answers,
            uploads: Mutex::new(Vec::new()),
            issued: Mutex::new(0),
        });
        let app = Router::new()
            .route("/api/oauth/file_upload", post(upload))
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(ClaudeAiMock {
            addr,
            shared,
            _shutdown: tx,
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn uploads(&self) -> Vec<RecordedUpload> {
        self.shared.uploads.lock().expect("not poisoned").clone()
    }
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
    let parsed = parse_single_file(header("content-type").as_deref(), length, &body);
    let (mut record, answer) = match &parsed {
        Ok(part) => {
            let answer = shared
                .answers
                .get(&part.filename)
                .or_else(|| shared.answers.get("*"))
                .cloned()
                .unwrap_or_default();
            let record = RecordedUpload {
                filename: Some(part.filename.clone()),
                content_type: part.content_type.clone(),
                size: part.bytes.len(),
                sha256: Some(format!("{:x}", Sha256::digest(&part.bytes))),
                bearer,
                error: None,
                status: 0,
            };
            (record, answer)
        }
        Err(e) => (
            RecordedUpload {
                filename: None,
                content_type: None,
                size: body.len(),
                sha256: None,
                bearer,
                error: Some(e.to_string()),
                status: 0,
            },
            UploadAnswer {
                status: Some(400),
                body: Some(format!("{{\"error\": \"{e}\"}}")),
                ..Default::default()
            },
        ),
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
