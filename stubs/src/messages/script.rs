//! What a scenario scripts for the Messages API: assistant turns, HTTP errors and cut streams.

use serde::Deserialize;
use serde_json::Value;

/// One scripted answer to one main-loop request.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Shorthand for a turn made of a single text block.
    #[serde(default)]
    pub text: Option<String>,
    /// Content blocks, in order (after `text`, when both are given).
    #[serde(default, rename = "block")]
    pub blocks: Vec<Block>,
    /// Defaults to `tool_use` when a tool_use block is present, else `end_turn`.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Answer with an HTTP error instead of a message.
    #[serde(default)]
    pub error: Option<HttpError>,
    /// Close the connection after this many SSE events, mid-message.
    #[serde(default)]
    pub cut_after_events: Option<usize>,
    /// Files the stub rewrites when the request this turn answers arrives, before answering: the
    /// world changing between two tool calls (e.g. a file edited after the agent read it).
    #[serde(default)]
    pub touch: Vec<FileWrite>,
    /// Wait this long before answering: a model that takes its time, so work the agent started
    /// in the background (an MCP refresh) settles before the next request.
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

/// A second agent loop (a subagent, a workflow's `agent()` call): the requests whose first user
/// message contains `matches` belong to it and are answered from its own turns, in its own order.
/// Loops run concurrently, so arrival order across loops means nothing; content says which loop.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentScript {
    /// How traces and errors name the loop; `matches` when absent.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(rename = "match")]
    pub matches: String,
    #[serde(default, rename = "turn")]
    pub turns: Vec<Turn>,
}

impl AgentScript {
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.matches)
    }
}

/// A file write performed by the stub; the path is absolute by the time the stub sees it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileWrite {
    pub path: String,
    pub content: String,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

/// An HTTP error answer with Anthropic's error body.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HttpError {
    pub status: u16,
    /// The `error.type` of the body; derived from the status when absent.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    /// Sent as a `retry-after` header (seconds).
    #[serde(default)]
    pub retry_after: Option<u64>,
}

impl HttpError {
    pub fn error_type(&self) -> &str {
        if let Some(kind) = &self.kind {
            return kind;
        }
        match self.status {
            400 => "invalid_request_error",
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            _ => "api_error",
        }
    }

    /// Anthropic's error body: `{"type":"error","error":{"type":…,"message":…}}`.
    pub fn body(&self) -> Value {
        serde_json::json!({
            "type": "error",
            "error": {
                "type": self.error_type(),
                "message": self.message.clone().unwrap_or_else(|| format!("scripted {} error", self.status)),
            }
        })
    }
}

impl Turn {
    /// The content blocks in wire order.
    pub fn content(&self) -> Vec<Block> {
        let mut blocks = Vec::with_capacity(self.blocks.len() + 1);
        if let Some(text) = &self.text {
            blocks.push(Block::Text { text: text.clone() });
        }
        blocks.extend(self.blocks.iter().cloned());
        blocks
    }

    pub fn stop_reason(&self) -> String {
        if let Some(reason) = &self.stop_reason {
            return reason.clone();
        }
        let uses_tool = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        if uses_tool { "tool_use" } else { "end_turn" }.to_owned()
    }

    /// The whole message as the non-streaming API returns it.
    pub fn message_json(&self, id: &str, model: &str) -> Value {
        let content: Vec<Value> = self.content().iter().map(Block::to_json).collect();
        serde_json::json!({
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": self.stop_reason(),
            "stop_sequence": null,
            "usage": usage(self.output_tokens()),
        })
    }

    /// A deterministic stand-in for token counts: one token per four bytes of content.
    pub fn output_tokens(&self) -> u64 {
        let bytes: usize = self
            .content()
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.len(),
                Block::ToolUse { input, name, .. } => name.len() + input.to_string().len(),
            })
            .sum();
        (bytes as u64).div_ceil(4).max(1)
    }
}

impl Block {
    pub fn to_json(&self) -> Value {
        match self {
            Block::Text { text } => serde_json::json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                serde_json::json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        }
    }
}

pub(crate) fn usage(output_tokens: u64) -> Value {
    serde_json::json!({
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    })
}

/// How the stub cuts an SSE body into transport chunks. The same turn served any way must give the
/// same trace (`core.sse-split`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Split {
    #[default]
    Whole,
    EveryByte,
    /// Chunks of pseudo-random length 1..=64 from this seed.
    Random(u64),
}

impl std::str::FromStr for Split {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "whole" => Ok(Split::Whole),
            "every-byte" => Ok(Split::EveryByte),
            _ => s
                .strip_prefix("random:")
                .and_then(|seed| seed.parse().ok())
                .map(Split::Random)
                .ok_or_else(|| {
                    format!("unknown split `{s}`: expected whole, every-byte or random:SEED")
                }),
        }
    }
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Split::Whole => f.write_str("whole"),
            Split::EveryByte => f.write_str("every-byte"),
            Split::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}
