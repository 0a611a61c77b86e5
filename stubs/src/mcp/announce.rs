//! What a fake MCP server tells the run's board ([`crate::cues`]) about the messages it sees: a
//! request received, its answer sent, the client's answer to the server's own request. An answer
//! is named by the method of the request it answers, so a scenario can wait for "the second
//! `tools/list` answered".

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use crate::cues::{After, Event, Seen, Waiter};

pub struct Announcer {
    waiter: Waiter,
    server: String,
    /// The method of every request still waiting for its answer, by direction and id.
    pending: Mutex<HashMap<(bool, String), String>>,
}

impl Announcer {
    /// Announces as `server` (the scenario's name for it) through `waiter`.
    pub fn new(waiter: Waiter, server: String) -> Announcer {
        Announcer {
            waiter,
            server,
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// A message from the client.
    pub fn received(&self, msg: &Value) {
        self.seen(msg, true);
    }

    /// A message to the client, once it is on its way.
    pub fn sent(&self, msg: &Value) {
        self.seen(msg, false);
    }

    /// The server stream's `GET`, which carries no JSON-RPC message.
    pub fn received_get(&self) {
        self.publish(Seen::Received, "GET".into());
    }

    /// Holds a scripted answer until `after`, naming it by the server and what it answers.
    pub async fn wait(&self, after: &After, what: &str) {
        let who = format!("MCP server `{}`, {what}", self.server);
        self.waiter.wait(after, &who).await;
    }

    fn seen(&self, msg: &Value, incoming: bool) {
        let id = msg.get("id").map(Value::to_string);
        if let Some(method) = msg["method"].as_str() {
            if let Some(id) = id {
                self.pending
                    .lock()
                    .unwrap()
                    .insert((incoming, id), method.to_owned());
            }
            if incoming {
                self.publish(Seen::Received, method.to_owned());
            }
            return;
        }
        // An answer: to a request that went the other way.
        let Some(id) = id else { return };
        let Some(method) = self.pending.lock().unwrap().remove(&(!incoming, id)) else {
            return;
        };
        let seen = if incoming {
            Seen::GotAnswer
        } else {
            Seen::Answered
        };
        self.publish(seen, method);
    }

    fn publish(&self, seen: Seen, method: String) {
        self.waiter.publish(Event::Mcp {
            server: self.server.clone(),
            seen,
            method,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cues::Cues;
    use serde_json::json;

    #[test]
    fn answers_are_named_by_the_request_they_answer_in_either_direction() {
        let cues = Cues::default();
        let announcer = Announcer::new(Waiter::Local(cues.clone()), "s".into());
        announcer.received(&json!({"id": 1, "method": "tools/list"}));
        announcer.received(&json!({"method": "notifications/initialized"}));
        announcer.sent(&json!({"id": "roots-1", "method": "roots/list"}));
        announcer.sent(&json!({"id": 1, "result": {}}));
        announcer.received(&json!({"id": "roots-1", "result": {"roots": []}}));
        // An answer to nothing asked is not an event.
        announcer.sent(&json!({"id": 9, "result": {}}));
        let held = |src: &str| {
            #[derive(serde::Deserialize)]
            struct H {
                after: After,
            }
            toml::from_str::<H>(src).unwrap().after
        };
        for (src, happened) in [
            (r#"after = { mcp = "s", received = "tools/list" }"#, true),
            (r#"after = { mcp = "s", answered = "tools/list" }"#, true),
            (
                r#"after = { mcp = "s", received = "notifications/initialized" }"#,
                true,
            ),
            (r#"after = { mcp = "s", got_answer = "roots/list" }"#, true),
            (
                r#"after = { mcp = "s", received = "roots/list", within_ms = 1 }"#,
                false,
            ),
            (
                r#"after = { mcp = "s", answered = "tools/list", nth = 2, within_ms = 1 }"#,
                false,
            ),
        ] {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap();
            assert_eq!(
                rt.block_on(cues.wait(&held(src), "test")),
                happened,
                "{src}"
            );
        }
    }
}
