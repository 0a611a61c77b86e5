//! The Projects routes over HTTP, as a client sees them: both transports on one Project, its state
//! after writes, and the scripted faults.

use base64::Engine;
use serde_json::{json, Value};

use super::*;

const ORG: &str = "org-1";
const ACCESS: &str = "sk-ant-oat01-account";
const SESSION: &str = "session-jwt-1";

fn script(toml_text: &str) -> ProjectScript {
    let mut script: ProjectScript = toml::from_str(toml_text).unwrap();
    script.organization = Some(ORG.into());
    script.tokens = Tokens {
        account: Some(ACCESS.into()),
        session: Some(SESSION.into()),
    };
    script
}

async fn mock(toml_text: &str) -> ClaudeAiMock {
    ClaudeAiMock::serve(ClaudeAi::new(Vec::new()).with_project(script(toml_text)))
        .await
        .unwrap()
}

fn org_url(mock: &ClaudeAiMock, rest: &str) -> String {
    format!(
        "{}/api/organizations/{ORG}/projects/0b1ec7ed-0000-4000-8000-00000000fa11{rest}",
        mock.base_url()
    )
}

fn org_request(method: reqwest::Method, url: String) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .request(method, url)
        .bearer_auth(ACCESS)
        .header("x-organization-uuid", ORG)
}

async fn session(mock: &ClaudeAiMock, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!(
            "{}/v2/ccr-sessions/-/chat-project",
            mock.base_url()
        ))
        .bearer_auth(SESSION)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

const SEEDED: &str = r#"
knowledge_size = 100
[[doc]]
path = "notes/a.md"
content = "alpha"
[[upload]]
path = "spec.pdf"
text = "extracted spec"
[[upload]]
path = "logo.png"
kind = "image"
content = "PNGDATA"
"#;

