//! The stub's SSE encoder and the reference's decoder and assembler, two independent
//! implementations, agree for any text and tool input split at any byte boundaries.

use claude_reference::api::assemble::assemble_chunks;
use proptest::prelude::*;
use serde_json::{json, Value};
use stubs::messages::{encode_turn, Block, Turn};

fn decode(chunks: &[&[u8]]) -> (Vec<Value>, Option<String>) {
    let message = assemble_chunks(chunks).expect("a whole stream assembles");
    (message.content, message.stop_reason)
}

proptest! {
    #[test]
    fn any_split_gives_the_scripted_message(
        text in "\\PC{0,200}",
        value in "\\PC{0,120}",
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let input = json!({"file_path": value, "n": 3, "nested": {"list": [1, "two", null]}});
        let turn = Turn {
            text: Some(text.clone()),
            blocks: vec![Block::ToolUse { id: "toolu_p".into(), name: "Read".into(), input: input.clone() }],
            ..Default::default()
        };
        let body: Vec<u8> = encode_turn(&turn, "msg_p", "m").iter().flat_map(|e| e.to_bytes()).collect();
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
        points.sort_unstable();
        points.dedup();
        let mut chunks = Vec::new();
        let mut start = 0;
        for p in points {
            chunks.push(&body[start..p]);
            start = p;
        }
        chunks.push(&body[start..]);
        let (content, stop) = decode(&chunks);
        let expected_text = if text.is_empty() { json!({"type": "text", "text": ""}) } else { json!({"type": "text", "text": text}) };
        prop_assert_eq!(&content[0], &expected_text);
        prop_assert_eq!(&content[1], &json!({"type": "tool_use", "id": "toolu_p", "name": "Read", "input": input}));
        prop_assert_eq!(stop.as_deref(), Some("tool_use"));
    }
}
