//! `reference::api::sse::SseDecoder`: the same frames whether the stream arrives whole, cut at
//! fuzzer-chosen points (empty pieces included), or a byte at a time; and the Messages API
//! assembler above it (`api::assemble::assemble_chunks`) gives the same message or error either
//! way, without a panic.
#![no_main]

use claude_reference::api::assemble::assemble_chunks;
use claude_reference::api::sse::{SseDecoder, SseFrame};
use libfuzzer_sys::fuzz_target;

mod common;

fn decode<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseFrame> {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    for piece in pieces {
        decoder.push(piece, &mut out);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let (pieces, body) = common::cut(data);
    let whole = decode([body]);
    assert_eq!(
        decode(pieces.iter().copied()),
        whole,
        "cut at fuzzer-chosen points"
    );
    assert_eq!(decode(body.chunks(1)), whole, "a byte at a time");
    // A frame is only dispatched by a blank line, so there are never more frames than newlines.
    assert!(whole.len() <= body.iter().filter(|&&b| b == b'\n').count());
    let assembled = format!("{:?}", assemble_chunks(&[body]));
    assert_eq!(format!("{:?}", assemble_chunks(&pieces)), assembled);
});
