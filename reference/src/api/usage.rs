//! Token totals over a run and what the result event reports of them.

use serde_json::{json, Value};

use crate::api::Message;

#[derive(Debug, Default, Clone, Copy)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
}

/// List prices in USD per million tokens (input, output) by model family.
fn prices(model: &str) -> (f64, f64) {
    // Recorded: core.parameter-coverage/agent-model (10 input and 3 output tokens cost
    // 0.000125 on opus-5, 0.00025 on fable-5).
    if model.starts_with("claude-opus-5") {
        (5.0, 25.0)
    } else if model.starts_with("claude-fable-5") {
        (10.0, 50.0)
    } else if model.contains("opus") {
        (15.0, 75.0)
    } else if model.contains("haiku") {
        (1.0, 5.0)
    } else {
        (3.0, 15.0)
    }
}

/// USD per search the API's server tool runs, the same for every model (2.1.235's cost tables).
const WEB_SEARCH_PRICE: f64 = 0.01;

/// One answer's cost, in 2.1.235's order of operations (each token count divided by a million,
/// then priced, then summed): floating point makes the order part of the value. Cache reads cost
/// a tenth of input, cache writes 1.25 times it.
pub fn request_cost(model: &str, m: &Message) -> f64 {
    let (i, o) = prices(model);
    m.input_tokens as f64 / 1e6 * i
        + m.output_tokens as f64 / 1e6 * o
        + m.cache_read_input_tokens as f64 / 1e6 * (i / 10.0)
        + m.cache_creation_input_tokens as f64 / 1e6 * (i * 1.25)
        + m.web_search_requests as f64 * WEB_SEARCH_PRICE
}

impl Usage {
    pub fn add(&mut self, m: &Message) {
        self.input += m.input_tokens;
        self.output += m.output_tokens;
        self.cache_creation += m.cache_creation_input_tokens;
        self.cache_read += m.cache_read_input_tokens;
    }

    pub fn cost(&self, model: &str) -> f64 {
        let (i, o) = prices(model);
        (self.input as f64 * i + self.output as f64 * o) / 1_000_000.0
    }

    pub fn json(&self) -> Value {
        json!({
            "input_tokens": self.input, "cache_creation_input_tokens": self.cache_creation,
            "cache_read_input_tokens": self.cache_read, "output_tokens": self.output,
            "output_tokens_details": {"thinking_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": self.cache_creation},
            "inference_geo": "", "iterations": [], "speed": "standard",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::assemble::Assembler;

    #[test]
    fn searches_the_api_ran_are_counted_and_priced() {
        let mut a = Assembler::default();
        a.event("message_start", r#"{"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":1000000,"output_tokens":0}}}"#).unwrap();
        a.event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":0,"server_tool_use":{"web_search_requests":2}}}"#).unwrap();
        assert_eq!(a.message.web_search_requests, 2);
        assert_eq!(
            request_cost("claude-sonnet-4-5", &a.message),
            3.0 + 2.0 * WEB_SEARCH_PRICE
        );
    }
}
