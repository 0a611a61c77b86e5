//! The Design routes over real HTTP, driven the way the client bundle drives them (`jAi`: the same
//! headers, a bearer, `Mcp-Session-Id` once initialize gave one).

use serde_json::{json, Value};

use crate::claude_ai::{Bearer, ClaudeAi, ClaudeAiMock, DesignEndpoint, DesignScript};

const ACCOUNT: &str = "sk-ant-oat01-fixture-account";

async fn serve(script: Value) -> ClaudeAiMock {
    let script: DesignScript = serde_json::from_value(script).unwrap();
    let claude_ai = ClaudeAi::new(Vec::new()).with_design(script.with_account_token(ACCOUNT));
    ClaudeAiMock::serve(claude_ai).await.unwrap()
}

struct Answer {
    status: u16,
    session: Option<String>,
    content_type: String,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap()
    }
}

/// One request as the real client sends it (`jAi` in the client bundle).
async fn send(
    mock: &ClaudeAiMock,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", mock.base_url()))
        .header("accept", "application/json, text/event-stream")
        .header("x-anthropic-client", "claude-cli-design-tool")
        .header("anthropic-version", "2023-06-01")
        .header("anthropic-client-platform", "cli");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let header = |k: &str| {
        response
            .headers()
            .get(k)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    Answer {
        status: response.status().as_u16(),
        session: header("mcp-session-id"),
        content_type: header("content-type").unwrap_or_default(),
        text: response.text().await.unwrap(),
    }
}

async fn rpc(mock: &ClaudeAiMock, session: Option<&str>, method: &str, params: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let post = reqwest::Method::POST;
    send(
        mock,
        post,
        "/v1/design/mcp",
        Some(ACCOUNT),
        session,
        Some(body),
    )
    .await
}

async fn initialize(mock: &ClaudeAiMock) -> Answer {
    let params = json!({
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "claude-cli-design-tool", "version": "1"},
    });
    rpc(mock, None, "initialize", params).await
}

async fn call(mock: &ClaudeAiMock, session: Option<&str>, tool: &str) -> Answer {
    let params = json!({"name": tool, "arguments": {"project_id": "p1"}});
    rpc(mock, session, "tools/call", params).await
}

#[tokio::test]
async fn initialize_opens_a_session_that_the_next_calls_use() {
    let mock = serve(json!({"tool": [
        {"name": "list_projects", "description": "Lists.", "read_only": true},
        {"name": "write_files", "input_schema": {"type": "object"}},
    ]}))
    .await;
    let init = initialize(&mock).await;
    assert_eq!(init.status, 200);
    assert_eq!(init.session.as_deref(), Some("design-session-1"));
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-03-26");
    let list = rpc(&mock, init.session.as_deref(), "tools/list", json!({})).await;
    assert_eq!(list.status, 200);
    assert_eq!(
        list.json()["result"]["tools"],
        json!([
            {"name": "list_projects", "description": "Lists.", "annotations": {"readOnlyHint": true}},
            {"name": "write_files", "inputSchema": {"type": "object"}},
        ])
    );
    let called = call(&mock, init.session.as_deref(), "get_project").await;
    assert_eq!(
        called.json()["result"]["content"][0]["text"],
        "get_project ok"
    );
    assert_eq!(called.json()["id"], 1);

    let seen = mock.design_requests();
    let rpcs: Vec<_> = seen.iter().map(|r| r.rpc.as_deref().unwrap()).collect();
    assert_eq!(rpcs, ["initialize", "tools/list", "tools/call"]);
    assert_eq!(
        seen[0].params.as_ref().unwrap()["clientInfo"]["name"],
        "claude-cli-design-tool"
    );
    assert_eq!(seen[0].session, None);
    assert_eq!(seen[1].session.as_deref(), Some("design-session-1"));
    assert_eq!(seen[2].tool.as_deref(), Some("get_project"));
    assert_eq!(seen[2].arguments, Some(json!({"project_id": "p1"})));
    assert!(seen
        .iter()
        .all(|r| r.bearer == Bearer::Fixture && r.platform && r.status == 200));
    assert_eq!(seen[0].client.as_deref(), Some("claude-cli-design-tool"));
    assert_eq!(
        seen[0].accept.as_deref(),
        Some("application/json, text/event-stream")
    );
}

#[tokio::test]
async fn a_stale_or_missing_session_is_not_found_until_a_new_handshake() {
    let mock = serve(json!({"answer": [
        {"method": "tools/call", "tool": "forget", "forget_session": true},
    ]}))
    .await;
    let first = initialize(&mock).await.session.unwrap();
    assert_eq!(call(&mock, None, "get_project").await.status, 404);
    assert_eq!(
        call(&mock, Some("design-session-9"), "get_project")
            .await
            .status,
        404
    );
    let second = initialize(&mock).await.session.unwrap();
    assert_eq!(second, "design-session-2");
    let stale = call(&mock, Some(&first), "get_project").await;
    assert_eq!(
        (stale.status, stale.json()),
        (404, json!({"error": "session not found"}))
    );
    assert_eq!(call(&mock, Some(&second), "get_project").await.status, 200);

    // A server that forgets refuses the session it had just accepted.
    assert_eq!(call(&mock, Some(&second), "forget").await.status, 404);
    assert_eq!(call(&mock, Some(&second), "get_project").await.status, 404);
    let third = initialize(&mock).await.session.unwrap();
    assert_eq!(call(&mock, Some(&third), "get_project").await.status, 200);
}

