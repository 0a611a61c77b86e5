//! While a tool runs, the host hears every so often that it is still alive: 2.1.235 prints a
//! `tool_progress` event marked `heartbeat` each interval a call is still going (never for the
//! Agent tool, whose child loop reports its own progress).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

use serde_json::{json, Value};

use crate::events::Output;
use crate::limits;
use crate::vocab::uuid;

/// Runs `work` (one tool call), printing a heartbeat each interval it has not finished.
pub fn during<R>(out: &Output, tool_use_id: &str, tool_name: &str, work: impl FnOnce() -> R) -> R {
    if tool_name == "Agent" {
        return work();
    }
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let started = Instant::now();
            for n in 0.. {
                match stopped.recv_timeout(limits::TOOL_HEARTBEAT_INTERVAL.duration()) {
                    Err(RecvTimeoutError::Timeout) => out.event(&event(
                        &out.session_id,
                        tool_use_id,
                        tool_name,
                        n,
                        started.elapsed().as_secs(),
                    )),
                    _ => break,
                }
            }
        });
        let result = work();
        drop(stop);
        result
    })
}

fn event(session_id: &str, tool_use_id: &str, tool_name: &str, n: u64, elapsed: u64) -> Value {
    json!({"type": "tool_progress", "tool_use_id": format!("{tool_use_id}-heartbeat-{n}"),
           "tool_name": tool_name, "parent_tool_use_id": tool_use_id, "elapsed_time_seconds": elapsed,
           "heartbeat": true, "session_id": session_id, "uuid": uuid()})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heartbeat_names_its_call_and_counts_from_zero() {
        let e = event("s", "toolu_1", "Bash", 0, 30);
        assert_eq!(e["tool_use_id"], "toolu_1-heartbeat-0");
        assert_eq!(e["parent_tool_use_id"], "toolu_1");
        assert_eq!(e["elapsed_time_seconds"], 30);
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(keys[..3], ["type", "tool_use_id", "tool_name"]);
    }

    #[test]
    fn a_quick_call_returns_its_result_without_waiting() {
        let out = Output {
            format: crate::events::Format::Json,
            session_id: "s".into(),
            terminal: None,
            held: None,
            after_results: Default::default(),
            transcript: None,
        };
        let started = Instant::now();
        assert_eq!(during(&out, "t", "Bash", || 7), 7);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
