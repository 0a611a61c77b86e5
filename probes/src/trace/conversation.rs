//! The Messages requests: the other requests by path, each loop's conversation (tools, the
//! system's shape, each message not already shown by the request before), and the tool schemas
//! of request 1.

use std::fmt::Write as _;

use serde_json::Value;
use stubs::messages::{RecordedRequest, RequestKind};

use super::redact::redact;
use super::shape::{json_type, keys_and_values, signature, sorted_entries};
use super::text;
use crate::outcome::RunOutcome;
use crate::wire::{self, Request};

/// The requests that are not a loop's, by method and path (an isolated run's are timing).
pub(super) fn other_requests(run: &RunOutcome, out: &mut String) {
    let mut helpers: Vec<String> = run
        .requests
        .iter()
        .filter_map(|r| match &r.kind {
            RequestKind::Main(_) | RequestKind::Agent { .. } => None,
            RequestKind::Side(why) => Some(format!("{} {} ({why})", r.method, r.path)),
            RequestKind::Other => Some(format!("{} {}", r.method, r.path)),
        })
        .collect();
    helpers.sort();
    helpers.dedup();
    if run.network == crate::scenario::Network::Isolated {
        // A first-party session's start-up calls and side requests run in the background; which
        // of them arrive before the target exits is timing (they stay in the record).
        helpers = vec!["not traced in an isolated run (see the record)".into()];
    }
    writeln!(
        out,
        "other requests: {}",
        if helpers.is_empty() {
            "none".into()
        } else {
            helpers.join(", ")
        }
    )
    .unwrap();
}

/// The main loop's conversation, then each second loop's, in the order the loops first asked.
pub(super) fn loops(run: &RunOutcome, prompt: &str, out: &mut String) {
    let requests: Vec<&RecordedRequest> = run
        .requests
        .iter()
        .filter(|r| r.main_index().is_some())
        .collect();
    conversation(run, "request", &requests, prompt, out);
    // Each second loop as a conversation of its own, in the order the loops first asked.
    let mut labels: Vec<&str> = Vec::new();
    for r in &run.requests {
        if let RequestKind::Agent { agent, .. } = &r.kind {
            if !labels.contains(&agent.as_str()) {
                labels.push(agent);
            }
        }
    }
    for label in labels {
        let loop_requests: Vec<&RecordedRequest> = run
            .requests
            .iter()
            .filter(|r| matches!(&r.kind, RequestKind::Agent { agent, .. } if agent == label))
            .collect();
        conversation(
            run,
            &format!("agent `{label}` request"),
            &loop_requests,
            prompt,
            out,
        );
    }
}

/// The tool schemas of request 1, as signatures.
pub(super) fn tool_schemas(run: &RunOutcome, out: &mut String) {
    let first = run.requests.iter().find(|r| r.main_index().is_some());
    if let Some(first) = first {
        writeln!(out, "tool schemas (request 1):").unwrap();
        for tool in first.body["tools"].as_array().into_iter().flatten() {
            writeln!(out, "  {}", signature(tool)).unwrap();
        }
    }
}

/// One loop's requests: tools, the system shape of the first, and each message not already shown
/// by the request before.
fn conversation(
    run: &RunOutcome,
    title: &str,
    requests: &[&RecordedRequest],
    prompt: &str,
    out: &mut String,
) {
    let mut previous: Option<(Vec<String>, &[Value])> = None;
    let mut previous_body: Vec<String> = Vec::new();
    for (i, recorded) in requests.iter().enumerate() {
        let body = &recorded.body;
        let request = Request(body);
        writeln!(out, "{title} {}:", i + 1).unwrap();
        let tools = request.tool_labels();
        match &previous {
            Some((prev_tools, _)) if *prev_tools == tools => {
                writeln!(out, "  tools: as {title} {i}").unwrap()
            }
            _ => writeln!(out, "  tools: {}", tools.join(", ")).unwrap(),
        }
        if let Some(system) = body.get("system").filter(|_| i == 0) {
            writeln!(out, "  system: {}", system_shape(system)).unwrap();
        }
        // The request line, the betas and each body key on a line of its own; from the second
        // request on, only those that changed.
        let mut shape = vec![
            format!("{} {}", recorded.method, recorded.path),
            format!(
                "betas: {}",
                recorded
                    .headers
                    .get("anthropic-beta")
                    .map_or("none", String::as_str)
            ),
        ];
        // A body key may carry the run's own paths (2.1.332's safeguards name the cwd and HOME).
        shape.extend(
            body_shape(body)
                .iter()
                .map(|l| super::redact::paths(run, l)),
        );
        for line in &shape {
            if !previous_body.contains(line) {
                writeln!(out, "  {line}").unwrap();
            }
        }
        previous_body = shape;
        let messages = request.messages();
        let skip = match &previous {
            Some((_, prev))
                if messages.len() >= prev.len() && same_history(&messages[..prev.len()], prev) =>
            {
                writeln!(out, "  messages 1-{} as {title} {i}", prev.len()).unwrap();
                prev.len()
            }
            _ => 0,
        };
        let mut tool_uses: Vec<&str> = Vec::new();
        for (m, message) in messages.iter().enumerate() {
            let role = message["role"].as_str().unwrap_or("?");
            let mut blocks = wire::blocks(message);
            blocks.retain(|b| !lands_anywhere(b));
            if role == "assistant" {
                tool_uses = blocks.iter().filter_map(|b| b["id"].as_str()).collect();
            } else {
                // The real binary lists parallel results as they complete; order them by their
                // tool_use so a race does not change the trace (`pairing` checks the answer set).
                blocks.sort_by_key(|b| {
                    let id = b["tool_use_id"].as_str();
                    tool_uses
                        .iter()
                        .position(|u| Some(*u) == id)
                        .unwrap_or(usize::MAX)
                });
            }
            if m < skip {
                continue;
            }
            let mut rendered: Vec<String> = blocks.iter().map(|b| block(run, b, prompt)).collect();
            let appended = blocks
                .iter()
                .flat_map(|b| wire::split_appended_reminder(b["content"].as_str().unwrap_or("")).1)
                .filter(|note| crate::reminders::kind(note) != Some(LANDS_ANYWHERE));
            for note in appended {
                rendered.push(format!(
                    "{} appended to the last result",
                    crate::reminders::label(&redact(run, note))
                ));
            }
            writeln!(out, "  {role}: {}", rendered.join(" | ")).unwrap();
        }
        previous = Some((tools, messages));
    }
    let told = requests.iter().any(|r| {
        r.body
            .to_string()
            .contains(crate::reminders::UNAVAILABLE_PHRASE)
    });
    if told {
        writeln!(
            out,
            "  the model was told an MCP server failed to connect (where depends on when it failed)"
        )
        .unwrap();
    }
}

