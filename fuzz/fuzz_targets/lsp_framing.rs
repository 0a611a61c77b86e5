//! `Content-Length` framing, both readers: the fake language server's `stubs::lsp::read_message`
//! and the reference's LSP client `read_frame`.
//! - Any byte stream: each reader ends (a message, end of input or an error) without a panic
//!   and without allocating what a header declares (the bound is `MAX_CONTENT_LENGTH`, resp.
//!   `MAX_FRAME_BYTES`); reading through a one-byte buffer gives what reading from memory gives.
//! - Round trip: `write_message` then either reader gives back the value (the input parsed as
//!   JSON when it is JSON, and the input as a JSON string), then the end of input.
#![no_main]

use std::io::{BufRead, BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Every message a reader yields before it stops, and how it stopped.
fn stub_messages(input: &mut impl BufRead) -> (Vec<Value>, Option<std::io::ErrorKind>) {
    let mut out = Vec::new();
    loop {
        match stubs::lsp::read_message(input) {
            Ok(Some(v)) => out.push(v),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.kind())),
        }
    }
}

fn reference_messages(input: &mut impl BufRead) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(v) = claude_reference::lsp::read_frame(input) {
        out.push(v);
    }
    out
}

fn round_trip(value: &Value) {
    let mut framed = Vec::new();
    stubs::lsp::write_message(&mut framed, value).unwrap();
    let (got, end) = stub_messages(&mut Cursor::new(&framed));
    assert_eq!((got.as_slice(), end), (std::slice::from_ref(value), None));
    let got = reference_messages(&mut Cursor::new(&framed));
    assert_eq!(got.as_slice(), std::slice::from_ref(value));
}

fuzz_target!(|data: &[u8]| {
    let from_memory = stub_messages(&mut Cursor::new(data));
    let trickled = stub_messages(&mut BufReader::with_capacity(1, Cursor::new(data)));
    assert_eq!(from_memory, trickled);
    let from_memory = reference_messages(&mut Cursor::new(data));
    let trickled = reference_messages(&mut BufReader::with_capacity(1, Cursor::new(data)));
    assert_eq!(from_memory, trickled);

    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        round_trip(&value);
    }
    round_trip(&Value::String(String::from_utf8_lossy(data).into_owned()));
});
