//! The credential Design calls carry, as 2.1.235 picks it from the claude.ai login
//! (`crate::account::login`): usable when it has a refresh token and the `user:design:read`
//! scope, or as a bare access token otherwise; and the texts of a credential Design cannot use.

use std::path::Path;

use crate::account::login::{login, Login, Origin};
use crate::environment;

/// The scope a refreshable login needs to be used for Design as it is.
pub const DESIGN_SCOPE: &str = "user:design:read";
/// Refreshable and scoped for Design.
pub fn design_ready(login: &Login) -> bool {
    login.refresh_token.is_some() && login.scopes.iter().any(|s| s == DESIGN_SCOPE)
}

/// Why no credential could be had (2.1.235's reasons).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    WrongProvider,
    EssentialTrafficOnly,
    NeedsDesignLogin,
}

impl Unusable {
    /// The text the model is shown (`xoS`).
    pub fn text(self, non_interactive: bool) -> String {
        match self {
            Unusable::NeedsDesignLogin if non_interactive => "Claude Design needs a claude.ai credential, but /design-login requires an interactive terminal and is not available in this environment.".into(),
            Unusable::NeedsDesignLogin => "No design-capable credential. Run /design login (or /login with a Claude subscription).".into(),
            Unusable::WrongProvider => "Claude Design is only available with claude.ai authentication. It is not supported through Bedrock, Vertex, or other third-party providers.".into(),
            Unusable::EssentialTrafficOnly => "Claude Design is disabled because nonessential network traffic is restricted.".into(),
        }
    }
}

/// The access token a Design call uses (2.1.235's `zcr`): a refreshable Design-scoped login, else
/// whatever access token there is.
pub fn design_token(home: &Path) -> Result<String, Unusable> {
    if !environment::first_party() {
        return Err(Unusable::WrongProvider);
    }
    if environment::essential_traffic_only() {
        return Err(Unusable::EssentialTrafficOnly);
    }
    login(home)
        .map(|l| l.access_token)
        .ok_or(Unusable::NeedsDesignLogin)
}

/// The text of a 401 that a refresh did not cure (`CoS`).
pub fn auth_401_text(home: &Path, non_interactive: bool, retried: bool) -> String {
    let head = if retried {
        "Claude Design authentication failed (HTTP 401): a freshly refreshed credential was also rejected \u{2014} likely a server-side access problem with this account or credential rather than simple expiry."
    } else {
        "Claude Design authentication failed (HTTP 401): the credential was rejected and an automatic refresh did not produce a new one."
    };
    let current = login(home);
    let ready = current.as_ref().is_some_and(design_ready);
    if !ready {
        if let Some(l) = current.as_ref().filter(|l| l.refresh_token.is_none()) {
            if std::env::var_os("CLAUDE_CODE_REMOTE_SESSION_ID").is_some() {
                return format!("{head} This remote session's credential is injected and rotated by the session host \u{2014} it usually self-heals within minutes. Retry shortly; if this persists, the host session needs attention.");
            }
            if l.origin == Origin::Env {
                let tail = if non_interactive {
                    ""
                } else {
                    ", or unset it and run /login"
                };
                return format!("{head} This session authenticates with the CLAUDE_CODE_OAUTH_TOKEN environment variable, which has no refresh token \u{2014} it cannot self-heal and has likely expired or been revoked. Mint a fresh token with `claude setup-token` and restart the session with it{tail}.");
            }
        }
    }
    if non_interactive {
        return format!("{head} The claude.ai credential is expired or revoked, and /login requires an interactive terminal \u{2014} re-authenticate outside this session.");
    }
    format!("{head} Run /login, or /design login for a separate design credential.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_without_refresh_or_scope_is_not_design_ready() {
        let l = Login {
            access_token: "a".into(),
            refresh_token: None,
            expires_at: None,
            scopes: vec![DESIGN_SCOPE.into()],
            subscription: None,
            client_id: None,
            origin: Origin::File,
        };
        assert!(!design_ready(&l));
        let l = Login {
            refresh_token: Some("r".into()),
            ..l
        };
        assert!(design_ready(&l));
    }
}