#[tokio::test]
async fn an_nth_answer_plays_once_and_the_default_follows() {
    let mock = serve(json!({"answer": [
        {"method": "tools/call", "tool": "get_project", "nth": 1, "status": 401},
        {"method": "tools/call", "nth": 4, "status": 503},
    ]}))
    .await;
    let session = initialize(&mock).await.session;
    let refused = call(&mock, session.as_deref(), "get_project").await;
    assert_eq!(
        (refused.status, refused.json()),
        (401, json!({"error": "unauthorized"}))
    );
    // Another operation has its own count; the same one on its second call gets the default.
    assert_eq!(
        call(&mock, session.as_deref(), "list_files").await.status,
        200
    );
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "get_project", "arguments": {}}});
    let retried = send(
        &mock,
        reqwest::Method::POST,
        "/v1/design/mcp",
        Some("sk-ant-oat01-mock-access-0001"),
        session.as_deref(),
        Some(body),
    )
    .await;
    assert_eq!(retried.status, 200);
    assert_eq!(retried.json()["id"], 7);
    let seen = mock.design_requests();
    assert_eq!(seen.last().unwrap().bearer, Bearer::Refreshed);
    assert_eq!(seen[1].status, 401);
    // Without a tool, `nth` counts every tools/call: this is the fourth.
    let fourth = call(&mock, session.as_deref(), "list_files").await;
    assert_eq!(fourth.status, 503);
}

#[tokio::test]
async fn no_bearer_is_unauthorized_and_an_unknown_method_is_a_json_rpc_error() {
    let mock = serve(json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}});
    let post = reqwest::Method::POST;
    let anonymous = send(&mock, post, "/v1/design/mcp", None, None, Some(body)).await;
    assert_eq!((anonymous.status, anonymous.session), (401, None));
    let unknown = rpc(&mock, None, "resources/list", json!({})).await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.json()["error"]["code"], -32601);
    assert_eq!(mock.design_requests()[0].bearer, Bearer::None);
}

#[tokio::test]
async fn an_event_stream_answer_carries_its_content_type_and_frames_the_envelope() {
    let mock = serve(json!({"answer": [
        {"method": "tools/list", "content_type": "text/event-stream"},
    ]}))
    .await;
    let session = initialize(&mock).await.session;
    let list = rpc(&mock, session.as_deref(), "tools/list", json!({})).await;
    assert_eq!(list.content_type, "text/event-stream");
    let data = list.text.strip_prefix("event: message\ndata: ").unwrap();
    let envelope: Value = serde_json::from_str(data.trim_end()).unwrap();
    assert_eq!(envelope["result"]["tools"], json!([]));
}

#[tokio::test]
async fn pad_to_grows_the_body_past_the_client_cap() {
    let cap = 16 * 130_000;
    let mock = serve(json!({"answer": [
        {"method": "tools/call", "tool": "render_preview", "pad_to": cap + 1},
    ]}))
    .await;
    let session = initialize(&mock).await.session;
    let big = call(&mock, session.as_deref(), "render_preview").await;
    assert!(big.text.len() > cap);
    let content = &big.json()["result"]["content"];
    assert_eq!(content[0]["text"], "render_preview ok");
    assert!(content[1]["text"].as_str().unwrap().len() > 2_000_000);
}

#[tokio::test]
async fn consent_starts_unknown_and_follows_post_and_delete() {
    let mock = serve(json!({})).await;
    let consent = |method: reqwest::Method, body: Option<Value>| {
        let mock = &mock;
        async move {
            send(
                mock,
                method,
                "/v1/design/consent",
                Some(ACCOUNT),
                None,
                body,
            )
            .await
        }
    };
    assert_eq!(consent(reqwest::Method::GET, None).await.status, 404);
    let granted = json!({"consent": "agent_design_projects"});
    assert_eq!(
        consent(reqwest::Method::POST, Some(granted.clone()))
            .await
            .status,
        200
    );
    let after = consent(reqwest::Method::GET, None).await;
    assert_eq!(after.json(), json!({"agent_design_projects": true}));
    assert_eq!(
        consent(reqwest::Method::DELETE, Some(granted.clone()))
            .await
            .status,
        200
    );
    let revoked = consent(reqwest::Method::GET, None).await;
    assert_eq!(revoked.json(), json!({"agent_design_projects": false}));

    let seen = mock.design_requests();
    let methods: Vec<_> = seen.iter().map(|r| r.http_method.as_str()).collect();
    assert_eq!(methods, ["GET", "POST", "GET", "DELETE", "GET"]);
    assert!(seen.iter().all(|r| r.endpoint == DesignEndpoint::Consent));
    assert_eq!(seen[1].body, Some(granted));
    assert_eq!(seen[0].body, None);
}

