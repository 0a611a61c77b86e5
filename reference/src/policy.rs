//! The organization's policy limits (`allow_design_sync`, …), as 2.1.235 keeps them: fetched at
//! start from `<API>/api/claude_code/policy_limits` when the session is eligible, stored in
//! `<config dir>/policy-limits.json`, which the gates read. Eligible (2.1.235's `vXt`): the
//! first-party provider on Anthropic's own API, and an API key, or a claude.ai login with the
//! inference scope whose plan is unknown, `team` or `enterprise`. A failed fetch keeps the cache.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::design::gates;

const BASE_API_URL: &str = "https://api.anthropic.com";

enum Auth {
    ApiKey(String),
    Bearer(String),
}

fn eligible(home: &Path) -> Option<Auth> {
    if !gates::first_party() || !gates::first_party_base_url() {
        return None;
    }
    if let Some(key) = std::env::var("ANTHROPIC_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())
    {
        return Some(Auth::ApiKey(key));
    }
    let login = crate::design::credentials::login(home)?;
    if !login.scopes.iter().any(|s| s == "user:inference") {
        return None;
    }
    match login.subscription.as_deref() {
        None | Some("team") | Some("enterprise") => Some(Auth::Bearer(login.access_token)),
        Some(_) => None,
    }
}

/// Whether the organization's remote settings apply to this session (the same eligibility).
pub fn settings_eligible(home: &Path) -> bool {
    eligible(home).is_some()
}

/// Fetches the policy once, before the session starts (2.1.235 awaits it on a cold start).
pub fn refresh(home: &Path) {
    let Some(auth) = eligible(home) else {
        return;
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(_) => return,
    };
    let fetched = runtime.block_on(async {
        let client = crate::net::http_client(Some(Duration::from_secs(10)));
        let request = client.get(format!("{BASE_API_URL}/api/claude_code/policy_limits"));
        let request = match &auth {
            Auth::ApiKey(k) => request.header("x-api-key", k),
            Auth::Bearer(t) => request
                .bearer_auth(t)
                .header("anthropic-beta", "oauth-2025-04-20"),
        };
        let response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        response
            .json::<Value>()
            .await
            .ok()
            .filter(|v| v["restrictions"].is_object())
    });
    if let Some(policy) = fetched {
        let dir = gates::config_dir(home);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("policy-limits.json"), policy.to_string());
    }
}
