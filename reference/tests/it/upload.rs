//! The upload client against a mock server (wiremock): what it sends, which answers it accepts,
//! and the reason every failure is reduced to.

use std::time::Duration;

use claude_reference::upload::{content_disposition_filename, UploadFailure, Uploader};
use proptest::prelude::*;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

async fn answer(template: ResponseTemplate) -> (MockServer, Result<String, UploadFailure>) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/oauth/file_upload"))
        .respond_with(template)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let f = file(&dir, "report.pdf", b"%PDF-1.4 tiny");
    let up = Uploader::new(
        &server.uri(),
        Some("oauth-token".into()),
        Duration::from_millis(500),
    );
    let result = up.upload(&f).await;
    (server, result)
}

#[tokio::test]
async fn only_201_with_a_file_uuid_is_a_success() {
    let (_, ok) =
        answer(ResponseTemplate::new(201).set_body_json(serde_json::json!({"file_uuid": "f-123"})))
            .await;
    assert_eq!(ok, Ok("f-123".into()));
    let (_, bad) = answer(ResponseTemplate::new(201).set_body_string("{\"id\": 1}")).await;
    assert_eq!(bad, Err(UploadFailure::BadResponse));
    let (_, plain_ok) =
        answer(ResponseTemplate::new(200).set_body_json(serde_json::json!({"file_uuid": "f-1"})))
            .await;
    assert_eq!(
        plain_ok,
        Err(UploadFailure::HttpOther(200)),
        "200 is not accepted"
    );
}

#[tokio::test]
async fn statuses_map_to_their_reasons() {
    for (status, want) in [
        (401, UploadFailure::Http401),
        (403, UploadFailure::Http403),
        (413, UploadFailure::Http413),
        (404, UploadFailure::Http4xx(404)),
        (503, UploadFailure::Http5xx(503)),
        (302, UploadFailure::HttpOther(302)),
    ] {
        let (_, r) = answer(ResponseTemplate::new(status)).await;
        assert_eq!(r, Err(want), "status {status}");
    }
}

#[tokio::test]
async fn a_server_slower_than_the_timeout_is_a_network_error() {
    let (_, r) = answer(ResponseTemplate::new(201).set_delay(Duration::from_secs(2))).await;
    let failure = r.unwrap_err();
    assert_eq!(failure.to_string(), "network_error");
    assert_eq!(
        failure.upload_error(),
        "upload failed: network error (timeout of 500ms exceeded)"
    );
}

