//! The MCP runtime of one session: connects the candidates in bounded batches, keeps one applied
//! catalog per server, refreshes it on `list_changed`, reconnects a dropped server with backoff,
//! runs `tools/call`, and shuts every server down.
//!
//! Catalog ownership: a refresh replaces a server's catalog when its `tools/list` completes (a
//! newer generation; an older concurrent result never overwrites a newer one; a failure keeps the
//! previous tools). The session reads the catalogs through [`McpRuntime::current_tools`] at each
//! request's boundary (the first request's assembly, then the end of each answer), so a request
//! whose boundary has passed keeps its tools and a refresh that lands later reaches the model in
//! the next request.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::catalog::{self, Catalog, McpTool};
use super::config::{Candidates, ServerKind, ServerSpec};
use super::connection::{Connection, ServerEvent};
use super::error::McpError;
use super::transport::{HttpTransport, SdkTransport, StdioTransport, Transport};
use crate::limits;

/// The protocol version the client asks for, as the real 2.1.235 does.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions the client accepts in the server's answer (the MCP revisions before it).
const SUPPORTED_VERSIONS: &[&str] = &[
    PROTOCOL_VERSION,
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2024-10-07",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pending,
    Connected,
    Failed,
    NeedsAuth,
    /// Turned off for the project (`disabledMcpServers`, or the host's `mcp_toggle`).
    Disabled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Connected => "connected",
            Status::Failed => "failed",
            Status::NeedsAuth => "needs-auth",
            Status::Disabled => "disabled",
        }
    }
}

/// Timeouts and batch sizes, from the limits table unless the environment overrides them.
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    pub connect: Duration,
    pub request: Duration,
    pub tool_call: Duration,
    pub local_batch: usize,
    pub remote_batch: usize,
}

impl Budgets {
    pub fn from_env() -> Self {
        let ms = |var: &str, default: u64| {
            // Positive values only, clamped to what a JavaScript timer accepts.
            let v = std::env::var(var)
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|v| *v > 0);
            Duration::from_millis(v.unwrap_or(default).min(limits::JS_TIMER_MAX_MS.get()))
        };
        let count = |var: &str, default: usize| {
            std::env::var(var)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|v| *v > 0)
                .unwrap_or(default)
        };
        // MCP_TIMEOUT bounds connecting and listing in 2.1.235; MCP_TOOL_TIMEOUT bounds a call.
        Budgets {
            connect: ms("MCP_TIMEOUT", limits::MCP_CONNECT_TIMEOUT.get()),
            request: ms("MCP_TIMEOUT", limits::MCP_REQUEST_TIMEOUT.get()),
            tool_call: ms("MCP_TOOL_TIMEOUT", limits::MCP_TOOL_CALL_TIMEOUT.get()).max(
                Duration::from_millis(limits::MCP_TOOL_CALL_TIMEOUT_MIN.get()),
            ),
            local_batch: count(
                "MCP_SERVER_CONNECTION_BATCH_SIZE",
                limits::MCP_CONNECT_LOCAL_BATCH_SIZE.usize(),
            ),
            remote_batch: count(
                "MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE",
                limits::MCP_CONNECT_REMOTE_BATCH_SIZE.usize(),
            ),
        }
    }
}

/// Cheap to clone: clones share the servers (the resource tools hold one).
#[derive(Clone)]
pub struct McpRuntime {
    pub(super) servers: Vec<Arc<Server>>,
    pub(super) pending: Vec<String>,
}

pub(super) struct Server {
    pub(super) spec: ServerSpec,
    pub(super) budgets: Budgets,
    roots: Value,
    conn: Mutex<Option<Arc<Connection>>>,
    status: Mutex<Status>,
    pub(super) capabilities: Mutex<Value>,
    /// The `serverInfo` the server gave at initialize (`null` before).
    server_info: Mutex<Value>,
    /// Why the last connection attempt failed, as `mcp_status` tells it.
    last_error: Mutex<Option<String>>,
    instructions: Mutex<Option<String>>,
    catalog: Mutex<Catalog>,
    /// The last `resources/list` answer; `None` until listed or once invalidated.
    pub(super) resources: Mutex<Option<Vec<Value>>>,
    /// The names of the server's prompts, from its last `prompts/list`.
    prompts: Mutex<Vec<String>>,
    /// Refresh sequence numbers: started, and the newest whose result was applied.
    refresh_started: AtomicU64,
    refresh_applied: AtomicU64,
    shutting_down: AtomicBool,
    /// Errors the user should see (stderr), in order: only those the seed asks to be shown.
    /// Every other failure shows as the server's status and missing tools, as in 2.1.235, which
    /// keeps those to its debug log in -p mode.
    errors: Mutex<Vec<String>>,
}

