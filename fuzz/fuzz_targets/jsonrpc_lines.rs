//! One JSON-RPC message per line over stdio, both ends.
//! - The reference's MCP stdio transport (`StdioLineBuffer`, the pure part of its `read_lines`):
//!   with a cap no line reaches, the stream cut at fuzzer-chosen points gives the messages it
//!   gives whole. With a small cap (from the input), cutting can only close the connection
//!   earlier: the cut run's messages are a prefix of the whole run's, a whole run that closes
//!   closes when cut too, and a cut run that stays open saw every message.
//! - The fake MCP server (`stubs::mcp::stdio::parse_line` then `Behaviour::on_message`, with a
//!   script that pages tools, changes generations and has resources): each line is skipped,
//!   answered with a parse error, or handled; every message sent is JSON-RPC 2.0, and a request
//!   (a method and an id) gets exactly one response carrying its id.
#![no_main]

use claude_reference::mcp::StdioLineBuffer;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use stubs::mcp::{Action, Behaviour};

mod common;

fn read(cap: usize, pieces: &[&[u8]]) -> (Vec<Value>, bool) {
    let mut lines = StdioLineBuffer::new(cap);
    let mut out = Vec::new();
    for piece in pieces {
        if !lines.push(piece, |m| out.push(m)) {
            return (out, false);
        }
    }
    (out, true)
}

fn behaviour() -> Behaviour {
    let script = json!({
        "page_size": 2,
        "list_changed_after_call": 2,
        "request_roots": true,
        "generation": [
            {"tool": [{"name": "echo"}, {"name": "many", "count": 3, "result": "R"}]},
            {"tool": [{"name": "echo", "is_error": true}, {"name": "new", "structured_content": {"a": 1}}]}
        ],
        "resources": [{"uri": "file:///a", "name": "a", "text": "{repeat:3:ab}"}],
        "prompts": [{"name": "p"}]
    });
    Behaviour::new(serde_json::from_value(script).expect("the script parses"))
}

fn fake_server(body: &[u8]) {
    let mut server = behaviour();
    // What tokio's `lines()` yields: split at `\n`, a trailing `\r` dropped; it stops at the
    // first line that is not UTF-8.
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&body[..e.valid_up_to()]).expect("valid prefix"),
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let msg = match stubs::mcp::stdio::parse_line(line) {
            None => continue,
            Some(Err(_)) => continue,
            Some(Ok(msg)) => msg,
        };
        let actions = server.on_message(&msg);
        let sent: Vec<&Value> = actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(v) => Some(v),
                _ => None,
            })
            .collect();
        for v in &sent {
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
        }
        let is_request = msg["method"].is_string() && msg.get("id").is_some();
        if is_request {
            let responses: Vec<_> = sent.iter().filter(|v| v.get("method").is_none()).collect();
            assert_eq!(responses.len(), 1, "{msg} -> {actions:?}");
            assert_eq!(responses[0]["id"], msg["id"]);
            assert!(responses[0].get("result").is_some() != responses[0].get("error").is_some());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (pieces, body) = common::cut(data);
    let whole = read(usize::MAX, &[body]);
    assert!(whole.1);
    assert_eq!(read(usize::MAX, &pieces), whole);

    let cap = usize::from(data.first().copied().unwrap_or(0) / 8);
    let (whole_msgs, whole_open) = read(cap, &[body]);
    let (cut_msgs, cut_open) = read(cap, &pieces);
    assert!(whole_msgs.starts_with(&cut_msgs));
    assert!(whole_open || !cut_open);
    if cut_open {
        assert_eq!(cut_msgs, whole_msgs);
    }

    fake_server(body);
});
