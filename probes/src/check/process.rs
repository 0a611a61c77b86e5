//! The process as a whole: how it exited (`exit`) and how much memory it took (`process`).

use serde_json::Value;

use super::expect::expected_seen;
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;

/// `exit`: the status against `equals`; a run the harness killed has none.
pub(super) fn exit(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let want = spec
        .equals
        .as_ref()
        .and_then(Value::as_i64)
        .unwrap_or_default();
    match run.exit_code {
        Some(code) if i64::from(code) == want => Ok(()),
        Some(code) => Err(expected_seen(want, code)),
        None if run.timed_out => Err(expected_seen(want, "killed after the timeout")),
        None => Err(expected_seen(want, "killed by a signal")),
    }
}

/// `process`: the peak resident set size against `max_rss_mib`.
pub(super) fn process(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let bound = spec.max_rss_mib.unwrap_or_default();
    let rss = run
        .peak_rss_kib
        .ok_or("no peak RSS: the process did not exit by itself")?;
    if rss > bound * 1024 {
        return Err(format!(
            "peak RSS {} MiB, above the bound of {bound} MiB",
            rss / 1024
        ));
    }
    Ok(())
}