impl McpRuntime {
    /// Connects every candidate (stdio in batches of the local size, HTTP in batches of the
    /// remote size, the two groups side by side) and lists their catalogs.
    pub async fn start(candidates: Candidates, roots: Value, budgets: Budgets) -> Arc<Self> {
        let servers: Vec<Arc<Server>> = candidates
            .connect
            .into_iter()
            .map(|spec| Arc::new(Server::new(spec, budgets, roots.clone())))
            .collect();
        let local: Vec<_> = servers
            .iter()
            .filter(|s| s.spec.is_local())
            .cloned()
            .collect();
        let remote: Vec<_> = servers
            .iter()
            .filter(|s| !s.spec.is_local())
            .cloned()
            .collect();
        tokio::join!(
            connect_in_batches(local, budgets.local_batch),
            connect_in_batches(remote, budgets.remote_batch)
        );
        Arc::new(McpRuntime {
            servers,
            pending: candidates.pending,
        })
    }

    /// The values of header `name` on the configurations of the servers not turned off (an HTTP
    /// server's `headers`, as declared): 2.1.235 tells a claude.ai connector installed as one of
    /// this session's servers by its `X-MCP-Server-ID`, whatever the server's state.
    pub fn header_values(&self, name: &str) -> Vec<String> {
        self.servers
            .iter()
            .filter(|s| s.status() != Status::Disabled)
            .filter_map(|s| s.spec.shown["headers"][name].as_str().map(str::to_owned))
            .collect()
    }

    /// `[{name, status}]` for the init event: connected, failed, needs-auth, pending.
    pub fn statuses(&self) -> Vec<Value> {
        // 2.1.235 connects the alwaysLoad servers as a batch of their own, first, and lists
        // them in that order (recorded: tools.tool-search/mcp).
        let mut out: Vec<Value> = self
            .in_init_order()
            .map(|s| json!({"name": s.spec.name, "status": s.status().as_str()}))
            .collect();
        out.extend(
            self.pending
                .iter()
                .map(|n| json!({"name": n, "status": Status::Pending.as_str()})),
        );
        out
    }

    /// Errors to show the user, drained.
    pub fn take_errors(&self) -> Vec<String> {
        self.servers
            .iter()
            .flat_map(|s| std::mem::take(&mut *s.errors.lock().expect("not poisoned")))
            .collect()
    }

    /// The servers' prompts as slash commands (`mcp__<server>__<prompt>`), for init's
    /// `slash_commands`, in server order.
    pub fn prompt_commands(&self) -> Vec<String> {
        self.servers
            .iter()
            .flat_map(|s| {
                let prompts = s.prompts.lock().expect("not poisoned").clone();
                prompts
                    .into_iter()
                    .map(|p| format!("mcp__{}__{p}", s.spec.name))
            })
            .collect()
    }

    /// The tools a request assembled now carries: each server's newest applied catalog. A
    /// refresh still in flight is not waited for.
    pub fn current_tools(&self) -> Vec<McpTool> {
        let mut tools: Vec<McpTool> = self
            .servers
            .iter()
            .flat_map(|s| s.catalog.lock().expect("not poisoned").tools.clone())
            .collect();
        // After the builtins, by name, as 2.1.235 orders them.
        tools.sort_by(|a, b| a.wire_name.cmp(&b.wire_name));
        tools
    }

    /// The name a configured server gave itself at initialize (`serverInfo.name`).
    pub fn server_display_name(&self, server: &str) -> Option<String> {
        let s = self.servers.iter().find(|s| s.spec.name == server)?;
        let info = s.server_info.lock().expect("not poisoned");
        info["name"].as_str().map(str::to_owned)
    }

    /// Server instructions, cut to the documented length, for the system prompt.
    pub fn instructions(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .filter_map(|s| {
                let i = s.instructions.lock().expect("not poisoned").clone()?;
                Some((s.spec.name.clone(), i))
            })
            .collect()
    }

