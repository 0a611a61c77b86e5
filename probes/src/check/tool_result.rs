//! What came back to the model for its tool calls: one result, the media around it, and the
//! pairing of every tool_use with exactly one result.

use serde_json::Value;

use super::expect::{field_eq, text_expectations};
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;
use crate::wire::{self, Request};

/// `tool_result`: the result that answered `tool_use_id`, in the first request carrying it.
pub(super) fn tool_result(
    spec: &CheckSpec,
    run: &RunOutcome,
    requests: &[&Value],
) -> Result<(), String> {
    let id = spec.tool_use_id.as_deref().unwrap_or_default();
    let found = requests.iter().enumerate().find_map(|(i, body)| {
        Request(body)
            .tool_results()
            .into_iter()
            .find(|(_, b)| b["tool_use_id"] == id)
            .map(|(_, b)| (i + 1, b))
    });
    // `absent`: the call never got a result (a target that stopped before running it).
    if spec.absent == Some(true) {
        return match found {
            None => Ok(()),
            Some((n, _)) => Err(format!(
                "request {n} carries a tool_result for `{id}`; none was expected"
            )),
        };
    }
    let (n, block) = found.ok_or_else(|| {
        format!(
            "no tool_result for `{id}` in any of {} requests",
            requests.len()
        )
    })?;
    if let Some(want) = spec.request {
        field_eq("first request carrying it", want, n)?;
    }
    if let Some(is_error) = spec.is_error {
        field_eq("is_error", is_error, wire::is_error(block)).map_err(|e| {
            format!(
                "{e}\n  content: {}",
                run.places.redact(&wire::tool_result_own_text(block))
            )
        })?;
    }
    text_expectations(spec, &run.places.redact(&wire::tool_result_own_text(block)))
}

/// `media`: what the result brought the model besides its text (pictures, blocks after it).
pub(super) fn media(spec: &CheckSpec, run: &RunOutcome, requests: &[&Value]) -> Result<(), String> {
    let id = spec.tool_use_id.as_deref().unwrap_or_default();
    let seen = requests.iter().find_map(|body| {
        Request(body)
            .messages()
            .iter()
            .find_map(|message| crate::media::around_result(&wire::blocks(message), id))
    });
    let seen = seen.ok_or_else(|| {
        format!(
            "no tool_result for `{id}` in any of {} requests",
            requests.len()
        )
    })?;
    text_expectations(spec, &run.places.redact(&seen))
}

/// `pairing`: every assistant tool_use in request k+1's history is answered, exactly once each, in the user
/// message right after it, and that message answers nothing else.
pub(super) fn pairing(requests: &[&Value]) -> Result<(), String> {
    let mut pairs = 0;
    for (i, body) in requests.iter().enumerate() {
        let messages = Request(body).messages();
        for (m, message) in messages.iter().enumerate() {
            if message["role"] != "assistant" {
                continue;
            }
            let uses: Vec<&str> = wire::blocks(message)
                .into_iter()
                .filter(|b| b["type"] == "tool_use")
                .filter_map(|b| b["id"].as_str())
                .collect();
            if uses.is_empty() {
                continue;
            }
            let next = messages.get(m + 1).ok_or_else(|| {
                format!("request {}: tool_use {uses:?} is the last message, with no tool_result after it", i + 1)
            })?;
            let answered: Vec<&str> = wire::blocks(next)
                .into_iter()
                .filter(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect();
            let mut sorted_uses = uses.clone();
            sorted_uses.sort_unstable();
            let mut sorted_answered = answered.clone();
            sorted_answered.sort_unstable();
            if next["role"] != "user" || sorted_uses != sorted_answered {
                return Err(format!(
                    "request {}, message {}: tool_use ids {uses:?} answered in the next message by {answered:?}",
                    i + 1,
                    m + 1
                ));
            }
            pairs += uses.len();
        }
    }
    if pairs == 0 {
        return Err("no tool_use was sent in any request, so pairing was never exercised".into());
    }
    Ok(())
}
