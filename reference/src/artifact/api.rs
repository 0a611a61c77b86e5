//! The artifact service as 2.1.235 calls it (recon artifact14): on the first-party API host with
//! the claude.ai login's bearer, the boot read `GET /api/frame/{slug}?via=model_read`, the live
//! HTML on the artifact's frame host `GET /_f/{ver}/?__frame_t=…`, the publish
//! `POST /api/frame/deploy/direct` (its `baseVersion` the server's precondition), the comments
//! `GET /api/frame/comments/{slug}` and a reply `POST /api/frame/comments/{slug}/{thread}`.
//! A publish whose answer never arrived is `Deploy::Unknown`: it may have landed. The listing is
//! `list`, the asset store `assets`, the capability contract `contract`.

use serde_json::{json, Value};

use crate::account::login::OAuthConfig;
use crate::limits;

pub struct Api {
    pub(super) http: reqwest::Client,
    base: String,
    token: String,
}

/// What the boot read says of an artifact.
#[derive(Debug, Clone)]
pub struct Boot {
    pub ver: String,
    pub asset_token: String,
    pub title: String,
    /// The account owns it (`perm.role`), so reading its assets needs no question.
    pub owner: bool,
}

#[derive(Debug)]
pub enum Deploy {
    Published {
        slug: String,
        version: String,
    },
    /// The precondition failed: another version is live.
    Conflict {
        live: String,
    },
    /// A definite refusal (nothing changed).
    Failed(String),
    /// No answer: the write may or may not have landed.
    Unknown(String),
}

#[derive(Debug)]
pub enum Reply {
    Posted {
        thread_id: String,
        comment_id: String,
    },
    NotActivated,
    Failed(String),
}

const CLIENT_HEADERS: [(&str, &str); 3] = [
    ("X-Frame-CP", "go"),
    ("X-Frame-Surface", "code"),
    ("X-Frame-Platform", "cli"),
];

impl Api {
    pub fn new(token: String) -> Self {
        let base = OAuthConfig::from_env()
            .map(|c| c.base_api_url)
            .unwrap_or_else(|_| "https://api.anthropic.com".into());
        Api {
            http: crate::net::http_client(None),
            base,
            token,
        }
    }

