//! SSE decoding and message assembly, whole and a byte at a time: the byte-at-a-time case is the
//! one a quadratic parser would lose, so the two figures should stay within a small factor.

use claude_reference::api::assemble::assemble_chunks;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stubs::messages::{encode_turn, Block, Turn};

fn body() -> Vec<u8> {
    let turn = Turn {
        text: Some("lorem ipsum dolor sit amet ".repeat(2_000)),
        blocks: vec![Block::ToolUse {
            id: "toolu_bench".into(),
            name: "Write".into(),
            input: serde_json::json!({"file_path": "/tmp/x", "content": "x".repeat(50_000)}),
        }],
        ..Default::default()
    };
    encode_turn(&turn, "msg_bench", "m")
        .iter()
        .flat_map(|e| e.to_bytes())
        .collect()
}

fn decode(chunks: &[&[u8]]) -> usize {
    assemble_chunks(chunks)
        .map(|m| m.content.len())
        .unwrap_or(0)
}

fn sse(c: &mut Criterion) {
    let body = body();
    let mut group = c.benchmark_group("sse_decode");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("whole", |b| b.iter(|| decode(&[&body])));
    let small: Vec<&[u8]> = body.chunks(16).collect();
    group.bench_function("16_byte_chunks", |b| b.iter(|| decode(&small)));
    group.finish();
}

criterion_group!(benches, sse);
criterion_main!(benches);
