//! `transcript`: a session file the run left in HOME, its records normalized
//! (`crate::sessions::normalize`) so that the chain and the keys are compared, not the ids.

use serde_json::Value;

use super::expect::{expected_seen, text_expectations};
use super::json::{counted, listed, redacted, subset};
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;
use crate::sessions::SessionFile;

pub(super) fn transcript(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let Some(session) = run.session_id(spec.step.as_deref()) else {
        return Err(match &spec.step {
            Some(step) => format!("step `{step}` reported no session id"),
            None => "the run reported no session id".into(),
        });
    };
    let found = file(run, &session, spec.path.as_deref());
    let what = match spec.path.as_deref() {
        Some(p) => format!("`{session}/{p}`"),
        None => format!("the transcript of session {session}"),
    };
    if spec.absent == Some(true) {
        return match found.as_slice() {
            [] => Ok(()),
            files => Err(format!(
                "{what} exists but should not: {}",
                paths(run, files)
            )),
        };
    }
    let file = match found.as_slice() {
        [one] => *one,
        [] => return Err(format!("{what} does not exist{}", present(run))),
        many => {
            return Err(format!(
                "{what} names {} files, not one: {}",
                many.len(),
                paths(run, many)
            ))
        }
    };
    let records: Vec<Value> = crate::sessions::normalize(&file.records(), &run.session_names())
        .iter()
        .map(|r| redacted(run, r))
        .filter(|r| {
            spec.types
                .as_ref()
                .is_none_or(|t| t.iter().any(|t| r["type"] == t.as_str()))
        })
        .collect();
    counted(spec, &records, "records")?;
    if let Some(want) = &spec.matches {
        subset(want, &Value::Array(records.clone()), "records")
            .map_err(|e| format!("{e}\n  records seen:\n{}", listed(&records)))?;
    }
    for (kind, want) in spec.keys.iter().flatten() {
        let of_kind: Vec<(usize, &Value)> = records
            .iter()
            .enumerate()
            .filter(|(_, r)| crate::sessions::record_kind(r) == *kind)
            .collect();
        if of_kind.is_empty() {
            return Err(format!("no `{kind}` record"));
        }
        for (i, r) in of_kind {
            let seen: Vec<&str> = r
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if seen != *want {
                return Err(format!(
                    "`{kind}` record {} keys: {}",
                    i + 1,
                    expected_seen(want.join(", "), seen.join(", "))
                ));
            }
        }
    }
    if spec.contains.is_some()
        || spec.not_contains.is_some()
        || spec.equals.as_ref().is_some_and(Value::is_string)
    {
        let text: Vec<String> = records.iter().map(Value::to_string).collect();
        text_expectations(spec, &text.join("\n"))?;
    }
    Ok(())
}

/// The files of `session`: its main transcript, or `rel` inside its folder (a `*` matches any
/// name in a segment).
fn file<'a>(run: &'a RunOutcome, session: &str, rel: Option<&str>) -> Vec<&'a SessionFile> {
    run.sessions
        .iter()
        .filter(|f| match rel {
            None => f.is_main() && f.session() == Some(session),
            Some(rel) => {
                let Some((_, inside)) = f.path.split_once('/') else {
                    return false;
                };
                let pattern = format!("{session}/{rel}");
                globset::Glob::new(&pattern)
                    .map(|g| g.compile_matcher().is_match(inside))
                    .unwrap_or(false)
            }
        })
        .collect()
}

/// What session files there are, for a failure's detail.
fn present(run: &RunOutcome) -> String {
    if run.sessions.is_empty() {
        return " (no session files at all)".into();
    }
    let all: Vec<&SessionFile> = run.sessions.iter().collect();
    format!(" (session files: {})", paths(run, &all))
}

/// Files' paths as a detail says them: the run's own places named.
fn paths(run: &RunOutcome, files: &[&SessionFile]) -> String {
    files
        .iter()
        .map(|f| run.places.redact(&f.path))
        .collect::<Vec<_>>()
        .join(", ")
}
