//! Encoding a scripted turn as the Messages API's server-sent events, and cutting the body into
//! transport chunks.

use serde_json::{json, Value};

use super::script::{usage, Block, Split, Turn};

/// One server-sent event: `event: <name>` and one `data:` line of JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub name: &'static str,
    pub data: Value,
}

impl SseEvent {
    pub fn to_bytes(&self) -> Vec<u8> {
        format!("event: {}\ndata: {}\n\n", self.name, self.data).into_bytes()
    }
}

/// How many `text_delta`s a text block and how many `input_json_delta`s a tool input is spread
/// over: several, so a client that does not assemble deltas is caught.
const DELTA_PIECES: usize = 3;

/// The event sequence the API sends for `turn`, pings interleaved.
pub fn encode_turn(turn: &Turn, message_id: &str, model: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut start = turn.message_json(message_id, model);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"] = usage(turn.input_tokens(), 1);
    events.push(SseEvent {
        name: "message_start",
        data: json!({"type": "message_start", "message": start}),
    });
    events.push(ping());
    for (index, block) in turn.content().iter().enumerate() {
        let (empty, deltas) = match block {
            Block::Text { text } => (
                json!({"type": "text", "text": ""}),
                pieces(text)
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect::<Vec<_>>(),
            ),
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                input_deltas(input),
            ),
            Block::ServerToolUse { id, name, input } => (
                json!({"type": "server_tool_use", "id": id, "name": name, "input": {}}),
                input_deltas(input),
            ),
            // A search result arrives whole in its start event; no deltas follow.
            Block::WebSearchToolResult(_) => (block.to_json(), Vec::new()),
        };
        events.push(SseEvent {
            name: "content_block_start",
            data: json!({"type": "content_block_start", "index": index, "content_block": empty}),
        });
        for delta in deltas {
            events.push(SseEvent {
                name: "content_block_delta",
                data: json!({"type": "content_block_delta", "index": index, "delta": delta}),
            });
        }
        events.push(SseEvent {
            name: "content_block_stop",
            data: json!({"type": "content_block_stop", "index": index}),
        });
        events.push(ping());
    }
    events.push(SseEvent {
        name: "message_delta",
        data: json!({
            "type": "message_delta",
            "delta": {"stop_reason": turn.stop_reason(), "stop_sequence": null},
            "usage": delta_usage(turn),
        }),
    });
    events.push(SseEvent {
        name: "message_stop",
        data: json!({"type": "message_stop"}),
    });
    events
}

/// `message_delta`'s usage: the output tokens, and the searches the API ran when it ran any.
fn delta_usage(turn: &Turn) -> Value {
    let mut usage = json!({"output_tokens": turn.output_tokens()});
    if let Some(searches) = turn.final_usage().get("server_tool_use") {
        usage["server_tool_use"] = searches.clone();
    }
    usage
}

fn input_deltas(input: &Value) -> Vec<Value> {
    pieces(&input.to_string())
        .into_iter()
        .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
        .collect()
}

fn ping() -> SseEvent {
    SseEvent {
        name: "ping",
        data: json!({"type": "ping"}),
    }
}

/// `s` cut into up to [`DELTA_PIECES`] non-empty pieces on char boundaries.
fn pieces(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return vec![];
    }
    let step = s.len().div_ceil(DELTA_PIECES).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < s.len() {
        let mut end = (start + step).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        out.push(&s[start..end]);
        start = end;
    }
    out
}

