//! The Design MCP session: one `initialize` (protocol 2025-03-26, `claude-cli-design-tool` / 1)
//! whose `Mcp-Session-Id` every later request carries, and `tools/list` discovery. Concurrent first
//! calls share one initialize and one discovery in flight; a 404 with a session id resets the
//! session, initializes again and retries once.

use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::{json, Value};

use super::catalog::{self, Entry};
use super::error::DesignError;
use super::signal::Signal;
use super::state::DesignState;
use super::transport::{Reply, Transport};

/// The session id once initialized (initializing first, or joining the initialize in flight).
pub async fn initialized(
    state: &Arc<DesignState>,
    transport: &Arc<Transport>,
    token: &str,
    signal: &Signal,
) -> Result<Option<String>, DesignError> {
    let shared = {
        let mut g = state.lock();
        if g.initialized {
            return Ok(g.cached_session_id.clone());
        }
        match &g.initialize_in_flight {
            Some(f) => f.clone(),
            None => {
                let f = initialize(
                    state.clone(),
                    transport.clone(),
                    token.to_owned(),
                    signal.clone(),
                )
                .boxed()
                .shared();
                g.initialize_in_flight = Some(f.clone());
                f
            }
        }
    };
    let out = shared.clone().await;
    let mut g = state.lock();
    if g.initialize_in_flight
        .as_ref()
        .is_some_and(|f| f.ptr_eq(&shared))
    {
        g.initialize_in_flight = None;
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
    let shared = {
        let mut g = state.lock();
        match &g.discover_in_flight {
            Some(f) => f.clone(),
            None => {
                let f = list(
                    state.clone(),
                    transport.clone(),
                    token.to_owned(),
                    signal.clone(),
                )
                .boxed()
                .shared();
                g.discover_in_flight = Some(f.clone());
                f
            }
        }
    };
    let out = shared.clone().await;
    let mut g = state.lock();
    if g.discover_in_flight
        .as_ref()
        .is_some_and(|f| f.ptr_eq(&shared))
    {
        g.discover_in_flight = None;
    }
    out
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
