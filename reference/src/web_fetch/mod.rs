//! WebFetch's network side (seed 004 §WebFetch、WebSearch; recon webfetch14): the URL checks, the
//! http → https upgrade, the first-party domain preflight, the page request with only same-host
//! redirects followed, the size cap, HTML to markdown, and the session's caches. What the model
//! is told is `tools/web_fetch.rs`; the helper request that reads the page is `apply.rs`.

pub mod apply;
mod markdown;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use reqwest::Url;

use crate::limits;

/// Where 2.1.235 asks whether a domain may be fetched, whatever the API base URL says.
pub const PREFLIGHT_URL: &str = "https://api.anthropic.com/api/web/domain_info";
/// The notice appended to text cut to a size (markdown conversion, the helper's input).
pub const TRUNCATED: &str = "\n\n[Content truncated due to length...]";

/// A page as read: raw size, status, the text (markdown for HTML), its content type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub bytes: u64,
    pub code: u16,
    pub code_text: String,
    pub content: String,
    pub content_type: String,
}

/// What one fetch came to, short of a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    Page(Page),
    /// A redirect to somewhere a fetch may not silently follow (another host, scheme or port).
    Redirect {
        original: String,
        target: String,
        status: u16,
    },
    /// A status outside 2xx and the followed redirects; the body is not read.
    HttpError {
        status: u16,
        retry_after: Option<String>,
    },
}

/// A failed fetch, as the is_error result's text (2.1.235's thrown errors, unwrapped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

/// The session's caches: pages by the URL as asked, allowed domains.
#[derive(Clone, Default)]
pub struct Cache {
    inner: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    pages: HashMap<String, (Instant, Page)>,
    domains: HashMap<String, Instant>,
}

impl Cache {
    fn page(&self, url: &str) -> Option<Page> {
        let state = self.inner.lock().expect("not poisoned");
        let (at, page) = state.pages.get(url)?;
        (at.elapsed() < cache_ttl()).then(|| page.clone())
    }

    fn keep_page(&self, url: &str, page: &Page) {
        let mut state = self.inner.lock().expect("not poisoned");
        state
            .pages
            .insert(url.to_owned(), (Instant::now(), page.clone()));
    }

    fn domain_allowed(&self, host: &str) -> bool {
        let state = self.inner.lock().expect("not poisoned");
        state
            .domains
            .get(host)
            .is_some_and(|at| at.elapsed() < limits::WEB_FETCH_DOMAIN_CHECK_TTL.duration())
    }

    fn allow_domain(&self, host: &str) {
        let mut state = self.inner.lock().expect("not poisoned");
        state.domains.insert(host.to_owned(), Instant::now());
    }
}

/// `CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS`, else the recorded 15 minutes.
fn cache_ttl() -> std::time::Duration {
    std::env::var("CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(std::time::Duration::from_millis)
        .unwrap_or(limits::WEB_FETCH_CACHE_TTL.duration())
}

/// 2.1.235's `validateURL`: not too long, parseable, no credentials, a dotted host name.
pub fn valid_url(url: &str) -> bool {
    if url.len() > limits::WEB_FETCH_MAX_URL_CHARS.usize() {
        return false;
    }
    let Ok(parsed) = Url::parse(url) else {
        return false;
    };
    parsed.username().is_empty()
        && parsed.password().is_none()
        && parsed.host_str().is_some_and(|h| h.split('.').count() >= 2)
}

/// Fetches `url` for the session: the cache, the upgrade, the preflight, the page.
pub async fn fetch(url: &str, cache: &Cache) -> Result<Fetched, FetchError> {
    if !valid_url(url) {
        return Err(FetchError("Invalid URL".into()));
    }
    if let Some(page) = cache.page(url) {
        return Ok(Fetched::Page(page));
    }
    let mut target = Url::parse(url).map_err(|_| FetchError("Invalid URL".into()))?;
    if target.scheme() == "http" {
        let _ = target.set_scheme("https");
    }
    let host = target.host_str().unwrap_or_default().to_owned();
    preflight(&host, cache).await?;
    let fetched = get_following(target).await?;
    if let Fetched::Page(page) = &fetched {
        cache.keep_page(url, page);
    }
    Ok(fetched)
}

/// The domain preflight: allowed (remembered), blocked, or a check that could not decide.
async fn preflight(host: &str, cache: &Cache) -> Result<(), FetchError> {
    if cache.domain_allowed(host) {
        return Ok(());
    }
    let failed = || {
        FetchError(format!(
            "Unable to verify if domain {host} is safe to fetch. This may be due to network restrictions or enterprise security policies blocking claude.ai."
        ))
    };
    let client = crate::net::http_client(Some(limits::WEB_FETCH_PREFLIGHT_TIMEOUT.duration()));
    let answer = client
        .get(PREFLIGHT_URL)
        .query(&[("domain", host)])
        // The preflight is a plain axios GET in 2.1.235 (exp.webf-1): its default headers.
        .header("accept", "application/json, text/plain, */*")
        .header("user-agent", "axios/1.15.2")
        .send()
        .await
        .map_err(|_| failed())?;
    if answer.status().as_u16() != 200 {
        return Err(failed());
    }
    let body: serde_json::Value = answer.json().await.unwrap_or_default();
    if body["can_fetch"] == true {
        cache.allow_domain(host);
        Ok(())
    } else {
        Err(FetchError(format!(
            "Claude Code is unable to fetch from {host}"
        )))
    }
}

/// The page request, following only redirects that stay on the same host, scheme and port.
async fn get_following(mut url: Url) -> Result<Fetched, FetchError> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(limits::WEB_FETCH_TIMEOUT.duration());
    let client = with_extra_roots(client)
        .build()
        .map_err(|e| FetchError(e.to_string()))?;
    let max = limits::WEB_FETCH_MAX_REDIRECTS.get();
    for _ in 0..=max {
        let response = client
            .get(url.clone())
            .header("accept", "text/markdown, text/html, */*")
            .header("user-agent", user_agent())
            .send()
            .await
            .map_err(|e| transport(&e))?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return read_page(response).await.map(Fetched::Page);
        }
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .filter(|l| !l.trim().is_empty());
            let Some(next) = location.and_then(|l| url.join(l).ok()) else {
                return Ok(Fetched::HttpError {
                    status,
                    retry_after: None,
                });
            };
            if !same_site(&url, &next) {
                return Ok(Fetched::Redirect {
                    original: url.to_string(),
                    target: next.to_string(),
                    status,
                });
            }
            url = next;
            continue;
        }
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .filter(|v| (1..=6).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_digit()))
            .map(str::to_owned);
        return Ok(Fetched::HttpError {
            status,
            retry_after,
        });
    }
    Err(FetchError(format!("Too many redirects (exceeded {max})")))
}