    /// Runs a tool the model called by its wire name. Never replayed: a call whose connection
    /// drops fails with that error.
    pub async fn call(
        &self,
        tool: &McpTool,
        tool_use_id: &str,
        arguments: &Value,
    ) -> Result<Value, McpError> {
        let server = self
            .servers
            .iter()
            .find(|s| s.spec.name == tool.server)
            .ok_or_else(|| McpError::Other(format!("MCP server \"{}\" is gone", tool.server)))?;
        // The tool_use id and a progress token (the request's own id) ride in `_meta`, as 2.1.235
        // sends them.
        let id = tool_use_id.to_owned();
        let arguments = arguments.clone();
        let name = tool.name.clone();
        server
            .request_with(
                "tools/call",
                move |rpc_id| {
                    json!({"name": name, "arguments": arguments,
                        "_meta": {"claudecode/toolUseId": id, "progressToken": rpc_id}})
                },
                server.budgets.tool_call,
            )
            .await
    }

    /// Every server as the host's `mcp_status` lists them, in init's order.
    pub fn report(&self) -> Vec<Value> {
        self.in_init_order().map(|s| s.status_report()).collect()
    }

    /// The host's `mcp_toggle`: turns a server off (closed, its tools gone) or on (connected
    /// and listed again). `Err`: 2.1.235's text for a name it does not know.
    pub async fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), String> {
        let server = self.by_name(name)?;
        match (enabled, server.status()) {
            // The status first: the closing connection is then not taken for a drop to
            // reconnect from.
            (false, _) => {
                server.set_status(Status::Disabled);
                server.disconnect().await;
            }
            (true, Status::Disabled) => server.clone().connect_and_list().await,
            (true, _) => {}
        }
        Ok(())
    }

    /// The host's `mcp_reconnect`: a fresh connection and listing, whatever the server's state;
    /// `Err` with the reason when it does not connect.
    pub async fn reconnect_now(&self, name: &str) -> Result<(), String> {
        let server = self.by_name(name)?;
        server.set_status(Status::Pending);
        server.disconnect().await;
        server.clone().connect_and_list().await;
        match server.status() {
            Status::Connected => Ok(()),
            _ => Err(server
                .last_error
                .lock()
                .expect("not poisoned")
                .clone()
                .unwrap_or_else(|| "connection failed".into())),
        }
    }

    fn by_name(&self, name: &str) -> Result<&Arc<Server>, String> {
        self.servers
            .iter()
            .find(|s| s.spec.name == name)
            .ok_or_else(|| format!("Server not found: {name}"))
    }

    /// The servers in the order init lists them (alwaysLoad first).
    fn in_init_order(&self) -> impl Iterator<Item = &Arc<Server>> {
        let (first, rest): (Vec<_>, Vec<_>) = self.servers.iter().partition(|s| s.spec.always_load);
        first.into_iter().chain(rest)
    }

    pub async fn shutdown(&self) {
        let mut ends = Vec::new();
        for s in &self.servers {
            s.shutting_down.store(true, Ordering::SeqCst);
            if let Some(conn) = s.conn.lock().expect("not poisoned").take() {
                ends.push(async move { conn.transport().shutdown().await });
            }
        }
        futures_util::future::join_all(ends).await;
    }
}

async fn connect_in_batches(servers: Vec<Arc<Server>>, size: usize) {
    let (off, servers): (Vec<_>, Vec<_>) = servers.into_iter().partition(|s| s.spec.disabled);
    for server in off {
        server.set_status(Status::Disabled);
    }
    // Not atomic: one server failing leaves the others of its batch connected.
    for batch in servers.chunks(size.max(1)) {
        futures_util::future::join_all(batch.iter().map(|s| s.clone().connect_and_list())).await;
    }
}

impl Server {
    fn new(spec: ServerSpec, budgets: Budgets, roots: Value) -> Self {
        Server {
            spec,
            budgets,
            roots,
            conn: Mutex::new(None),
            status: Mutex::new(Status::Pending),
            capabilities: Mutex::new(Value::Null),
            server_info: Mutex::new(Value::Null),
            last_error: Mutex::new(None),
            instructions: Mutex::new(None),
            catalog: Mutex::new(Catalog::default()),
            resources: Mutex::new(None),
            prompts: Mutex::new(Vec::new()),
            refresh_started: AtomicU64::new(0),
            refresh_applied: AtomicU64::new(0),
            shutting_down: AtomicBool::new(false),
            errors: Mutex::new(Vec::new()),
        }
    }

