//! The requests a session makes besides its loops, as 2.1.235 makes them (recon parity15/request):
//! the `HEAD /api/hello` that warms the connection at start, and the session title asked of a
//! small model with the first prompt.

use std::time::Duration;

use serde_json::{json, Value};

use super::wire::{self, Role};
use super::Client;
use crate::limits;

/// Whether 2.1.235 warms the connection: not through another provider, a proxy, a socket or a
/// client certificate (it cannot reuse that connection then).
pub fn preconnect_wanted() -> bool {
    const SKIPPED_BY: [&str; 13] = [
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "CLAUDE_CODE_USE_ANTHROPIC_AWS",
        "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD",
        "CLAUDE_CODE_USE_MANTLE",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ANTHROPIC_UNIX_SOCKET",
        "CLAUDE_CODE_CLIENT_CERT",
        "CLAUDE_CODE_CLIENT_KEY",
    ];
    !SKIPPED_BY
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()))
}

/// `ANTHROPIC_BASE_URL`, else the first-party API of the OAuth configuration in force.
fn preconnect_base() -> String {
    std::env::var("ANTHROPIC_BASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| {
            crate::account::login::OAuthConfig::from_env()
                .ok()
                .map(|c| c.base_api_url)
        })
        .unwrap_or_else(|| "https://api.anthropic.com".into())
}

/// Starts the warm-up request; its answer (or failure) is never read.
pub fn preconnect() -> Option<tokio::task::JoinHandle<()>> {
    if !preconnect_wanted() {
        return None;
    }
    let url = format!("{}/api/hello", preconnect_base().trim_end_matches('/'));
    Some(tokio::spawn(async move {
        // A plain-http stub needs no roots: the system bundle is not read for it.
        let client = crate::net::http_client_for(&url, None);
        let _ = client
            .head(url)
            .timeout(limits::PRECONNECT_TIMEOUT.duration())
            .send()
            .await;
    }))
}

/// The session title is asked for with the session's first prompt of the user, when it is long
/// enough to name something; under `-p` only when nonessential traffic is allowed.
pub fn title_wanted(prompt: &str, interactive: bool) -> bool {
    let text = prompt.trim();
    if text.starts_with('/') {
        return false;
    }
    let quiet =
        std::env::var_os("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").is_some_and(|v| !v.is_empty());
    (interactive || !quiet)
        && text.encode_utf16().count() as u64 >= limits::SESSION_TITLE_MIN_PROMPT.get()
}

/// The small fast model on Anthropic's own host: 2.1.235 reads WebFetch's pages with it
/// (exp.webf-1's helper request) and names the session with it.
pub const HELPER_MODEL: &str = "claude-haiku-4-5-20251001";

/// The small fast model: `ANTHROPIC_SMALL_FAST_MODEL`; on Anthropic's own host (or with
/// `ANTHROPIC_DEFAULT_HAIKU_MODEL`) the haiku model; elsewhere the session's own model, which a
/// gateway is sure to serve.
pub fn small_model(main_model: &str) -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let Some(model) = env("ANTHROPIC_SMALL_FAST_MODEL") {
        return model;
    }
    if let Some(model) = env("ANTHROPIC_DEFAULT_HAIKU_MODEL") {
        return model;
    }
    if wire::get().first_party {
        return HELPER_MODEL.to_owned();
    }
    main_model.to_owned()
}

const TITLE_SYSTEM: &str =
    "Give this coding session a short name the user will recognize in a list: \
two to five words naming the thing being worked on (a file, a feature, an error), not the \
request itself. Answer with JSON holding the name as `title`.";

const TITLE_LANGUAGE: &str = "Name it in the language the session is mostly written in.";

/// The title request: no tools, no thinking, no caching, the answer held to `{title}`.
pub fn title_request(model: &str, session_id: &str, prompt: &str) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": format!("<session>\n{}\n</session>\n\n{TITLE_LANGUAGE}", prompt.trim())},
        ]}],
        "system": [
            {"type": "text", "text": wire::IDENTITY},
            {"type": "text", "text": TITLE_SYSTEM},
        ],
        "tools": [],
        "metadata": wire::metadata(session_id),
        "max_tokens": limits::API_MAX_TOKENS.get(),
        "thinking": {"type": "disabled"},
        "temperature": 1,
        "output_config": {"format": {"type": "json_schema", "schema": {
            "type": "object",
            "properties": {"title": {"type": "string"}},
            "required": ["title"],
            "additionalProperties": false,
        }}},
        "stream": true,
    })
}

/// Asks for the title: the answer's `title` (its text when that is not the JSON asked for),
/// which the session keeps in its file; a failure is no title.
pub fn title(client: Client, body: Value) -> tokio::task::JoinHandle<Option<String>> {
    let mut client = client.with_role(Role::Helper);
    client.max_retries = 0;
    tokio::spawn(async move {
        let answer = client.send(&body, |_, _, _| {}, |_| {}).await.ok()?;
        let text = answer.message.text();
        let title = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["title"].as_str().map(str::to_owned))
            .unwrap_or(text);
        (!title.trim().is_empty()).then_some(title)
    })
}

pub async fn settle(handle: Option<tokio::task::JoinHandle<()>>, cap: Duration) {
    if let Some(handle) = handle {
        let _ = tokio::time::timeout(cap, handle).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_request_has_the_recorded_shape() {
        let body = title_request("claude-sonnet-4-5", "s", "Send me the report and the data.");
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "model",
                "messages",
                "system",
                "tools",
                "metadata",
                "max_tokens",
                "thinking",
                "temperature",
                "output_config",
                "stream"
            ]
        );
        assert!(body["system"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b.get("cache_control").is_none()));
    }

    #[test]
    fn short_prompts_and_commands_get_no_title() {
        assert!(!title_wanted("go", true));
        assert!(!title_wanted("  Say hi.  ", true));
        assert!(title_wanted("Say hello.", true));
        assert!(!title_wanted("/design revoke all", true));
    }
}
