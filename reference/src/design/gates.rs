//! Whether ClaudeDesign is offered at all (2.1.235's `DAi`): the organization's policy allows
//! `allow_design_sync`, traffic is not essential-only, the provider is Anthropic's own, and the
//! feature flag `tengu_omelette_fouet` is on. All four, or the tool is absent from tools[].

use std::path::Path;

use serde_json::Value;

use crate::brief::deliver::OTHER_PROVIDERS;
use crate::brief::lane::truthy;

/// The feature flag that turns the tool on.
pub const FEATURE_FLAG: &str = "tengu_omelette_fouet";
/// The policy key.
pub const POLICY_KEY: &str = "allow_design_sync";

pub fn enabled(home: &Path) -> bool {
    policy_allows(home, POLICY_KEY)
        && !essential_traffic_only()
        && first_party()
        && feature_on(home, FEATURE_FLAG)
}

/// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` set to anything non-empty.
pub fn essential_traffic_only() -> bool {
    std::env::var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").is_ok_and(|v| !v.is_empty())
}

/// None of the third-party provider switches is on.
pub fn first_party() -> bool {
    !OTHER_PROVIDERS
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| truthy(&v)))
}

/// The model API is Anthropic's own host (or a first-party base URL is assumed).
pub fn first_party_base_url() -> bool {
    if std::env::var_os("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL").is_some() {
        return true;
    }
    match std::env::var("ANTHROPIC_BASE_URL") {
        Ok(url) if !url.is_empty() => reqwest::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(|h| h == "api.anthropic.com"))
            .unwrap_or(false),
        _ => true,
    }
}

/// The organization's policy for `key`, read from the policy-limits cache the way 2.1.235 reads
/// it: only a first-party session on Anthropic's own API consults the cache
/// (`<config dir>/policy-limits.json`, `{"restrictions": {key: {"allowed": bool}}}`); a key it does
/// not list is allowed unless a compliance taint forbids it (`hipaa` forbids design sync and Projects); with
/// no cache the key is allowed.
pub fn policy_allows(home: &Path, key: &str) -> bool {
    if !first_party() || !first_party_base_url() {
        return true;
    }
    let path = config_dir(home).join("policy-limits.json");
    let Some(policy) = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .filter(|v| v["restrictions"].is_object())
    else {
        return true;
    };
    if let Some(allowed) = policy["restrictions"][key]["allowed"].as_bool() {
        return allowed;
    }
    let tainted = |taint: &str| {
        policy["compliance_taints"]
            .as_array()
            .is_some_and(|t| t.iter().any(|x| x == taint))
    };
    !TAINTED_KEYS
        .iter()
        .any(|(taint, k)| *k == key && tainted(taint))
}

/// Compliance taints and the policy keys each forbids when the policy leaves the key unstated
/// (2.1.235's table, the rows for the keys this reference reads).
const TAINTED_KEYS: [(&str, &str); 2] = [("hipaa", POLICY_KEY), ("hipaa", "allow_projects_tool")];

/// A feature flag from the on-disk GrowthBook cache (`~/.claude.json` `cachedGrowthBookFeatures`),
/// which 2.1.235 reads with telemetry off only when `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1`.
pub fn feature_on(home: &Path, flag: &str) -> bool {
    if std::env::var("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF").as_deref() != Ok("1") {
        return false;
    }
    std::fs::read_to_string(crate::api::wire::global_config(home))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v["cachedGrowthBookFeatures"][flag] == Value::Bool(true))
}

/// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn config_dir(home: &Path) -> std::path::PathBuf {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| home.join(".claude"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_cache_decides_design_sync() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        assert!(policy_allows(home.path(), POLICY_KEY), "no cache: allowed");
        let file = home.path().join(".claude/policy-limits.json");
        std::fs::write(
            &file,
            r#"{"restrictions":{"allow_design_sync":{"allowed":false}}}"#,
        )
        .unwrap();
        // Only on Anthropic's own API; the test process may point ANTHROPIC_BASE_URL elsewhere.
        if first_party()
            && first_party_base_url()
            && std::env::var_os("CLAUDE_CONFIG_DIR").is_none()
        {
            assert!(!policy_allows(home.path(), POLICY_KEY));
            std::fs::write(
                &file,
                r#"{"restrictions":{},"compliance_taints":["hipaa"]}"#,
            )
            .unwrap();
            assert!(!policy_allows(home.path(), POLICY_KEY));
            std::fs::write(&file, r#"{"restrictions":{}}"#).unwrap();
            assert!(policy_allows(home.path(), POLICY_KEY));
        }
    }
}