    /// A request to the artifact service with the login's bearer and the client's headers.
    pub(super) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        for (k, v) in CLIENT_HEADERS {
            r = r.header(k, v);
        }
        r
    }

    pub async fn boot(&self, slug: &str) -> Result<Boot, String> {
        let sent = self
            .request(
                reqwest::Method::GET,
                &format!("/api/frame/{slug}?via=model_read"),
            )
            .timeout(limits::ARTIFACT_READ_TIMEOUT.duration())
            .send()
            .await
            .map_err(|_| "artifact read failed (network error)".to_owned())?;
        let status = sent.status().as_u16();
        if status == 404 {
            return Err("artifact not found \u{2014} it may have been deleted, or it has not been shared with you".into());
        }
        if !(200..300).contains(&status) {
            return Err(format!("artifact read failed (HTTP {status})"));
        }
        let body: Value = sent
            .json()
            .await
            .map_err(|_| "artifact read failed (network error)".to_owned())?;
        match (body["ver"].as_str(), body["assetToken"].as_str()) {
            (Some(ver), Some(token)) if !ver.is_empty() => Ok(Boot {
                ver: ver.to_owned(),
                asset_token: token.to_owned(),
                title: body["title"].as_str().unwrap_or_default().to_owned(),
                owner: body["perm"]["role"] == "owner",
            }),
            _ => Err("artifact read failed: incomplete boot response".into()),
        }
    }

    /// The HTML of the booted version, from the artifact's frame host.
    pub async fn content(&self, slug: &str, boot: &Boot) -> Result<String, String> {
        let url = format!(
            "https://{slug}.frame.claudeusercontent.com/_f/{}/?__frame_t={}",
            boot.ver,
            unreserved(&boot.asset_token)
        );
        let sent = self
            .http
            .get(url)
            .timeout(std::time::Duration::from_secs(30))
            .send()
            .await
            .map_err(|_| "artifact content fetch failed (network error)".to_owned())?;
        let status = sent.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(format!("artifact content fetch failed (HTTP {status})"));
        }
        sent.text()
            .await
            .map_err(|_| "artifact content fetch failed (network error)".to_owned())
    }

    pub async fn deploy(&self, body: &Value) -> Deploy {
        let sent = self
            .request(reqwest::Method::POST, "/api/frame/deploy/direct")
            .timeout(limits::ARTIFACT_DEPLOY_TIMEOUT.duration())
            .json(body)
            .send()
            .await;
        let answer = match sent {
            Ok(r) => {
                let status = r.status().as_u16();
                r.text().await.map(|t| (status, t))
            }
            Err(e) => Err(e),
        };
        let (status, text) = match answer {
            Ok(a) => a,
            Err(e) => return Deploy::Unknown(unknown(&e)),
        };
        let parsed: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status == 409 && body.get("baseVersion").is_some() && parsed["conflict"] == json!(true) {
            if let Some(live) = parsed["live"].as_str() {
                return Deploy::Conflict {
                    live: live.to_owned(),
                };
            }
        }
        if !(200..300).contains(&status) {
            return Deploy::Failed(format!("deploy {status}: {}", text.trim()));
        }
        match (parsed["slug"].as_str(), parsed["version"].as_str()) {
            (Some(slug), Some(version)) if super::text::is_slug(slug) => {
                if body["slug"].as_str().is_some_and(|want| want != slug) {
                    return Deploy::Unknown("publish outcome unknown (the server answered for a different artifact than the one targeted, so its answer was not adopted) \u{2014} it may have published; check the artifact list before publishing again".into());
                }
                Deploy::Published {
                    slug: slug.to_owned(),
                    version: version.to_owned(),
                }
            }
            _ => Deploy::Unknown("publish outcome unknown (deploy returned an incomplete or malformed response) \u{2014} it may have published; check the artifact list before publishing again".into()),
        }
    }

    pub async fn comments(&self, slug: &str) -> Result<Vec<Value>, String> {
        let sent = self
            .request(reqwest::Method::GET, &format!("/api/frame/comments/{slug}"))
            .timeout(limits::ARTIFACT_READ_TIMEOUT.duration())
            .send()
            .await
            .map_err(|_| "comments fetch failed (network error)".to_owned())?;
        if !sent.status().is_success() {
            return Err("comments are not available on this artifact right now".into());
        }
        let body: Value = sent
            .json()
            .await
            .map_err(|_| "comments fetch failed (unexpected response)".to_owned())?;
        body["threads"]
            .as_array()
            .cloned()
            .ok_or_else(|| "comments fetch failed (unexpected response)".into())
    }

    pub async fn reply(&self, slug: &str, thread: &str, text: &str) -> Reply {
        let sent = self
            .request(
                reqwest::Method::POST,
                &format!("/api/frame/comments/{slug}/{thread}"),
            )
            .timeout(std::time::Duration::from_secs(30))
            .json(&json!({"text": text}))
            .send()
            .await;
        let Ok(r) = sent else {
            return Reply::Failed("comment reply failed (network error)".into());
        };
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        let error = body["error"].as_str().unwrap_or_default();
        match status {
            201 => Reply::Posted {
                thread_id: body["thread_id"].as_str().unwrap_or(thread).to_owned(),
                comment_id: body["comment_id"].as_str().unwrap_or_default().to_owned(),
            },
            403 if error.contains("not activated on this thread") => Reply::NotActivated,
            404 => Reply::Failed("artifact or comment thread not found \u{2014} it may have been deleted, or you may not have access".into()),
            _ => Reply::Failed(format!(
                "comment reply refused (HTTP {status}){}",
                if error.is_empty() { String::new() } else { format!(": {error}") }
            )),
        }
    }
}

/// 2.1.235's text for a publish whose answer never came.
fn unknown(e: &reqwest::Error) -> String {
    let why = if e.is_timeout() {
        "timeout".to_owned()
    } else if e.is_connect() {
        "connection failed".to_owned()
    } else {
        "the connection closed before an answer".to_owned()
    };
    format!("publish outcome unknown (deploy request failed: {why}) \u{2014} it may have published; check the artifact list before publishing again")
}

/// `s` with every byte but RFC 3986's unreserved characters percent-encoded.
pub(super) fn unreserved(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, crate::net::UNRESERVED).to_string()
}
