//! What the target printed: the stream-json `result` and events, the streams as text, the screen
//! of a terminal run, and the renderings of stdout (`crate::render`).

use serde_json::Value;

use super::expect::{field_eq, list_diff, text_expectations};
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;
use crate::wire;

/// `result`: the final stream-json `result` event.
pub(super) fn result(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let events = wire::stdout_events(&run.stdout);
    let result = wire::result_event(&events).ok_or("no `result` event on stdout")?;
    if let Some(subtype) = &spec.subtype {
        field_eq(
            "subtype",
            subtype.as_str(),
            result["subtype"].as_str().unwrap_or("<none>"),
        )?;
    }
    if let Some(is_error) = spec.is_error {
        // Absent is not false: a result event without the field is itself a finding.
        let seen = result["is_error"]
            .as_bool()
            .ok_or("the `result` event has no boolean `is_error`")?;
        field_eq("is_error", is_error, seen)?;
    }
    text_expectations(spec, result["result"].as_str().unwrap_or(""))
}

/// `events`: the sequence of event kinds, and the exact key set of every event of a kind.
pub(super) fn events(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let events = wire::stdout_events(&run.stdout);
    if let Some(want) = &spec.events {
        let seen: Vec<String> = events.iter().map(wire::event_kind).collect();
        if &seen != want {
            return Err(list_diff(
                want,
                &seen.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
        }
    }
    for (kind, want_keys) in spec.keys.iter().flatten() {
        let mut want: Vec<&str> = want_keys.iter().map(String::as_str).collect();
        want.sort_unstable();
        // Every event of the kind: a later one that gained or lost a key is a change too.
        let of_kind: Vec<(usize, &Value)> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| &wire::event_kind(e) == kind)
            .collect();
        if of_kind.is_empty() {
            return Err(format!("no `{kind}` event"));
        }
        for (i, event) in of_kind {
            let mut seen: Vec<&str> = event
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            seen.sort_unstable();
            if seen != want {
                let missing: Vec<_> = want.iter().filter(|k| !seen.contains(k)).collect();
                let extra: Vec<_> = seen.iter().filter(|k| !want.contains(k)).collect();
                return Err(format!(
                    "`{kind}` keys differ (event {} of stdout)\n  missing: {missing:?}\n  unexpected: {extra:?}",
                    i + 1
                ));
            }
        }
    }
    Ok(())
}

/// `stdout`, `stderr`, `screen`: a stream as text.
pub(super) fn text(spec: &CheckSpec, run: &RunOutcome, text: &str) -> Result<(), String> {
    text_expectations(spec, &run.places.redact(text))
}

/// `view`: a rendering of stdout, the Brief main view or the transcript.
pub(super) fn view(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let text = match spec.view.as_deref() {
        Some("brief") => crate::render::brief_view(&run.stdout),
        _ => crate::render::transcript(&run.stdout),
    };
    text_expectations(spec, &run.places.redact(&text))
}
