//! The normalized trace of a run: what the target sent and printed, with volatile values redacted
//! and long texts reduced to their length, so two targets or two versions can be diffed line by
//! line. It never holds a real binary's system prompt, reminders or tool descriptions.
//!
//! A trace is its sections in a fixed order: how the process ended and its result, stdout,
//! what the user was asked, stderr (`stdout`); the other requests, then what the fakes and mocks
//! saw and the hooks that ran (`services`); each loop's conversation and the tool schemas (`conversation`).

mod conversation;
mod redact;
mod services;
mod sessions;
mod shape;
mod stdout;

use std::fmt::Write as _;

pub use redact::redact;

use crate::outcome::RunOutcome;
use crate::wire;

/// Texts up to this many chars appear verbatim (our own script, fixtures, short tool messages).
const VERBATIM_MAX: usize = 200;

pub fn normalize(run: &RunOutcome, prompt: &str) -> String {
    let mut out = String::new();
    // The starts before the last, each as it ended and printed; the last one is the run's.
    if let Some((last, earlier)) = run.steps.split_last() {
        for step in earlier {
            let view = run.at_step(&step.name);
            writeln!(out, "step {}:", step.name).unwrap();
            process(&view, &mut out);
        }
        writeln!(out, "step {}:", last.name).unwrap();
    }
    process(run, &mut out);
    conversation::other_requests(run, &mut out);
    services::mcp_servers(run, &mut out);
    services::uploads(run, &mut out);
    services::design(run, &mut out);
    services::site(run, &mut out);
    services::project(run, &mut out);
    services::directory(run, &mut out);
    services::token_requests(run, &mut out);
    services::hooks(run, &mut out);
    sessions::sessions(run, &mut out);
    conversation::loops(run, prompt, &mut out);
    conversation::tool_schemas(run, &mut out);
    out
}

/// One start's process: how it ended, what it printed, asked and said on stderr.
fn process(run: &RunOutcome, out: &mut String) {
    let events = wire::stdout_events(&run.stdout);
    ending(run, &events, out);
    if run.channel == crate::scenario::Channel::Pty {
        // A terminal has a screen, not events; what it asked is below, the screens are in the record.
        writeln!(out, "stdout: a terminal").unwrap();
    } else {
        stdout::stream_events(run, &events, out);
    }
    stdout::asked(run, out);
    if !run.stderr.trim().is_empty() {
        writeln!(out, "stderr: {}", text(run, run.stderr.trim_end())).unwrap();
    }
}

/// How the process ended, and the result event's outcome.
fn ending(run: &RunOutcome, events: &[serde_json::Value], out: &mut String) {
    match (run.exit_code, run.timed_out) {
        (Some(code), _) => writeln!(out, "exit: {code}").unwrap(),
        (None, true) => writeln!(out, "exit: killed after timeout").unwrap(),
        (None, false) => writeln!(out, "exit: killed by signal").unwrap(),
    }
    match wire::result_event(events) {
        Some(r) => writeln!(
            out,
            "result: {} is_error={} {}",
            r["subtype"].as_str().unwrap_or("?"),
            r["is_error"].as_bool().unwrap_or(false),
            text(run, r["result"].as_str().unwrap_or(""))
        )
        .unwrap(),
        None => writeln!(out, "result: none").unwrap(),
    }
}

/// A short text verbatim (quoted), a long one as its length.
fn text(run: &RunOutcome, t: &str) -> String {
    let t = redact(run, t);
    if t.chars().count() <= VERBATIM_MAX {
        format!("{t:?}")
    } else {
        format!("({} chars)", t.chars().count())
    }
}
