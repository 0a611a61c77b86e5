//! The Messages requests a loop sent: how many, the tools each offered and how one was defined,
//! the system prompt and the context that opened the conversation.

use serde_json::Value;

use super::expect::{expected_seen, list_diff, membership, text_diff, text_expectations};
use super::json::subset;
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;
use crate::wire::{self, Request};

/// `requests`: how many the loop sent (`equals`), a JSON subset of one body (`matches`), or a
/// text its messages carry (`contains`, `not_contains`).
pub(super) fn requests(spec: &CheckSpec, requests: &[&Value]) -> Result<(), String> {
    if let Some(want) = &spec.matches {
        let (n, body) = nth(spec, requests)?;
        subset(want, body, &format!("request {n}"))?;
    }
    if spec.contains.is_some() || spec.not_contains.is_some() {
        let (n, body) = nth(spec, requests)?;
        text_expectations(spec, &wire::string_leaves(&body["messages"]))
            .map_err(|e| format!("request {n}: {e}"))?;
    }
    let Some(want) = spec.equals.as_ref().and_then(Value::as_i64) else {
        return Ok(());
    };
    if requests.len() as i64 == want {
        Ok(())
    } else {
        Err(expected_seen(want, requests.len()))
    }
}

/// `betas`: the names in one main-loop request's `anthropic-beta` header (request 1 unless
/// `request` says otherwise; a sub-agent's requests are not this check's).
pub(super) fn betas(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let n = spec.request.unwrap_or(1);
    let record = run
        .requests
        .iter()
        .filter(|r| r.main_index().is_some())
        .nth(n.saturating_sub(1))
        .ok_or_else(|| format!("no main-loop request {n}"))?;
    let names: Vec<&str> = record
        .headers
        .get("anthropic-beta")
        .map(|h| h.split(',').map(str::trim).collect())
        .unwrap_or_default();
    membership(
        spec,
        |want| names.contains(&want),
        |want| format!("request {n} does not ask for beta `{want}`\n  seen: {names:?}"),
        |unwanted| format!("request {n} asks for beta `{unwanted}`\n  seen: {names:?}"),
    )
}

/// `tools`: the names in `tools[]` of one request.
pub(super) fn tools(spec: &CheckSpec, requests: &[&Value]) -> Result<(), String> {
    let (n, request) = nth(spec, requests)?;
    let names = Request(request).tool_names();
    // A trailing `*` matches by prefix (`mcp__server__*`).
    let has = |pattern: &str| match pattern.strip_suffix('*') {
        Some(prefix) => names.iter().any(|n| n.starts_with(prefix)),
        None => names.contains(&pattern),
    };
    membership(
        spec,
        has,
        |want| format!("request {n} tools[] lacks `{want}`\n  seen: {names:?}"),
        |unwanted| format!("request {n} tools[] carries `{unwanted}`\n  seen: {names:?}"),
    )?;
    if let Some(order) = &spec.order {
        if names != order.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(list_diff(order, &names));
        }
    }
    Ok(())
}

/// `system`: the system prompt of one request, its blocks joined.
pub(super) fn system(
    spec: &CheckSpec,
    run: &RunOutcome,
    requests: &[&Value],
) -> Result<(), String> {
    let (_, request) = nth(spec, requests)?;
    text_expectations(spec, &run.places.redact(&Request(request).system_text()))
}

/// `user_context`: the text blocks of one request's first user message (the context sent with
/// the prompt, system reminders included), joined.
pub(super) fn user_context(
    spec: &CheckSpec,
    run: &RunOutcome,
    requests: &[&Value],
) -> Result<(), String> {
    let (_, request) = nth(spec, requests)?;
    let first = Request(request)
        .messages()
        .first()
        .cloned()
        .unwrap_or_default();
    let text: Vec<&str> = wire::blocks(&first)
        .into_iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    text_expectations(spec, &run.places.redact(&text.join("\n")))
}

/// `tool_def`: one tool of one request's `tools[]`: its properties, its schema whole or as a
/// subset, its description.
pub(super) fn tool_def(spec: &CheckSpec, requests: &[&Value]) -> Result<(), String> {
    let (n, request) = nth(spec, requests)?;
    let request = Request(request);
    let name = spec.tool.as_deref().unwrap_or_default();
    let tool = request.tool(name).ok_or_else(|| {
        format!(
            "request {n} tools[] has no `{name}`\n  seen: {:?}",
            request.tool_names()
        )
    })?;
    let props: Vec<&str> = tool["input_schema"]["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    membership(
        spec,
        |p| props.contains(&p),
        |want| format!("`{name}` has no property `{want}`\n  properties: {props:?}"),
        |unwanted| format!("`{name}` has a property `{unwanted}`\n  properties: {props:?}"),
    )?;
    if let Some(want) = &spec.input_schema {
        if &tool["input_schema"] != want {
            return Err(text_diff(
                &serde_json::to_string_pretty(want).unwrap_or_default(),
                &serde_json::to_string_pretty(&tool["input_schema"]).unwrap_or_default(),
            ));
        }
    }
    if let Some(want) = &spec.matches {
        subset(want, &tool["input_schema"], "input_schema")?;
    }
    text_expectations(spec, tool["description"].as_str().unwrap_or_default())
}

/// The check's `request` (1-based, default 1) among `requests`, with its number.
fn nth<'a>(spec: &CheckSpec, requests: &[&'a Value]) -> Result<(usize, &'a Value), String> {
    let n = spec.request.unwrap_or(1);
    requests
        .get(n.wrapping_sub(1))
        .map(|body| (n, *body))
        .ok_or_else(|| format!("request {n} was never sent ({} sent)", requests.len()))
}
