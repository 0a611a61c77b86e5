//! The one way the reference builds an HTTPS client: rustls with the usual roots plus whatever
//! `NODE_EXTRA_CA_CERTS` names, as 2.1.235 (Node) trusts them. An isolated run's mock first-party
//! hosts are signed by a throwaway CA passed that way. And the byte sets URLs are
//! percent-encoded with.

use std::time::Duration;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// RFC 3986's unreserved characters stay, every other byte is encoded.
pub const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// What JavaScript's `encodeURIComponent` leaves alone: the unreserved characters and
/// `!*'()`.
pub const URI_COMPONENT: &AsciiSet = &UNRESERVED
    .remove(b'!')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `s` as JavaScript's `encodeURIComponent` writes it.
pub fn encode_uri_component(s: &str) -> String {
    utf8_percent_encode(s, URI_COMPONENT).to_string()
}

pub fn http_client(timeout: Option<Duration>) -> reqwest::Client {
    client(timeout, extra_roots())
}

/// A client for `base_url` alone: a plain `http://` one (a local gateway, the harness's stub)
/// never needs a certificate, so the extra roots are not read for it.
pub fn http_client_for(base_url: &str, timeout: Option<Duration>) -> reqwest::Client {
    if base_url.starts_with("http://") {
        return client(timeout, &[]);
    }
    http_client(timeout)
}

fn client(timeout: Option<Duration>, roots: &[reqwest::Certificate]) -> reqwest::Client {
    let mut builder = reqwest::Client::builder().use_rustls_tls();
    if let Some(t) = timeout {
        builder = builder.timeout(t);
    }
    for cert in roots {
        builder = builder.add_root_certificate(cert.clone());
    }
    builder.build().unwrap_or_default()
}

/// `NODE_EXTRA_CA_CERTS` (the variable the real CLI's runtime reads), parsed once per process:
/// a system bundle is a few hundred certificates, milliseconds of base64 at every client.
fn extra_roots() -> &'static [reqwest::Certificate] {
    static ROOTS: std::sync::OnceLock<Vec<reqwest::Certificate>> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let Some(path) = std::env::var_os("NODE_EXTRA_CA_CERTS") else {
            return Vec::new();
        };
        let Ok(pem) = std::fs::read(&path) else {
            return Vec::new();
        };
        let mut reader = std::io::BufReader::new(&pem[..]);
        rustls_pemfile::certs(&mut reader)
            .flatten()
            .filter_map(|der| reqwest::Certificate::from_der(der.as_ref()).ok())
            .collect()
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_matches_encode_uri_component() {
        assert_eq!(encode_uri_component("a b/c?d=é"), "a%20b%2Fc%3Fd%3D%C3%A9");
        assert_eq!(encode_uri_component("it's-ok_(1)~!*."), "it's-ok_(1)~!*.");
    }

    #[test]
    fn unreserved_keeps_only_rfc_3986s_four_marks() {
        let encoded = utf8_percent_encode("a-b_c.d~e!f*(g)'/", UNRESERVED).to_string();
        assert_eq!(encoded, "a-b_c.d~e%21f%2A%28g%29%27%2F");
    }
}
