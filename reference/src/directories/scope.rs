//! Before a plugin request, 2.1.235 widens the claude.ai login to `user:plugins` with one refresh
//! under the credentials lock (recorded: tools.surface/remote-directories asks the token endpoint
//! for the claude.ai scopes plus `user:plugins`). The outcome is never enforced: the request goes
//! ahead whatever happened, and the server decides (`login::widen`). One attempt per refresh
//! token per process; calls that arrive while one is under way wait for it; none waits longer
//! than `DIRECTORY_SCOPE_WAIT`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;

use crate::account::login;
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
    let Some(held) = login::login(home) else {
        return;
    };
    if held.scopes.iter().any(|s| s == PLUGINS_SCOPE) || held.client_id.is_some() {
        return;
    }
    let Some(refresh_token) = held.refresh_token else {
        return;
    };
    if first_attempt(&refresh_token) {
        let _ = login::widen(home, &[PLUGINS_SCOPE]).await;
    }
}

/// Records `refresh_token` as tried; `false` when it already was.
fn first_attempt(refresh_token: &str) -> bool {
    ATTEMPTED
        .lock()
        .expect("not poisoned")
        .get_or_insert_with(HashSet::new)
        .insert(refresh_token.to_owned())
}
