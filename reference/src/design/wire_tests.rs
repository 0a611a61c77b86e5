//! The Design transport and session against a mock server over plain HTTP (the allowlist is
//! skipped below the check): headers, the shared handshake, 404 re-initialization, 401 renewal,
//! the SSE refusal, the body cap, redaction, the catalog hash memo, and the consent round trip.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use serde_json::{json, Value};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::account::Account;
use super::dispatch::{call, operation, Facts, Flags, Service};
use super::error::DesignError;
use super::signal::Signal;
use super::state::DesignState;
use super::transport::{Renew, Transport};
use crate::limits;

struct Fixed(Option<&'static str>);

impl Renew for Fixed {
    fn renew(&self, _rejected: String) -> BoxFuture<'static, Option<String>> {
        let t = self.0.map(str::to_owned);
        async move { t }.boxed()
    }
}

fn service(server: &MockServer, renew: Option<&'static str>, home: &std::path::Path) -> Service {
    Service {
        state: DesignState::new(),
        transport: Arc::new(Transport::unchecked(
            &server.uri(),
            "claude_code_sdk",
            Arc::new(Fixed(renew)),
        )),
        account: Account::new(&server.uri(), home.to_owned()),
        home: home.to_owned(),
    }
}

/// One operation without arguments, on the main agent, with `token`.
async fn op(
    svc: &Service,
    name: &str,
    token: &str,
) -> Result<super::dispatch::Outcome, DesignError> {
    operation(svc, name, &json!({}), token, &Signal::default(), None).await
}

fn rpc(result: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": 1, "result": result}))
}

const TOOLS: &str = r#"[{"name":"list_projects","description":"Lists projects. More.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]"#;

async fn mount_handshake(server: &MockServer, session: &str) {
    mount_catalog(server, session, TOOLS).await;
}

const ALL_TOOLS: &str = r#"[{"name":"list_projects"},{"name":"get_project"},{"name":"finalize_plan"},{"name":"write_files"},{"name":"copy_files"}]"#;

async fn mount_catalog(server: &MockServer, session: &str, tools: &str) {
    Mock::given(method("POST"))
        .and(path("/v1/design/mcp"))
        .and(body_partial_json(json!({"method": "initialize"})))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("mcp-session-id", session)
                .set_body_string("{}"),
        )
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/design/mcp"))
        .and(body_partial_json(json!({"method": "tools/list"})))
        .respond_with(rpc(
            json!({"tools": serde_json::from_str::<Value>(tools).unwrap()}),
        ))
        .mount(server)
        .await;
}

fn requests_with(all: &[Request], m: &str) -> Vec<Request> {
    all.iter()
        .filter(|r| serde_json::from_slice::<Value>(&r.body).is_ok_and(|b| b["method"] == m))
        .cloned()
        .collect()
}

#[tokio::test]
async fn headers_handshake_and_call() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    Mock::given(method("POST"))
        .and(body_partial_json(
            json!({"method": "tools/call", "params": {"name": "list_projects"}}),
        ))
        .and(header("Mcp-Session-Id", "s1"))
        .respond_with(rpc(json!({"content": [{"type": "text", "text": "[]"}]})))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let out = op(&svc, "list_projects", "tok").await.unwrap();
    assert_eq!(out.content, vec![json!({"type": "text", "text": "[]"})]);
    let all = server.received_requests().await.unwrap();
    let init = &requests_with(&all, "initialize")[0];
    let body: Value = serde_json::from_slice(&init.body).unwrap();
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}})
    );
    let h = |r: &Request, k: &str| r.headers.get(k).map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(h(init, "authorization").as_deref(), Some("Bearer tok"));
    assert_eq!(h(init, "content-type").as_deref(), Some("application/json"));
    assert_eq!(h(init, "anthropic-version").as_deref(), Some("2023-06-01"));
    assert_eq!(
        h(init, "anthropic-client-platform").as_deref(),
        Some("claude_code_sdk")
    );
    assert_eq!(
        h(init, "accept").as_deref(),
        Some("application/json, text/event-stream")
    );
    assert_eq!(
        h(init, "x-anthropic-client").as_deref(),
        Some("claude-cli-design-tool")
    );
    assert_eq!(h(init, "mcp-session-id"), None);
    let list = &requests_with(&all, "tools/list")[0];
    assert_eq!(h(list, "mcp-session-id").as_deref(), Some("s1"));
    assert_eq!(
        serde_json::from_slice::<Value>(&list.body).unwrap(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    );
    // Known now: a second call neither initializes nor discovers again.
    op(&svc, "list_projects", "tok").await.unwrap();
    let all = server.received_requests().await.unwrap();
    assert_eq!(requests_with(&all, "initialize").len(), 1);
    assert_eq!(requests_with(&all, "tools/list").len(), 1);
}