/// `body` cut into transport chunks as `split` says.
pub fn split_chunks(body: &[u8], split: Split) -> Vec<Vec<u8>> {
    match split {
        Split::Whole => vec![body.to_vec()],
        Split::EveryByte => body.iter().map(|b| vec![*b]).collect(),
        Split::Random(seed) => {
            // xorshift64*: deterministic per seed, no dependency needed for test-only randomness.
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut chunks = Vec::new();
            let mut rest = body;
            while !rest.is_empty() {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                let len = ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 58) as usize + 1)
                    .min(rest.len());
                chunks.push(rest[..len].to_vec());
                rest = &rest[len..];
            }
            chunks
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::script::{SearchHit, SearchOutcome, WebSearchResult};

    #[test]
    fn tool_input_is_spread_over_several_deltas_that_reassemble() {
        let turn = Turn {
            blocks: vec![Block::ToolUse {
                id: "t1".into(),
                name: "Read".into(),
                input: json!({"file_path": "/tmp/é.txt"}),
            }],
            ..Default::default()
        };
        let events = encode_turn(&turn, "msg_1", "m");
        let partials: Vec<&str> = events
            .iter()
            .filter_map(|e| e.data["delta"]["partial_json"].as_str())
            .collect();
        assert!(
            partials.len() > 1,
            "expected several input_json_delta events, got {partials:?}"
        );
        let joined: String = partials.concat();
        assert_eq!(
            serde_json::from_str::<Value>(&joined).unwrap(),
            json!({"file_path": "/tmp/é.txt"})
        );
        let names: Vec<_> = events.iter().map(|e| e.name).collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.last(), Some(&"message_stop"));
        assert!(names.contains(&"ping"));
        assert_eq!(
            events[events.len() - 2].data["delta"]["stop_reason"],
            "tool_use"
        );
    }

    #[test]
    fn a_turn_reports_the_request_size_it_was_given_and_ten_otherwise() {
        let sized = Turn {
            text: Some("hi".into()),
            input_tokens: Some(170_000),
            ..Default::default()
        };
        let start = &encode_turn(&sized, "msg_1", "m")[0];
        assert_eq!(start.data["message"]["usage"]["input_tokens"], 170_000);
        assert_eq!(
            sized.message_json("msg_1", "m")["usage"]["input_tokens"],
            170_000
        );
        let plain = Turn {
            text: Some("hi".into()),
            ..Default::default()
        };
        assert_eq!(
            encode_turn(&plain, "msg_1", "m")[0].data["message"]["usage"]["input_tokens"],
            10
        );
    }

    fn search_turn(outcome: SearchOutcome) -> Turn {
        Turn {
            blocks: vec![
                Block::ServerToolUse {
                    id: "srvtoolu_1".into(),
                    name: "web_search".into(),
                    input: json!({"query": "rust sse"}),
                },
                Block::WebSearchToolResult(WebSearchResult {
                    tool_use_id: "srvtoolu_1".into(),
                    outcome,
                }),
                Block::Text {
                    text: "Found it.".into(),
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn a_search_streams_its_query_as_deltas_and_its_hits_whole_in_the_start_event() {
        let turn = search_turn(SearchOutcome::Hits(vec![SearchHit {
            title: "Doc".into(),
            url: "https://docs.example/a".into(),
            encrypted_content: None,
            page_age: Some("2 days ago".into()),
        }]));
        let events = encode_turn(&turn, "msg_1", "m");
        let starts: Vec<&Value> = events
            .iter()
            .filter(|e| e.name == "content_block_start")
            .map(|e| &e.data)
            .collect();
        assert_eq!(
            starts[0]["content_block"],
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}})
        );
        let query: String = events
            .iter()
            .filter(|e| e.data["index"] == 0)
            .filter_map(|e| e.data["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&query).unwrap(),
            json!({"query": "rust sse"})
        );
        let result = &starts[1]["content_block"];
        assert_eq!(result["type"], "web_search_tool_result");
        assert_eq!(result["tool_use_id"], "srvtoolu_1");
        let hit = &result["content"][0];
        assert_eq!(hit["type"], "web_search_result");
        assert_eq!(hit["url"], "https://docs.example/a");
        assert_eq!(hit["page_age"], "2 days ago");
        assert!(hit["encrypted_content"]
            .as_str()
            .is_some_and(|s| !s.is_empty()));
        assert!(
            !events
                .iter()
                .any(|e| e.name == "content_block_delta" && e.data["index"] == 1),
            "a search result has no deltas"
        );
        let delta = &events[events.len() - 2].data;
        assert_eq!(delta["delta"]["stop_reason"], "end_turn");
        assert_eq!(delta["usage"]["server_tool_use"]["web_search_requests"], 1);
    }

    #[test]
    fn a_failed_search_is_an_error_object_in_place_of_the_hits() {
        let turn = search_turn(SearchOutcome::Error("max_uses_exceeded".into()));
        let events = encode_turn(&turn, "msg_1", "m");
        let result = events
            .iter()
            .find(|e| e.data["content_block"]["type"] == "web_search_tool_result")
            .unwrap();
        assert_eq!(
            result.data["content_block"]["content"],
            json!({"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"})
        );
        // The whole message (the non-streaming answer) carries the same block and count.
        let message = turn.message_json("msg_1", "m");
        assert_eq!(message["content"][1], result.data["content_block"]);
        assert_eq!(
            message["usage"]["server_tool_use"]["web_search_requests"],
            1
        );
    }

    #[test]
    fn a_turn_without_searches_reports_no_search_usage() {
        let turn = Turn {
            text: Some("plain".into()),
            ..Default::default()
        };
        let events = encode_turn(&turn, "msg_1", "m");
        assert!(events[events.len() - 2].data["usage"]
            .get("server_tool_use")
            .is_none());
    }

    #[test]
    fn every_split_concatenates_back_to_the_body() {
        let body = b"event: ping\ndata: {}\n\n".repeat(20);
        for split in [
            Split::Whole,
            Split::EveryByte,
            Split::Random(1),
            Split::Random(99),
        ] {
            let chunks = split_chunks(&body, split);
            assert_eq!(chunks.concat(), body, "{split}");
            assert!(chunks.iter().all(|c| !c.is_empty()));
        }
        assert_eq!(split_chunks(&body, Split::EveryByte).len(), body.len());
        assert!(split_chunks(&body, Split::Random(5)).len() > 1);
    }
}
