//! The artifact routes over HTTP: the version precondition, a fault after an applied write, the
//! frame host's token, comments in 2.1.235's wire shape, and script errors that name the field.

use serde_json::{json, Value};

use super::artifacts::*;
use super::{ClaudeAi, ClaudeAiMock};

const SLUG: &str = "0a1b2c3d-0000-4000-8000-00000000abcd";
const THREAD: &str = "7d7d7d7d-0000-4000-8000-000000000001";

fn script(answers: Vec<ArtifactAnswer>) -> ArtifactsScript {
    ArtifactsScript {
        artifacts: vec![ArtifactSeed {
            slug: SLUG.into(),
            title: "Launch plan".into(),
            favicon: None,
            html: "<h1>v1</h1>".into(),
            version: "v1".into(),
            threads: vec![ThreadSeed {
                id: THREAD.into(),
                activated: true,
                resolved: false,
                created_at: "2026-11-30T12:00:00Z".into(),
                comments: vec![CommentSeed {
                    role: "human".into(),
                    account: "0000beef-0000-4000-8000-000000000001".into(),
                    text: "Make the title bigger".into(),
                    sent_to_claude: true,
                    created_at: "2026-11-30T12:00:00Z".into(),
                }],
            }],
            rel: "mine".into(),
            updated_at: "2026-11-30T12:00:00Z".into(),
            assets: Vec::new(),
        }],
        answers,
        ..ArtifactsScript::default()
    }
}

async fn mock(answers: Vec<ArtifactAnswer>) -> ClaudeAiMock {
    ClaudeAiMock::serve(
        ClaudeAi::new(Vec::new()).with_artifacts(script(answers), Some("tok".into())),
    )
    .await
    .unwrap()
}

