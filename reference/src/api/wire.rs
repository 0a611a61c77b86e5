//! What every Messages request of the session carries besides its content, as 2.1.235 sends it
//! (recon parity15/request): the attribution block that opens `system`, the `metadata.user_id`
//! JSON, the `anthropic-beta` list per kind of loop. The facts behind them (entrypoint, first-party
//! host, login, device id) are fixed once per process.

use std::path::Path;
use std::sync::OnceLock;

use crate::limits;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Our identity line (never the real binary's words), which opens `system` after the attribution
/// line in every request: the session's, an agent's, a helper's.
pub const IDENTITY: &str =
    "You are the reference agent of a conformance harness for coding-agent command-line tools.";

/// Which loop a request belongs to: the betas, the attribution and the cache lifetime differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The session's own loop.
    Main,
    /// An agent's loop (the Agent tool, a workflow's agents).
    Subagent,
    /// A one-shot helper: the session title, WebFetch's page reader, WebSearch's searcher.
    Helper,
}

/// The session's standing facts.
#[derive(Debug, Clone)]
pub struct Wire {
    /// `cli` at a terminal, `sdk-cli` under `-p` (`CLAUDE_CODE_ENTRYPOINT` when the caller set it).
    pub entrypoint: String,
    pub interactive: bool,
    /// The Messages API is api.anthropic.com itself (no other `ANTHROPIC_BASE_URL`).
    pub first_party: bool,
    /// Requests go with a claude.ai OAuth token rather than an API key.
    pub oauth: bool,
    pub device_id: String,
    pub account_uuid: String,
    /// `ENABLE_TOOL_SEARCH` turns deferral off outright (`tools::tool_search::switched_off`):
    /// the tool-search beta then stays out of a first-party request that defers nothing.
    pub tool_search_off: bool,
    /// `--betas` the CLI lets through, sent last by the main loop.
    pub extra_betas: Vec<String>,
}

/// The Messages API beta that deferred tools and `tool_reference` blocks need.
pub const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";

static WIRE: OnceLock<Wire> = OnceLock::new();

/// Fixes the session's facts; the first call wins (one session per process).
pub fn init(wire: Wire) {
    let _ = WIRE.set(wire);
}

/// The session's facts, or those of a `-p` run on a custom host when no session fixed them
/// (unit tests that build requests directly).
pub fn get() -> &'static Wire {
    WIRE.get_or_init(|| Wire {
        entrypoint: "sdk-cli".into(),
        interactive: false,
        first_party: false,
        oauth: false,
        device_id: "0".repeat(64),
        account_uuid: String::new(),
        tool_search_off: false,
        extra_betas: Vec::new(),
    })
}

impl Wire {
    /// The facts of a session against `base_url` with the given credential, reading and (on first
    /// use) writing the device id in the global config under `home`.
    pub fn for_session(
        base_url: &str,
        oauth: bool,
        interactive: bool,
        home: &Path,
        tool_search_off: bool,
    ) -> Wire {
        let entrypoint = std::env::var("CLAUDE_CODE_ENTRYPOINT")
            .ok()
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| if interactive { "cli" } else { "sdk-cli" }.into());
        let config = crate::environment::global_config(home);
        Wire {
            entrypoint,
            interactive,
            // `_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL` counts as Anthropic's host too.
            first_party: crate::environment::first_party()
                && (first_party_host(base_url) || crate::environment::first_party_base_url()),
            // A third-party provider (Bedrock, Vertex, Foundry, …) never gets the claude.ai
            // login: 2.1.235 sends neither its beta nor the hour-long cache (recorded:
            // brief.upload-reasons/provider).
            oauth: oauth && crate::environment::provider::first_party(),
            device_id: device_id(&config),
            // The account is the claude.ai login's, as `~/.claude.json` records it; an API key
            // or an injected token without a recorded account leaves it empty.
            account_uuid: if oauth {
                account_uuid(&config)
            } else {
                String::new()
            },
            tool_search_off,
            extra_betas: Vec::new(),
        }
    }

    /// With the `--betas` the CLI lets through.
    pub fn with_betas(mut self, betas: Vec<String>) -> Wire {
        self.extra_betas = betas;
        self
    }
}