#[tokio::test]
async fn the_request_is_one_part_with_bearer_boundary_and_length() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/oauth/file_upload"))
        .and(header("authorization", "Bearer oauth-token"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(serde_json::json!({"file_uuid": "u"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let f = file(&dir, "chart.png", b"\x89PNG fake");
    let up = Uploader::with_default_timeout(&server.uri(), Some("oauth-token".into()));
    assert_eq!(up.upload(&f).await, Ok("u".into()));
    let requests: Vec<Request> = server.received_requests().await.unwrap();
    let req = &requests[0];
    let ct = req
        .headers
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let boundary = ct
        .strip_prefix("multipart/form-data; boundary=")
        .expect("multipart");
    // 2.1.235's prefix, then the random UUID.
    assert!(
        boundary
            .strip_prefix("----FormBoundary")
            .is_some_and(|u| uuid::Uuid::parse_str(u).is_ok()),
        "a random-UUID boundary: {boundary}"
    );
    let len: usize = req
        .headers
        .get("content-length")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(len, req.body.len());
    let body = String::from_utf8_lossy(&req.body);
    assert_eq!(
        body.matches(&format!("--{boundary}\r\n")).count(),
        1,
        "one part"
    );
    assert!(
        body.contains("filename=\"chart.png\"\r\nContent-Type: image/png\r\n\r\n"),
        "{body}"
    );
    assert!(body.ends_with(&format!("\r\n--{boundary}--\r\n")));
}

#[tokio::test]
async fn local_failures_send_nothing() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let f = file(&dir, "a.txt", b"x");
    let no_token = Uploader::with_default_timeout(&server.uri(), None)
        .upload(&f)
        .await;
    assert_eq!(no_token, Err(UploadFailure::NoToken));
    let big = dir.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(31_457_281)
        .unwrap();
    let too_large = Uploader::with_default_timeout(&server.uri(), Some("t".into()))
        .upload(&big)
        .await;
    assert_eq!(too_large, Err(UploadFailure::TooLarge(31_457_281)));
    // The credential is checked first, as 2.1.235 does.
    let both = Uploader::with_default_timeout(&server.uri(), None)
        .upload(&big)
        .await;
    assert_eq!(both, Err(UploadFailure::NoToken));
    assert_eq!(
        UploadFailure::TooLarge(31_457_281).upload_error(),
        "30.0 MiB exceeds the 30 MiB upload limit"
    );
    let missing = Uploader::with_default_timeout(&server.uri(), Some("t".into()))
        .upload(&dir.path().join("gone.txt"))
        .await;
    assert!(
        matches!(&missing, Err(UploadFailure::ReadFailed(why)) if why.contains("No such file")),
        "{missing:?}"
    );
    assert!(server.received_requests().await.unwrap().is_empty());
}

/// Undoes the header escaping, as a multipart parser reads a quoted string.
fn unquote(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

proptest! {
    #[test]
    fn any_filename_round_trips_through_the_header(name in "\\PC*") {
        let escaped = content_disposition_filename(&name);
        prop_assert!(!escaped.contains('\r') && !escaped.contains('\n'));
        // Every quote inside is escaped, so the header's closing quote is the real one.
        let unescaped_quotes = escaped.char_indices().filter(|(i, c)| {
            *c == '"' && escaped[..*i].chars().rev().take_while(|p| *p == '\\').count() % 2 == 0
        }).count();
        prop_assert_eq!(unescaped_quotes, 0);
        let expected: String = name.chars().filter(|c| *c != '\r' && *c != '\n').collect();
        prop_assert_eq!(unquote(&escaped), expected);
    }
}

/// The client against the project's own mock claude.ai: the strict multipart reader accepts what
/// the client sends, the recorded name, size and hash are the file's, scripted answers apply.
#[tokio::test]
async fn the_mock_claude_ai_reads_what_the_client_sends() {
    use sha2::Digest;
    use stubs::claude_ai::{ClaudeAiMock, UploadAnswer};
    let answers = vec![
        UploadAnswer {
            file: "bad.txt".into(),
            status: Some(201),
            body: Some("not json".into()),
            ..Default::default()
        },
        UploadAnswer {
            file: "slow.txt".into(),
            delay_ms: Some(1500),
            ..Default::default()
        },
    ];
    let mock = ClaudeAiMock::start(answers).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let odd = file(&dir, "we\"ird\\ name.txt", &[7u8; 1024]);
    let up = Uploader::new(
        &mock.base_url(),
        Some("oauth".into()),
        Duration::from_millis(500),
    );
    let uuid = up.upload(&odd).await.unwrap();
    assert!(uuid.starts_with("file-"), "{uuid}");
    assert_eq!(
        up.upload(&file(&dir, "bad.txt", b"b")).await,
        Err(UploadFailure::BadResponse)
    );
    assert_eq!(
        up.upload(&file(&dir, "slow.txt", b"s")).await,
        Err(UploadFailure::NetworkError(
            "timeout of 500ms exceeded".into()
        ))
    );
    let seen = mock.uploads();
    assert_eq!(seen[0].filename.as_deref(), Some("we\"ird\\ name.txt"));
    assert_eq!(seen[0].size, 1024);
    assert_eq!(
        seen[0].sha256.as_deref(),
        Some(format!("{:x}", sha2::Sha256::digest([7u8; 1024])).as_str())
    );
    assert_eq!(
        seen[0].content_type.as_deref(),
        Some("application/octet-stream")
    );
    assert!(
        seen.iter().all(|u| u.bearer && u.error.is_none()),
        "{seen:?}"
    );
}
