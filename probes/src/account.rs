//! A claude.ai login planted in a run's HOME (`[account]`), for the paths that need one (Design,
//! Projects): the OAuth credentials with their scopes, the account in `~/.claude.json`, the
//! cached feature flags a target reads with telemetry off, and what the mock claude.ai answers
//! for the account (its token endpoint, its organization's policy).
//!
//! The tokens are the run's [`Secrets`] (these fixed fakes by default). They never reach a
//! record: the run replaces them by name (`crate::secrets`), so a target that leaks one into a
//! tool result is seen doing so without storing the value.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use stubs::claude_ai::OAuthScript;

use crate::secrets::{Secrets, ACCESS_TOKEN, REFRESH_TOKEN, SESSION_TOKEN};

pub const ORGANIZATION_UUID: &str = "7e57c0de-0000-4000-8000-00000000a11c";
pub const ACCOUNT_UUID: &str = "7e57c0de-0000-4000-8000-0000000acc75";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Account {
    /// The login's OAuth scopes.
    #[serde(default = "default_scopes")]
    pub scopes: Vec<String>,
    /// Whether the login carries a refresh token (an injected token has none).
    #[serde(default = "yes")]
    pub refresh_token: bool,
    /// The plan: `max` by default; 2.1.235 fetches an organization policy only for `team` and
    /// `enterprise`.
    #[serde(default = "default_subscription")]
    pub subscription: String,
    /// Cached feature flags (`cachedGrowthBookFeatures`), e.g. `tengu_omelette_fouet = true`.
    #[serde(default)]
    pub flags: Map<String, Value>,
    /// The organization's policy, `allow_…` = allowed, served at `/api/claude_code/policy_limits`.
    #[serde(default)]
    pub policy: BTreeMap<String, bool>,
    /// The token endpoint refuses every refresh with `[status, error]`.
    #[serde(default)]
    pub refresh_fails: Option<(u16, String)>,
    /// The login was made with this custom OAuth client (`clientId` in the credentials).
    #[serde(default)]
    pub client_id: Option<String>,
    /// The token endpoint grants exactly these scopes, whatever a refresh asks for.
    #[serde(default)]
    pub refresh_grants: Option<Vec<String>>,
}

fn default_scopes() -> Vec<String> {
    [
        "user:inference",
        "user:profile",
        "user:sessions:claude_code",
        "user:design:read",
        "user:design:write",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn default_subscription() -> String {
    "max".into()
}

fn yes() -> bool {
    true
}

impl Account {
    /// Writes the login into `home`: `.claude/.credentials.json`, and the account and flags merged
    /// into `.claude.json` (which a terminal run has already written).
    pub fn plant(&self, home: &Path, secrets: &Secrets) -> Result<()> {
        let dir = home.join(".claude");
        std::fs::create_dir_all(&dir)?;
        let expires_at = 4_102_444_800_000u64; // 2100-01-01, so nothing refreshes before a 401.
        let mut oauth = json!({
            "accessToken": secrets.access_token,
            "expiresAt": expires_at,
            "scopes": self.scopes,
            "subscriptionType": self.subscription,
        });
        if self.refresh_token {
            oauth["refreshToken"] = json!(secrets.refresh_token);
        }
        if let Some(client) = &self.client_id {
            oauth["clientId"] = json!(client);
        }
        let credentials = dir.join(".credentials.json");
        std::fs::write(
            &credentials,
            serde_json::to_string_pretty(&json!({"claudeAiOauth": oauth}))?,
        )?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&credentials, std::fs::Permissions::from_mode(0o600))?;

        let config = home.join(".claude.json");
        let mut state: Value = match std::fs::read_to_string(&config) {
            Ok(text) => serde_json::from_str(&text).context("~/.claude.json is not JSON")?,
            Err(_) => json!({}),
        };
        state["hasCompletedOnboarding"] = json!(true);
        state["oauthAccount"] = json!({
            "accountUuid": ACCOUNT_UUID,
            "emailAddress": "conformance@example.com",
            "organizationUuid": ORGANIZATION_UUID,
            "organizationName": "Conformance",
            "organizationRole": "admin",
        });
        state["cachedGrowthBookFeatures"] = Value::Object(self.flags.clone());
        std::fs::write(&config, serde_json::to_string_pretty(&state)?)?;
        Ok(())
    }

    /// What the mock's token endpoint plays for this login.
    pub fn oauth_script(&self, secrets: &Secrets) -> OAuthScript {
        OAuthScript {
            refresh_token: secrets.refresh_token.clone(),
            scopes: self.scopes.clone(),
            expires_in: 3600,
            fail: self.refresh_fails.clone(),
            grant_only: self.refresh_grants.clone(),
        }
    }

    /// The organization's policy restrictions as the policy endpoint answers them.
    pub fn policy_limits(&self) -> Value {
        let restrictions: Map<String, Value> = self
            .policy
            .iter()
            .map(|(k, allowed)| (k.clone(), json!({"allowed": allowed})))
            .collect();
        json!({"restrictions": restrictions})
    }

    /// Environment of a run with this login: telemetry off, flags read from the disk cache
    /// anyway, no API key (with one there is no OAuth login).
    pub fn env(&self) -> [(&'static str, &'static str); 4] {
        [
            ("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            ("ANTHROPIC_API_KEY", ""),
        ]
    }
}

/// The default planted tokens by name. A run's own texts are already redacted whatever its
/// secrets (`crate::secrets`); this remains for texts built from the defaults.
pub fn redact(text: &str) -> String {
    text.replace(ACCESS_TOKEN, "[account access token]")
        .replace(REFRESH_TOKEN, "[account refresh token]")
        .replace(SESSION_TOKEN, "[session token]")
}
