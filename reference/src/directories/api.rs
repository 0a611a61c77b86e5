//! The organization routes on Anthropic's API host (`/api/oauth/organizations/{org}/…`) as
//! 2.1.235 calls them for its directory tools (recorded: tools.surface/remote-directories): the
//! claude.ai login's bearer, JSON content type, `anthropic-version`, the client platform, the
//! organization in the path and in `x-organization-uuid`, no beta header. Every HTTP status is an
//! answer (the callers judge 4xx and 5xx themselves); a 401 is retried once after a refresh.
//! What fails before a request is sent has 2.1.235's reason words.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::account::login::{self, OAuthConfig};

/// An answer: its status and JSON body (`Null` when the body is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// Why nothing was sent, or nothing came back: the text 2.1.235's callers build on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No usable claude.ai login (its `no-auth`), with what was missing.
    NoAuth(String),
    /// Another reason the route is not reachable (`essential-traffic-only`, `data-residency`).
    Unavailable(&'static str),
    /// A precondition of the login threw (the organization could not be found).
    Thrown(String),
    /// The request went out and no answer came back (axios's words).
    Transport(String),
}

impl Failure {
    /// What a caller that shows the raw failure shows.
    pub fn message(&self) -> String {
        match self {
            Failure::NoAuth(detail) => detail.clone(),
            Failure::Unavailable(reason) => (*reason).to_owned(),
            Failure::Thrown(text) | Failure::Transport(text) => text.clone(),
        }
    }
}

pub struct Client {
    http: reqwest::Client,
    config: OAuthConfig,
    home: std::path::PathBuf,
    platform: String,
    timeout: Duration,
}

impl Client {
    pub fn new(home: &Path, timeout: Duration) -> Result<Self, Failure> {
        if crate::environment::essential_traffic_only() {
            return Err(Failure::Unavailable("essential-traffic-only"));
        }
        if !crate::environment::first_party() {
            return Err(Failure::Unavailable("data-residency"));
        }
        let config = OAuthConfig::from_env().map_err(|e| Failure::Thrown(e.into()))?;
        Ok(Client {
            http: crate::net::http_client(Some(timeout)),
            config,
            home: home.to_owned(),
            platform: crate::design::client_platform(!crate::api::wire::get().interactive),
            timeout,
        })
    }

    pub async fn get(&self, route: &str) -> Result<Answer, Failure> {
        self.send(reqwest::Method::GET, route, None).await
    }

    pub async fn post(&self, route: &str, body: &Value) -> Result<Answer, Failure> {
        self.send(reqwest::Method::POST, route, Some(body)).await
    }

    /// `route` is the path after `/api/oauth/organizations/{org}/`.
    async fn send(
        &self,
        method: reqwest::Method,
        route: &str,
        body: Option<&Value>,
    ) -> Result<Answer, Failure> {
        let mut retried = false;
        loop {
            let token = login::login(&self.home)
                .map(|l| l.access_token)
                .ok_or_else(|| Failure::NoAuth("No OAuth token in keychain".into()))?;
            let org = self.organization(&token).await?;
            let url = format!(
                "{}/api/oauth/organizations/{org}/{route}",
                self.config.base_api_url
            );
            let mut request = self
                .http
                .request(method.clone(), url)
                .header("accept", "application/json, text/plain, */*")
                .header("user-agent", user_agent())
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .header("anthropic-version", "2023-06-01")
                .header("anthropic-client-platform", &self.platform)
                .header("x-organization-uuid", &org);
            if let Some(body) = body {
                request = request.body(body.to_string());
            }
            let response = request
                .send()
                .await
                .map_err(|e| Failure::Transport(crate::net::network_text(&e, self.timeout)))?;
            let status = response.status().as_u16();
            if status == 401 && !retried {
                retried = true;
                let http = crate::net::http_client(Some(Duration::from_secs(30)));
                if login::refresh(&http, &self.config, &self.home, &token).await {
                    continue;
                }
            }
            let text = response
                .text()
                .await
                .map_err(|e| Failure::Transport(crate::net::network_text(&e, self.timeout)))?;
            let body = serde_json::from_str(&text).unwrap_or(Value::Null);
            return Ok(Answer { status, body });
        }
    }

    /// The organization, in 2.1.235's order: `CLAUDE_CODE_ORGANIZATION_UUID`, the account in
    /// `~/.claude.json`, then the login's profile when the login may read it.
    async fn organization(&self, token: &str) -> Result<String, Failure> {
        if let Some(org) = std::env::var("CLAUDE_CODE_ORGANIZATION_UUID")
            .ok()
            .filter(|v| !v.is_empty())
        {
            return Ok(org);
        }
        if let Some(org) = crate::account::organization(&self.home) {
            return Ok(org);
        }
        let may_read_profile =
            login::login(&self.home).is_some_and(|l| l.scopes.iter().any(|s| s == "user:profile"));
        if may_read_profile {
            let profile = self
                .http
                .get(format!("{}/api/oauth/profile", self.config.base_api_url))
                .bearer_auth(token)
                .header("content-type", "application/json")
                .send()
                .await
                .ok();
            if let Some(profile) = profile {
                let v: Value = profile.json().await.unwrap_or(Value::Null);
                if let Some(org) = v["organization"]["uuid"].as_str() {
                    return Ok(org.to_owned());
                }
            }
        }
        Err(Failure::Thrown("Unable to get organization UUID".into()))
    }
}

/// `claude-cli/<version> (external, <entrypoint>)`, as 2.1.235 names itself to these routes.
pub fn user_agent() -> String {
    format!(
        "claude-cli/{} (external, {})",
        crate::CONTRACT_VERSION,
        crate::api::wire::get().entrypoint
    )
}

/// The error envelope's `type` and `message` (`{error: {type, message}}`), when it is one.
pub fn envelope(body: &Value) -> Option<(Option<&str>, Option<&str>)> {
    let error = body.get("error").filter(|e| e.is_object())?;
    Some((error["type"].as_str(), error["message"].as_str()))
}