#[tokio::test]
async fn a_404_with_a_session_reinitializes_and_retries_once() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    Mock::given(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(ResponseTemplate::new(404).set_body_string("gone"))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let err = op(&svc, "list_projects", "tok").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Claude Design list_projects failed: HTTP 404 \"gone\""
    );
    let all = server.received_requests().await.unwrap();
    // One initialize, the stale-session 404, one re-initialize, one retry: no more.
    assert_eq!(requests_with(&all, "initialize").len(), 2);
    assert_eq!(requests_with(&all, "tools/call").len(), 2);
}

#[tokio::test]
async fn a_401_renews_once_then_says_why() {
    let server = MockServer::start().await;
    Mock::given(header("authorization", "Bearer old"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    Mock::given(header("authorization", "Bearer fresh"))
        .and(body_partial_json(json!({"method": "initialize"})))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("mcp-session-id", "s9")
                .set_body_string("{}"),
        )
        .mount(&server)
        .await;
    Mock::given(header("authorization", "Bearer fresh"))
        .and(body_partial_json(json!({"method": "tools/list"})))
        .respond_with(
            ResponseTemplate::new(200).set_body_string(r#"{"result":{"tools":[]},"echo":"fresh"}"#),
        )
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, Some("fresh"), home.path());
    let out = super::session::discover(&svc.state, &svc.transport, "old", &Signal::default())
        .await
        .unwrap();
    assert!(out.is_empty());
    // No renewal: the first 401 is final.
    let svc = service(&server, None, home.path());
    let err = svc
        .transport
        .post(&json!({}), "old", None, &Signal::default(), false)
        .await
        .unwrap_err();
    assert_eq!(err, DesignError::Auth401 { retried: false });
    // The renewed token refused too.
    let server2 = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server2)
        .await;
    let svc = service(&server2, Some("fresh"), home.path());
    let err = svc
        .transport
        .post(&json!({}), "old", None, &Signal::default(), false)
        .await
        .unwrap_err();
    assert_eq!(err, DesignError::Auth401 { retried: true });
    assert_eq!(server2.received_requests().await.unwrap().len(), 2);
    let text = super::credentials::auth_401_text(home.path(), true, true);
    assert!(text.starts_with("Claude Design authentication failed (HTTP 401): a freshly refreshed credential was also rejected"), "{text}");
}

#[tokio::test]
async fn renewed_token_is_redacted_from_the_body() {
    let server = MockServer::start().await;
    Mock::given(header("authorization", "Bearer old"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    Mock::given(header("authorization", "Bearer fresh"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"echo":"token fresh here"}"#))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, Some("fresh"), home.path());
    let reply = svc
        .transport
        .post(&json!({}), "old", None, &Signal::default(), false)
        .await
        .unwrap();
    assert_eq!(
        reply.data,
        json!({"echo": "token [redacted-oauth-token] here"})
    );
}

#[tokio::test]
async fn event_streams_and_oversized_bodies_are_refused() {
    let server = MockServer::start().await;
    Mock::given(body_partial_json(json!({"id": 7})))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("data: {}\n\n", "text/event-stream; charset=utf-8"),
        )
        .mount(&server)
        .await;
    let cap = limits::DESIGN_MCP_MAX_CONTENT_LENGTH.usize();
    Mock::given(body_partial_json(json!({"id": 8})))
        .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(cap + 1)))
        .mount(&server)
        .await;
    Mock::given(body_partial_json(json!({"id": 9})))
        .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(cap)))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let post = |id: u64| {
        let t = svc.transport.clone();
        async move {
            t.post(&json!({"id": id}), "tok", None, &Signal::default(), false)
                .await
        }
    };
    let sse = post(7).await.unwrap_err();
    assert_eq!(
        sse,
        DesignError::tool(
            "Claude Design returned a text/event-stream response; this client only handles JSON.",
            "design_tool_sse_unsupported"
        )
    );
    assert_eq!(
        post(8).await.unwrap_err(),
        DesignError::Plain(format!("maxContentLength size of {cap} exceeded"))
    );
    assert_eq!(
        post(9).await.unwrap().data.as_str().map(str::len),
        Some(cap)
    );
}