#[tokio::test]
async fn a_refused_consent_post_changes_nothing() {
    let mock = serve(json!({"consent": false, "answer": [
        {"method": "consent", "nth": 1, "status": 500},
    ]}))
    .await;
    let post = send(
        &mock,
        reqwest::Method::POST,
        "/v1/design/consent",
        Some(ACCOUNT),
        None,
        None,
    )
    .await;
    assert_eq!(post.status, 500);
    let get = send(
        &mock,
        reqwest::Method::GET,
        "/v1/design/consent",
        Some(ACCOUNT),
        None,
        None,
    )
    .await;
    assert_eq!(get.json(), json!({"agent_design_projects": false}));
}

#[tokio::test]
async fn grants_list_mint_and_refuse_ineligible_projects() {
    let mock = serve(json!({"grants": ["p1"], "grant_ineligible": ["shared"]})).await;
    let grants = |method: reqwest::Method, body: Option<Value>| {
        let mock = &mock;
        async move { send(mock, method, "/v1/design/grants", Some(ACCOUNT), None, body).await }
    };
    let listed = grants(reqwest::Method::GET, None).await;
    assert_eq!(
        listed.json(),
        json!({"grants": [{"project_id": "p1", "created_at": "2026-11-30T12:00:00Z"}]})
    );
    let minted = grants(reqwest::Method::POST, Some(json!({"project_id": "p2"}))).await;
    assert_eq!(
        (minted.status, minted.json()),
        (201, json!({"project_id": "p2"}))
    );
    let refused = grants(reqwest::Method::POST, Some(json!({"project_id": "shared"}))).await;
    assert_eq!(refused.status, 404);
    let ids: Vec<Value> = grants(reqwest::Method::GET, None).await.json()["grants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["project_id"].clone())
        .collect();
    assert_eq!(ids, [json!("p1"), json!("p2")]);
    let statuses: Vec<u16> = mock.design_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 201, 404, 200]);
}

#[tokio::test]
async fn the_access_token_reaches_the_body_but_never_a_record() {
    let refreshed = "sk-ant-oat01-mock-access-0042";
    let mock = serve(json!({"answer": [
        {"method": "tools/call", "tool": "echo",
         "result": {"content": [{"type": "text", "text": "leaked {access_token}"}]}},
        {"method": "tools/call", "tool": "raw", "status": 403,
         "body": "{\"error\":\"needs_consent\",\"consent\":\"agent_design_projects\",\"t\":\"{access_token}\"}"},
    ]}))
    .await;
    let session = initialize(&mock).await.session;
    let echoed = call(&mock, session.as_deref(), "echo").await;
    assert_eq!(
        echoed.json()["result"]["content"][0]["text"],
        format!("leaked {ACCOUNT}")
    );
    // The client echoing a token back in its arguments must not put it on record either.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "raw", "arguments": {"note": refreshed}}});
    let post = reqwest::Method::POST;
    let raw = send(
        &mock,
        post,
        "/v1/design/mcp",
        Some(refreshed),
        session.as_deref(),
        Some(body),
    )
    .await;
    assert_eq!(raw.status, 403);
    assert!(raw.text.contains(refreshed));
    let seen = mock.design_requests();
    let printed = format!("{seen:?}{}", serde_json::to_string(&seen).unwrap());
    assert!(!printed.contains(ACCOUNT) && !printed.contains(refreshed));
    assert_eq!(seen[2].arguments, Some(json!({"note": "[redacted]"})));
}

#[tokio::test]
async fn served_alone_other_paths_are_recorded_and_not_found() {
    let mock = serve(json!({})).await;
    let client = reqwest::Client::new();
    let url = format!("{}/api/oauth/profile?x=1", mock.base_url());
    let response = client.get(url).bearer_auth(ACCOUNT).send().await.unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"error": "not found"})
    );
    let other = mock.other_requests();
    assert_eq!(other.len(), 1);
    assert_eq!(
        (other[0].method.as_str(), other[0].path.as_str()),
        ("GET", "/api/oauth/profile")
    );
    assert!(other[0].host.as_deref().unwrap().starts_with("127.0.0.1:"));
    assert!(mock.design_requests().is_empty());
}

#[test]
fn the_mergeable_router_has_no_fallback() {
    // The Messages stub merges these routes into a router with its own fallback; axum panics
    // when both have one.
    let fallback = axum::Router::new().fallback(|| async { "messages" });
    let _ = ClaudeAi::new(Vec::new()).router().merge(fallback);
}
