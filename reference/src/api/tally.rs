//! The session's token counts per model, over every Messages request the process makes (main
//! loop, agents, helper requests such as WebFetch's or the session title): 2.1.235 keeps one such
//! tally per process and the result event's `modelUsage` is its state, keyed by the model asked
//! for, in the order models were first used.

use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::Message;

#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct ModelTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
    /// Searches the API's server tool ran in answers to this model.
    pub web_searches: u64,
    /// The `max_tokens` the session asks of this model (its output ceiling).
    pub max_tokens: u64,
    /// Summed request by request in floating point, as 2.1.235 sums it, so `costUSD` carries the
    /// same rounding (`0.00007500000000000001`, not `0.000075`).
    pub cost: f64,
}

static TALLY: Mutex<Vec<(String, ModelTotals)>> = Mutex::new(Vec::new());

/// Counts one finished response to a request for `model`.
pub fn record(model: &str, max_tokens: u64, m: &Message) {
    let mut tally = TALLY.lock().unwrap_or_else(|e| e.into_inner());
    let at = match tally.iter().position(|(name, _)| name == model) {
        Some(at) => at,
        None => {
            tally.push((model.to_owned(), ModelTotals::default()));
            tally.len() - 1
        }
    };
    let t = &mut tally[at].1;
    t.input += m.input_tokens;
    t.output += m.output_tokens;
    t.cache_read += m.cache_read_input_tokens;
    t.cache_creation += m.cache_creation_input_tokens;
    t.web_searches += m.web_search_requests;
    t.max_tokens = max_tokens;
    t.cost += super::usage::request_cost(model, m);
}

/// Every model's context window in 2.1.235's `modelUsage` without the 1M option.
const CONTEXT_WINDOW: u64 = 200_000;
/// The window with the 1M-context beta.
const LONG_CONTEXT_WINDOW: u64 = 1_000_000;

/// The result event's `modelUsage`: the process's tally over every request so far (a held result
/// shows the tally as of its printing, as 2.1.235's does).
pub fn model_usage_now() -> Value {
    // With the 1M-context beta let through, the window reported is a million tokens (recorded:
    // sdk.invocation/betas).
    let window = if super::wire::get()
        .extra_betas
        .iter()
        .any(|b| b == "context-1m-2025-08-07")
    {
        LONG_CONTEXT_WINDOW
    } else {
        CONTEXT_WINDOW
    };
    model_usage(&snapshot(), window, |_, t| t.cost)
}

/// What every request of the process has cost so far, in USD (`--max-budget-usd` counts it).
pub fn total_cost() -> f64 {
    snapshot().iter().map(|(_, t)| t.cost).sum()
}

pub fn snapshot() -> Vec<(String, ModelTotals)> {
    TALLY.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A dated model id's family name (`claude-haiku-4-5-20251001` → `claude-haiku-4-5`; the 1M
/// mark off: `claude-opus-5[1m]` → `claude-opus-5`).
pub fn canonical(model: &str) -> &str {
    let model = model.strip_suffix("[1m]").unwrap_or(model);
    match model.rsplit_once('-') {
        Some((stem, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => model,
    }
}

/// The result event's `modelUsage`, with each model's cost from `cost(model, totals)`.
pub fn model_usage(
    tally: &[(String, ModelTotals)],
    context_window: u64,
    cost: impl Fn(&str, &ModelTotals) -> f64,
) -> Value {
    let provider = crate::environment::provider::current();
    let mut map = Map::new();
    for (model, t) in tally {
        map.insert(
            model.clone(),
            json!({
                "inputTokens": t.input, "outputTokens": t.output, "cacheReadInputTokens": t.cache_read,
                "cacheCreationInputTokens": t.cache_creation, "webSearchRequests": t.web_searches,
                "costUSD": cost(model, t),
                "contextWindow": if model.ends_with("[1m]") { LONG_CONTEXT_WINDOW } else { context_window },
                "maxOutputTokens": t.max_tokens, "canonicalModel": canonical(model), "provider": provider,
            }),
        );
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_ids_lose_their_date_only() {
        assert_eq!(canonical("claude-haiku-4-5-20251001"), "claude-haiku-4-5");
        assert_eq!(canonical("claude-sonnet-4-5"), "claude-sonnet-4-5");
        assert_eq!(canonical("claude-opus-5"), "claude-opus-5");
        assert_eq!(canonical("model-2025"), "model-2025");
    }

    #[test]
    fn models_keep_the_order_they_were_first_used_in() {
        let t = ModelTotals {
            input: 10,
            output: 2,
            max_tokens: 32_000,
            ..Default::default()
        };
        let tally = vec![
            ("claude-haiku-4-5-20251001".to_owned(), t),
            ("claude-sonnet-4-5".to_owned(), t),
        ];
        let usage = model_usage(&tally, 200_000, |_, t| t.input as f64);
        let keys: Vec<&String> = usage.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["claude-haiku-4-5-20251001", "claude-sonnet-4-5"]);
        let haiku = &usage["claude-haiku-4-5-20251001"];
        assert_eq!(haiku["canonicalModel"], "claude-haiku-4-5");
        assert_eq!(haiku["maxOutputTokens"], 32_000);
        assert_eq!(haiku["costUSD"], 10.0);
    }
}
