//! The seeds of each fuzz target, made from the repository: the scenario files, the stub's SSE
//! encoding, framed and line-delimited JSON-RPC, upload bodies. Shared as a file by `cargo xtask
//! fuzz` (which writes them into `fuzz/corpus/<target>/` for libFuzzer) and the replay that CI
//! runs (`fuzz/replay`), so both start from the same inputs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde_json::{json, Value};

/// The seeds of one target, named. The stream targets read a first byte as the number of cuts
/// (mod 8), so their seeds start with `0`: no cut.
pub fn seeds(root: &Path, target: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let uncut = |bytes: &[u8]| [b"0".as_slice(), bytes].concat();
    Ok(match target {
        "sse_decoder" => sse_seeds()
            .into_iter()
            .map(|(n, b)| (n, uncut(&b)))
            .collect(),
        "lsp_framing" => {
            let mut out = Vec::new();
            let mut all = Vec::new();
            for (i, msg) in jsonrpc_messages().iter().enumerate() {
                let mut framed = Vec::new();
                stubs::lsp::write_message(&mut framed, msg)?;
                all.extend_from_slice(&framed);
                out.push((format!("frame-{i}"), framed));
            }
            out.push(("frames-all".into(), all));
            out.push((
                "headers".into(),
                b"content-length:  17 \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"method\":\"x\"}  ".to_vec(),
            ));
            out
        }
        "jsonrpc_lines" => {
            let lines: Vec<String> = jsonrpc_messages().iter().map(Value::to_string).collect();
            let mut out: Vec<(String, Vec<u8>)> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| (format!("line-{i}"), uncut(format!("{l}\n").as_bytes())))
                .collect();
            let session = format!("{}\r\n\nnot json\n{}", lines.join("\n"), lines[0]);
            out.push(("session".into(), uncut(session.as_bytes())));
            out
        }
        "multipart" => multipart_seeds(),
        "scenario_loader" => {
            let mut out = Vec::new();
            let mut files = Vec::new();
            collect_toml(&root.join("scenarios"), &mut files)?;
            files.sort();
            for f in files {
                let rel = f.strip_prefix(root.join("scenarios")).unwrap_or(&f);
                let name = rel.to_string_lossy().replace('/', "__");
                out.push((name, std::fs::read(&f)?));
            }
            out
        }
        other => bail!("no fuzz target {other:?}"),
    })
}

fn sse_seeds() -> Vec<(String, Vec<u8>)> {
    use stubs::messages::{encode_turn, Block, Turn};
    let turns = [
        (
            "text",
            Turn {
                text: Some("Hello, wörld — ✓".into()),
                ..Default::default()
            },
        ),
        (
            "tool",
            Turn {
                text: Some("Reading it.".into()),
                blocks: vec![Block::ToolUse {
                    id: "toolu_01".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/tmp/a.txt", "limit": 10}),
                }],
                ..Default::default()
            },
        ),
    ];
    let mut out: Vec<(String, Vec<u8>)> = turns
        .iter()
        .map(|(name, turn)| {
            let body = encode_turn(turn, "msg_01", "claude-sonnet-4-5")
                .iter()
                .flat_map(|e| e.to_bytes())
                .collect();
            (format!("turn-{name}"), body)
        })
        .collect();
    out.push((
        "fields".into(),
        b"event: a\r\ndata: {\"t\":\"\xc3\xa9\"}\r\n\r\n: comment\nevent: b\ndata: 1\ndata:2\ndata\nretry: 10\nid: 7\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
            .to_vec(),
    ));
    out
}

/// Messages both JSON-RPC seeds carry: an MCP session against the fuzz target's script, and LSP
/// requests.
fn jsonrpc_messages() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {"name": "claude-code", "version": "2.1.235"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": "roots-1", "result": {"roots": [{"uri": "file:///tmp"}]}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "page-1"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "many_2", "arguments": {"x": [1, 2.5, null, true]}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "file:///a"}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "prompts/list"}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///tmp/a.rs"}, "position": {"line": 0, "character": 4}}}),
    ]
}

fn multipart_seeds() -> Vec<(String, Vec<u8>)> {
    let part = |boundary: &str, disposition: &str, data: &str| {
        format!(
            "multipart/form-data; boundary={boundary}\n--{boundary}\r\n{disposition}\r\nContent-Type: text/plain\r\n\r\n{data}\r\n--{boundary}--\r\n"
        )
        .into_bytes()
    };
    vec![
        (
            "one-file".into(),
            part(
                "----formdata-undici-0123456789",
                "Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"q\\\".txt\"",
                "hello\r\n--not-the-boundary",
            ),
        ),
        (
            "no-filename".into(),
            part("B1", "Content-Disposition: form-data; name=\"file\"", "x"),
        ),
        (
            "two-parts".into(),
            b"multipart/form-data; boundary=\"B\"\n--B\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a\"\r\n\r\n1\r\n--B\r\nContent-Disposition: form-data; name=\"b\"; filename=\"b\"\r\n\r\n2\r\n--B--\r\n".to_vec(),
        ),
        // The round-trip layout: BOUNDARY|FILENAME|CONTENT-TYPE|BYTES.
        (
            "round-trip".into(),
            b"xyz|notes \"v2\".md|text/markdown|# Title\r\n\r\nbody".to_vec(),
        ),
    ]
}

fn collect_toml(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_toml(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}