async fn deploy(mock: &ClaudeAiMock, body: Value) -> reqwest::Result<(u16, Value)> {
    let r = reqwest::Client::new()
        .post(format!("{}/api/frame/deploy/direct", mock.base_url()))
        .bearer_auth("tok")
        .json(&body)
        .send()
        .await?;
    let status = r.status().as_u16();
    let text = r.text().await?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

#[tokio::test]
async fn a_stale_base_version_is_refused_with_the_live_one_and_a_current_one_lands() {
    let mock = mock(Vec::new()).await;
    let stale = json!({"slug": SLUG, "title": "T", "favicon": "📊", "baseVersion": "v0", "content": "<p>x</p>"});
    let (status, body) = deploy(&mock, stale).await.unwrap();
    assert_eq!(status, 409);
    assert_eq!(body, json!({"conflict": true, "live": "v1"}));
    let current = json!({"slug": SLUG, "title": "T", "favicon": "📊", "baseVersion": "v1", "content": "<p>x</p>"});
    let (status, body) = deploy(&mock, current).await.unwrap();
    assert_eq!(
        (status, body),
        (200, json!({"slug": SLUG, "version": "v2"}))
    );
    let seen = mock.claude_ai.artifact_requests();
    assert_eq!(seen.len(), 2);
    assert!(!seen[0].applied && seen[1].applied);
    assert_eq!(seen[1].body["content_bytes"], 8);
    assert!(
        seen[1].body.get("content").is_none(),
        "the page is kept as size and hash"
    );
    assert_eq!(seen[1].bearer, super::Bearer::Fixture);
    let state = mock.claude_ai.artifacts_state().unwrap();
    assert_eq!(state[0].versions.len(), 2);
}

#[tokio::test]
async fn a_new_artifact_gets_the_first_minted_slug() {
    let mock = mock(Vec::new()).await;
    let (status, body) = deploy(
        &mock,
        json!({"title": "New", "favicon": "x", "content": "hi"}),
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    assert_eq!(body["slug"], MINTED_SLUGS[0]);
}

#[tokio::test]
async fn a_drop_after_apply_loses_the_answer_but_keeps_the_write() {
    let mock = mock(vec![ArtifactAnswer {
        op: ArtifactOp::Deploy,
        nth: 1,
        status: None,
        body: None,
        drop: true,
        after_apply: true,
        delay_ms: None,
    }])
    .await;
    let body =
        json!({"slug": SLUG, "title": "T", "favicon": "x", "baseVersion": "v1", "content": "new"});
    assert!(
        deploy(&mock, body).await.is_err(),
        "the client sees no answer"
    );
    let seen = mock.claude_ai.artifact_requests();
    assert!(seen[0].applied);
    assert_eq!(seen[0].fault.as_deref(), Some("dropped"));
    assert_eq!(
        mock.claude_ai.artifacts_state().unwrap()[0].versions.len(),
        2
    );
}

#[tokio::test]
async fn a_scripted_status_without_after_apply_changes_nothing() {
    let mock = mock(vec![ArtifactAnswer {
        op: ArtifactOp::Deploy,
        nth: 1,
        status: Some(500),
        body: Some("{\"error\":\"boom\"}".into()),
        drop: false,
        after_apply: false,
        delay_ms: None,
    }])
    .await;
    let body = json!({"slug": SLUG, "title": "T", "favicon": "x", "content": "new"});
    assert_eq!(deploy(&mock, body.clone()).await.unwrap().0, 500);
    assert_eq!(
        mock.claude_ai.artifacts_state().unwrap()[0].versions.len(),
        1
    );
    assert_eq!(
        deploy(&mock, body).await.unwrap().0,
        200,
        "only the first occurrence"
    );
}

#[tokio::test]
async fn boot_then_content_on_the_frame_host_needs_the_asset_token() {
    let mock = mock(Vec::new()).await;
    let client = reqwest::Client::new();
    let boot: Value = client
        .get(format!(
            "{}/api/frame/{SLUG}?via=model_read",
            mock.base_url()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(boot["ver"], "v1");
    assert_eq!(boot["perm"]["role"], "owner");
    let token = boot["assetToken"].as_str().unwrap();
    let get = |t: String| {
        client
            .get(format!("{}/_f/v1/?__frame_t={t}", mock.base_url()))
            .header("host", frame_host(SLUG))
            .send()
    };
    let ok = get(token.to_owned()).await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "<h1>v1</h1>");
    assert_eq!(get("wrong".into()).await.unwrap().status(), 403);
    let missing = client
        .get(format!("{}/api/frame/{}", mock.base_url(), MINTED_SLUGS[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test]
async fn comments_come_in_the_wire_shape_and_a_reply_needs_an_activated_thread() {
    let mut s = script(Vec::new());
    s.artifacts[0].threads.push(ThreadSeed {
        id: "7d7d7d7d-0000-4000-8000-000000000002".into(),
        activated: false,
        resolved: true,
        created_at: "2026-11-30T12:00:00Z".into(),
        comments: Vec::new(),
    });
    let mock = ClaudeAiMock::serve(ClaudeAi::new(Vec::new()).with_artifacts(s, None))
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let list: Value = client
        .get(format!("{}/api/frame/comments/{SLUG}", mock.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let t = &list["threads"][0];
    assert_eq!(t["id"], THREAD);
    assert_eq!(t["claude_activated_at"], "2026-11-30T12:00:00Z");
    assert_eq!(t["comments"][0]["author"]["role"], "human");
    assert_eq!(t["comments"][0]["to_claude_at"], "2026-11-30T12:00:00Z");
    assert!(list["threads"][1].get("claude_activated_at").is_none());
    assert_eq!(list["threads"][1]["resolved_at"], "2026-11-30T12:00:00Z");
    let post = |thread: &str| {
        client
            .post(format!(
                "{}/api/frame/comments/{SLUG}/{thread}",
                mock.base_url()
            ))
            .json(&json!({"text": "done"}))
            .send()
    };
    let ok = post(THREAD).await.unwrap();
    assert_eq!(ok.status(), 201);
    let echo: Value = ok.json().await.unwrap();
    assert_eq!(echo["thread_id"], THREAD);
    let refused = post("7d7d7d7d-0000-4000-8000-000000000002").await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("not activated on this thread"));
}

#[test]
fn script_errors_name_the_field() {
    let mut s = script(Vec::new());
    s.artifacts[0].slug = "not-a-uuid".into();
    assert!(s.validate().unwrap_err().contains("`slug` \"not-a-uuid\""));
    let mut s = script(Vec::new());
    s.artifacts[0].threads[0].comments[0].role = "bot".into();
    assert!(s.validate().unwrap_err().contains("`role` \"bot\""));
    let answer = |op, after_apply, drop, status| ArtifactAnswer {
        op,
        nth: 1,
        status,
        body: None,
        drop,
        after_apply,
        delay_ms: None,
    };
    let s = script(vec![answer(ArtifactOp::Boot, true, true, None)]);
    assert!(s
        .validate()
        .unwrap_err()
        .contains("`after_apply` needs a write"));
    let s = script(vec![answer(ArtifactOp::Deploy, false, false, None)]);
    assert!(s.validate().unwrap_err().contains("says nothing"));
    let s = script(vec![answer(ArtifactOp::Deploy, false, true, Some(500))]);
    assert!(s.validate().unwrap_err().contains("`drop` sends no answer"));
    assert!(script(Vec::new()).validate().is_ok());
}

#[tokio::test]
async fn an_uploaded_asset_is_listed_served_on_the_frame_host_and_deleted() {
    let mock = mock(Vec::new()).await;
    let client = reqwest::Client::new();
    let blob = |rest: &str| format!("{}/api/frame/blob/{SLUG}/{rest}", mock.base_url());
    let up = client
        .post(blob("agent-upload"))
        .bearer_auth("tok")
        .header("content-type", "image/png")
        .body(b"PNGDATA".to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(up.status().as_u16(), 200);
    let echo: Value = up.json().await.unwrap();
    let id = echo["opaque_id"].as_str().unwrap().to_owned();
    assert_eq!(echo["size_bytes"], 7);
    let listing: Value = client
        .post(blob("agent-list"))
        .json(&json!({"limit": 50}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listing["assets"][0]["opaque_id"], id.as_str());
    assert_eq!(listing["usage"]["files"], 1);
    let read = |token: &'static str| {
        client
            .get(format!(
                "{}/_f/v1/_blob/{id}?__frame_t={token}",
                mock.base_url()
            ))
            .header("host", frame_host(SLUG))
            .send()
    };
    assert_eq!(read("wrong").await.unwrap().status().as_u16(), 403);
    let served = read("asset-0a1b2c3d").await.unwrap();
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.bytes().await.unwrap().as_ref(), b"PNGDATA");
    let deleted: Value = client
        .post(blob(&format!("{id}/agent-delete")))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(deleted, json!({"deleted": true}));
    let ops: Vec<(ArtifactOp, u16, bool)> = mock
        .claude_ai
        .artifact_requests()
        .iter()
        .map(|r| (r.op, r.status, r.applied))
        .collect();
    assert_eq!(
        ops,
        [
            (ArtifactOp::AssetUpload, 200, true),
            (ArtifactOp::AssetList, 200, false),
            (ArtifactOp::AssetRead, 403, false),
            (ArtifactOp::AssetRead, 200, false),
            (ArtifactOp::AssetDelete, 200, true),
        ]
    );
    let recorded = &mock.claude_ai.artifact_requests()[0].body;
    assert_eq!(recorded["bytes"], 7);
    assert_eq!(recorded["content_type"], "image/png");
}

#[tokio::test]
async fn the_listing_is_most_recent_first_and_the_contract_names_its_capabilities() {
    let mut script = script(Vec::new());
    let mut shared = script.artifacts[0].clone();
    shared.slug = "0a1b2c3d-0000-4000-8000-00000000beef".into();
    shared.rel = "shared".into();
    shared.updated_at = "2026-12-01T09:00:00Z".into();
    shared.threads.clear();
    script.artifacts.push(shared);
    let mock = ClaudeAiMock::serve(ClaudeAi::new(Vec::new()).with_artifacts(script, None))
        .await
        .unwrap();
    let get = |path: &str| {
        reqwest::Client::new()
            .get(format!("{}{path}", mock.base_url()))
            .send()
    };
    let frames: Value = get("/api/frame/frames?limit=200")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rels: Vec<&str> = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rel"].as_str().unwrap())
        .collect();
    assert_eq!(rels, ["shared", "mine"]);
    let contract: Value = get("/api/frame/contract/latest")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        contract,
        json!({"version": CONTRACT_VERSION, "capabilities": ["assets"]})
    );
    assert_eq!(
        get("/api/frame/contract/9.9.9")
            .await
            .unwrap()
            .status()
            .as_u16(),
        404
    );
    // Someone else's artifact: its store is not this account's to write.
    let refused = reqwest::Client::new()
        .post(format!(
            "{}/api/frame/blob/0a1b2c3d-0000-4000-8000-00000000beef/agent-list",
            mock.base_url()
        ))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    assert_eq!(refused.text().await.unwrap(), "not a writer");
}
