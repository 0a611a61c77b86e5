//! The host's prompts as a queue, told as 2.1.235 tells it (recorded: sdk.control/cancel-message):
//! a user message with a `uuid` is `queued` when it arrives, `started` when the session takes it
//! up (at once when nothing runs), `completed` after its result, or `cancelled` by
//! `cancel_async_message` while it still waits, each a `command_lifecycle` event. A message
//! without a uuid waits its turn the same way, untold.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use serde_json::json;

use crate::events::print_line;
use crate::vocab::uuid;

pub struct Queue {
    state: Mutex<State>,
    session_id: String,
}

#[derive(Default)]
struct State {
    /// A prompt is being answered.
    running: bool,
    /// The prompts waiting behind it, by uuid (`None`: one that has none).
    waiting: VecDeque<Option<String>>,
    /// Cancelled while waiting: the session passes them over when it comes to them.
    cancelled: HashSet<String>,
}

impl Queue {
    pub fn new(session_id: &str) -> Self {
        Queue {
            state: Mutex::new(State::default()),
            session_id: session_id.to_owned(),
        }
    }

    /// A user message arrived.
    pub fn arrived(&self, id: Option<&str>) {
        let mut state = self.state.lock().unwrap();
        self.tell(id, "queued");
        if !state.running && state.waiting.is_empty() {
            state.running = true;
            self.tell(id, "started");
        } else {
            state.waiting.push_back(id.map(str::to_owned));
        }
    }

    /// The session finished the prompt `id`: the next one waiting starts.
    pub fn finished(&self, id: Option<&str>) {
        let mut state = self.state.lock().unwrap();
        self.tell(id, "completed");
        state.running = false;
        if let Some(next) = state.waiting.pop_front() {
            state.running = true;
            self.tell(next.as_deref(), "started");
        }
    }

    /// Whether the session should pass over the message `id` it came to (it was cancelled).
    pub fn passed_over(&self, id: Option<&str>) -> bool {
        id.is_some_and(|id| self.state.lock().unwrap().cancelled.contains(id))
    }

    /// `cancel_async_message`: true when the message still waited, and now never runs.
    pub fn cancel(&self, id: &str) -> bool {
        let mut state = self.state.lock().unwrap();
        let Some(at) = state.waiting.iter().position(|w| w.as_deref() == Some(id)) else {
            return false;
        };
        state.waiting.remove(at);
        state.cancelled.insert(id.to_owned());
        self.tell(Some(id), "cancelled");
        true
    }

    fn tell(&self, id: Option<&str>, state: &str) {
        if let Some(id) = id {
            print_line(
                &json!({"type": "command_lifecycle", "command_uuid": id, "state": state,
                        "uuid": uuid(), "session_id": self.session_id})
                .to_string(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_prompt_can_be_cancelled_and_the_next_one_starts_after_the_running_one() {
        let q = Queue::new("s");
        q.arrived(Some("a"));
        q.arrived(Some("b"));
        q.arrived(None);
        assert!(!q.cancel("a"), "a runs");
        assert!(q.cancel("b"));
        assert!(!q.cancel("b"), "only once");
        assert!(q.passed_over(Some("b")));
        assert!(!q.passed_over(None));
        q.finished(Some("a"));
        let state = q.state.lock().unwrap();
        assert!(state.running && state.waiting.is_empty());
    }
}
