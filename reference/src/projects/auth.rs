//! The credential a Projects call carries (seed 000 part B §11), found in 2.1.235's order: the
//! organization's policy, the first-party provider, nonessential traffic, a remote session's
//! access token, then the claude.ai login: as it is when it holds both project scopes, else one
//! refresh under the credentials lock that adds them. Each way of failing has its own reason and
//! its own text; a refresh that added the scopes is reported once, on the first result after it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::account::login::{
    self as credentials, Login, NotWidened, OAuthConfig, RefreshFailure, Widened,
};

pub const READ_SCOPE: &str = "user:projects:read";
pub const WRITE_SCOPE: &str = "user:projects:write";
pub const POLICY_KEY: &str = "allow_projects_tool";

/// What the first result after a scope-expanding refresh tells the model (2.1.235's words: a
/// short notice a check names).
pub const SCOPE_UPGRADE_NOTICE: &str = "Upgraded your claude.ai login to include project access (user:projects:read, user:projects:write). This lets the session read and write the project's knowledge docs on claude.ai.";

/// How a call reaches the Projects API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A remote session's access token: the session route.
    Session(String),
    /// The claude.ai login's access token: the organization routes.
    Login(String),
}

impl Credential {
    pub fn token(&self) -> &str {
        match self {
            Credential::Session(t) | Credential::Login(t) => t,
        }
    }
}

/// Why no credential could be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    PolicyDisabled,
    WrongProvider,
    EssentialTrafficOnly,
    NoToken,
    CustomClient,
    NoRefresh,
    LockContended,
    SaveFailed,
    ExpandFailed,
}

/// A reason, with what went wrong underneath when there is more to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub reason: Reason,
    pub detail: Option<String>,
}

impl From<Reason> for Unavailable {
    fn from(reason: Reason) -> Self {
        Unavailable {
            reason,
            detail: None,
        }
    }
}

impl std::fmt::Display for Unavailable {
    /// The text the model is shown: 2.1.235's per reason, after "Projects needs a claude.ai
    /// login." where a login would help, with the detail in parentheses.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Reason::*;
        let login_would_help = matches!(self.reason, NoToken | NoRefresh | ExpandFailed);
        let text = match self.reason {
            CustomClient => "The claude.ai login uses a custom OAuth client, which cannot be granted project scopes. Run /login with the standard \"Claude account with subscription\" flow to use Projects.",
            SaveFailed => "Could not save the refreshed claude.ai credentials (secure storage was unavailable), and the server has already consumed the stored ones. Run /login to reconnect, then retry.",
            NoToken => "Run /login and select \"Claude account with subscription\", then retry \u{2014} the \"Anthropic Console account\" option does not provide claude.ai credentials.",
            NoRefresh => "The claude.ai login cannot be refreshed in this session \u{2014} the token was supplied via CLAUDE_CODE_OAUTH_TOKEN, or its refresh token has expired or was revoked. Run /login to reconnect.",
            ExpandFailed => "Could not add project scopes to the token. Run /login, select \"Claude account with subscription\", and retry.",
            LockContended => "Another Claude Code process is refreshing the OAuth token. Retry in a moment.",
            WrongProvider => "Projects is only available with claude.ai authentication. It is not supported through Bedrock, Vertex, or other third-party providers.",
            EssentialTrafficOnly => "Projects is unavailable while nonessential network traffic is restricted (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set).",
            PolicyDisabled => "Projects is disabled for this organization by compliance policy (e.g. HIPAA). Project read/write uploads workspace content to claude.ai, which is blocked under your org's compliance settings.",
        };
        if login_would_help {
            f.write_str("Projects needs a claude.ai login. ")?;
        }
        f.write_str(text)?;
        match &self.detail {
            Some(d) => write!(f, " ({d})"),
            None => Ok(()),
        }
    }
}

/// Set by a refresh that added the project scopes, taken by the first result that reports it.
static UPGRADE_PENDING: AtomicBool = AtomicBool::new(false);

/// The scope-upgrade notice, once per expansion.
pub fn take_upgrade_notice() -> Option<&'static str> {
    UPGRADE_PENDING
        .swap(false, Ordering::SeqCst)
        .then_some(SCOPE_UPGRADE_NOTICE)
}

