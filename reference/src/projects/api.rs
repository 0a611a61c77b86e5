//! The Projects API on its two transports (seed 000 part B §12). With a remote session's token,
//! every operation is one `POST /v2/ccr-sessions/-/chat-project` naming it in `op` (the session
//! knows its Project); with the claude.ai login, each operation has its own method and path under
//! `/api/organizations/<org>/projects/<project>`, sent with the organization header. Both time out
//! after 30,000 ms; a 401 on the organization routes is refreshed once and retried. A failure is `Projects API: <action> failed (HTTP <status>)` with the body's
//! first 200 chars, and never shows the access token.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use super::auth::Credential;
use crate::account::login::{self as credentials, OAuthConfig};
use crate::limits;

const SESSION_ROUTE: &str = "/v2/ccr-sessions/-/chat-project";
/// The OAuth beta the organization routes are called with.
const OAUTH_BETA: &str = "oauth-2025-04-20";
const REDACTED: &str = "[redacted-oauth-token]";

/// A failed call.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// An answer outside 2xx, or none that could be used (status 0).
    Status {
        action: &'static str,
        status: u16,
        body: Value,
    },
    /// The request itself failed (a timeout, a refused connection), in the HTTP client's words.
    Transport(String),
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            ApiError::Transport(_) => None,
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Status {
                action,
                status,
                body,
            } => {
                let max = limits::PROJECTS_ERROR_BODY_CHARS.usize();
                let detail = match body {
                    Value::Null => String::new(),
                    Value::String(s) if s.is_empty() => String::new(),
                    Value::String(s) => format!(": {}", first_chars(s, max)),
                    other => format!(": {}", first_chars(&other.to_string(), max)),
                };
                write!(f, "Projects API: {action} failed (HTTP {status}){detail}")
            }
            ApiError::Transport(text) => f.write_str(text),
        }
    }
}

/// The first `n` UTF-16 units' worth of `s`, as JavaScript's `slice` counts (near enough: chars).
fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// One Project's API, for one call.
pub struct Api {
    http: reqwest::Client,
    base: String,
    project: String,
    credential: Credential,
    organization: Option<String>,
    home: PathBuf,
}

/// The largest raw-download answer read: the biggest file's base64 plus 64 KiB for the rest.
fn raw_body_cap() -> usize {
    (limits::PROJECTS_READ_RAW_MAX.usize() * 4).div_ceil(3) + 65_536
}

pub fn timeout() -> Duration {
    limits::PROJECTS_API_TIMEOUT.duration()
}

impl Api {
    pub fn new(home: &Path, project: &str, credential: Credential) -> Self {
        let base = OAuthConfig::from_env()
            .map(|c| c.base_api_url)
            .unwrap_or_else(|_| "https://api.anthropic.com".into());
        Api {
            http: crate::net::http_client(Some(timeout())),
            base,
            project: project.to_owned(),
            credential,
            organization: crate::account::organization(home),
            home: home.to_owned(),
        }
    }

    /// Whether calls go to the session route (where a replace is delete + create).
    pub fn on_session_route(&self) -> bool {
        matches!(self.credential, Credential::Session(_))
    }

    /// Removes every copy of the access token from a text bound for the model.
    pub fn redact(&self, text: &str) -> String {
        let token = self.credential.token();
        if token.is_empty() {
            text.to_owned()
        } else {
            text.replace(token, REDACTED)
        }
    }

    pub async fn detail(&self) -> Result<Value, ApiError> {
        self.call(
            "detail",
            json!({}),
            "get project detail",
            Method::GET,
            "/detail",
        )
        .await
    }

    pub async fn read_doc(&self, id: &str) -> Result<Value, ApiError> {
        let path = format!("/docs/{}", crate::net::encode_uri_component(id));
        self.call(
            "read-doc",
            json!({"doc_uuid": id}),
            "read doc",
            Method::GET,
            &path,
        )
        .await
    }

    /// A document upload's extracted text.
    pub async fn read_file(&self, id: &str) -> Result<Value, ApiError> {
        let path = format!("/files/{}/extracted", crate::net::encode_uri_component(id));
        self.call(
            "read-file",
            json!({"file_uuid": id}),
            "read file",
            Method::GET,
            &path,
        )
        .await
    }

    pub async fn read_file_raw(&self, id: &str) -> Result<Value, ApiError> {
        let path = format!("/files/{}/raw", crate::net::encode_uri_component(id));
        self.call(
            "read-file-raw",
            json!({"file_uuid": id}),
            "download file",
            Method::GET,
            &path,
        )
        .await
    }

    pub async fn create_doc(&self, name: &str, content: &str) -> Result<Value, ApiError> {
        self.call(
            "write-doc",
            json!({"file_name": name, "content": content}),
            "create doc",
            Method::POST,
            "/docs",
        )
        .await
    }

