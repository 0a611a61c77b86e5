//! SIGTERM as 2.1.235 takes it (recorded: `session.recoverable/term`, `/during-term`): the
//! session file is closed (its last-prompt record) and the process exits 143. A turn in flight
//! is ended first, as interrupted: while its request streams, with `[Request interrupted by
//! user]` and an `aborted_streaming` result; while a tool runs, the tool is stopped, its call
//! rejected, `[Request interrupted by user for tool use]` and an `aborted_tools` result. What
//! the turn writes meanwhile is marked `interruptedByShutdown`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// The exit status after SIGTERM: 128 + the signal.
pub const TERMINATED: i32 = 128 + libc::SIGTERM;

#[derive(Default)]
pub struct Termination {
    /// A request is streaming: the turn owns the ending.
    streaming: AtomicBool,
    asked: Notify,
    /// SIGTERM arrived.
    requested: AtomicBool,
    /// The main loop's tools run: the turn owns the ending, and `stop` stops them.
    tools: AtomicBool,
    stop: std::sync::Mutex<Option<Arc<AtomicBool>>>,
}

impl Termination {
    /// Listens for SIGTERM for the rest of the process; `file` is closed on the way out.
    pub fn listen(file: Option<Arc<crate::transcript::Writer>>) -> Arc<Termination> {
        let term = Arc::new(Termination::default());
        term.clone().listening(file);
        term
    }

    fn listening(self: Arc<Self>, file: Option<Arc<crate::transcript::Writer>>) {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut signals) = signal(SignalKind::terminate()) else {
            return;
        };
        tokio::spawn(async move {
            if signals.recv().await.is_none() {
                return;
            }
            self.requested.store(true, Ordering::SeqCst);
            if let Some(file) = &file {
                file.shutting_down();
            }
            if self.streaming.load(Ordering::SeqCst) {
                // Stored as a permit: the turn's wait takes it even if it has not begun.
                self.asked.notify_one();
                return;
            }
            if self.tools.load(Ordering::SeqCst) {
                if let Some(stop) = &*self.stop.lock().unwrap_or_else(|e| e.into_inner()) {
                    stop.store(true, Ordering::SeqCst);
                }
                return;
            }
            if let Some(file) = file {
                file.close();
            }
            std::process::exit(TERMINATED);
        });
    }

    /// The main loop's tools run until the guard drops; SIGTERM meanwhile sets `stop` (the
    /// tools' cancel switch) and leaves the ending to the turn.
    pub fn tools(&self, stop: Arc<AtomicBool>) -> Tools<'_> {
        *self.stop.lock().unwrap_or_else(|e| e.into_inner()) = Some(stop);
        self.tools.store(true, Ordering::SeqCst);
        Tools(self)
    }

    /// Whether SIGTERM has arrived.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    /// Marks a request as streaming until the guard drops.
    pub fn streaming(&self) -> Streaming<'_> {
        self.streaming.store(true, Ordering::SeqCst);
        Streaming(self)
    }

    /// Resolves when SIGTERM arrives while a request streams.
    pub async fn asked(&self) {
        self.asked.notified().await
    }
}

pub struct Streaming<'a>(&'a Termination);

pub struct Tools<'a>(&'a Termination);

impl Drop for Tools<'_> {
    fn drop(&mut self) {
        self.0.tools.store(false, Ordering::SeqCst);
    }
}

impl Drop for Streaming<'_> {
    fn drop(&mut self) {
        self.0.streaming.store(false, Ordering::SeqCst);
    }
}