#[tokio::test]
async fn request_failures_are_wrapped_and_redacted() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    Mock::given(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(
            ResponseTemplate::new(500).set_body_json(json!({"error": "bad token sekret"})),
        )
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let err = op(&svc, "list_projects", "sekret").await.unwrap_err();
    assert_eq!(err.to_string(), "Claude Design list_projects failed: HTTP 500 {\"error\":\"bad token [redacted-oauth-token]\"}");
    assert_eq!(err.code(), Some("design_tool_http_error"));
    // Nothing listening: a request failure in the client's words.
    let dead = Service {
        state: DesignState::new(),
        transport: Arc::new(Transport::unchecked(
            "http://127.0.0.1:9",
            "x",
            Arc::new(Fixed(None)),
        )),
        account: Account::new("http://127.0.0.1:9", home.path().to_owned()),
        home: home.path().to_owned(),
    };
    let err = op(&dead, "list_projects", "t").await.unwrap_err();
    assert_eq!(err.code(), Some("design_tool_request_failed"));
}

#[tokio::test]
async fn unknown_operations_after_discovery_and_jsonrpc_errors() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    Mock::given(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "nope", "data": {"why": 1}}})))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let out = op(&svc, "get_project", "t").await.unwrap();
    assert_eq!(out.content[0]["text"], "Unknown Claude Design operation \"get_project\". Call ClaudeDesign({operation: \"list\"}) to see the available operations.");
    assert_eq!(out.is_error, Some(true));
    let out = op(&svc, "list_projects", "t").await.unwrap();
    assert_eq!(out.content[0]["text"], "nope \u{2014} {\"why\":1}");
    assert_eq!(out.is_error, Some(true));
}

