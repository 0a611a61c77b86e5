//! The site as a client sees it, over real sockets by host name.

use std::time::{Duration, Instant};

use super::*;
use crate::loopback::Loopback;

fn scripts() -> Vec<SiteScript> {
    toml::from_str::<Doc>(
        r#"
[[site]]
host = "docs.example.test"
[[site.page]]
path = "/guide"
body = "<html><body><p>GUIDE</p></body></html>"
[[site.page]]
path = "/moved"
status = 301
location = "https://other.example.test/landing"
[[site.page]]
path = "/big"
size = 200000
content_type = "text/plain"
[[site.page]]
path = "/busy"
status = 429
headers = { retry-after = "30" }
[[site.page]]
path = "/slow"
body = "late"
delay_ms = 300

[[site]]
host = "other.example.test"
preflight = "blocked"
"#,
    )
    .unwrap()
    .site
}

#[derive(serde::Deserialize)]
struct Doc {
    site: Vec<SiteScript>,
}

async fn serve(sites: &Sites) -> (Loopback, reqwest::Client) {
    let router = sites.router("http").merge(sites.preflight_router());
    let server = Loopback::serve(|_| Ok(router)).await.unwrap();
    let mut client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    for host in [
        "docs.example.test",
        "other.example.test",
        "api.anthropic.com",
    ] {
        client = client.resolve(host, server.addr());
    }
    (server, client.build().unwrap())
}

fn url(server: &Loopback, host: &str, path: &str) -> String {
    format!("http://{host}:{}{path}", server.addr().port())
}

#[tokio::test]
async fn pages_redirects_misses_and_sizes_are_served_by_host() {
    let sites = Sites::new(scripts());
    let (server, client) = serve(&sites).await;
    let guide = client
        .get(url(&server, "docs.example.test", "/guide"))
        .send()
        .await
        .unwrap();
    assert_eq!(guide.status(), 200);
    assert_eq!(guide.headers()["content-type"], "text/html; charset=utf-8");
    assert!(guide.text().await.unwrap().contains("GUIDE"));

    let moved = client
        .get(url(&server, "docs.example.test", "/moved"))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 301);
    assert_eq!(
        moved.headers()["location"],
        "https://other.example.test/landing"
    );

    let busy = client
        .get(url(&server, "docs.example.test", "/busy"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (busy.status().as_u16(), &busy.headers()["retry-after"]),
        (429, &"30".parse::<reqwest::header::HeaderValue>().unwrap())
    );

    let big = client
        .get(url(&server, "docs.example.test", "/big"))
        .send()
        .await
        .unwrap();
    assert_eq!(big.bytes().await.unwrap().len(), 200_000);

    // The same path on the other host is not there.
    let miss = client
        .get(url(&server, "other.example.test", "/guide"))
        .send()
        .await
        .unwrap();
    assert_eq!(miss.status(), 404);

    let seen: Vec<(String, String, u16)> = sites
        .requests()
        .into_iter()
        .map(|r| (r.host, r.path, r.status))
        .collect();
    assert_eq!(
        seen,
        [
            ("docs.example.test".into(), "/guide".into(), 200),
            ("docs.example.test".into(), "/moved".into(), 301),
            ("docs.example.test".into(), "/busy".into(), 429),
            ("docs.example.test".into(), "/big".into(), 200),
            ("other.example.test".into(), "/guide".into(), 404),
        ]
    );
}

#[tokio::test]
async fn a_slow_page_is_recorded_before_it_is_answered() {
    let sites = Sites::new(scripts());
    let (server, client) = serve(&sites).await;
    let started = Instant::now();
    let gave_up = client
        .get(url(&server, "docs.example.test", "/slow"))
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    assert!(gave_up.is_err(), "the page answered before its delay");
    assert_eq!(
        sites.requests().len(),
        1,
        "the abandoned request was not recorded"
    );
    let late = client
        .get(url(&server, "docs.example.test", "/slow"))
        .send()
        .await
        .unwrap();
    assert_eq!(late.text().await.unwrap(), "late");
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn the_preflight_answers_per_host_and_is_recorded() {
    let sites = Sites::new(scripts());
    let (server, client) = serve(&sites).await;
    let ask = |domain: &str| {
        client
            .get(url(
                &server,
                "api.anthropic.com",
                &format!("/api/web/domain_info?domain={domain}"),
            ))
            .send()
    };
    let allowed: serde_json::Value = ask("docs.example.test")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(allowed["can_fetch"], true);
    let blocked: serde_json::Value = ask("other.example.test")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(blocked["can_fetch"], false);
    let unknown: serde_json::Value = ask("nowhere.test").await.unwrap().json().await.unwrap();
    assert_eq!(unknown["can_fetch"], false);
    let kinds: Vec<&str> = sites.requests().iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["preflight"; 3]);
    assert_eq!(
        sites.requests()[0].path,
        "/api/web/domain_info?domain=docs.example.test"
    );
}

#[tokio::test]
async fn a_failing_preflight_is_an_http_error() {
    let mut scripts = scripts();
    scripts[0].preflight = Preflight::Failed;
    let sites = Sites::new(scripts);
    let (server, client) = serve(&sites).await;
    let answer = client
        .get(url(
            &server,
            "api.anthropic.com",
            "/api/web/domain_info?domain=docs.example.test",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
}
