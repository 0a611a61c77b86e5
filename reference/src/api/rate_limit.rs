//! The claude.ai subscription's rate-limit status, read from the `anthropic-ratelimit-unified-*`
//! headers of every Messages response, and the `rate_limit_event` owed when it changes.
//!
//! As in 2.1.235 the status is one per process and starts as "allowed" with no reset time; a
//! subscriber's first response always changes it (the reset time becomes known, even when it is
//! "none"), so a subscriber's run prints one event, and another only when the headers change.
//! API-key and third-party-provider sessions never change it. Not modelled: the early-warning
//! variant built from `*-utilization` headers and the status a 429's body carries.

use std::sync::Mutex;

use reqwest::header::HeaderMap;
use serde_json::{json, Map, Value};

const PREFIX: &str = "anthropic-ratelimit-unified-";

struct State {
    current: Value,
    /// Changes not yet printed, oldest first.
    owed: Vec<Value>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn initial() -> Value {
    json!({"status": "allowed", "unifiedRateLimitFallbackAvailable": false, "isUsingOverage": false})
}

/// Reads one response's headers; `subscriber` is a claude.ai login on the first-party API.
pub fn observe(headers: &HeaderMap, subscriber: bool) {
    if !subscriber {
        return;
    }
    let get = |name: &str| {
        headers
            .get(format!("{PREFIX}{name}"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let next = status(&get);
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let state = state.get_or_insert_with(|| State {
        current: initial(),
        owed: Vec::new(),
    });
    if state.current != next {
        state.owed.push(info(&next));
        state.current = next;
    }
}

/// The `rate_limit_info` of each change since the last call.
pub fn take() -> Vec<Value> {
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    state
        .as_mut()
        .map(|s| std::mem::take(&mut s.owed))
        .unwrap_or_default()
}

/// The status the headers state. Absent values are kept as nulls: "known to be absent" differs
/// from the initial state's "never seen".
fn status(get: &dyn Fn(&str) -> Option<String>) -> Value {
    let number = |name: &str| {
        get(name)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|n| n.round() as i64)
    };
    let raw = get("status").unwrap_or_else(|| "allowed".into());
    let overage = get("overage-status");
    let using_overage =
        raw == "rejected" && matches!(overage.as_deref(), Some("allowed" | "allowed_warning"));
    // 2.1.235 reports a warning status as plain "allowed" once no threshold is crossed.
    let status = if raw == "allowed_warning" {
        "allowed".into()
    } else {
        raw
    };
    let mut s = Map::new();
    s.insert("status".into(), json!(status));
    s.insert("resetsAt".into(), json!(number("reset")));
    s.insert(
        "unifiedRateLimitFallbackAvailable".into(),
        json!(get("fallback").as_deref() == Some("available")),
    );
    if let Some(kind) = get("representative-claim") {
        s.insert("rateLimitType".into(), json!(kind));
    }
    if let Some(overage) = overage {
        s.insert("overageStatus".into(), json!(overage));
    }
    if let Some(at) = number("overage-reset") {
        s.insert("overageResetsAt".into(), json!(at));
    }
    if let Some(reason) = get("overage-disabled-reason") {
        s.insert("overageDisabledReason".into(), json!(reason));
    }
    s.insert("isUsingOverage".into(), json!(using_overage));
    if get("overage-in-use").as_deref() == Some("true") {
        s.insert("overageInUse".into(), json!(true));
    }
    Value::Object(s)
}

/// The event's view of a status: the keys a host reads, absent ones left out.
fn info(status: &Value) -> Value {
    const KEYS: &[&str] = &[
        "status",
        "resetsAt",
        "rateLimitType",
        "overageStatus",
        "overageResetsAt",
        "overageDisabledReason",
        "isUsingOverage",
        "overageInUse",
    ];
    let mut out = Map::new();
    for key in KEYS {
        match (&status[*key], *key) {
            (Value::Null, _) => {}
            (Value::String(r), "overageDisabledReason") if r == "org_spend_cap_reached" => {
                out.insert((*key).into(), json!("org_level_disabled_until"));
            }
            (v, _) => {
                out.insert((*key).into(), v.clone());
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Value {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        status(&|name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn no_headers_is_allowed_but_differs_from_the_initial_state() {
        let s = from(&[]);
        assert_ne!(s, initial());
        assert_eq!(
            info(&s),
            json!({"status": "allowed", "isUsingOverage": false})
        );
        assert_eq!(from(&[]), s, "a second bare response changes nothing");
    }

    #[test]
    fn a_rejected_limit_with_overage_names_its_kind_and_reset() {
        let s = from(&[
            ("status", "rejected"),
            ("reset", "1767225600.4"),
            ("representative-claim", "five_hour"),
            ("overage-status", "allowed"),
            ("overage-disabled-reason", "org_spend_cap_reached"),
        ]);
        assert_eq!(
            info(&s),
            json!({"status": "rejected", "resetsAt": 1767225600, "rateLimitType": "five_hour",
                   "overageStatus": "allowed", "overageDisabledReason": "org_level_disabled_until",
                   "isUsingOverage": true})
        );
        assert_eq!(
            info(&from(&[("status", "allowed_warning")]))["status"],
            "allowed"
        );
    }
}