/// 2.1.332's note that an MCP server failed to connect goes with whichever message follows the
/// failure (the first one, or a tool's result when the connection took longer), so where it lands
/// is the scheduler's: it is left out of the messages and told once, after them.
const LANDS_ANYWHERE: &str = "mcp-unavailable";

fn lands_anywhere(b: &Value) -> bool {
    b["text"].as_str().is_some_and(|t| {
        t.trim_start().starts_with("<system-reminder>")
            && crate::reminders::kind(t) == Some(LANDS_ANYWHERE)
    })
}

/// The system blocks in order: what each is (the billing header, which carries a per-build hash,
/// is a protocol line; every other block is prose) and whether it marks a cache breakpoint. Never
/// the text.
fn system_shape(system: &Value) -> String {
    let Value::Array(blocks) = system else {
        return if system.is_string() {
            "a string".into()
        } else {
            "other".into()
        };
    };
    let shapes: Vec<String> = blocks
        .iter()
        .map(|b| {
            let text = b["text"].as_str().unwrap_or("");
            let what = if text.starts_with("x-anthropic-billing-header:") {
                "billing-header"
            } else {
                "text"
            };
            match b.get("cache_control") {
                Some(c) => format!("{what} cached({})", keys_and_values(c)),
                None => what.to_owned(),
            }
        })
        .collect();
    format!("{} blocks: {}", blocks.len(), shapes.join(", "))
}

/// A request body without its messages, system and tools (traced on their own lines): a line per
/// top-level key with its value, `metadata.user_id` (a JSON string of ids) by its keys.
fn body_shape(body: &Value) -> Vec<String> {
    if !body.is_object() {
        return vec!["body: not an object".into()];
    }
    sorted_entries(body)
        .into_iter()
        .filter(|(k, _)| !matches!(*k, "messages" | "system" | "tools"))
        .map(|(k, v)| {
            let mut v = v.clone();
            if let Some(id) = v.get_mut("user_id").filter(|_| k == "metadata") {
                *id = user_id_shape(id);
            }
            format!("body {k}: {}", keys_and_values(&v))
        })
        .collect()
}

/// `metadata.user_id`: the keys of the JSON it holds, and which of them are empty.
fn user_id_shape(id: &Value) -> Value {
    match id.as_str().map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Object(ids))) => Value::String(
            ids.iter()
                .map(|(k, v)| {
                    if v.as_str() == Some("") {
                        format!("{k}=\"\"")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Some(_) => Value::String("a string".into()),
        None => Value::String(json_type(id).into()),
    }
}

/// Histories compared without `cache_control`, whose breakpoint moves to the newest message.
fn same_history(a: &[Value], b: &[Value]) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| *k != "cache_control")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| strip(x) == strip(y))
}

fn block(run: &RunOutcome, b: &Value, prompt: &str) -> String {
    match b["type"].as_str() {
        Some("text") | None => {
            let t = b["text"].as_str().or(b.as_str()).unwrap_or("");
            if t == run.places.expand(prompt) {
                "text(prompt)".into()
            } else if t.trim_start().starts_with("<system-reminder>") {
                crate::reminders::label(&redact(run, t))
            } else if let Some(kind) = crate::reminders::prose_kind(t) {
                // Each target's own words: traced by kind, so their lengths are no difference.
                format!("text({kind})")
            } else {
                format!("text {}", text(run, t))
            }
        }
        Some("tool_use") => format!(
            "tool_use {} {}",
            b["id"].as_str().unwrap_or("?"),
            b["name"].as_str().unwrap_or("?")
        ),
        Some("tool_result") => {
            let mut line = format!(
                "tool_result {} {} {}",
                b["tool_use_id"].as_str().unwrap_or("?"),
                if wire::is_error(b) { "error" } else { "ok" },
                text(run, &wire::tool_result_own_text(b))
            );
            // Pictures in the result as their summaries, never their base64.
            let media = crate::media::in_result(b);
            if !media.is_empty() {
                write!(line, " [{}]", media.join(", ")).unwrap();
            }
            line
        }
        Some(other) => crate::media::summarize(b)
            .map(|m| format!("{other}({m})"))
            .unwrap_or_else(|| other.to_owned()),
    }
}
