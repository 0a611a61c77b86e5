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
    /// Hold the answer until this event of the run has happened (an MCP refresh answered, a
    /// second loop's request arrived, a line printed): how a scenario orders a race.
    #[serde(default)]
    pub after: Option<crate::cues::After>,
    /// Hold the answer's end (its `message_delta` and `message_stop`, every content block already
    /// sent) until this event has happened: a target that starts a tool while its answer still
    /// streams is seen doing so every time, not when the scheduler happens to let it.
    #[serde(default)]
    pub end_after: Option<crate::cues::After>,
    /// Wait this long before answering: a model that takes its time, when the time itself is
    /// what the scenario is about (a timeout). A race is ordered by `after`, not by this.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// The request's size as the API reports it (`usage.input_tokens`), 10 when absent: how a
    /// scenario brings a conversation near the model's context window without sending one.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Played only for the targets this key names (`claude@>=2.1.332`): an answer to a request
    /// only some versions make (a summary where others refuse to compact). The stub never reads
    /// it; the harness leaves the turn out of other targets' scripts. `reason` says why.
    #[serde(default)]
    pub only: Option<String>,
    /// Left out of the scripts of the targets this key names: a request they do not make (a
    /// version that stops before it). With `reason`, never with `only`.
    #[serde(default)]
    pub except: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
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
    /// A tool the API runs itself (`web_search`): its input streams like a tool_use's.
    ServerToolUse {
        id: String,
        #[serde(default = "web_search")]
        name: String,
        input: Value,
    },
    /// What the API's search found for a `server_tool_use`, or its error.
    WebSearchToolResult(WebSearchResult),
}

fn web_search() -> String {
    "web_search".into()
}

/// A `web_search_tool_result` block: hits (`[[…result]]`) or an `error_code`, never both.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(try_from = "RawWebSearchResult")]
pub struct WebSearchResult {
    pub tool_use_id: String,
    pub outcome: SearchOutcome,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SearchOutcome {
    Hits(Vec<SearchHit>),
    /// A `web_search_tool_result_error` code (`max_uses_exceeded`, `unavailable`, …).
    Error(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWebSearchResult {
    tool_use_id: String,
    #[serde(default, rename = "result")]
    results: Vec<SearchHit>,
    #[serde(default)]
    error_code: Option<String>,
}

impl TryFrom<RawWebSearchResult> for WebSearchResult {
    type Error = String;
    fn try_from(raw: RawWebSearchResult) -> Result<Self, String> {
        let outcome = match raw.error_code {
            Some(_) if !raw.results.is_empty() => {
                return Err(format!(
                    "web_search_tool_result `{}`: `error_code` and `result` exclude each other",
                    raw.tool_use_id
                ))
            }
            Some(code) => SearchOutcome::Error(code),
            None => SearchOutcome::Hits(raw.results),
        };
        Ok(WebSearchResult {
            tool_use_id: raw.tool_use_id,
            outcome,
        })
    }
}

/// One `web_search_result`. The API always sends an opaque `encrypted_content` and a
/// `page_age` (possibly null); the stub makes up a stand-in when the scenario gives none.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SearchHit {
    pub title: String,
    pub url: String,
    #[serde(default)]
    pub encrypted_content: Option<String>,
    #[serde(default)]
    pub page_age: Option<String>,
}

impl WebSearchResult {
    /// The block's `content`: an array of hits, or the error object.
    pub fn content_json(&self) -> Value {
        match &self.outcome {
            SearchOutcome::Hits(hits) => hits
                .iter()
                .enumerate()
                .map(|(i, hit)| {
                    serde_json::json!({
                        "type": "web_search_result",
                        "title": hit.title,
                        "url": hit.url,
                        "encrypted_content": hit.encrypted_content.clone()
                            .unwrap_or_else(|| format!("stub-encrypted-{}-{i}", self.tool_use_id)),
                        "page_age": hit.page_age,
                    })
                })
                .collect(),
            SearchOutcome::Error(code) => serde_json::json!({
                "type": "web_search_tool_result_error",
                "error_code": code,
            }),
        }
    }
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
            "usage": self.final_usage(),
        })
    }

    /// What the API reports the request measured.
    pub fn input_tokens(&self) -> u64 {
        self.input_tokens.unwrap_or(10)
    }

    /// A deterministic stand-in for token counts: one token per four bytes of content.
    pub fn output_tokens(&self) -> u64 {
        let bytes: usize = self
            .content()
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.len(),
                Block::ToolUse { input, name, .. } | Block::ServerToolUse { input, name, .. } => {
                    name.len() + input.to_string().len()
                }
                // Results are the API's own input to the model, not output.
                Block::WebSearchToolResult(_) => 0,
            })
            .sum();
        (bytes as u64).div_ceil(4).max(1)
    }

    /// How many searches the API ran for this turn (its `server_tool_use` blocks), as the usage's
    /// `server_tool_use.web_search_requests` reports them.
    pub fn web_search_requests(&self) -> u64 {
        self.blocks
            .iter()
            .filter(|b| matches!(b, Block::ServerToolUse { name, .. } if name == "web_search"))
            .count() as u64
    }

    /// The final usage: with the search count when the API searched, as it reports it.
    pub fn final_usage(&self) -> Value {
        let mut usage = usage(self.input_tokens(), self.output_tokens());
        let searches = self.web_search_requests();
        if searches > 0 {
            usage["server_tool_use"] = serde_json::json!({"web_search_requests": searches});
        }
        usage
    }
}