/// 2.1.235 counts its own host, and only that, as first-party: attribution extras and the split
/// system prompt follow from it.
pub fn first_party_host(base_url: &str) -> bool {
    let rest = base_url.split("://").nth(1).unwrap_or(base_url);
    let host = rest.split(['/', '?']).next().unwrap_or(rest);
    host == "api.anthropic.com" || host == "api.anthropic.com:443"
}

/// The persisted `userID` (64 lowercase hex digits); a missing or malformed one is replaced by 32
/// fresh random bytes, saved for the next run as 2.1.235 saves it.
fn device_id(config: &Path) -> String {
    let mut state: Map<String, Value> = std::fs::read_to_string(config)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    if let Some(id) = state.get("userID").and_then(Value::as_str) {
        if is_device_id(id) {
            return id.to_owned();
        }
    }
    let id: String = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()]
        .iter()
        .flat_map(|u| u.as_bytes().to_vec())
        .map(|b| format!("{b:02x}"))
        .collect();
    state.insert("userID".into(), Value::String(id.clone()));
    if let Ok(text) = serde_json::to_string_pretty(&state) {
        let _ = std::fs::write(config, text);
    }
    id
}

fn is_device_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn account_uuid(config: &Path) -> String {
    std::fs::read_to_string(config)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["oauthAccount"]["accountUuid"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `metadata` of every request: a JSON string, keys in 2.1.235's order.
pub fn metadata(session_id: &str) -> Value {
    let wire = get();
    let user = json!({
        "device_id": wire.device_id,
        "account_uuid": wire.account_uuid,
        "session_id": session_id,
    });
    json!({"user_id": user.to_string()})
}

/// What an attribution line says besides the version.
#[derive(Debug, Default)]
pub struct Attribution<'a> {
    pub subagent: bool,
    /// The previous main-loop answer's `request-id` (first-party only).
    pub previous_request: Option<&'a str>,
    /// The prompt this request serves (first-party only).
    pub prompt_id: Option<&'a str>,
}

/// The placeholder the body hash replaces once the body is serialized.
pub const BODY_HASH_PLACEHOLDER: &str = "cch=00000;";

/// The attribution line that opens `system`: the version with a 3-hex fingerprint of the
/// request's first user text, the entrypoint, then the first-party extras.
pub fn attribution(first_user_text: &str, what: &Attribution) -> Option<String> {
    let off = std::env::var("CLAUDE_CODE_ATTRIBUTION_HEADER").is_ok_and(|v| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    });
    if off {
        return None;
    }
    let wire = get();
    let mut line = format!(
        "x-anthropic-billing-header: cc_version={}.{}; cc_entrypoint={};",
        crate::CONTRACT_VERSION,
        fingerprint(first_user_text),
        wire.entrypoint
    );
    if wire.first_party {
        line.push(' ');
        line.push_str(BODY_HASH_PLACEHOLDER);
    }
    if what.subagent {
        line.push_str(" cc_is_subagent=true;");
    }
    if wire.first_party {
        if let Some(id) = what.previous_request.filter(|id| is_request_id(id)) {
            line.push_str(&format!(" cc_prev_req={id};"));
        }
        if let Some(id) = what.prompt_id {
            line.push_str(&format!(" cc_prompt_id={id};"));
        }
    }
    Some(line)
}