    /// Replaces a doc's content: one PATCH on the organization routes; on the session route,
    /// which has no replace, a delete then a create (not atomic: a failed create leaves the doc
    /// deleted).
    pub async fn replace_doc(
        &self,
        id: &str,
        name: &str,
        content: &str,
    ) -> Result<Value, ApiError> {
        if self.on_session_route() {
            self.delete_doc(id).await?;
            return self.create_doc(name, content).await;
        }
        let path = format!("/docs/{}", crate::net::encode_uri_component(id));
        self.call(
            "update-doc",
            json!({"content": content}),
            "update doc",
            Method::PATCH,
            &path,
        )
        .await
    }

    pub async fn delete_doc(&self, id: &str) -> Result<(), ApiError> {
        let path = format!("/docs/{}", crate::net::encode_uri_component(id));
        self.call(
            "delete-doc",
            json!({"doc_uuid": id}),
            "delete doc",
            Method::DELETE,
            &path,
        )
        .await
        .map(drop)
    }

    pub async fn search(&self, query: &str, n: u64) -> Result<Value, ApiError> {
        let path = format!(
            "/kb/search?query={}&n={n}",
            crate::net::encode_uri_component(query)
        );
        let answer = self
            .call(
                "kb-search",
                json!({"query": query, "n": n}),
                "search knowledge base",
                Method::GET,
                &path,
            )
            .await?;
        // An answer sent as a JSON string is parsed once more.
        Ok(match answer {
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            other => other,
        })
    }

    async fn call(
        &self,
        op: &str,
        args: Value,
        action: &'static str,
        method: Method,
        path: &str,
    ) -> Result<Value, ApiError> {
        let send = |token: &str| {
            let request = match &self.credential {
                Credential::Session(_) => {
                    let mut body = json!({"op": op});
                    if let (Some(o), Some(a)) = (body.as_object_mut(), args.as_object()) {
                        o.extend(a.clone());
                    }
                    self.http
                        .post(format!("{}{SESSION_ROUTE}", self.base))
                        .bearer_auth(token)
                        .json(&body)
                }
                Credential::Login(_) => {
                    let org = self.organization.as_deref().unwrap_or_default();
                    let url = format!(
                        "{}/api/organizations/{org}/projects/{}{path}",
                        self.base,
                        crate::net::encode_uri_component(&self.project)
                    );
                    let mut request = self
                        .http
                        .request(method.clone(), url)
                        .bearer_auth(token)
                        .header("x-organization-uuid", org)
                        .header("anthropic-beta", OAUTH_BETA);
                    // A write's arguments are its body there; a read or delete has none.
                    if method == Method::POST || method == Method::PATCH {
                        request = request.json(&args);
                    }
                    request
                }
            };
            async move {
                request
                    .send()
                    .await
                    .map_err(|e| ApiError::Transport(crate::net::network_text(&e, timeout())))
            }
        };
        if matches!(self.credential, Credential::Login(_)) && self.organization.is_none() {
            return Err(ApiError::Status {
                action,
                status: 0,
                body: json!("No organization UUID for the claude.ai login"),
            });
        }
        // The login's token as stored now (a refresh may have replaced it since the call began).
        let token = match &self.credential {
            Credential::Session(t) => t.clone(),
            Credential::Login(t) => credentials::login(&self.home)
                .map(|l| l.access_token)
                .unwrap_or_else(|| t.clone()),
        };
        let mut response = send(&token).await?;
        // A 401 on the organization routes: one refresh, one retry with the new token.
        if response.status() == 401 && matches!(self.credential, Credential::Login(_)) {
            let config = OAuthConfig::from_env().ok();
            let refreshed = match &config {
                Some(config) => credentials::refresh(&self.http, config, &self.home, &token).await,
                None => false,
            };
            if let Some(login) = credentials::login(&self.home).filter(|_| refreshed) {
                response = send(&login.access_token).await?;
            }
        }
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| ApiError::Transport(crate::net::network_text(&e, timeout())))?;
        if op == "read-file-raw" && text.len() > raw_body_cap() {
            return Err(ApiError::Transport(format!(
                "maxContentLength size of {} exceeded",
                raw_body_cap()
            )));
        }
        let data: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        if !(200..300).contains(&status) {
            // The session route reports a body's `error` string alone.
            let body = match (&self.credential, &data["error"]) {
                (Credential::Session(_), Value::String(e)) => Value::String(e.clone()),
                _ => data,
            };
            return Err(ApiError::Status {
                action,
                status,
                body,
            });
        }
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_like_2_1_235s() {
        let e = ApiError::Status {
            action: "search knowledge base",
            status: 500,
            body: json!({"error": "boom"}),
        };
        assert_eq!(
            e.to_string(),
            "Projects API: search knowledge base failed (HTTP 500): {\"error\":\"boom\"}"
        );
        let e = ApiError::Status {
            action: "read doc",
            status: 404,
            body: Value::Null,
        };
        assert_eq!(e.to_string(), "Projects API: read doc failed (HTTP 404)");
        let long = ApiError::Status {
            action: "read doc",
            status: 502,
            body: json!("x".repeat(500)),
        };
        assert_eq!(
            long.to_string().len(),
            "Projects API: read doc failed (HTTP 502): ".len()
                + limits::PROJECTS_ERROR_BODY_CHARS.usize()
        );
    }
}
