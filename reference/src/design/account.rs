//! The account-level Design endpoints beside the MCP session: consent
//! (`GET/POST/DELETE /v1/design/consent`, the `agent_design_projects` bit) and durable project
//! grants (`GET/POST /v1/design/grants`). Each request carries the login's bearer and the default
//! first-party timeout; a failed pre-flight falls back to what a later 403 seeds.

use std::collections::HashMap;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::error::DesignError;
use super::state::DesignState;
use crate::account::login as credentials;
use crate::limits;

/// The consent bits this version knows.
pub const CONSENT_BITS: &[&str] = &["agent_design_projects"];

/// The consent card's text for `bit`.
pub fn consent_prompt(bit: &str) -> String {
    match bit {
        "agent_design_projects" => "Connect to Claude Design? Claude can read and edit your Design projects from this tool. Change anytime at claude.ai/design/settings or with /design revoke.".into(),
        _ => String::new(),
    }
}

/// Whether a grants lookup found this project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantLookup {
    Granted,
    NotGranted,
    /// The lookup failed (an old server, a network failure).
    Unavailable,
}

pub struct Account {
    http: reqwest::Client,
    base: String,
    home: PathBuf,
}

impl Account {
    pub fn new(base: &str, home: PathBuf) -> Self {
        Account {
            http: super::transport::http_client(Some(
                limits::DESIGN_HTTP_DEFAULT_TIMEOUT.duration(),
            )),
            base: base.trim_end_matches('/').to_owned(),
            home,
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        // axios's default Accept, as 2.1.235's consent and grants calls send it.
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("accept", "application/json, text/plain, */*");
        if let Some(login) = credentials::login(&self.home) {
            r = r.bearer_auth(login.access_token);
        }
        r
    }

    /// The policy gates of the first-party client, as a reason.
    /// POSTs `body` to `path` and gives the status, unless a gate refuses (`refusal` words it) or
    /// the request never gets an answer.
    async fn post(
        &self,
        path: &str,
        body: Value,
        refusal: impl FnOnce(&str) -> DesignError,
    ) -> Result<u16, DesignError> {
        self.send(reqwest::Method::POST, path, body, refusal).await
    }

    /// As [`post`](Self::post), with any method that carries a JSON body.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
        refusal: impl FnOnce(&str) -> DesignError,
    ) -> Result<u16, DesignError> {
        if let Some(reason) = self.refused() {
            return Err(refusal(reason));
        }
        let r = self
            .request(method, path)
            .json(&body)
            .send()
            .await
            .map_err(|e| {
                DesignError::Plain(super::transport::network_text(
                    &e,
                    limits::DESIGN_HTTP_DEFAULT_TIMEOUT.duration(),
                ))
            })?;
        Ok(r.status().as_u16())
    }

    fn refused(&self) -> Option<&'static str> {
        if crate::environment::essential_traffic_only() {
            Some("essential-traffic-only")
        } else if !crate::environment::first_party() {
            Some("data-residency")
        } else {
            None
        }
    }

    /// The consent pre-flight: the bits the server reports, or nothing on any failure.
    pub async fn consent(&self) -> HashMap<String, bool> {
        let mut out = HashMap::new();
        if self.refused().is_some() {
            return out;
        }
        let Ok(r) = self
            .request(reqwest::Method::GET, "/v1/design/consent")
            .send()
            .await
        else {
            return out;
        };
        if r.status().as_u16() != 200 {
            return out;
        }
        let data: Value = r.json().await.unwrap_or(Value::Null);
        for bit in CONSENT_BITS {
            if let Some(b) = data[*bit].as_bool() {
                out.insert((*bit).to_owned(), b);
            }
        }
        out
    }

    /// Records the user's consent; the cache follows.
    pub async fn post_consent(&self, state: &DesignState, bit: &str) -> Result<(), DesignError> {
        let status = self
            .post("/v1/design/consent", json!({ "consent": bit }), |reason| {
                DesignError::tool(
                    format!("Couldn't record Design consent ({reason})."),
                    "design consent POST blocked by policy gate",
                )
            })
            .await?;
        if status >= 300 {
            return Err(DesignError::Plain(format!(
                "Request failed with status code {status}"
            )));
        }
        state.lock().seed_consent(bit, true);
        Ok(())
    }

    /// `/design revoke`: withdraws the consent (a 404 means there was none); the approved plans,
    /// verified grants and plan store go with it.
    pub async fn revoke_consent(&self, state: &DesignState, bit: &str) -> Result<(), DesignError> {
        let status = self
            .send(
                reqwest::Method::DELETE,
                "/v1/design/consent",
                json!({ "consent": bit }),
                |reason| {
                    DesignError::tool(
                        format!("Couldn't revoke Design consent ({reason})."),
                        "design consent DELETE blocked by policy gate",
                    )
                },
            )
            .await?;
        if status >= 300 && status != 404 {
            return Err(DesignError::Plain(format!(
                "Request failed with status code {status}"
            )));
        }
        state.lock().seed_consent(bit, false);
        Ok(())
    }

    /// The projects that hold a durable grant, or `None` when that cannot be known.
    pub async fn grants(&self) -> Option<HashSet<String>> {
        if self.refused().is_some() {
            return None;
        }
        let r = self
            .request(reqwest::Method::GET, "/v1/design/grants")
            .send()
            .await
            .ok()?;
        if r.status().as_u16() != 200 {
            return None;
        }
        let data: Value = r.json().await.ok()?;
        let list = data["grants"].as_array()?;
        Some(
            list.iter()
                .filter_map(|g| {
                    g["project_id"]
                        .as_str()
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                })
                .collect(),
        )
    }

    pub async fn lookup_grant(&self, project: &str) -> GrantLookup {
        match self.grants().await {
            None => GrantLookup::Unavailable,
            Some(set) if set.contains(project) => GrantLookup::Granted,
            Some(_) => GrantLookup::NotGranted,
        }
    }

    /// Mints a durable grant for `project`; a 404 marks it grant-ineligible.
    pub async fn post_grant(
        &self,
        state: &Arc<DesignState>,
        project: &str,
    ) -> Result<(), DesignError> {
        let status = self
            .post(
                "/v1/design/grants",
                json!({ "project_id": project }),
                |reason| {
                    DesignError::tool(
                        format!("Couldn't record the Design project write grant ({reason})."),
                        "design project grant POST blocked by policy gate",
                    )
                },
            )
            .await?;
        if status == 401 || status == 403 {
            return Err(DesignError::tool(
                format!("Request failed with status code {status}"),
                "design_grant_auth",
            ));
        }
        if status == 404 {
            state.lock().mark_grant_ineligible(project);
            return Err(DesignError::tool("This project cannot hold a durable write grant for this account (it may be shared from another organization, or not viewable) \u{2014} use finalize_plan with writes/deletes and pass the returned plan_token for writes to this project.", "design project grant mint refused for this project"));
        }
        if status >= 300 {
            return Err(DesignError::Plain(format!(
                "Request failed with status code {status}"
            )));
        }
        state.lock().verify_grant(project);
        Ok(())
    }
}
