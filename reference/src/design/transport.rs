//! The one request of the Design MCP session: `POST <base>/v1/design/mcp` with the bearer, the
//! Anthropic headers, the client's own name and the session id once known; 60,000 ms; a body cap
//! of 2,080,000 bytes; JSON only (an event stream is refused); the base must be Anthropic's own
//! host. A 401 gets one refresh (raced against 5,000 ms) and one retry with the new token; the
//! new token never appears in what is returned.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use serde_json::Value;

use super::credentials;
use super::error::{redact, DesignError};
use super::signal::Signal;
use crate::account::login::{self, OAuthConfig};
use crate::limits;

/// The one host Design is reachable through.
pub const FIRST_PARTY_HOST: &str = "api.anthropic.com";
pub const OFF_ALLOWLIST: &str = "Claude Design is only reachable from api.anthropic.com; the current OAuth base URL is not on the first-party allowlist.";
pub const SSE_REFUSED: &str =
    "Claude Design returned a text/event-stream response; this client only handles JSON.";

/// Finds a new token after a 401 (2.1.235's `koS`), or gives up.
pub trait Renew: Send + Sync {
    fn renew(&self, rejected: String) -> BoxFuture<'static, Option<String>>;
}

/// The login's refresh, then whatever credential is current, each raced against the refresh cap.
pub struct LoginRenew {
    pub http: reqwest::Client,
    pub config: OAuthConfig,
    pub home: PathBuf,
}

impl Renew for LoginRenew {
    fn renew(&self, rejected: String) -> BoxFuture<'static, Option<String>> {
        let (http, config, home) = (self.http.clone(), self.config.clone(), self.home.clone());
        async move {
            let race = limits::DESIGN_AUTH_REFRESH_RACE.duration();
            let login = login::login(&home);
            if login
                .as_ref()
                .is_some_and(|l| l.access_token == rejected && l.refresh_token.is_some())
            {
                let _ =
                    tokio::time::timeout(race, login::refresh(&http, &config, &home, &rejected))
                        .await;
            }
            let now = credentials::design_token(&home).ok();
            now.filter(|t| *t != rejected)
        }
        .boxed()
    }
}

/// An answer: its status, its body (JSON, or the text when it is not JSON or text was asked
/// for), and the `Mcp-Session-Id` header.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub data: Value,
    pub session_id: Option<String>,
}

pub struct Transport {
    http: reqwest::Client,
    base: String,
    /// Production checks the base against the first-party host; unit tests talk plain HTTP.
    check_allowlist: bool,
    platform: String,
    renew: Arc<dyn Renew>,
}

/// The value of `anthropic-client-platform` for this entrypoint (2.1.235's `KF`); `-p` runs are
/// `sdk-cli` unless the environment names another entrypoint.
pub fn client_platform(print: bool) -> String {
    let entry = std::env::var("CLAUDE_CODE_ENTRYPOINT").ok();
    let entry = match entry.as_deref() {
        Some("cli") | None if print => "sdk-cli",
        Some(e) => e,
        None => "cli",
    };
    match entry {
        "claude-vscode" => "claude_code_vscode",
        "remote" | "remote_baku" | "remote_cowork" | "remote_desktop" | "remote_mobile"
        | "claude-in-teams" => "claude_code_remote",
        "sdk-cli" | "sdk-ts" | "sdk-py" => "claude_code_sdk",
        "mcp" => "claude_code_mcp",
        "claude-code-github-action" => "claude_code_github_action",
        "local-agent" => "claude_code_local_agent",
        "claude_in_slack" => "claude_in_slack",
        "claude-in-slack" => "claude-in-slack",
        _ => "claude_code_cli",
    }
    .to_owned()
}

pub use crate::net::http_client;

pub use crate::net::network_text;
use crate::net::timeout_text;

impl Transport {
    /// The production transport: the OAuth base URL, checked against the allowlist.
    pub fn production(home: PathBuf, print: bool) -> Result<Self, String> {
        let config = OAuthConfig::from_env().map_err(str::to_owned)?;
        let http = http_client(None);
        Ok(Transport {
            base: config.base_api_url.clone(),
            check_allowlist: true,
            platform: client_platform(print),
            renew: Arc::new(LoginRenew {
                http: http.clone(),
                config,
                home,
            }),
            http,
        })
    }

