//! The one upload implementation every Brief lane uses: a local file to
//! `<base>/api/oauth/file_upload` as a single-part multipart body with an OAuth bearer, accepted
//! only as HTTP 201 with a `{file_uuid}` body, every failure reduced to the seed's reason names.
//! (Groundwork for the Brief tool; the lanes and SendUserMessage come with it.)

mod multipart;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use multipart::{content_disposition_filename, upload_mime, Multipart};

use crate::limits;

/// Why an upload failed, named as the seed's reason table names it (`Display`); the text an
/// attachment carries is [`upload_error`](Self::upload_error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UploadFailure {
    #[error("not_first_party")]
    NotFirstParty,
    #[error("essential_traffic")]
    EssentialTraffic,
    #[error("policy_cache_miss")]
    PolicyCacheMiss,
    #[error("policy_denied")]
    PolicyDenied,
    /// The size found (on stat or in the buffer).
    #[error("too_large")]
    TooLarge(u64),
    /// What the read reported.
    #[error("read_failed")]
    ReadFailed(String),
    #[error("no_token")]
    NoToken,
    #[error("http_401")]
    Http401,
    #[error("http_403")]
    Http403,
    #[error("http_413")]
    Http413,
    /// The status travels with the reason: the attachment's error names it.
    #[error("http_4xx")]
    Http4xx(u16),
    #[error("http_5xx")]
    Http5xx(u16),
    #[error("http_other")]
    HttpOther(u16),
    #[error("bad_response")]
    BadResponse,
    /// What went wrong on the wire, in the words the attachment's error uses.
    #[error("network_error")]
    NetworkError(String),
    #[error("aborted")]
    Aborted,
}

impl UploadFailure {
    /// The `upload_error` an attachment carries for this failure; the texts 2.1.235 writes.
    pub fn upload_error(&self) -> String {
        let mib = |bytes: u64| bytes as f64 / 1_048_576.0;
        match self {
            UploadFailure::Http401 => "upload failed: server returned 401".into(),
            UploadFailure::Http403 => "upload failed: server returned 403".into(),
            UploadFailure::Http413 => "upload failed: server returned 413".into(),
            UploadFailure::Http4xx(s) | UploadFailure::Http5xx(s) | UploadFailure::HttpOther(s) => {
                format!("upload failed: server returned {s}")
            }
            UploadFailure::BadResponse => "upload failed: unexpected server response".into(),
            UploadFailure::NetworkError(what) => format!("upload failed: network error ({what})"),
            UploadFailure::NoToken => "upload failed: no OAuth token available".into(),
            UploadFailure::EssentialTraffic => "upload disabled: uploading file contents to Anthropic servers is not permitted under this privacy configuration".into(),
            UploadFailure::NotFirstParty => "upload disabled: uploading file contents to Anthropic servers is not permitted on this API provider".into(),
            UploadFailure::PolicyCacheMiss => "upload disabled: Couldn't verify your organization's policy for file upload. Check your network connection and try again.".into(),
            UploadFailure::PolicyDenied => "upload disabled: File upload is disabled by your organization's policy. Contact your organization admin to enable it.".into(),
            UploadFailure::ReadFailed(why) => format!("upload failed: could not read file ({why})"),
            UploadFailure::Aborted => "upload aborted".into(),
            UploadFailure::TooLarge(size) => format!(
                "{:.1} MiB exceeds the {} MiB upload limit",
                mib(*size),
                mib(limits::UPLOAD_MAX_SIZE.get())
            ),
        }
    }
}

/// The file's own read error, when that is what ended the request's body.
fn read_error(e: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        if let Some(read) = inner.downcast_ref::<multipart::FileRead>() {
            return Some(read.to_string());
        }
        source = inner.source();
    }
    None
}

/// A transport failure in the words of the HTTP client 2.1.235 uses, where one maps.
fn network_error(e: &reqwest::Error, timeout: Duration) -> UploadFailure {
    let what = if e.is_timeout() {
        format!("timeout of {}ms exceeded", timeout.as_millis())
    } else if e.is_request() || e.is_body() || e.is_decode() {
        // The connection closed before a whole response arrived.
        "socket hang up".to_owned()
    } else {
        e.to_string()
    };
    UploadFailure::NetworkError(what)
}

pub struct Uploader {
    client: reqwest::Client,
    timeout: Duration,
    base_url: String,
    token: Option<String>,
}

impl Uploader {
    /// `base_url`: the runtime override, else `ANTHROPIC_BASE_URL`, else the API's own.
    pub fn new(base_url: &str, token: Option<String>, timeout: Duration) -> Self {
        Uploader {
            client: crate::net::http_client(Some(timeout)),
            timeout,
            base_url: base_url.trim_end_matches('/').to_owned(),
            token,
        }
    }

    /// With the documented 30,000 ms timeout.
    pub fn with_default_timeout(base_url: &str, token: Option<String>) -> Self {
        Self::new(base_url, token, limits::UPLOAD_HTTP_TIMEOUT.duration())
    }

    /// Uploads `path` and returns its `file_uuid`. The size is checked on stat and again on the
    /// bytes read; there is no retry.
    pub async fn upload(&self, path: &Path) -> Result<String, UploadFailure> {
        // The order 2.1.235 checks in: the credential, the stat size, the read, the buffer size.
        let token = self.token.as_deref().ok_or(UploadFailure::NoToken)?;
        let cap = limits::UPLOAD_MAX_SIZE.get();
        let read_failed = |e: std::io::Error| UploadFailure::ReadFailed(e.to_string());
        let meta = std::fs::metadata(path).map_err(read_failed)?;
        if meta.len() > cap {
            return Err(UploadFailure::TooLarge(meta.len()));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let frame = Multipart::new(&name, upload_mime(path));
        // Streamed from the file as it is read: memory does not grow with the file. The bytes read
        // are counted, so the second size check (the seed's "buffer length") still holds.
        let file = tokio::fs::File::open(path).await.map_err(read_failed)?;
        let read = Arc::new(AtomicU64::new(0));
        let body = reqwest::Body::wrap_stream(frame.stream(file, meta.len(), cap, read.clone()));
        let sent = self
            .client
            .post(format!("{}/api/oauth/file_upload", self.base_url))
            .bearer_auth(token)
            .header("content-type", frame.content_type())
            .header("content-length", frame.length(meta.len()))
            .body(body)
            .send()
            .await;
        let read = read.load(Ordering::Relaxed);
        if read > cap {
            return Err(UploadFailure::TooLarge(read));
        }
        let response = sent.map_err(|e| match read_error(&e) {
            Some(why) => UploadFailure::ReadFailed(why),
            None => network_error(&e, self.timeout),
        })?;
        let status = response.status().as_u16();
        let text = response
            .bytes()
            .await
            .map_err(|e| network_error(&e, self.timeout))?;
        match status {
            201 => serde_json::from_slice::<Value>(&text)
                .ok()
                .and_then(|v| v["file_uuid"].as_str().map(str::to_owned))
                .ok_or(UploadFailure::BadResponse),
            401 => Err(UploadFailure::Http401),
            403 => Err(UploadFailure::Http403),
            413 => Err(UploadFailure::Http413),
            400..=499 => Err(UploadFailure::Http4xx(status)),
            500..=599 => Err(UploadFailure::Http5xx(status)),
            // 200 and every other status: only 201 is a success.
            _ => Err(UploadFailure::HttpOther(status)),
        }
    }
}
