//! ClaudeDesign on the mock claude.ai, as data: what a scenario's `[design]` table scripts (the
//! operations `tools/list` publishes, answers by method, tool and occurrence, the consent bit and
//! the durable project grants), what each request leaves on record, and how an answer becomes a
//! body. The routes that play it are in `design_routes.rs`.
//!
//! Tokens never reach a record: the bearer is classified, not kept, and any copy of it the client
//! echoes inside a body is replaced before the body is recorded.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The scripted Design backend: `[design]` in a scenario.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct DesignScript {
    /// `initialize` answers `Mcp-Session-Id: <prefix>-<n>`, n counting initializes from 1, so a
    /// re-handshake shows in the id. `design-session` by default.
    pub session_prefix: Option<String>,
    /// What `tools/list` publishes (`[[design.tool]]`).
    pub tool: Vec<DesignTool>,
    /// Scripted answers (`[[design.answer]]`); the first that matches a request wins.
    pub answer: Vec<DesignAnswer>,
    /// The account's `agent_design_projects` consent; unknown (GET answers 404) by default.
    pub consent: Option<bool>,
    /// Project ids that already hold a durable write grant.
    pub grants: Vec<String>,
    /// Project ids whose grant POST is refused with 404.
    pub grant_ineligible: Vec<String>,
    /// DesignSync's design-system projects (`[[design.sync_project]]`, see `design_sync.rs`).
    pub sync_project: Vec<super::design_sync::SyncProject>,
    /// The fixture account's access token, given by the harness so a request carrying it can be
    /// told from one carrying a refreshed token. Never read from or written to a scenario.
    #[serde(skip)]
    account_token: Secret,
}

impl DesignScript {
    pub fn with_account_token(mut self, token: impl Into<String>) -> Self {
        self.account_token = Secret(Some(token.into()));
        self
    }

    pub(super) fn account_token(&self) -> Option<&str> {
        self.account_token.0.as_deref()
    }

    pub(super) fn session_id(&self, n: usize) -> String {
        let prefix = self.session_prefix.as_deref().unwrap_or("design-session");
        format!("{prefix}-{n}")
    }

    /// The answer for a request that is the `nth` (1-based) with its method and `nth_of_tool`
    /// with its method and tool.
    pub(super) fn find_answer(
        &self,
        method: DesignMethod,
        tool: Option<&str>,
        nth: usize,
        nth_of_tool: usize,
    ) -> Option<&DesignAnswer> {
        self.answer.iter().find(|a| {
            let occurrence = if a.tool.is_some() { nth_of_tool } else { nth };
            a.method == method
                && a.tool.as_deref().is_none_or(|t| Some(t) == tool)
                && a.nth.is_none_or(|n| n == occurrence)
        })
    }

    /// The `tools/list` result.
    pub(super) fn tools_result(&self) -> Value {
        json!({"tools": self.tool.iter().map(DesignTool::to_json).collect::<Vec<_>>()})
    }
}

/// A string kept out of `Debug` output, so printing a script cannot leak the token.
#[derive(Clone, Default)]
struct Secret(Option<String>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some([redacted])"
        } else {
            "None"
        })
    }
}

/// One operation `tools/list` publishes.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DesignTool {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Published as `inputSchema`; left out when absent, which the client tolerates.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// `annotations.readOnlyHint`, sent only when set: the client's defaults for a missing hint
    /// are part of what a scenario may test.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// `annotations.destructiveHint`, sent only when set.
    #[serde(default)]
    pub destructive: Option<bool>,
}

impl DesignTool {
    fn to_json(&self) -> Value {
        let mut tool = json!({"name": self.name});
        if let Some(d) = &self.description {
            tool["description"] = json!(d);
        }
        if let Some(s) = &self.input_schema {
            tool["inputSchema"] = s.clone();
        }
        if self.read_only.is_some() || self.destructive.is_some() {
            let mut annotations = json!({});
            if let Some(r) = self.read_only {
                annotations["readOnlyHint"] = json!(r);
            }
            if let Some(d) = self.destructive {
                annotations["destructiveHint"] = json!(d);
            }
            tool["annotations"] = annotations;
        }
        tool
    }
}

/// What a scripted answer matches: a JSON-RPC method on `/v1/design/mcp`, or one of the two REST
/// endpoints (any HTTP method).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub enum DesignMethod {
    #[serde(rename = "initialize")]
    Initialize,
    #[serde(rename = "tools/list")]
    ToolsList,
    #[serde(rename = "tools/call")]
    ToolsCall,
    #[serde(rename = "consent")]
    Consent,
    #[serde(rename = "grants")]
    Grants,
    /// A DesignSync RPC; `tool` names the RPC (`ListFiles`).
    #[serde(rename = "sync")]
    Sync,
}