    /// A transport to `base` that skips the allowlist (tests).
    pub fn unchecked(base: &str, platform: &str, renew: Arc<dyn Renew>) -> Self {
        Transport {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
            check_allowlist: false,
            platform: platform.to_owned(),
            renew,
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// One JSON-RPC message to the Design MCP endpoint. `text` keeps the body as text (the
    /// initialize answer). A 401 is renewed and retried once; a second 401 is `Auth401`.
    pub async fn post(
        &self,
        body: &Value,
        token: &str,
        session_id: Option<&str>,
        signal: &Signal,
        text: bool,
    ) -> Result<Reply, DesignError> {
        let first = self.send(body, token, session_id, signal, text).await?;
        if first.0.status != 401 {
            return self.json_only(first);
        }
        if signal.aborted() {
            return Err(DesignError::Aborted);
        }
        let renewed = tokio::select! {
            t = self.renew.renew(token.to_owned()) => t,
            _ = signal.cancelled() => None,
        };
        let Some(fresh) = renewed.filter(|_| !signal.aborted()) else {
            if signal.aborted() {
                return Err(DesignError::Aborted);
            }
            return Err(DesignError::Auth401 { retried: false });
        };
        let second = match self.send(body, &fresh, session_id, signal, text).await {
            Ok(r) => r,
            Err(DesignError::Plain(m)) => return Err(DesignError::Plain(redact(&m, &fresh))),
            Err(e) => return Err(e),
        };
        if second.0.status == 401 {
            return Err(DesignError::Auth401 { retried: true });
        }
        let mut second = self.json_only(second)?;
        second.data = match &second.data {
            Value::String(s) => Value::String(redact(s, &fresh)),
            other => {
                let s = other.to_string();
                if s.contains(&fresh) {
                    serde_json::from_str(&redact(&s, &fresh)).unwrap_or(Value::Null)
                } else {
                    second.data.clone()
                }
            }
        };
        Ok(second)
    }

    fn json_only(&self, reply: (Reply, Option<String>)) -> Result<Reply, DesignError> {
        let (reply, content_type) = reply;
        if content_type.is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream")) {
            return Err(DesignError::tool(
                SSE_REFUSED,
                "design_tool_sse_unsupported",
            ));
        }
        Ok(reply)
    }

    async fn send(
        &self,
        body: &Value,
        token: &str,
        session_id: Option<&str>,
        signal: &Signal,
        text: bool,
    ) -> Result<(Reply, Option<String>), DesignError> {
        if self.check_allowlist && !first_party_url(&self.base) {
            return Err(DesignError::Plain(OFF_ALLOWLIST.into()));
        }
        if crate::environment::essential_traffic_only() {
            return Err(DesignError::tool(
                "Claude Design unavailable: essential-traffic-only",
                "design_tool_policy_refused",
            ));
        }
        if !crate::environment::first_party() {
            return Err(DesignError::tool(
                "Claude Design unavailable: data-residency",
                "design_tool_policy_refused",
            ));
        }
        let timeout = limits::DESIGN_MCP_REQUEST_TIMEOUT.duration();
        let mut request = self
            .http
            .post(format!("{}/v1/design/mcp", self.base))
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .header("anthropic-version", "2023-06-01")
            .header("anthropic-client-platform", &self.platform)
            .header("Accept", "application/json, text/event-stream")
            .header("X-Anthropic-Client", "claude-cli-design-tool")
            .header(
                "User-Agent",
                concat!(
                    "claude-reference/",
                    env!("CARGO_PKG_VERSION"),
                    " (conformance)"
                ),
            )
            .body(body.to_string());
        if let Some(id) = session_id {
            request = request.header("Mcp-Session-Id", id);
        }
        let exchange = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| DesignError::Plain(network_text(&e, timeout)))?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let session = header("mcp-session-id");
            let content_type = header("content-type");
            let cap = limits::DESIGN_MCP_MAX_CONTENT_LENGTH.usize();
            let too_long =
                || DesignError::Plain(format!("maxContentLength size of {cap} exceeded"));
            let mut bytes = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| DesignError::Plain(network_text(&e, timeout)))?
            {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > cap {
                    return Err(too_long());
                }
            }
            let body = String::from_utf8_lossy(&bytes).into_owned();
            let data = if text {
                Value::String(body)
            } else {
                serde_json::from_str(&body).unwrap_or(Value::String(body))
            };
            Ok((
                Reply {
                    status,
                    data,
                    session_id: session,
                },
                content_type,
            ))
        };
        tokio::select! {
            r = tokio::time::timeout(timeout, exchange) => r.unwrap_or_else(|_| Err(DesignError::Plain(timeout_text(timeout)))),
            _ = signal.cancelled() => Err(DesignError::Cancelled),
        }
    }
}

/// Whether `url`'s host is Anthropic's own API host.
pub fn first_party_url(url: &str) -> bool {
    reqwest::Url::parse(url)
        .ok()
        .is_some_and(|u| u.host_str() == Some(FIRST_PARTY_HOST) && u.port().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_party_host_passes() {
        assert!(first_party_url("https://api.anthropic.com"));
        assert!(!first_party_url("https://claude.fedstart.com"));
        assert!(!first_party_url("http://127.0.0.1:8080"));
    }

    #[test]
    fn platform_follows_the_entrypoint() {
        if std::env::var_os("CLAUDE_CODE_ENTRYPOINT").is_none() {
            assert_eq!(client_platform(true), "claude_code_sdk");
            assert_eq!(client_platform(false), "claude_code_cli");
        }
    }
}
