//! DesignSync's RPC client: JSON POSTs to the design projects service on the claude.ai API base,
//! with the headers 2.1.235 sends (recorded in designsync.read: bearer, JSON content type,
//! `anthropic-version`, `anthropic-client-platform`, `X-Anthropic-Client:
//! claude-cli-design-sync`, axios's Accept), and its failure texts.

use serde_json::{json, Value};

use crate::design::client_platform;
use crate::limits;
use crate::net::{http_client, network_text};

const SERVICE: &str = "anthropic.omelette.api.v1alpha.OmeletteService";
const CLIENT: &str = "claude-cli-design-sync";

/// A failed RPC: its HTTP status (0 when no answer came) and the body, as 2.1.235 keeps them.
#[derive(Debug)]
pub struct RpcError {
    pub rpc: String,
    pub status: u16,
    pub body: Value,
}

impl RpcError {
    /// `Design API <Rpc> failed: HTTP <status> <body, at most 200 characters>`.
    pub fn message(&self) -> String {
        let body = match &self.body {
            Value::Null => String::new(),
            Value::String(s) => s.chars().take(200).collect(),
            other => other.to_string().chars().take(200).collect(),
        };
        format!(
            "Design API {} failed: HTTP {} {body}",
            self.rpc, self.status
        )
    }

    /// A refused credential: 401, or a 403 naming a missing scope.
    pub fn needs_login(&self) -> bool {
        self.status == 401 || (self.status == 403 && self.body["error"] == "insufficient_scope")
    }
}

pub struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
    platform: String,
}

impl Api {
    pub fn new(base: &str, token: String, print: bool) -> Self {
        Api {
            http: http_client(Some(limits::DESIGN_SYNC_RPC_TIMEOUT.duration())),
            base: base.trim_end_matches('/').to_owned(),
            token,
            platform: client_platform(print),
        }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// One RPC; a 2xx answer's JSON body, else the failure.
    pub async fn call(&self, rpc: &str, body: Value) -> Result<Value, RpcError> {
        let fail = |status, body| RpcError {
            rpc: rpc.to_owned(),
            status,
            body,
        };
        let reply = self
            .http
            .post(format!("{}/{SERVICE}/{rpc}", self.base))
            .header("accept", "application/json, text/plain, */*")
            .bearer_auth(&self.token)
            .header("anthropic-version", "2023-06-01")
            .header("anthropic-client-platform", &self.platform)
            .header("X-Anthropic-Client", CLIENT)
            .json(&body)
            .send()
            .await
            .map_err(|e| {
                let reason = network_text(&e, limits::DESIGN_SYNC_RPC_TIMEOUT.duration());
                fail(0, json!({ "error": reason }))
            })?;
        let status = reply.status().as_u16();
        let text = reply.text().await.unwrap_or_default();
        let data = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if (200..300).contains(&status) {
            Ok(data)
        } else {
            Err(fail(status, data))
        }
    }
}
