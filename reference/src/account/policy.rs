//! The organization's policy limits (`allow_design_sync`, …), as 2.1.235 keeps them: fetched at
//! start from `<API>/api/claude_code/policy_limits` when the session is eligible, stored in
//! `<config dir>/policy-limits.json`, which `allows` reads. Eligible (2.1.235's `vXt`): the
//! first-party provider on Anthropic's own API, and an API key, or a claude.ai login with the
//! inference scope whose plan is unknown, `team` or `enterprise`. A failed fetch keeps the cache.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::environment;

const BASE_API_URL: &str = "https://api.anthropic.com";

enum Auth {
    ApiKey(String),
    Bearer(String),
}

fn eligible(home: &Path) -> Option<Auth> {
    if !environment::first_party() || !environment::first_party_base_url() {
        return None;
    }
    if let Some(key) = std::env::var("ANTHROPIC_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())
    {
        return Some(Auth::ApiKey(key));
    }
    let login = super::login::login(home)?;
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
        let file = cache_file(home);
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(file, policy.to_string());
    }
}

/// Where the policy is cached: `<config dir>/policy-limits.json`.
fn cache_file(home: &Path) -> std::path::PathBuf {
    environment::config_dir(home).join("policy-limits.json")
}

/// Whether a policy is cached at all (fetched by this session or an earlier one).
pub fn cached(home: &Path) -> bool {
    cache_file(home).is_file()
}

/// The organization's policy for `key`, read from the policy-limits cache the way 2.1.235 reads
/// it: only a first-party session on Anthropic's own API consults the cache
/// (`<config dir>/policy-limits.json`, `{"restrictions": {key: {"allowed": bool}}}`); a key it does
/// not list is allowed unless a compliance taint forbids it (`hipaa` forbids design sync and Projects); with
/// no cache the key is allowed.
pub fn allows(home: &Path, key: &str) -> bool {
    if !environment::first_party() || !environment::first_party_base_url() {
        return true;
    }
    let Some(policy) =
        crate::json::read_file(&cache_file(home)).filter(|v| v["restrictions"].is_object())
    else {
        return true;
    };
    if let Some(allowed) = policy["restrictions"][key]["allowed"].as_bool() {
        return allowed;
    }
    !TAINTED_KEYS
        .iter()
        .any(|(taint, k)| *k == key && has_taint(&policy, taint))
}

/// Whether the organization's cached policy carries compliance taint `taint` (`hipaa`).
pub fn tainted(home: &Path, taint: &str) -> bool {
    crate::json::read_file(&cache_file(home)).is_some_and(|policy| has_taint(&policy, taint))
}

fn has_taint(policy: &serde_json::Value, taint: &str) -> bool {
    policy["compliance_taints"]
        .as_array()
        .is_some_and(|t| t.iter().any(|x| x == taint))
}

/// Compliance taints and the policy keys each forbids when the policy leaves the key unstated
/// (2.1.235's table, the rows for the keys this reference reads).
const TAINTED_KEYS: [(&str, &str); 3] = [
    ("hipaa", "allow_design_sync"),
    ("hipaa", "allow_projects_tool"),
    ("hipaa", "allow_plugin_skill_search"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_cache_decides_design_sync() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        assert!(
            allows(home.path(), "allow_design_sync"),
            "no cache: allowed"
        );
        let file = home.path().join(".claude/policy-limits.json");
        std::fs::write(
            &file,
            r#"{"restrictions":{"allow_design_sync":{"allowed":false}}}"#,
        )
        .unwrap();
        // Only on Anthropic's own API; the test process may point ANTHROPIC_BASE_URL elsewhere.
        if environment::first_party()
            && environment::first_party_base_url()
            && std::env::var_os("CLAUDE_CONFIG_DIR").is_none()
        {
            assert!(!allows(home.path(), "allow_design_sync"));
            std::fs::write(
                &file,
                r#"{"restrictions":{},"compliance_taints":["hipaa"]}"#,
            )
            .unwrap();
            assert!(!allows(home.path(), "allow_design_sync"));
            std::fs::write(&file, r#"{"restrictions":{}}"#).unwrap();
            assert!(allows(home.path(), "allow_design_sync"));
        }
    }
}
