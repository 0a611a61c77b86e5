//! An abort signal a call carries (the `AbortSignal` of 2.1.235): whoever started a shared
//! handshake passes theirs, so its abort cancels the handshake for every caller waiting on it.

use std::sync::Arc;

use tokio::sync::watch;

#[derive(Clone)]
pub struct Signal(Arc<watch::Sender<bool>>);

impl Default for Signal {
    fn default() -> Self {
        Signal(Arc::new(watch::channel(false).0))
    }
}

impl Signal {
    pub fn abort(&self) {
        self.0.send_replace(true);
    }

    pub fn aborted(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once aborted.
    pub async fn cancelled(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|v| *v).await;
    }
}
