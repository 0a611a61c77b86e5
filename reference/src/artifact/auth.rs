//! Whether the session may use artifacts: a claude.ai subscription login, not shadowed by another
//! credential (seed 004 §Artifact: "发布/读取需要 claude.ai subscription 登录; Console account、remote
//! launch machine 未登录、host-injected credential 都有不同拒绝文案"). The refusal texts and their
//! order are 2.1.235's (`UDf`, recon artifact14): a remote session whose launching machine is not
//! signed in, a credential the host injected, an API key (how a Console account authenticates)
//! taking precedence, then no login at all.

use std::path::Path;

use crate::account::login as credentials;

/// No credential at all: 2.1.235's `GVs`.
pub const LOGIN_REQUIRED: &str = "Artifacts need a claude.ai login. Run /login and select \"Claude account with subscription\", then retry \u{2014} the \"Anthropic Console account\" option does not provide claude.ai credentials.";
/// A remote session authenticating through its launching machine: `WVs`.
pub const REMOTE_NOT_SIGNED_IN: &str = "Artifacts need a claude.ai login, and this remote session authenticates through the machine that launched it, which is not signed in to claude.ai. Sign in to claude.ai on that machine (/login, \"Claude account with subscription\"), then reconnect this session.";
/// A credential injected by the host environment: `qVs`.
pub const HOST_INJECTED: &str = "Artifacts need a claude.ai login, but this session authenticates with a credential injected by its host environment, which takes precedence and cannot be changed here. Start a session that is signed in to claude.ai to publish or read artifacts.";

/// 2.1.235's `EDr`: another credential takes precedence over any claude.ai account.
fn shadowed(source: &str, remedy: &str) -> String {
    format!(
        "Artifacts need a claude.ai login, and this session is authenticating with {source}, which takes precedence over a claude.ai account. {remedy} Then run /login and select \"Claude account with subscription\"."
    )
}

/// The access token to call claude.ai with, or the refusal the model is shown.
pub fn token(home: &Path) -> Result<String, String> {
    token_with(home, &|name| {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    })
}

fn token_with(home: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let api_key = env("ANTHROPIC_API_KEY");
    let subscriber =
        credentials::login(home).filter(|l| l.scopes.iter().any(|s| s == "user:inference"));
    if let (Some(login), None) = (&subscriber, &api_key) {
        return Ok(login.access_token.clone());
    }
    if env("ANTHROPIC_UNIX_SOCKET").is_some() {
        return Err(REMOTE_NOT_SIGNED_IN.into());
    }
    if env("CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR").is_some()
        || env("CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR").is_some()
    {
        return Err(HOST_INJECTED.into());
    }
    if api_key.is_some() {
        return Err(shadowed(
            "the ANTHROPIC_API_KEY environment variable",
            "Unset the ANTHROPIC_API_KEY environment variable, or claude /logout then say \"No\" to the API key approval before login.",
        ));
    }
    if env("ANTHROPIC_AUTH_TOKEN").is_some() {
        return Err(shadowed(
            "ANTHROPIC_AUTH_TOKEN",
            "Unset the ANTHROPIC_AUTH_TOKEN environment variable.",
        ));
    }
    Err(LOGIN_REQUIRED.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn plant_login(home: &Path) {
        let dir = crate::environment::config_dir(home);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(".credentials.json"),
            r#"{"claudeAiOauth":{"accessToken":"at","refreshToken":"rt","scopes":["user:inference"]}}"#,
        )
        .unwrap();
    }

    #[test]
    fn each_missing_login_has_its_own_refusal() {
        let home = tempfile::tempdir().unwrap();
        let refusal = |vars: &[(&str, &str)]| token_with(home.path(), &with(vars)).unwrap_err();
        assert_eq!(refusal(&[]), LOGIN_REQUIRED);
        assert!(refusal(&[("ANTHROPIC_API_KEY", "k")])
            .contains("the ANTHROPIC_API_KEY environment variable, which takes precedence"));
        assert_eq!(
            refusal(&[("ANTHROPIC_UNIX_SOCKET", "/s")]),
            REMOTE_NOT_SIGNED_IN
        );
        assert_eq!(
            refusal(&[("CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR", "3")]),
            HOST_INJECTED
        );
        assert_ne!(refusal(&[]), refusal(&[("ANTHROPIC_API_KEY", "k")]));
    }

    #[test]
    fn a_subscription_login_is_used_unless_an_api_key_shadows_it() {
        let home = tempfile::tempdir().unwrap();
        plant_login(home.path());
        assert_eq!(token_with(home.path(), &with(&[])).unwrap(), "at");
        assert!(token_with(home.path(), &with(&[("ANTHROPIC_API_KEY", "k")])).is_err());
    }
}
