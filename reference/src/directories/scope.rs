//! Before a plugin request, 2.1.235 widens the claude.ai login to `user:plugins` with one refresh
//! under the credentials lock (recorded: tools.surface/remote-directories asks the token endpoint
//! for the claude.ai scopes plus `user:plugins`). The outcome is never enforced: the request goes
//! ahead whatever happened, and the server decides. One attempt per refresh token per process;
//! calls that arrive while one is under way wait for it; none waits longer than
//! `DIRECTORY_SCOPE_WAIT`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use crate::account::login::{self, CredentialsLock, OAuthConfig};
use crate::limits;

const PLUGINS_SCOPE: &str = "user:plugins";
const POLICY_KEY: &str = "allow_plugin_skill_search";

/// The refresh tokens an expansion was tried with.
static ATTEMPTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
/// Held while an expansion runs, so a second caller waits for it rather than refreshing again.
static RUNNING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub async fn ensure_plugins(home: &Path) {
    let _ = tokio::time::timeout(limits::DIRECTORY_SCOPE_WAIT.duration(), expand(home)).await;
}

async fn expand(home: &Path) {
    if !crate::account::policy::allows(home, POLICY_KEY)
        || !crate::environment::first_party()
        || crate::environment::essential_traffic_only()
        || login::session_token().is_some()
    {
        return;
    }
    let _running = RUNNING.lock().await;
    let Some(login) = login::login(home) else {
        return;
    };
    if login.scopes.iter().any(|s| s == PLUGINS_SCOPE) || login.client_id.is_some() {
        return;
    }
    let Some(refresh_token) = login.refresh_token.clone() else {
        return;
    };
    if !first_attempt(&refresh_token) {
        return;
    }
    let Some(_lock) = CredentialsLock::acquire(home) else {
        return;
    };
    // Another process may have refreshed meanwhile: the stored login decides.
    let Some(login) = login::login(home).filter(|l| l.refresh_token.is_some()) else {
        return;
    };
    if login.scopes.iter().any(|s| s == PLUGINS_SCOPE) {
        return;
    }
    let Ok(config) = OAuthConfig::from_env() else {
        return;
    };
    let mut scopes = login::refresh_scopes(&login.scopes);
    scopes.push(PLUGINS_SCOPE.to_owned());
    let http = crate::net::http_client(Some(Duration::from_secs(30)));
    let _ = login::refresh_with_scopes(&http, &config, home, &login, &scopes).await;
}

/// Records `refresh_token` as tried; `false` when it already was.
fn first_attempt(refresh_token: &str) -> bool {
    ATTEMPTED
        .lock()
        .expect("not poisoned")
        .get_or_insert_with(HashSet::new)
        .insert(refresh_token.to_owned())
}