impl DesignMethod {
    pub(super) fn from_rpc(method: &str) -> Option<Self> {
        match method {
            "initialize" => Some(Self::Initialize),
            "tools/list" => Some(Self::ToolsList),
            "tools/call" => Some(Self::ToolsCall),
            _ => None,
        }
    }
}

/// A scripted answer: `[[design.answer]]`. What it leaves unset keeps the default answer; a
/// non-2xx `status` alone answers `{"error": "<reason>"}`. For consent and grants the default's
/// effect on the state (consent set, grant added) happens only when the final status is 2xx.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DesignAnswer {
    pub method: DesignMethod,
    /// The `tools/call` operation it answers; any when absent.
    #[serde(default)]
    pub tool: Option<String>,
    /// The 1-based occurrence among requests with this method and `tool` (with this method alone
    /// when `tool` is absent), counting every request, refused ones too; every occurrence when
    /// absent.
    #[serde(default)]
    pub nth: Option<usize>,
    /// HTTP status; 200 unless the default says otherwise.
    #[serde(default)]
    pub status: Option<u16>,
    /// The JSON-RPC result, wrapped in an envelope with the request's id.
    #[serde(default)]
    pub result: Option<Value>,
    /// A JSON-RPC error object, in place of `result`.
    #[serde(default)]
    pub error: Option<Value>,
    /// The body as is, in place of any envelope (e.g. 403 `needs_consent`).
    #[serde(default)]
    pub body: Option<String>,
    /// `application/json` by default; `text/event-stream` frames an envelope as one SSE event.
    #[serde(default)]
    pub content_type: Option<String>,
    /// The body is made at least this many bytes: a text block appended to `result.content`, or
    /// trailing whitespace where there is no result to grow.
    #[serde(default)]
    pub pad_to: Option<usize>,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Drop the current session and answer 404, as a server that forgot it does.
    #[serde(default)]
    pub forget_session: bool,
}

/// Which endpoint a request reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DesignEndpoint {
    #[default]
    Mcp,
    Consent,
    Grants,
    /// DesignSync's RPCs; `rpc` names the RPC, `body` is the request's.
    Sync,
}

/// The bearer a request carried, by origin; its value is never kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bearer {
    #[default]
    None,
    /// The fixture account's access token.
    Fixture,
    /// One the mock's OAuth endpoint issued.
    Refreshed,
    /// The session access token of a remote session (Projects' session route).
    Session,
    Other,
}

impl Bearer {
    pub(super) fn classify(token: Option<&str>, account: Option<&str>) -> Self {
        match token {
            None => Bearer::None,
            Some(t) if Some(t) == account => Bearer::Fixture,
            Some(t) if t.starts_with("sk-ant-oat01-mock-access-") => Bearer::Refreshed,
            Some(_) => Bearer::Other,
        }
    }
}

/// One request to a Design route, as the mock saw it. (`Default`: a blank request, which the
/// harness's mutation tests add to a record.)
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DesignRequest {
    pub endpoint: DesignEndpoint,
    pub http_method: String,
    /// The JSON-RPC method.
    pub rpc: Option<String>,
    /// The JSON-RPC id.
    pub id: Option<Value>,
    /// The `tools/call` operation and its arguments.
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    /// The `initialize` params (protocolVersion, clientInfo, capabilities).
    pub params: Option<Value>,
    /// The `Mcp-Session-Id` sent.
    pub session: Option<String>,
    pub accept: Option<String>,
    /// `X-Anthropic-Client`.
    pub client: Option<String>,
    pub anthropic_version: Option<String>,
    /// Whether `anthropic-client-platform` came.
    pub platform: bool,
    pub content_type: Option<String>,
    pub bearer: Bearer,
    /// The JSON body of a consent or grants POST/DELETE (a string when it was not JSON).
    pub body: Option<Value>,
    pub status: u16,
}

/// A request to a path no route serves; the client's start-up calls land here.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherRequest {
    pub method: String,
    pub host: Option<String>,
    pub path: String,
}

/// A body to send: a JSON value (an envelope or a REST answer) or scripted text as is.
pub(super) enum Body {
    Json(Value),
    Raw(String),
}

/// `{"error": "<reason>"}` for a status with no scripted body.
pub(super) fn error_body(status: u16) -> Value {
    let reason = axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("scripted")
        .to_ascii_lowercase();
    json!({"error": reason})
}