fn has_project_scopes(login: &Login) -> bool {
    [READ_SCOPE, WRITE_SCOPE]
        .iter()
        .all(|s| login.scopes.iter().any(|h| h == s))
}

pub use credentials::session_token;

/// The credential for a Projects call, refreshing the login once to add the project scopes when
/// it lacks them.
pub async fn credential(home: &Path) -> Result<Credential, Unavailable> {
    if !crate::account::policy::allows(home, POLICY_KEY) {
        return Err(Reason::PolicyDisabled.into());
    }
    if !crate::environment::first_party() {
        return Err(Reason::WrongProvider.into());
    }
    if crate::environment::essential_traffic_only() {
        return Err(Reason::EssentialTrafficOnly.into());
    }
    if let Some(token) = session_token() {
        return Ok(Credential::Session(token));
    }
    let login = credentials::login(home).ok_or(Reason::NoToken)?;
    if has_project_scopes(&login) {
        return Ok(Credential::Login(login.access_token));
    }
    if login.client_id.is_some() {
        return Err(Reason::CustomClient.into());
    }
    if login.refresh_token.is_none() {
        return Err(Reason::NoRefresh.into());
    }
    expand(home).await.map(Credential::Login)
}

/// The refresh that adds the project scopes (`credentials::widen`), checked for what it granted;
/// a widening is told once, on the first result after it.
async fn expand(home: &Path) -> Result<String, Unavailable> {
    let refreshed = match credentials::widen(home, &[READ_SCOPE, WRITE_SCOPE]).await {
        Ok(Widened::Held(login)) => return Ok(login.access_token),
        Ok(Widened::Refreshed(login)) => login,
        Err(e) => {
            return Err(match e {
                NotWidened::LockContended => Reason::LockContended.into(),
                NotWidened::NoRefresh | NotWidened::Refresh(RefreshFailure::NotRefreshable) => {
                    Reason::NoRefresh.into()
                }
                NotWidened::CustomClient => Reason::CustomClient.into(),
                NotWidened::Refresh(RefreshFailure::SaveFailed) => Reason::SaveFailed.into(),
                NotWidened::Config(detail) => Unavailable {
                    reason: Reason::ExpandFailed,
                    detail: Some(detail.into()),
                },
                NotWidened::Refresh(RefreshFailure::Endpoint(detail)) => Unavailable {
                    reason: Reason::ExpandFailed,
                    detail: Some(detail),
                },
            })
        }
    };
    if !has_project_scopes(&refreshed) {
        return Err(Unavailable {
            reason: Reason::ExpandFailed,
            detail: Some("refresh succeeded but projects scopes not granted".into()),
        });
    }
    // The account's profile is read again with the new token, as 2.1.235 does after the
    // expansion (recorded: projects.scope-expansion); what it says changes nothing here.
    if let Ok(config) = OAuthConfig::from_env() {
        let _ = crate::net::http_client(Some(Duration::from_secs(30)))
            .get(format!("{}/api/oauth/profile", config.base_api_url))
            .header(
                "authorization",
                format!("Bearer {}", refreshed.access_token),
            )
            .header("content-type", "application/json")
            .header("cache-control", "no-cache")
            .send()
            .await;
    }
    UPGRADE_PENDING.store(true, Ordering::SeqCst);
    Ok(refreshed.access_token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_say_login_only_where_a_login_helps_and_carry_the_detail() {
        let e = Unavailable {
            reason: Reason::ExpandFailed,
            detail: Some("refresh succeeded but projects scopes not granted".into()),
        };
        assert_eq!(e.to_string(), "Projects needs a claude.ai login. Could not add project scopes to the token. Run /login, select \"Claude account with subscription\", and retry. (refresh succeeded but projects scopes not granted)");
        let e: Unavailable = Reason::LockContended.into();
        assert!(e.to_string().starts_with("Another Claude Code process"));
        let e: Unavailable = Reason::NoRefresh.into();
        assert!(e.to_string().starts_with(
            "Projects needs a claude.ai login. The claude.ai login cannot be refreshed"
        ));
    }

    #[test]
    fn the_upgrade_notice_is_given_once() {
        UPGRADE_PENDING.store(true, Ordering::SeqCst);
        assert_eq!(take_upgrade_notice(), Some(SCOPE_UPGRADE_NOTICE));
        assert_eq!(take_upgrade_notice(), None);
    }
}
