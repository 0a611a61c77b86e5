//! Assembling a streamed assistant message from Messages API events, `input_json_delta` pieces
//! included; each content block is handed out the moment its `content_block_stop` arrives.

use serde_json::{json, Map, Value};

use super::error::ApiError;

/// The message as far as it has streamed.
#[derive(Debug, Default, Clone)]
pub struct Message {
    pub id: String,
    pub model: String,
    /// `usage` of `message_start`, as the stream-json assistant events repeat it.
    pub start_usage: Value,
    pub content: Vec<Value>,
    pub stop_reason: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// Searches the API's server tool ran for this answer (`server_tool_use.web_search_requests`).
    pub web_search_requests: u64,
}

#[derive(Debug, Default)]
pub struct Assembler {
    pub message: Message,
    /// Blocks under construction by index; tool inputs as their raw JSON text so far. A map, not
    /// a vector: an index is the server's number, and one of 10^11 must not allocate 10^11 slots
    /// (found by the sse_decoder fuzz target's replay).
    open: std::collections::BTreeMap<usize, (Value, String)>,
    pub finished: bool,
}

/// What one event produced.
pub enum Step {
    Nothing,
    /// A content block completed (its index in `content`).
    Block(usize),
    Done,
}

impl Assembler {
    pub fn event(&mut self, name: &str, data: &str) -> Result<Step, ApiError> {
        self.apply(name, &Self::parse(name, data)?)
    }

    /// A server-sent event's data as JSON (a stream that sends anything else is broken).
    pub fn parse(name: &str, data: &str) -> Result<Value, ApiError> {
        serde_json::from_str(data).map_err(|e| ApiError::Protocol(format!("bad {name} event: {e}")))
    }

    /// Takes in one event, already parsed (its data also goes to `--include-partial-messages`).
    pub fn apply(&mut self, name: &str, v: &Value) -> Result<Step, ApiError> {
        match v["type"].as_str().unwrap_or(name) {
            "message_start" => {
                let m = &v["message"];
                self.message.id = m["id"].as_str().unwrap_or_default().to_owned();
                self.message.model = m["model"].as_str().unwrap_or_default().to_owned();
                self.message.start_usage = m["usage"].clone();
                self.add_usage(&m["usage"]);
                Ok(Step::Nothing)
            }
            "content_block_start" => {
                let index = v["index"].as_u64().unwrap_or(0) as usize;
                self.open
                    .insert(index, (v["content_block"].clone(), String::new()));
                Ok(Step::Nothing)
            }
            "content_block_delta" => {
                let index = v["index"].as_u64().unwrap_or(0) as usize;
                let Some((block, json)) = self.open.get_mut(&index) else {
                    return Err(ApiError::Protocol(format!(
                        "delta for unopened block {index}"
                    )));
                };
                let delta = &v["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let text = block["text"].as_str().unwrap_or_default().to_owned()
                            + delta["text"].as_str().unwrap_or_default();
                        block["text"] = Value::String(text);
                    }
                    Some("input_json_delta") => {
                        json.push_str(delta["partial_json"].as_str().unwrap_or_default())
                    }
                    _ => {}
                }
                Ok(Step::Nothing)
            }
            "content_block_stop" => {
                let index = v["index"].as_u64().unwrap_or(0) as usize;
                let Some((mut block, json)) = self.open.remove(&index) else {
                    return Err(ApiError::Protocol(format!(
                        "stop for unopened block {index}"
                    )));
                };
                // A server tool's input (web_search's query) streams as a tool_use's does.
                if block["type"] == "tool_use" || block["type"] == "server_tool_use" {
                    let input = if json.trim().is_empty() {
                        Value::Object(Map::new())
                    } else {
                        serde_json::from_str(&json).map_err(|e| {
                            ApiError::Protocol(format!("tool input is not JSON: {e}"))
                        })?
                    };
                    block["input"] = input;
                }
                self.message.content.push(block);
                Ok(Step::Block(self.message.content.len() - 1))
            }
            "message_delta" => {
                if let Some(reason) = v["delta"]["stop_reason"].as_str() {
                    self.message.stop_reason = Some(reason.to_owned());
                }
                if let Some(out) = v["usage"]["output_tokens"].as_u64() {
                    self.message.output_tokens = out;
                }
                if let Some(n) = v["usage"]["server_tool_use"]["web_search_requests"].as_u64() {
                    self.message.web_search_requests = n;
                }
                Ok(Step::Nothing)
            }
            "message_stop" => {
                self.finished = true;
                Ok(Step::Done)
            }
            "error" => Err(ApiError::from_body(0, v, None, None)),
            _ => Ok(Step::Nothing),
        }
    }

    fn add_usage(&mut self, usage: &Value) {
        let n = |k: &str| usage[k].as_u64().unwrap_or(0);
        self.message.input_tokens = n("input_tokens");
        self.message.output_tokens = n("output_tokens");
        self.message.cache_creation_input_tokens = n("cache_creation_input_tokens");
        self.message.cache_read_input_tokens = n("cache_read_input_tokens");
        self.message.web_search_requests = usage["server_tool_use"]["web_search_requests"]
            .as_u64()
            .unwrap_or(0);
    }

    /// A whole non-streaming response body as a finished message.
    pub fn from_json(v: &Value) -> Message {
        let mut a = Assembler::default();
        a.message.id = v["id"].as_str().unwrap_or_default().to_owned();
        a.message.model = v["model"].as_str().unwrap_or_default().to_owned();
        a.add_usage(&v["usage"]);
        a.message.start_usage = v["usage"].clone();
        a.message.content = v["content"].as_array().cloned().unwrap_or_default();
        a.message.stop_reason = v["stop_reason"].as_str().map(str::to_owned);
        a.message
    }
}

impl Message {
    pub fn tool_uses(&self) -> impl Iterator<Item = &Value> {
        self.content.iter().filter(|b| b["type"] == "tool_use")
    }

    /// The message as it goes back into the conversation history.
    pub fn as_history(&self) -> Value {
        json!({"role": "assistant", "content": self.content})
    }

    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("")
    }
}

/// A whole SSE body, delivered in `chunks`, as the finished message: what the client does with a
/// stream, without the socket (for tests and benchmarks).
pub fn assemble_chunks(chunks: &[&[u8]]) -> Result<Message, ApiError> {
    let mut decoder = super::sse::SseDecoder::new();
    let mut assembler = Assembler::default();
    let mut frames = Vec::new();
    for chunk in chunks {
        decoder.push(chunk, &mut frames);
        for frame in frames.drain(..) {
            if let Step::Done = assembler.event(&frame.event, &frame.data)? {
                return Ok(assembler.message);
            }
        }
    }
    Err(ApiError::StreamCut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_index_is_a_name_not_a_size() {
        let stream = b"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":99999999999,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":99999999999,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":99999999999}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let message = assemble_chunks(&[stream]).unwrap();
        assert_eq!(
            message.content,
            vec![serde_json::json!({"type": "text", "text": "hi"})]
        );
    }
}
