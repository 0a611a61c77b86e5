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
    if model.contains("opus") {
        (15.0, 75.0)
    } else if model.contains("haiku") {
        (1.0, 5.0)
    } else {
        (3.0, 15.0)
    }
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

    pub fn model_usage(&self, model: &str) -> Value {
        if self.input == 0 && self.output == 0 {
            return json!({});
        }
        json!({model: {
            "inputTokens": self.input, "outputTokens": self.output, "cacheReadInputTokens": self.cache_read,
            "cacheCreationInputTokens": self.cache_creation, "webSearchRequests": 0, "costUSD": self.cost(model),
            "contextWindow": 200_000, "maxOutputTokens": crate::limits::API_MAX_TOKENS.get(),
        }})
    }
}
