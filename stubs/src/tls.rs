//! HTTPS for the mock first-party hosts: a throwaway certificate authority made per run (never
//! written anywhere but the run's directory, never trusted by the machine) and a server that
//! terminates TLS with a leaf for the mocked host names, then serves an axum router.

use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::sync::oneshot;

/// A CA and one leaf certificate for `hosts`, signed by it.
pub struct Authority {
    ca_pem: String,
    leaf: CertificateDer<'static>,
    leaf_key: Vec<u8>,
}

impl Authority {
    pub fn new(hosts: &[&str]) -> anyhow::Result<Self> {
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "conformance harness throwaway CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_key = KeyPair::generate()?;
        let ca_cert = ca.self_signed(&ca_key)?;

        let mut leaf =
            CertificateParams::new(hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>())?;
        leaf.distinguished_name.push(DnType::CommonName, hosts[0]);
        leaf.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let leaf_key = KeyPair::generate()?;
        let leaf_cert = leaf.signed_by(&leaf_key, &ca_cert, &ca_key)?;
        Ok(Authority {
            ca_pem: ca_cert.pem(),
            leaf: leaf_cert.der().clone(),
            leaf_key: leaf_key.serialize_der(),
        })
    }

    /// The CA certificate, PEM, for a client's extra trust roots (`NODE_EXTRA_CA_CERTS`).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    fn server_config(&self) -> anyhow::Result<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.leaf_key.clone()));
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(vec![self.leaf.clone()], key)
            .context("the leaf certificate and key do not match")?;
        // HTTP/1.1 only: what every client here speaks, and one framing to record.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(config)
    }
}

/// A TLS server on a listener the caller bound (inside a namespace, on 443); dropping it stops
/// accepting.
pub struct TlsServer {
    _shutdown: oneshot::Sender<()>,
}

impl TlsServer {
    pub fn serve(
        listener: std::net::TcpListener,
        authority: &Authority,
        router: Router,
    ) -> anyhow::Result<Self> {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(authority.server_config()?));
        let (tx, mut rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            loop {
                let stream = tokio::select! {
                    _ = &mut rx => break,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(_) => continue,
                    },
                };
                let acceptor = acceptor.clone();
                let router = router.clone();
                tokio::spawn(async move {
                    // A client that gives up on the handshake (or distrusts the CA) is its own
                    // finding, recorded by what it then fails to send.
                    let Ok(tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let service = TowerToHyperService::new(router);
                    let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        Ok(TlsServer { _shutdown: tx })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client that trusts only the run's CA reaches the router by a mocked host name; one
    /// that trusts the usual roots does not.
    #[tokio::test]
    async fn a_client_trusting_the_throwaway_ca_is_served_and_others_are_not() {
        let authority = Authority::new(&["api.anthropic.com", "claude.ai"]).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let router = Router::new().route("/ping", axum::routing::get(|| async { "pong" }));
        let _server = TlsServer::serve(listener, &authority, router).unwrap();
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let ca = reqwest::Certificate::from_pem(authority.ca_pem().as_bytes()).unwrap();
        let trusting = reqwest::Client::builder()
            .use_rustls_tls()
            .tls_built_in_root_certs(false)
            .add_root_certificate(ca)
            .resolve("api.anthropic.com", addr)
            .build()
            .unwrap();
        let url = format!("https://api.anthropic.com:{port}/ping");
        let body = trusting
            .get(&url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(body, "pong");
        let distrusting = reqwest::Client::builder()
            .use_rustls_tls()
            .resolve("api.anthropic.com", addr)
            .build()
            .unwrap();
        assert!(distrusting.get(&url).send().await.is_err());
    }
}