/// Serializes `body` at least `pad_to` bytes long, framed as an SSE event when `sse`. Padding
/// goes into the result's content so a client's content cap sees it as well as its byte cap.
pub(super) fn render(body: Body, pad_to: Option<usize>, sse: bool) -> String {
    let pad_to = pad_to.unwrap_or(0);
    let mut text = match body {
        Body::Raw(text) => text,
        Body::Json(mut value) => {
            let short = value.to_string().len() < pad_to;
            if let Some(result) = value.get_mut("result").filter(|r| short && r.is_object()) {
                let content = result
                    .as_object_mut()
                    .expect("checked")
                    .entry("content")
                    .or_insert_with(|| json!([]));
                if let Some(blocks) = content.as_array_mut() {
                    blocks.push(json!({"type": "text", "text": ""}));
                    let need = pad_to.saturating_sub(value.to_string().len());
                    let blocks = value["result"]["content"].as_array_mut().expect("pushed");
                    let last = blocks.last_mut().expect("pushed");
                    last["text"] = json!("x".repeat(need));
                }
            }
            let text = value.to_string();
            if sse {
                format!("event: message\ndata: {text}\n\n")
            } else {
                text
            }
        }
    };
    if text.len() < pad_to {
        text.extend(std::iter::repeat_n(' ', pad_to - text.len()));
    }
    text
}

/// Puts `token` wherever `{access_token}` appears in the value's strings.
pub(super) fn put_token(value: &mut Value, token: &str) {
    match value {
        Value::String(s) if s.contains("{access_token}") => {
            *s = s.replace("{access_token}", token);
        }
        Value::Array(items) => items.iter_mut().for_each(|v| put_token(v, token)),
        Value::Object(map) => map.values_mut().for_each(|v| put_token(v, token)),
        _ => {}
    }
}

/// Removes every occurrence of the given secrets from the value's strings, before it is recorded.
pub(super) fn scrub(value: &mut Value, secrets: &[&str]) {
    match value {
        Value::String(s) => *s = scrub_str(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub(v, secrets)),
        _ => {}
    }
}

pub(super) fn scrub_str(s: &str, secrets: &[&str]) -> String {
    secrets
        .iter()
        .filter(|t| !t.is_empty())
        .fold(s.to_owned(), |s, t| s.replace(t, "[redacted]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_table_reads_into_a_script() {
        let script: DesignScript = serde_json::from_value(json!({
            "session_prefix": "s",
            "tool": [{"name": "list_files", "read_only": true, "input_schema": {"type": "object"}}],
            "answer": [{"method": "tools/call", "tool": "get_project", "nth": 2, "status": 500}],
            "grants": ["p1"],
        }))
        .unwrap();
        assert_eq!(script.session_id(3), "s-3");
        let a = script.find_answer(DesignMethod::ToolsCall, Some("get_project"), 5, 2);
        assert_eq!(a.and_then(|a| a.status), Some(500));
        let first = script.find_answer(DesignMethod::ToolsCall, Some("get_project"), 2, 1);
        assert!(first.is_none());
        assert_eq!(
            script.tools_result(),
            json!({"tools": [{"name": "list_files", "inputSchema": {"type": "object"},
                              "annotations": {"readOnlyHint": true}}]})
        );
        let typo =
            serde_json::from_value::<DesignScript>(json!({"answer": [{"method": "tools/cal"}]}));
        assert!(typo.is_err());
    }

    #[test]
    fn the_account_token_stays_out_of_debug_and_serialization() {
        let script = DesignScript::default().with_account_token("sk-ant-oat01-fixture");
        assert_eq!(script.account_token(), Some("sk-ant-oat01-fixture"));
        assert!(!format!("{script:?}").contains("fixture"));
        assert!(!serde_json::to_string(&script).unwrap().contains("fixture"));
    }

    #[test]
    fn bearers_are_classified_by_origin() {
        let account = Some("acct");
        assert_eq!(Bearer::classify(None, account), Bearer::None);
        assert_eq!(Bearer::classify(Some("acct"), account), Bearer::Fixture);
        let refreshed = Some("sk-ant-oat01-mock-access-0001");
        assert_eq!(Bearer::classify(refreshed, account), Bearer::Refreshed);
        assert_eq!(Bearer::classify(Some("x"), None), Bearer::Other);
    }

    #[test]
    fn padding_reaches_the_size_exactly_and_keeps_the_json_valid() {
        let envelope = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        let text = render(Body::Json(envelope), Some(5000), false);
        assert_eq!(text.len(), 5000);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["result"]["content"][0]["type"], "text");
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}});
        let text = render(Body::Json(error), Some(300), false);
        assert_eq!(text.len(), 300);
        assert!(serde_json::from_str::<Value>(&text).is_ok());
    }
}