fn is_request_id(id: &str) -> bool {
    id.strip_prefix("req_").is_some_and(|rest| {
        (1..=36).contains(&rest.len())
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// 2.1.235's fingerprint: three UTF-16 units of the text (4th, 7th, 20th; `0` past the end) between
/// a fixed salt and the version, sha256, the first three hex digits.
pub fn fingerprint(text: &str) -> String {
    const SALT: &str = "59cf53e54c78";
    let units: Vec<u16> = text.encode_utf16().collect();
    let picked: String = [4usize, 7, 20]
        .iter()
        .map(|&i| match units.get(i) {
            Some(&u) => char::decode_utf16([u])
                .next()
                .and_then(Result::ok)
                .unwrap_or(char::REPLACEMENT_CHARACTER),
            None => '0',
        })
        .collect();
    let digest = Sha256::digest(format!("{SALT}{picked}{}", crate::CONTRACT_VERSION));
    digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()[..3]
        .to_owned()
}

/// The serialized body with its placeholder replaced by a 5-hex digest of the body. 2.1.235's own
/// digest is computed outside its JavaScript and is not reproduced; the shape is.
pub fn seal(body: String) -> String {
    if !body.contains(BODY_HASH_PLACEHOLDER) {
        return body;
    }
    let digest = Sha256::digest(body.as_bytes());
    let hash = format!("{:02x}{:02x}{:02x}", digest[0], digest[1], digest[2]);
    body.replacen(BODY_HASH_PLACEHOLDER, &format!("cch={};", &hash[..5]), 1)
}

/// The text 2.1.235 fingerprints: the first user message's own words, which follow the reminder
/// blocks the session puts before them.
pub fn first_user_text(body: &Value) -> String {
    let Some(first) = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
    else {
        return String::new();
    };
    match &first["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .rfind(|t| !t.starts_with("<system-reminder>"))
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

/// Whether `model` is the model `name` or a dated release of it (`name-20260101`).
pub fn is_model(model: &str, name: &str) -> bool {
    model
        .strip_prefix(name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

/// Whether 2.1.235 lets `model` decide how much to think, at an effort it names, rather than
/// giving it a budget (recorded: compact.auto on claude-sonnet-4-6; an Agent on opus or fable,
/// core.parameter-coverage/agent-model).
pub fn adaptive_thinking(model: &str) -> bool {
    is_model(model, "claude-sonnet-4-6") || claude_5(model)
}

/// The Claude 5 models (opus-5, fable-5): 2.1.235 gives their requests 64,000 output tokens,
/// adaptive thinking, the skills listing as a system message of its own
/// (`mid-conversation-system`) and the fallback-credit beta (recorded:
/// core.parameter-coverage/agent-model).
pub fn claude_5(model: &str) -> bool {
    is_model(model, "claude-opus-5") || is_model(model, "claude-fable-5")
}

/// A request's `max_tokens` on `model`.
pub fn max_tokens(model: &str) -> u64 {
    if claude_5(model) {
        limits::API_MAX_TOKENS_CLAUDE_5.get()
    } else {
        limits::API_MAX_TOKENS.get()
    }
}

/// An agent on opus-5 runs with the 1M-token window: its requests carry the context-1m beta and
/// its usage is tallied as `claude-opus-5[1m]` (recorded: core.parameter-coverage/agent-model;
/// a main loop on opus-5 is not recorded, so it keeps the 200K window).
pub fn long_context(role: Role, model: &str) -> bool {
    role == Role::Subagent && is_model(model, "claude-opus-5")
}

/// The `anthropic-beta` list of one request, in 2.1.235's order.
pub fn betas(role: Role, body: &Value) -> Vec<String> {
    let wire = get();
    let model = body["model"].as_str().unwrap_or_default();
    let haiku = model.contains("haiku");
    let mut list: Vec<&str> = Vec::new();
    if !haiku {
        list.push("claude-code-20250219");
    }
    if long_context(role, model) {
        list.push("context-1m-2025-08-07");
    }
    if wire.oauth {
        list.push("oauth-2025-04-20");
    }
    if std::env::var_os("DISABLE_INTERLEAVED_THINKING").is_none() {
        list.push("interleaved-thinking-2025-05-14");
    }
    // A person at a terminal sees no thinking text (unless asked for summaries).
    if wire.interactive {
        list.push("redact-thinking-2026-02-12");
    }
    let provider = crate::environment::provider::current();
    // Vertex takes neither context management nor the cache-scope beta, and names tool search
    // by another beta (recorded: core.login-kinds/vertex).
    let vertex = provider == "vertex";
    if provider == crate::environment::provider::FIRST_PARTY {
        list.push("thinking-token-count-2026-05-13");
    }
    if !vertex {
        list.push("context-management-2025-06-27");
    }
    if provider == "foundry" || vertex {
        list.push("web-search-2025-03-05");
    }
    if !vertex {
        list.push("prompt-caching-scope-2026-01-05");
    }
    let deferring = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["defer_loading"] == true));
    let offered = wire.first_party && role != Role::Helper && !haiku && !wire.tool_search_off;
    if deferring || offered {
        list.push(if vertex {
            super::vertex::TOOL_SEARCH_BETA
        } else {
            TOOL_SEARCH_BETA
        });
    }
    if body.pointer("/output_config/format").is_some() {
        list.push("structured-outputs-2025-12-15");
    }
    if claude_5(model) {
        list.push("mid-conversation-system-2026-04-07");
    }
    if body.pointer("/output_config/effort").is_some() {
        list.push("effort-2025-11-24");
    }
    if claude_5(model) {
        list.push("fallback-credit-2026-06-01");
    }
    if body.pointer("/output_config/task_budget").is_some() {
        list.push("task-budgets-2026-03-13");
    }
    // A haiku main loop (a host's set_model, a fallback) or agent still says it is Claude Code,
    // last (recorded: sdk.control/model, core.parameter-coverage/agent-model).
    if haiku && role != Role::Helper {
        list.push("claude-code-20250219");
    }
    if long_cache(role) {
        list.push("extended-cache-ttl-2025-04-11");
    }
    if role == Role::Main {
        list.extend(wire.extra_betas.iter().map(String::as_str));
    }
    let mut list: Vec<String> = list.into_iter().map(str::to_owned).collect();
    if let Ok(extra) = std::env::var("ANTHROPIC_BETAS") {
        for beta in extra.split(',').map(str::trim).filter(|b| !b.is_empty()) {
            if !list.iter().any(|b| b == beta) {
                list.push(beta.to_owned());
            }
        }
    }
    list
}

/// The main loop of a claude.ai login caches for an hour (2.1.235's allow-list of query sources;
/// `FORCE_PROMPT_CACHING_5M` / `ENABLE_PROMPT_CACHING_1H` override it).
pub fn long_cache(role: Role) -> bool {
    let on = crate::environment::switched_on;
    if on("FORCE_PROMPT_CACHING_5M") {
        return false;
    }
    if on("ENABLE_PROMPT_CACHING_1H") {
        return true;
    }
    role == Role::Main && get().oauth
}

/// A cache breakpoint of `role`'s requests.
pub fn cache_control(role: Role) -> Value {
    if long_cache(role) {
        json!({"type": "ephemeral", "ttl": "1h"})
    } else {
        json!({"type": "ephemeral"})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_matches_recorded_requests() {
        // core.text-turn, its side title request, design.catalog-hash (2.1.235 records).
        assert_eq!(fingerprint("Say hello."), "189");
        assert_eq!(
            fingerprint("<session>\nSend me the report and the data.\n</session>\n\nWrite"),
            "000"
        );
        assert_eq!(fingerprint("What can Claude Design do?"), "49b");
    }

    #[test]
    fn first_user_text_skips_reminders() {
        let body = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>\nx\n</system-reminder>"},
            {"type": "text", "text": "Say hello."},
        ]}]});
        assert_eq!(first_user_text(&body), "Say hello.");
    }

    #[test]
    fn first_party_is_anthropics_host_only() {
        assert!(first_party_host("https://api.anthropic.com"));
        assert!(first_party_host("https://api.anthropic.com/"));
        assert!(!first_party_host("http://127.0.0.1:4000"));
        assert!(!first_party_host("https://api.anthropic.com.example"));
    }

    #[test]
    fn device_id_is_kept_or_made_and_saved() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".claude.json");
        std::fs::write(&config, r#"{"theme":"dark","userID":"short"}"#).unwrap();
        let made = device_id(&config);
        assert!(is_device_id(&made), "{made}");
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
        assert_eq!(saved["userID"], made.as_str());
        assert_eq!(saved["theme"], "dark");
        assert_eq!(device_id(&config), made);
    }

    #[test]
    fn seal_replaces_the_placeholder_with_five_hex_digits() {
        let sealed = seal(format!("{{\"a\":\"x {BODY_HASH_PLACEHOLDER}\"}}"));
        let hash = sealed.split("cch=").nth(1).unwrap();
        assert_eq!(hash.len(), "12345;\"}".len());
        assert!(hash[..5].bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(&hash[..5], "00000");
    }
}
