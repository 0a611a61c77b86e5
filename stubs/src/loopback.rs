//! The one way every stub serves HTTP: 127.0.0.1 on a port the system picks (or a listener the
//! harness bound inside an isolated network), until the handle is dropped.

use std::net::SocketAddr;

use axum::Router;
use tokio::sync::oneshot;

/// A running server; dropping it shuts the server down.
pub(crate) struct Loopback {
    addr: SocketAddr,
    _shutdown: oneshot::Sender<()>,
}

impl Loopback {
    /// Binds 127.0.0.1:0, then serves the app `make` builds for the bound address.
    pub(crate) async fn serve(
        make: impl FnOnce(SocketAddr) -> anyhow::Result<Router>,
    ) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        Self::serve_on(listener, make)
    }

    /// As [`serve`](Self::serve), on a listener bound elsewhere (inside an isolated network).
    pub(crate) fn serve_on(
        listener: tokio::net::TcpListener,
        make: impl FnOnce(SocketAddr) -> anyhow::Result<Router>,
    ) -> anyhow::Result<Self> {
        let addr = listener.local_addr()?;
        let app = make(addr)?;
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(Loopback {
            addr,
            _shutdown: tx,
        })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}