impl Block {
    pub fn to_json(&self) -> Value {
        match self {
            Block::Text { text } => serde_json::json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                serde_json::json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            Block::ServerToolUse { id, name, input } => {
                serde_json::json!({"type": "server_tool_use", "id": id, "name": name, "input": input})
            }
            Block::WebSearchToolResult(result) => serde_json::json!({
                "type": "web_search_tool_result",
                "tool_use_id": result.tool_use_id,
                "content": result.content_json(),
            }),
        }
    }
}

pub(crate) fn usage(input_tokens: u64, output_tokens: u64) -> Value {
    serde_json::json!({
        "input_tokens": input_tokens,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml_text: &str) -> Result<Turn, String> {
        toml::from_str(toml_text).map_err(|e| e.to_string())
    }

    #[test]
    fn search_blocks_read_from_a_scenario() {
        let turn = parse(
            r#"
[[block]]
type = "server_tool_use"
id = "srvtoolu_1"
input = { query = "q" }
[[block]]
type = "web_search_tool_result"
tool_use_id = "srvtoolu_1"
[[block.result]]
title = "T"
url = "https://a.example/"
[[block]]
type = "web_search_tool_result"
tool_use_id = "srvtoolu_2"
error_code = "unavailable"
"#,
        )
        .unwrap();
        assert_eq!(
            turn.blocks[0],
            Block::ServerToolUse {
                id: "srvtoolu_1".into(),
                name: "web_search".into(),
                input: serde_json::json!({"query": "q"}),
            }
        );
        let Block::WebSearchToolResult(hits) = &turn.blocks[1] else {
            panic!("{:?}", turn.blocks[1]);
        };
        assert!(matches!(&hits.outcome, SearchOutcome::Hits(h) if h.len() == 1));
        let Block::WebSearchToolResult(error) = &turn.blocks[2] else {
            panic!("{:?}", turn.blocks[2]);
        };
        assert_eq!(error.outcome, SearchOutcome::Error("unavailable".into()));
        assert_eq!(turn.stop_reason(), "end_turn");
        assert_eq!(turn.web_search_requests(), 1);
    }

    #[test]
    fn hits_and_an_error_code_together_are_refused_by_name() {
        let err = parse(
            r#"
[[block]]
type = "web_search_tool_result"
tool_use_id = "srvtoolu_9"
error_code = "unavailable"
[[block.result]]
title = "T"
url = "https://a.example/"
"#,
        )
        .unwrap_err();
        assert!(err.contains("srvtoolu_9"), "{err}");
        assert!(err.contains("exclude each other"), "{err}");
    }

    #[test]
    fn an_unknown_key_in_a_search_result_is_refused() {
        let err = parse(
            r#"
[[block]]
type = "web_search_tool_result"
tool_use_id = "srvtoolu_1"
errorcode = "unavailable"
"#,
        )
        .unwrap_err();
        assert!(err.contains("errorcode"), "{err}");
    }
}
