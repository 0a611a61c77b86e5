//! A remote session (`CLAUDE_CODE_REMOTE`): what 2.1.235 adds to its stream-json for the host
//! that runs it (recorded: brief.lanes/env-byoc): the goal and auto-compaction state before
//! anything else, queued notifications among init's capabilities, and how long start-up took.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::limits;
use crate::vocab::uuid;

/// The events that open a remote session's output: no goal is set, and auto-compaction is on.
pub fn opening_events(session_id: &str) -> [Value; 2] {
    [
        json!({"type": "active_goal", "value": null, "uuid": uuid(), "session_id": session_id}),
        json!({
            "type": "autocompact_state",
            "value": {
                "enabled": true,
                "effective_window": limits::REMOTE_AUTOCOMPACT_EFFECTIVE_WINDOW.get(),
                "threshold": limits::REMOTE_AUTOCOMPACT_THRESHOLD.get(),
                "enforced": true,
                "source": "auto",
            },
            "uuid": uuid(),
            "session_id": session_id,
        }),
    ]
}

/// Adds what a remote session's init carries: the queued-notifications capability and the
/// start-up timing (the reference has one phase, start to init).
pub fn extend_init(init: &mut Value, started: Instant, entrypoint: &str) {
    if let Some(caps) = init["capabilities"].as_array_mut() {
        caps.push(json!("queued_notifications"));
    }
    let origin = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0 - started.elapsed().as_secs_f64() * 1000.0)
        .unwrap_or_default();
    let took = started.elapsed().as_millis() as u64;
    init["startup_timing"] = json!({
        "entrypoint": entrypoint,
        "warm_spare_claimed": false,
        "phases": {"init_emit_ms": took},
        "time_origin_ms": origin,
        "phase_start_ms": {"init_emit_ms": 0},
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_gains_the_capability_and_the_timing() {
        let mut init = json!({"capabilities": ["interrupt_receipt_v1"]});
        extend_init(&mut init, Instant::now(), "sdk-cli");
        assert_eq!(init["capabilities"][1], "queued_notifications");
        assert_eq!(init["startup_timing"]["entrypoint"], "sdk-cli");
        assert!(init["startup_timing"]["time_origin_ms"].as_f64().unwrap() > 0.0);
    }
}
