//! The one way the reference builds an HTTPS client: rustls with the usual roots plus whatever
//! `NODE_EXTRA_CA_CERTS` names, as 2.1.235 (Node) trusts them. An isolated run's mock first-party
//! hosts are signed by a throwaway CA passed that way.

use std::time::Duration;

pub fn http_client(timeout: Option<Duration>) -> reqwest::Client {
    let mut builder = reqwest::Client::builder().use_rustls_tls();
    if let Some(t) = timeout {
        builder = builder.timeout(t);
    }
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
    builder.build().unwrap_or_default()
}

/// What Node's HTTP client (axios) says for a timeout, the words 2.1.235's errors carry.
pub fn timeout_text(timeout: Duration) -> String {
    format!("timeout of {}ms exceeded", timeout.as_millis())
}

/// A transport failure in the words of the HTTP client 2.1.235 uses, where one maps.
pub fn network_text(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        timeout_text(timeout)
    } else if e.is_connect() {
        "connect ECONNREFUSED".to_owned()
    } else if e.is_request() || e.is_body() || e.is_decode() {
        "socket hang up".to_owned()
    } else {
        e.to_string()
    }
}