#[tokio::test]
async fn the_catalog_hash_is_remembered_per_agent() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    let home = tempfile::tempdir().unwrap();
    let svc = service(&server, None, home.path());
    let list = |args: Value, key: Option<&'static str>| {
        let svc = &svc;
        async move {
            operation(svc, "list", &args, "t", &Signal::default(), key)
                .await
                .unwrap()
                .content[0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let full = list(json!({}), Some("a1")).await;
    assert!(full.starts_with(r#"{"tools":[{"name":"list_projects","description":"Lists projects. More.","inputSchema":{"type":"object"}}]}"#));
    let short: Value = serde_json::from_str(&list(json!({}), Some("a1")).await).unwrap();
    let hash = super::catalog::hash(&full);
    assert_eq!(short["catalog_unchanged"], true);
    assert_eq!(short["catalog_hash"], hash.as_str());
    assert_eq!(
        short["operations"],
        json!([{"name": "list_projects", "summary": "Lists projects."}])
    );
    assert!(short["note"]
        .as_str()
        .unwrap()
        .contains(&format!("(hash {hash})")));
    assert_eq!(list(json!({"full": true}), Some("a1")).await, full);
    assert_eq!(
        list(json!({}), Some("a2")).await,
        full,
        "another agent gets it whole"
    );
    assert_eq!(list(json!({}), None).await, full, "no agent key, no memo");
    assert_eq!(list(json!({}), None).await, full);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiter_on_a_cancelled_shared_handshake_is_told_to_retry() {
    let server = MockServer::start().await;
    Mock::given(body_partial_json(json!({"method": "initialize"})))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(Duration::from_millis(600))
                .set_body_string("{}"),
        )
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let svc = Arc::new(service(&server, None, home.path()));
    // Both operations are known to need no discovery.
    svc.state.lock().hints.insert(
        "list_projects".into(),
        super::catalog::Hints {
            read_only: true,
            destructive: false,
        },
    );
    let (first, second) = (Signal::default(), Signal::default());
    let a = {
        let (svc, s) = (svc.clone(), first.clone());
        tokio::spawn(
            async move { operation(&svc, "list_projects", &json!({}), "t", &s, None).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let b = {
        let (svc, s) = (svc.clone(), second.clone());
        tokio::spawn(
            async move { operation(&svc, "list_projects", &json!({}), "t", &s, None).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    first.abort();
    assert_eq!(a.await.unwrap().unwrap_err(), DesignError::Aborted);
    let err = b.await.unwrap().unwrap_err();
    assert_eq!(err.code(), Some("design_tool_shared_handshake_cancelled"));
    assert_eq!(err.to_string(), "Claude Design list_projects was cancelled because a concurrent Claude Design call was interrupted mid-handshake (the first calls of a session share one initialize/discovery round-trip). Retry the operation.");
    let all = server.received_requests().await.unwrap();
    assert_eq!(
        requests_with(&all, "initialize").len(),
        1,
        "one shared initialize"
    );
}

#[tokio::test]
async fn needs_consent_not_shown_seeds_the_bit_for_the_next_card() {
    let server = MockServer::start().await;
    mount_handshake(&server, "s1").await;
    Mock::given(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(
            ResponseTemplate::new(403).set_body_json(
                json!({"error": "needs_consent", "consent": "agent_design_projects"}),
            ),
        )
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/.credentials.json"),
        r#"{"claudeAiOauth":{"accessToken":"t","refreshToken":"r","scopes":["user:design:read"]}}"#,
    )
    .unwrap();
    if std::env::var_os("CLAUDE_CODE_OAUTH_TOKEN").is_some()
        || std::env::var_os("CLAUDE_CONFIG_DIR").is_some()
    {
        return;
    }
    let svc = service(&server, None, home.path());
    let facts = Facts {
        non_interactive: true,
        plan_mode: false,
        bypass_mode: false,
        bypass_available: false,
        main_agent: true,
        agent_key: None,
    };
    let err = call(
        &svc,
        "list_projects",
        &json!({}),
        &Flags::default(),
        &facts,
        &Signal::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Some("design_tool_needs_consent_not_shown"));
    assert!(err.to_string().starts_with("Connect to Claude Design? "));
    assert!(!svc.state.lock().consent_cache.as_ref().unwrap()["agent_design_projects"]);
    // The next decision shows the card; under -p its flags say no card reaches a person.
    let (verdict, flags) = super::permission::check(
        &svc,
        "list_projects",
        &json!({}),
        &facts,
        &Signal::default(),
    )
    .await;
    assert!(
        matches!(verdict, super::permission::Verdict::Ask { ref message, .. } if message.starts_with("Connect to Claude Design?"))
    );
    assert_eq!(
        flags.consent_bit_shown.as_deref(),
        Some("agent_design_projects")
    );
    assert!(!flags.consent_ask_can_reach_user);
    let err = call(
        &svc,
        "list_projects",
        &json!({}),
        &flags,
        &facts,
        &Signal::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Some("design_tool_needs_consent_no_prompt"));
}

fn facts(non_interactive: bool) -> Facts {
    Facts {
        non_interactive,
        plan_mode: false,
        bypass_mode: false,
        bypass_available: false,
        main_agent: true,
        agent_key: Some("session".into()),
    }
}

async fn consented(server: &MockServer) {
    Mock::given(method("GET"))
        .and(path("/v1/design/consent"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"agent_design_projects": true})),
        )
        .mount(server)
        .await;
}

fn with_login(home: &std::path::Path) -> bool {
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/.credentials.json"),
        r#"{"claudeAiOauth":{"accessToken":"t","refreshToken":"r","scopes":["user:design:read"]}}"#,
    )
    .unwrap();
    std::env::var_os("CLAUDE_CODE_OAUTH_TOKEN").is_none()
        && std::env::var_os("CLAUDE_CONFIG_DIR").is_none()
}

#[tokio::test]
async fn durable_grant_states() {
    use super::permission::{check, Verdict};
    let server = MockServer::start().await;
    consented(&server).await;
    mount_catalog(&server, "s1", ALL_TOOLS).await;
    Mock::given(method("GET"))
        .and(path("/v1/design/grants"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"grants": [{"project_id": "granted1"}]})),
        )
        .mount(&server)
        .await;
    Mock::given(body_partial_json(json!({"method": "tools/call", "params": {"name": "get_project"}})))
        .respond_with(rpc(json!({"content": [{"type": "text", "text": "{\"name\":\"Deck\",\"sharing\":{\"scope\":\"invited\"},\"url\":\"https://claude.ai/design/p/p1\"}"}]})))
        .mount(&server).await;
    let home = tempfile::tempdir().unwrap();
    if !with_login(home.path()) {
        return;
    }
    let svc = service(&server, None, home.path());
    let write = |p: &str| json!({"project_id": p, "files": [{"path": "index.html", "data": "x"}]});
    let sig = Signal::default();
    // The server already holds a grant: reused, even under -p.
    assert_eq!(
        check(&svc, "write_files", &write("granted1"), &facts(true), &sig)
            .await
            .0,
        Verdict::Allow
    );
    // No grant under -p: refused with the per-batch route.
    let (v, _) = check(&svc, "write_files", &write("p1"), &facts(true), &sig).await;
    assert!(
        matches!(v, Verdict::Deny { ref message, .. } if message == "ClaudeDesign write_files: writing without a plan_token requires a one-time interactive project approval, which is not available in non-interactive sessions \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token.")
    );
    // At a terminal: the card naming the verified project.
    let (v, flags) = check(&svc, "write_files", &write("p1"), &facts(false), &sig).await;
    assert_eq!(v, Verdict::Ask { message: "Approving writes the listed files now, and lets Claude write to ANY file in the project \"Deck\" (private: invited members only) \u{2014} https://claude.ai/design/p/p1 \u{2014} without asking again. This approval is remembered for this project until you revoke it in settings at claude.ai/design (future writes and file contents are not shown for approval). Deletes and CLAUDE.md/.claude paths still ask every time.".into(), reason: "first write under a project grant \u{2014} approval mints a durable write grant for this project, revocable at claude.ai/design settings".into() });
    assert_eq!(flags.project_grant_ask_shown.as_deref(), Some("p1"));
    // Reserved targets always go per batch.
    let (v, _) = check(
        &svc,
        "write_files",
        &json!({"project_id": "p1", "files": [{"path": "CLAUDE.md"}]}),
        &facts(false),
        &sig,
    )
    .await;
    assert!(
        matches!(v, Verdict::Deny { ref message, .. } if message.contains("always require per-batch approval"))
    );
    // copy_files without a token is refused; finalize_plan asks with the 15-minute note.
    let (v, _) = check(
        &svc,
        "copy_files",
        &json!({"project_id": "p1", "files": []}),
        &facts(false),
        &sig,
    )
    .await;
    assert!(matches!(v, Verdict::Deny { .. }));
    let (v, flags) = check(
        &svc,
        "finalize_plan",
        &json!({"project_id": "p1", "writes": ["a.html"]}),
        &facts(false),
        &sig,
    )
    .await;
    assert_eq!(v, Verdict::Ask { message: format!("Design finalize_plan writes to claude.ai/design. {}", super::permission::PLAN_CARD_NOTE), reason: "finalize_plan \u{2014} the human is the path-review boundary; approval also grants prompt-free writes to these paths for 15 min".into() });
    assert!(flags.finalize_plan_ask_shown);
    // Reads need nothing.
    assert_eq!(
        check(&svc, "list_projects", &json!({}), &facts(true), &sig)
            .await
            .0,
        Verdict::Allow
    );
}

#[tokio::test]
async fn an_approved_plan_lets_its_exact_paths_through() {
    use super::permission::{check, Verdict};
    let server = MockServer::start().await;
    consented(&server).await;
    mount_catalog(&server, "s1", ALL_TOOLS).await;
    Mock::given(body_partial_json(
        json!({"method": "tools/call", "params": {"name": "finalize_plan"}}),
    ))
    .respond_with(rpc(
        json!({"content": [{"type": "text", "text": "{\"plan_token\":\"tok1\"}"}]}),
    ))
    .mount(&server)
    .await;
    let home = tempfile::tempdir().unwrap();
    if !with_login(home.path()) {
        return;
    }
    let svc = service(&server, None, home.path());
    let sig = Signal::default();
    let plan = json!({"project_id": "p1", "writes": ["a.html"]});
    let (_, flags) = check(&svc, "finalize_plan", &plan, &facts(false), &sig).await;
    call(&svc, "finalize_plan", &plan, &flags, &facts(false), &sig)
        .await
        .unwrap();
    let w = |p: &str| json!({"project_id": "p1", "plan_token": "tok1", "files": [{"path": p}]});
    assert_eq!(
        check(&svc, "write_files", &w("./a.html"), &facts(false), &sig)
            .await
            .0,
        Verdict::Allow
    );
    assert!(matches!(
        check(&svc, "write_files", &w("b.html"), &facts(false), &sig)
            .await
            .0,
        Verdict::Ask { .. }
    ));
    // Under -p no card was shown, so nothing is registered.
    let svc2 = service(&server, None, home.path());
    let (_, flags) = check(&svc2, "finalize_plan", &plan, &facts(true), &sig).await;
    call(&svc2, "finalize_plan", &plan, &flags, &facts(true), &sig)
        .await
        .unwrap();
    assert!(svc2.state.lock().approved_plans.is_empty());
}