/// 2.1.235's `isPermittedRedirect`: same scheme and port, no credentials, the same host once a
/// leading `www.` is set aside.
pub fn same_site(from: &Url, to: &Url) -> bool {
    let bare = |u: &Url| {
        u.host_str()
            .unwrap_or_default()
            .trim_start_matches("www.")
            .to_owned()
    };
    from.scheme() == to.scheme()
        && from.port() == to.port()
        && to.username().is_empty()
        && to.password().is_none()
        && bare(from) == bare(to)
}

/// Reads the body under the size cap, then the text the helper gets.
async fn read_page(mut response: reqwest::Response) -> Result<Page, FetchError> {
    let cap = limits::WEB_FETCH_MAX_CONTENT_BYTES.get();
    let too_big = || FetchError(format!("maxContentLength size of {cap} exceeded"));
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(too_big());
    }
    let code = response.status().as_u16();
    let code_text = status_text(code);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(&e))? {
        body.extend_from_slice(&chunk);
        if body.len() as u64 > cap {
            return Err(too_big());
        }
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let content = if content_type.contains("text/html") {
        markdown::from_html(&text)
    } else {
        text
    };
    Ok(Page {
        bytes: body.len() as u64,
        code,
        code_text,
        content,
        content_type,
    })
}

/// The reason phrase Node's `http.STATUS_CODES` gives a status.
pub fn status_text(code: u16) -> String {
    reqwest::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Unknown Status")
        .to_owned()
}

fn user_agent() -> String {
    format!(
        "Claude-User (claude-code/{}; +https://support.anthropic.com/)",
        crate::CONTRACT_VERSION
    )
}

/// A transport failure in axios's words where one maps.
fn transport(e: &reqwest::Error) -> FetchError {
    FetchError(crate::net::network_text(
        e,
        limits::WEB_FETCH_TIMEOUT.duration(),
    ))
}

fn with_extra_roots(mut builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
    builder = builder.use_rustls_tls();
    if let Some(path) = std::env::var_os("NODE_EXTRA_CA_CERTS") {
        if let Ok(pem) = std::fs::read(&path) {
            let mut reader = std::io::BufReader::new(&pem[..]);
            for der in rustls_pemfile::certs(&mut reader).flatten() {
                if let Ok(cert) = reqwest::Certificate::from_der(der.as_ref()) {
                    builder = builder.add_root_certificate(cert);
                }
            }
        }
    }
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_judged_as_2_1_235_judges_them() {
        assert!(valid_url("https://docs.example.test/a"));
        assert!(!valid_url("https://localhost/a"), "a single label");
        assert!(!valid_url("https://u:p@docs.example.test/"), "credentials");
        assert!(!valid_url("not a url"));
        let long = format!("https://a.test/{}", "x".repeat(2_000));
        assert!(!valid_url(&long));
    }

    #[test]
    fn only_same_host_scheme_and_port_redirects_are_followed() {
        let u = |s: &str| Url::parse(s).unwrap();
        let from = u("https://docs.example.test/a");
        assert!(same_site(&from, &u("https://docs.example.test/b")));
        assert!(same_site(&from, &u("https://www.docs.example.test/b")));
        assert!(!same_site(&from, &u("https://other.example.test/b")));
        assert!(!same_site(&from, &u("http://docs.example.test/b")));
        assert!(!same_site(&from, &u("https://docs.example.test:8443/b")));
    }

    #[test]
    fn a_cached_page_expires_and_domains_are_remembered() {
        let cache = Cache::default();
        let page = Page {
            bytes: 1,
            code: 200,
            code_text: "OK".into(),
            content: "x".into(),
            content_type: "text/plain".into(),
        };
        cache.keep_page("https://a.test/", &page);
        assert_eq!(cache.page("https://a.test/"), Some(page));
        assert_eq!(cache.page("https://a.test/other"), None);
        assert!(!cache.domain_allowed("a.test"));
        cache.allow_domain("a.test");
        assert!(cache.domain_allowed("a.test"));
    }
}