    pub(super) fn status(&self) -> Status {
        *self.status.lock().expect("not poisoned")
    }

    fn set_status(&self, s: Status) {
        *self.status.lock().expect("not poisoned") = s;
    }

    fn report(&self, what: impl std::fmt::Display) {
        self.errors
            .lock()
            .expect("not poisoned")
            .push(format!("MCP server \"{}\": {what}", self.spec.name));
    }

    async fn connect_and_list(self: Arc<Self>) {
        match self.clone().connect().await {
            Ok(()) => {
                self.set_status(Status::Connected);
                self.discover(true).await;
            }
            Err(e) => self.fail(e).await,
        }
    }

    /// Closes the connection and forgets what it offered.
    async fn disconnect(&self) {
        let conn = self.conn.lock().expect("not poisoned").take();
        if let Some(conn) = conn {
            conn.transport().shutdown().await;
        }
        self.catalog.lock().expect("not poisoned").tools.clear();
        *self.server_info.lock().expect("not poisoned") = Value::Null;
    }

    /// The server as the host's `mcp_status` shows it, keys in 2.1.235's order.
    fn status_report(&self) -> Value {
        let status = self.status();
        let mut out = json!({"name": self.spec.name, "status": status.as_str()});
        let map = out.as_object_mut().expect("an object");
        if status == Status::Failed {
            if let Some(error) = self.last_error.lock().expect("not poisoned").clone() {
                map.insert("error".into(), error.into());
            }
        }
        if status == Status::Connected {
            map.insert(
                "serverInfo".into(),
                self.server_info.lock().expect("not poisoned").clone(),
            );
        }
        map.insert("config".into(), self.spec.shown.clone());
        map.insert("scope".into(), self.spec.scope.into());
        if status == Status::Connected {
            let catalog = self.catalog.lock().expect("not poisoned");
            let tools: Vec<Value> = catalog
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "annotations": t.annotations}))
                .collect();
            map.insert("tools".into(), tools.into());
        }
        out
    }

    async fn fail(&self, e: McpError) {
        let status = match &e {
            McpError::Auth { .. } if !self.has_user_authorization() => Status::NeedsAuth,
            _ => Status::Failed,
        };
        // An explicit header disables the OAuth fallback: no discovery for it. A 403 needs
        // credentials too, but 2.1.235 does not go looking for OAuth metadata on one.
        if status == Status::NeedsAuth && matches!(e, McpError::Auth { status: 401, .. }) {
            let conn = self.conn.lock().expect("not poisoned").clone();
            if let Some(Transport::Http(h)) = conn.as_ref().map(|c| c.transport().clone()) {
                h.discover_oauth().await;
            }
        }
        // The seed names this class (AUTH_HEADER_REJECTED); other connection failures show only
        // as the init status.
        if let (McpError::Auth { status, .. }, Status::Failed) = (&e, status) {
            self.report(format!(
                "AUTH_HEADER_REJECTED: the server answered {status} to the configured Authorization header"
            ));
        }
        self.set_status(status);
        *self.last_error.lock().expect("not poisoned") = Some(e.to_string());
        let conn = self.conn.lock().expect("not poisoned").take();
        if let Some(conn) = conn {
            conn.transport().shutdown().await;
        }
    }

    fn has_user_authorization(&self) -> bool {
        match &self.spec.kind {
            ServerKind::Http(h) => h
                .headers
                .keys()
                .any(|k| k.eq_ignore_ascii_case("authorization")),
            ServerKind::Stdio(_) | ServerKind::Sdk(_) => false,
        }
    }

    /// Transport, then initialize, within the connect budget.
    async fn connect(self: Arc<Self>) -> Result<(), McpError> {
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let transport = match &self.spec.kind {
            ServerKind::Stdio(s) => Transport::Stdio(Arc::new(StdioTransport::spawn(s, in_tx)?)),
            ServerKind::Http(h) => Transport::Http(Arc::new(HttpTransport::new(h, in_tx))),
            ServerKind::Sdk(sdk) => {
                Transport::Sdk(Arc::new(SdkTransport::new(&self.spec.name, sdk, in_tx)?))
            }
        };
        let conn = Connection::new(transport, in_rx, ev_tx, self.roots.clone());
        *self.conn.lock().expect("not poisoned") = Some(conn.clone());
        tokio::spawn(self.clone().watch_events(ev_rx));
        self.initialize(&conn).await
    }

    /// initialize and `notifications/initialized`, within the connect budget (one timer for the
    /// whole handshake, so no inner timeout can fire first with another message).
    async fn initialize(&self, conn: &Connection) -> Result<(), McpError> {
        match tokio::time::timeout(self.budgets.connect, self.handshake(conn)).await {
            Ok(result) => result,
            Err(_) => Err(McpError::Other(format!(
                "MCP server \"{}\" connection timed out after {}ms",
                self.spec.name,
                self.budgets.connect.as_millis()
            ))),
        }
    }

    async fn handshake(&self, conn: &Connection) -> Result<(), McpError> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"roots": {"listChanged": true}, "elicitation": {}},
            "clientInfo": {
                "name": "claude-code", "title": "Claude Code", "version": crate::CONTRACT_VERSION,
                "description": "Anthropic's agentic coding tool", "websiteUrl": "https://claude.com/claude-code",
            },
        });
        let unbounded = Duration::from_millis(limits::JS_TIMER_MAX_MS.get());
        let result = conn.request("initialize", params, unbounded).await?;
        // A failed negotiation fails the connection; it is never an empty tool list.
        let version = result["protocolVersion"].as_str().unwrap_or_default();
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(McpError::Other(format!(
                "Server's protocol version is not supported: {version}"
            )));
        }
        if let Transport::Http(h) = conn.transport() {
            h.set_protocol_version(version);
        }
        *self.capabilities.lock().expect("not poisoned") = result["capabilities"].clone();
        *self.server_info.lock().expect("not poisoned") = result["serverInfo"].clone();
        *self.instructions.lock().expect("not poisoned") = result["instructions"]
            .as_str()
            .map(|i| catalog::cut(i, limits::MCP_INITIALIZE_INSTRUCTIONS_MAX.usize()));
        conn.notify("notifications/initialized", None).await?;
        if let Transport::Http(h) = conn.transport() {
            let h = h.clone();
            tokio::spawn(async move { h.open_server_stream().await });
        }
        Ok(())
    }

    pub(super) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        self.request_with(method, move |_| params.clone(), timeout)
            .await
    }

    /// A request on the live connection (`params` built from its JSON-RPC id); an expired HTTP
    /// session is re-initialized once and the request retried once.
    async fn request_with(
        &self,
        method: &str,
        params: impl Fn(u64) -> Value + Send + Sync,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let conn = self
            .conn
            .lock()
            .expect("not poisoned")
            .clone()
            .ok_or_else(|| McpError::Closed("not connected".into()))?;
        match conn.request_with(method, &params, timeout).await {
            Err(McpError::SessionExpired) => {
                let Transport::Http(h) = conn.transport() else {
                    return Err(McpError::SessionExpired);
                };
                h.reset_session();
                self.initialize(&conn).await?;
                match conn.request_with(method, &params, timeout).await {
                    Err(McpError::SessionExpired) => Err(McpError::Other(format!(
                        "MCP server \"{}\" session expired",
                        self.spec.name
                    ))),
                    other => other,
                }
            }
            other => other,
        }
    }

    /// Lists what the server declared. `initial`: the first discovery, which lists every
    /// catalog; after a reconnect only those declared `listChanged` are fetched again.
    async fn discover(&self, initial: bool) {
        let caps = self.capabilities.lock().expect("not poisoned").clone();
        let wanted =
            |kind: &str| caps.get(kind).is_some() && (initial || caps[kind]["listChanged"] == true);
        if wanted("tools") {
            let seq = self.begin_refresh();
            self.refresh_tools(seq).await;
        }
        for (kind, method) in [("prompts", "prompts/list"), ("resources", "resources/list")] {
            if wanted(kind) {
                // A failing resource or prompt listing is isolated: it touches nothing else.
                match self
                    .request(method, Value::Null, self.budgets.request)
                    .await
                {
                    // The resource tools answer from this listing until it is invalidated.
                    Ok(r) if kind == "resources" => self.cache_resources(&r),
                    Ok(r) => {
                        *self.prompts.lock().expect("not poisoned") = r["prompts"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|p| p["name"].as_str().map(str::to_owned))
                            .collect()
                    }
                    Err(_) => {}
                }
            }
        }
    }

    /// The sequence number of a refresh starting now.
    fn begin_refresh(&self) -> u64 {
        self.refresh_started.fetch_add(1, Ordering::SeqCst) + 1
    }

    async fn refresh_tools(&self, seq: u64) {
        let listing =
            catalog::list_tools(|params| self.request("tools/list", params, self.budgets.request))
                .await;
        match listing {
            Ok(listing) => {
                if listing.capped {
                    self.report(format!(
                        "tools/list stopped at the {}-page cap; the tool list is incomplete",
                        limits::MCP_TOOLS_LIST_MAX_PAGES.get()
                    ));
                }
                // A dropped tool is left out silently: the seed asks only that its siblings stay.
                let (mut tools, _dropped) = catalog::convert(&self.spec.name, &listing.tools);
                for t in &mut tools {
                    t.always_load = self.spec.always_load;
                }
                // An older refresh finishing late never replaces a newer one.
                if self.refresh_applied.fetch_max(seq, Ordering::SeqCst) < seq {
                    let mut catalog = self.catalog.lock().expect("not poisoned");
                    catalog.generation += 1;
                    catalog.tools = tools;
                }
            }
            // The seed: a failed refresh keeps the previous tools "and exposes the error".
            Err(e) if self.catalog.lock().expect("not poisoned").generation > 0 => self.report(
                format!("tools/list failed; keeping the previous tools: {e}"),
            ),
            // A first listing that fails leaves the server connected with no tools.
            Err(_) => {}
        }
    }

    async fn watch_events(self: Arc<Self>, mut events: mpsc::UnboundedReceiver<ServerEvent>) {
        while let Some(event) = events.recv().await {
            match event {
                ServerEvent::Notification(m) if m == "notifications/tools/list_changed" => {
                    let seq = self.begin_refresh();
                    let me = self.clone();
                    tokio::spawn(async move { me.refresh_tools(seq).await });
                }
                ServerEvent::Notification(m) if m == "notifications/resources/list_changed" => {
                    *self.resources.lock().expect("not poisoned") = None;
                }
                ServerEvent::Notification(_) => {}
                ServerEvent::Closed(close) => {
                    if self.shutting_down.load(Ordering::SeqCst)
                        || self.status() != Status::Connected
                    {
                        return;
                    }
                    if close.tell_user {
                        self.report(format!("connection closed: {}", close.why));
                    }
                    if close.may_reconnect {
                        tokio::spawn(self.clone().reconnect());
                    } else {
                        // Not dialled again; the process is let go. Its status stays, as in
                        // 2.1.235 (the seed is silent): connected, with no tools.
                        let conn = self.conn.lock().expect("not poisoned").clone();
                        if let Some(conn) = conn {
                            conn.transport().shutdown().await;
                        }
                    }
                    return;
                }
            }
        }
    }

    /// Re-dials after 1, 2 and 4 s; on success refetches only catalogs declared `listChanged`.
    // Boxed: connect → watch_events → reconnect → connect would be an infinitely sized future.
    fn reconnect(
        self: Arc<Self>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            self.set_status(Status::Failed);
            let delays = [
                &limits::MCP_RECONNECT_BACKOFF_1,
                &limits::MCP_RECONNECT_BACKOFF_2,
                &limits::MCP_RECONNECT_BACKOFF_3,
            ];
            for delay in delays {
                tokio::time::sleep(delay.duration()).await;
                if self.shutting_down.load(Ordering::SeqCst) {
                    return;
                }
                let old = self.conn.lock().expect("not poisoned").take();
                if let Some(old) = old {
                    old.transport().shutdown().await;
                }
                if self.clone().connect().await.is_ok() {
                    self.set_status(Status::Connected);
                    self.discover(false).await;
                    return;
                }
            }
            // Exhausted: the status stays failed, which is what the user sees.
        })
    }
}