#[tokio::test]
async fn the_org_routes_serve_detail_and_change_the_project_with_patch_and_delete() {
    let mock = mock(SEEDED).await;
    let detail: Value = org_request(reqwest::Method::GET, org_url(&mock, "/detail"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(detail["documents"][0]["file_name"], "notes/a.md");
    assert_eq!(detail["files"][1]["file_kind"], "image");
    assert_eq!(detail["knowledge_stats"]["knowledge_size"], 100);
    let doc = detail["documents"][0]["uuid"].as_str().unwrap().to_owned();

    let patched = org_request(
        reqwest::Method::PATCH,
        org_url(&mock, &format!("/docs/{doc}")),
    )
    .json(&json!({"content": "alpha, longer now"}))
    .send()
    .await
    .unwrap();
    assert_eq!(patched.status(), 200);
    let created = org_request(reqwest::Method::POST, org_url(&mock, "/docs"))
        .json(&json!({"file_name": "claude/b.md", "content": "beta"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    let deleted = org_request(
        reqwest::Method::DELETE,
        org_url(&mock, &format!("/docs/{doc}")),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(deleted.status(), 204);

    let state = mock.claude_ai.project_state().unwrap();
    assert_eq!(state.docs.len(), 1);
    assert_eq!(state.docs[0].path, "claude/b.md");
    assert_eq!(state.docs[0].content, "beta");
    // 100, +ceil(17/4) - ceil(5/4) for the patch, +1 for "beta", -5 for the deleted doc.
    assert_eq!(state.knowledge_size, 100 + 5 - 2 + 1 - 5);
    let ops: Vec<_> = mock
        .claude_ai
        .project_requests()
        .iter()
        .map(|r| (r.op, r.status, r.names.clone()))
        .collect();
    assert_eq!(
        ops,
        [
            (Some(Op::Detail), 200, None),
            (Some(Op::UpdateDoc), 200, Some("doc:notes/a.md".into())),
            (Some(Op::WriteDoc), 200, None),
            (Some(Op::DeleteDoc), 204, Some("doc:notes/a.md".into())),
        ]
    );
    let first = &mock.claude_ai.project_requests()[0];
    assert_eq!(first.bearer, Bearer::Fixture);
    assert_eq!(first.scoped, Some(true));
}

#[tokio::test]
async fn another_organization_or_no_token_is_refused_and_recorded() {
    let mock = mock(SEEDED).await;
    let wrong = reqwest::Client::new()
        .get(org_url(&mock, "/detail").replace(ORG, "org-2"))
        .bearer_auth(ACCESS)
        .header("x-organization-uuid", "org-2")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 403);
    let anonymous = reqwest::get(org_url(&mock, "/detail")).await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let seen = mock.claude_ai.project_requests();
    assert_eq!(seen[0].scoped, Some(false));
    assert_eq!(seen[1].bearer, Bearer::None);
    assert_eq!(mock.claude_ai.project_state().unwrap().docs.len(), 1);
}

#[tokio::test]
async fn the_session_route_dispatches_on_op_and_has_no_patch() {
    let mock = mock(SEEDED).await;
    let (status, detail) = session(&mock, json!({"op": "detail"})).await;
    assert_eq!(status, 200);
    let file = detail["files"][0]["file_uuid"].as_str().unwrap().to_owned();
    let (_, extracted) = session(&mock, json!({"op": "read-file", "file_uuid": file})).await;
    assert_eq!(extracted["content"], "extracted spec");
    assert_eq!(extracted["file_kind"], "document");
    let (status, _) = session(&mock, json!({"op": "update-doc", "doc_uuid": "x"})).await;
    assert_eq!(status, 404);
    let (status, created) = session(
        &mock,
        json!({"op": "write-doc", "file_name": "claude/c.md", "content": "gamma"}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(created["uuid"].as_str().is_some());
    let seen = mock.claude_ai.project_requests();
    assert!(seen.iter().all(|r| r.transport == Transport::Session));
    assert!(seen.iter().all(|r| r.bearer == Bearer::Session));
    assert_eq!(seen[2].op, None);
    assert_eq!(seen[3].content_bytes, Some(5));
}

#[tokio::test]
async fn search_answers_scripted_hits_up_to_n_and_a_scripted_status_instead() {
    let mock = mock(
        r#"
[[hit]]
name = "notes/a.md"
text = "one"
[[hit]]
name = "notes/a.md"
text = "two"
[[answer]]
op = "kb-search"
nth = 2
status = 403
[[doc]]
path = "notes/a.md"
"#,
    )
    .await;
    let (status, hits) = session(&mock, json!({"op": "kb-search", "query": "q", "n": 1})).await;
    assert_eq!(status, 200);
    assert_eq!(hits["text_results"].as_array().unwrap().len(), 1);
    assert_eq!(hits["text_results"][0]["chunk"]["text"], "one");
    assert!(hits["text_results"][0]["doc_uuid"].is_string());
    let (status, _) = session(&mock, json!({"op": "kb-search", "query": "q", "n": 1})).await;
    assert_eq!(status, 403);
    let search = org_request(
        reqwest::Method::GET,
        org_url(&mock, "/kb/search?query=a%20b&n=7"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(search.status(), 200);
    let seen = mock.claude_ai.project_requests();
    assert_eq!(seen[2].query.as_deref(), Some("a b"));
    assert_eq!(seen[2].n, Some(7));
}

#[tokio::test]
async fn a_raw_download_can_report_a_wrong_size_once() {
    let mock = mock(&format!(
        "{SEEDED}\n[[answer]]\nop = \"read-file-raw\"\nnth = 1\nsize_mismatch = true\n"
    ))
    .await;
    let (_, detail) = session(&mock, json!({"op": "detail"})).await;
    let png = detail["files"][1]["file_uuid"].as_str().unwrap().to_owned();
    let decoded = |v: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(v["content_base64"].as_str().unwrap())
            .unwrap()
    };
    let (_, first) = session(&mock, json!({"op": "read-file-raw", "file_uuid": png})).await;
    assert_eq!(decoded(&first), b"PNGDATA");
    assert_eq!(first["file_size_bytes"], 8);
    let (_, second) = session(&mock, json!({"op": "read-file-raw", "file_uuid": png})).await;
    assert_eq!(second["file_size_bytes"], 7);
}

#[tokio::test]
async fn a_held_answer_replaces_a_file_by_a_symlink_before_it_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, "inside").unwrap();
    let mock = mock(&format!(
        "[[answer]]\nop = \"detail\"\ndelay_ms = 50\nreplace_with_symlink = [{:?}, \"/etc/hostname\"]\n",
        file.display().to_string()
    ))
    .await;
    let (status, _) = session(&mock, json!({"op": "detail"})).await;
    assert_eq!(status, 200);
    assert_eq!(
        std::fs::read_link(&file).unwrap(),
        std::path::Path::new("/etc/hostname")
    );
}

#[test]
fn an_unknown_field_or_op_in_a_script_is_an_error_naming_it() {
    let e = toml::from_str::<ProjectScript>("[[answer]]\nop = \"detial\"\n").unwrap_err();
    assert!(e.to_string().contains("detial"), "{e}");
    let e =
        toml::from_str::<ProjectScript>("[[doc]]\npath = \"a\"\ncontnet = \"x\"\n").unwrap_err();
    assert!(e.to_string().contains("contnet"), "{e}");
}

#[tokio::test]
async fn the_memory_read_is_its_own_operation_and_does_not_count_as_a_detail() {
    let mock = mock(&format!(
        "{SEEDED}\n[[answer]]\nop = \"detail\"\nnth = 2\nstatus = 401\n"
    ))
    .await;
    let get = |rest: &str| {
        let url = org_url(&mock, rest);
        async move {
            let response = org_request(reqwest::Method::GET, url).send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let (status, first) = get("/detail").await;
    assert_eq!(status, 200);
    assert!(first.get("melange_memory").is_none());
    let (status, memory) = get("/detail?include=melange_memory").await;
    assert_eq!(status, 200);
    assert_eq!(memory["documents"][0]["file_name"], "notes/a.md");
    assert_eq!(
        memory["melange_memory"],
        json!({"files": [], "truncated": false})
    );
    // The second plain detail is the one `nth = 2` names, not the memory read before it.
    let (status, _) = get("/detail").await;
    assert_eq!(status, 401);
    // No memory read over the session route.
    let (status, _) = session(&mock, json!({"op": "detail-memory"})).await;
    assert_eq!(status, 404);
    let seen = mock.claude_ai.project_requests();
    let ops: Vec<_> = seen.iter().map(|r| (r.op, r.status)).collect();
    assert_eq!(
        ops,
        [
            (Some(Op::Detail), 200),
            (Some(Op::DetailMemory), 200),
            (Some(Op::Detail), 401),
            (None, 404),
        ]
    );
    assert!(seen[1].path.ends_with("/detail?include=melange_memory"));
    assert!(seen[0].path.ends_with("/detail"));
    assert_eq!(Op::parse("detail-memory"), Some(Op::DetailMemory));
}
