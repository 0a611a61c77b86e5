//! What a Design call can fail with, mirroring the error classes 2.1.235 throws: a tool error with
//! its code (`yt`), the 401 after refresh, the consent and grant interceptions, a plain error, a
//! cancelled shared handshake, and the caller's own abort.

/// One failure. `Display` is the text the model is shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DesignError {
    /// A tool error with its code (`design_tool_http_error`, …).
    #[error("{message}")]
    Tool { message: String, code: &'static str },
    /// HTTP 401 that a refresh did not cure; `retried` when the fresh token was also refused.
    #[error("Claude Design authentication failed (HTTP 401). The claude.ai credential is missing or expired \u{2014} run /login, or /design login for a separate design credential.")]
    Auth401 { retried: bool },
    /// 403 `needs_consent` for this consent bit.
    #[error("Claude Design requires consent")]
    NeedsConsent(String),
    /// 403 `needs_project_grant` for this project.
    #[error("Claude Design requires a project write grant")]
    NeedsGrant(String),
    /// Any other failure (the network, the allowlist), in the words of its origin.
    #[error("{0}")]
    Plain(String),
    /// Somebody else's call was interrupted while this one waited on its handshake.
    #[error("canceled")]
    Cancelled,
    /// This call was interrupted.
    #[error("aborted")]
    Aborted,
}

impl DesignError {
    pub fn tool(message: impl Into<String>, code: &'static str) -> Self {
        DesignError::Tool {
            message: message.into(),
            code,
        }
    }

    /// The tool error's code, when it has one.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            DesignError::Tool { code, .. } => Some(code),
            DesignError::Auth401 { .. } => Some("design_tool_auth_401"),
            _ => None,
        }
    }
}

/// `text` with every occurrence of `token` replaced, as 2.1.235 scrubs error and body texts.
pub fn redact(text: &str, token: &str) -> String {
    if token.is_empty() {
        return text.to_owned();
    }
    text.replace(token, "[redacted-oauth-token]")
}
