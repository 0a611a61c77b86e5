//! The loopback web site: every `[[site]]` host behind one router that dispatches on the `Host`
//! header (the run serves it as HTTPS on 443 and plain HTTP on 80 of the sites' address), plus
//! the first-party preflight route `GET /api/web/domain_info` that 2.1.235 asks before fetching.
//! Every request is recorded before its answer is held or sent, so one the client gave up on (a
//! timeout) is still seen.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::script::{Preflight, SiteScript};

/// One request a site host (or the preflight route) received.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SiteRequest {
    /// Milliseconds since the sites started.
    pub at_ms: u64,
    /// `page` (a site host) or `preflight` (the first-party domain check).
    pub kind: &'static str,
    /// `https` or `http`.
    pub scheme: &'static str,
    pub host: String,
    pub method: String,
    /// Path and query as sent.
    pub path: String,
    pub user_agent: Option<String>,
    pub accept: Option<String>,
    /// What was answered (before any delay).
    pub status: u16,
}

/// The declared sites and what they received; clones share the record.
#[derive(Clone)]
pub struct Sites {
    inner: Arc<Inner>,
}

struct Inner {
    scripts: Vec<SiteScript>,
    started: Instant,
    requests: Mutex<Vec<SiteRequest>>,
}

#[derive(Clone)]
struct Served {
    sites: Sites,
    scheme: &'static str,
}

impl Sites {
    pub fn new(scripts: Vec<SiteScript>) -> Self {
        Sites {
            inner: Arc::new(Inner {
                scripts,
                started: Instant::now(),
                requests: Mutex::new(Vec::new()),
            }),
        }
    }

    pub fn hosts(&self) -> Vec<String> {
        self.inner.scripts.iter().map(|s| s.host.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.scripts.is_empty()
    }

    pub fn requests(&self) -> Vec<SiteRequest> {
        self.inner.requests.lock().expect("not poisoned").clone()
    }

    /// Every site host, for a listener of `scheme` (`https` behind TLS, or `http`).
    pub fn router(&self, scheme: &'static str) -> Router {
        Router::new().fallback(page).with_state(Served {
            sites: self.clone(),
            scheme,
        })
    }

    /// The first-party preflight route, to merge into what `api.anthropic.com` serves.
    pub fn preflight_router(&self) -> Router {
        Router::new()
            .route("/api/web/domain_info", get(preflight))
            .with_state(Served {
                sites: self.clone(),
                scheme: "https",
            })
    }

    fn record(&self, mut request: SiteRequest) {
        request.at_ms = self.inner.started.elapsed().as_millis() as u64;
        self.inner
            .requests
            .lock()
            .expect("not poisoned")
            .push(request);
    }

    fn script(&self, host: &str) -> Option<&SiteScript> {
        self.inner.scripts.iter().find(|s| s.host == host)
    }
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap_or("<non-utf8>").to_owned())
}

/// The `Host` header (or the URI's authority, HTTP/2) without its port.
fn host_of(headers: &HeaderMap, uri: &Uri) -> String {
    let raw = header_text(headers, header::HOST)
        .or_else(|| uri.authority().map(|a| a.to_string()))
        .unwrap_or_default();
    raw.rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(raw.as_str(), |(h, _)| h)
        .to_ascii_lowercase()
}

async fn page(
    State(served): State<Served>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let host = host_of(&headers, &uri);
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let found = served.sites.script(&host).map(|s| s.page(&path).cloned());
    let (status, response, delay) = match found {
        // A host the scenario did not declare: the hosts file only names declared ones, so this is
        // a client that dialled the address with another name.
        None => (
            421,
            plain(421, "text/plain", b"no such site".to_vec()),
            None,
        ),
        Some(None) => (
            404,
            plain(
                404,
                "text/html; charset=utf-8",
                b"<html><body><h1>Not Found</h1></body></html>".to_vec(),
            ),
            None,
        ),
        Some(Some(p)) => {
            let mut response = plain(
                p.status,
                &p.content_type,
                if method == Method::HEAD {
                    Vec::new()
                } else {
                    p.body_bytes()
                },
            );
            for (name, value) in &p.headers {
                if let (Ok(name), Ok(value)) = (
                    name.parse::<header::HeaderName>(),
                    value.parse::<header::HeaderValue>(),
                ) {
                    response.headers_mut().insert(name, value);
                }
            }
            if let Some(location) = &p.location {
                if let Ok(v) = location.parse() {
                    response.headers_mut().insert(header::LOCATION, v);
                }
            }
            (p.status, response, p.delay_ms)
        }
    };
    served.sites.record(SiteRequest {
        at_ms: 0,
        kind: "page",
        scheme: served.scheme,
        host,
        method: method.to_string(),
        path,
        user_agent: header_text(&headers, header::USER_AGENT),
        accept: header_text(&headers, header::ACCEPT),
        status,
    });
    if let Some(ms) = delay {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    response
}

#[derive(serde::Deserialize)]
struct DomainQuery {
    domain: Option<String>,
}

/// `{"domain": …, "can_fetch": bool}` for a declared host; an undeclared one is blocked (the
/// namespace could not reach it anyway).
async fn preflight(
    State(served): State<Served>,
    Query(query): Query<DomainQuery>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let domain = query.domain.unwrap_or_default();
    let verdict = served
        .sites
        .script(&domain)
        .map_or(Preflight::Blocked, |s| s.preflight.clone());
    let (status, response) = match verdict {
        Preflight::Failed => (
            503,
            plain(
                503,
                "application/json",
                br#"{"error":"unavailable"}"#.to_vec(),
            ),
        ),
        allowed => {
            let body = serde_json::json!({
                "domain": domain,
                "can_fetch": allowed == Preflight::Allowed,
            });
            (
                200,
                plain(200, "application/json", body.to_string().into_bytes()),
            )
        }
    };
    served.sites.record(SiteRequest {
        at_ms: 0,
        kind: "preflight",
        scheme: served.scheme,
        host: host_of(&headers, &uri),
        method: "GET".into(),
        path: uri.path_and_query().map_or("/", |p| p.as_str()).to_owned(),
        user_agent: header_text(&headers, header::USER_AGENT),
        accept: header_text(&headers, header::ACCEPT),
        status,
    });
    response
}

fn plain(status: u16, content_type: &str, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(v) = content_type.parse() {
        response.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    response
}
