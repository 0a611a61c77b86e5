//! The Design MCP session: one `initialize` (protocol 2025-03-26, `claude-cli-design-tool` / 1)
//! whose `Mcp-Session-Id` every later request carries, and `tools/list` discovery. Concurrent first
//! calls share one initialize and one discovery in flight; a 404 with a session id resets the
//! session, initializes again and retries once.

use std::sync::Arc;

use futures_util::future::{BoxFuture, Shared};
use futures_util::FutureExt;
use serde_json::{json, Value};

use super::catalog::{self, Entry};
use super::error::DesignError;
use super::signal::Signal;
use super::state::{DesignState, Inner};
use super::transport::{Reply, Transport};

/// The session id once initialized (initializing first, or joining the initialize in flight).
pub async fn initialized(
    state: &Arc<DesignState>,
    transport: &Arc<Transport>,
    token: &str,
    signal: &Signal,
) -> Result<Option<String>, DesignError> {
    if let Some(id) = {
        let g = state.lock();
        g.initialized.then(|| g.cached_session_id.clone())
    } {
        return Ok(id);
    }
    let start = || {
        initialize(
            state.clone(),
            transport.clone(),
            token.to_owned(),
            signal.clone(),
        )
    };
    join_or_start(state, |g| &mut g.initialize_in_flight, start).await
}

/// The one round trip in flight in `slot`, joined, or started there; whoever finds it finished
/// clears the slot (unless a newer one took it).
async fn join_or_start<T, F>(
    state: &Arc<DesignState>,
    slot: impl Fn(&mut Inner) -> &mut Option<Shared<BoxFuture<'static, Result<T, DesignError>>>>,
    start: impl FnOnce() -> F,
) -> Result<T, DesignError>
where
    T: Clone + Send + 'static,
    F: std::future::Future<Output = Result<T, DesignError>> + Send + 'static,
{
    let shared = {
        let mut g = state.lock();
        slot(&mut g)
            .get_or_insert_with(|| start().boxed().shared())
            .clone()
    };
    let out = shared.clone().await;
    let mut g = state.lock();
    let current = slot(&mut g);
    if current.as_ref().is_some_and(|f| f.ptr_eq(&shared)) {
        *current = None;
    }
    out
}

async fn initialize(
    state: Arc<DesignState>,
    transport: Arc<Transport>,
    token: String,
    signal: Signal,
) -> Result<Option<String>, DesignError> {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}});
    let reply = transport.post(&body, &token, None, &signal, true).await?;
    if !(200..300).contains(&reply.status) {
        return Err(DesignError::tool(
            format!("Claude Design initialize failed: HTTP {}", reply.status),
            "design_tool_initialize_failed",
        ));
    }
    let id = reply.session_id.filter(|s| !s.is_empty());
    let mut g = state.lock();
    g.cached_session_id = id.clone();
    g.initialized = true;
    Ok(id)
}

/// Sends `body` on the session; a 404 with a session id resets it, initializes again and resends
/// once.
pub async fn send(
    state: &Arc<DesignState>,
    transport: &Arc<Transport>,
    body: &Value,
    token: &str,
    signal: &Signal,
) -> Result<Reply, DesignError> {
    let session = initialized(state, transport, token, signal).await?;
    let reply = transport
        .post(body, token, session.as_deref(), signal, false)
        .await?;
    if reply.status == 404 && session.is_some() {
        state.lock().reset_session();
        let session = initialized(state, transport, token, signal).await?;
        return transport
            .post(body, token, session.as_deref(), signal, false)
            .await;
    }
    Ok(reply)
}

/// The current catalog (joining a discovery in flight); the hint registry is rebuilt from it.
pub async fn discover(
    state: &Arc<DesignState>,
    transport: &Arc<Transport>,
    token: &str,
    signal: &Signal,
) -> Result<Vec<Entry>, DesignError> {
    let start = || {
        list(
            state.clone(),
            transport.clone(),
            token.to_owned(),
            signal.clone(),
        )
    };
    join_or_start(state, |g| &mut g.discover_in_flight, start).await
}

async fn list(
    state: Arc<DesignState>,
    transport: Arc<Transport>,
    token: String,
    signal: Signal,
) -> Result<Vec<Entry>, DesignError> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let reply = send(&state, &transport, &body, &token, &signal).await?;
    let tools = reply.data["result"]["tools"]
        .as_array()
        .filter(|_| (200..300).contains(&reply.status));
    let Some(tools) = tools else {
        return Err(DesignError::tool(
            format!("Claude Design discovery failed: HTTP {}", reply.status),
            "design_tool_discovery_failed",
        ));
    };
    let (hints, entries) = catalog::merge(tools);
    state.lock().hints = hints;
    Ok(entries)
}
