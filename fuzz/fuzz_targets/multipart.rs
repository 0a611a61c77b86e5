//! The mock claude.ai's `stubs::claude_ai::parse_single_file`.
//! - Any input, read as `CONTENT-TYPE \n BODY`: no panic; with the body's own length declared
//!   the answer is the one without a declared length, and a wrong length is `Length`.
//! - Round trip: a body written as a client writes one file part (a boundary, an escaped
//!   filename, a content type and bytes, all taken from the input read as `B|NAME|TYPE|BYTES`)
//!   parses back to the same filename, field, content type and bytes; unless the bytes hold the
//!   part separator, which makes it two parts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stubs::claude_ai::{parse_single_file, MultipartError};

fn as_given(data: &[u8]) {
    let (content_type, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let content_type = String::from_utf8_lossy(content_type);
    let free = parse_single_file(Some(&content_type), None, body);
    assert_eq!(
        parse_single_file(Some(&content_type), Some(body.len()), body),
        free
    );
    if free != Err(MultipartError::NoBoundary) {
        assert_eq!(
            parse_single_file(Some(&content_type), Some(body.len() + 1), body),
            Err(MultipartError::Length {
                declared: body.len() + 1,
                actual: body.len()
            })
        );
    }
}

fn round_trip(data: &[u8]) {
    // boundary (≤ 40 bytes mapped onto the characters RFC 2046 allows without quoting, less
    // space), then filename, then content type, then content, separated by `|`.
    let mut fields = data.splitn(4, |&b| b == b'|');
    let (Some(boundary), Some(filename), Some(ctype), Some(content)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return;
    };
    const BCHARS: &[u8] =
        b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";
    let boundary: String = boundary
        .iter()
        .take(40)
        .map(|b| BCHARS[usize::from(*b) % BCHARS.len()] as char)
        .collect();
    if boundary.is_empty() {
        return;
    }
    let filename: String = String::from_utf8_lossy(filename)
        .chars()
        .filter(|c| !matches!(c, '\r' | '\n'))
        .collect();
    let ctype: String = String::from_utf8_lossy(ctype)
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_owned();
    let escaped = filename.replace('\\', "\\\\").replace('"', "\\\"");
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{escaped}\"\r\nContent-Type: {ctype}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(content);
    let closing = format!("\r\n--{boundary}--\r\n");
    body.extend_from_slice(closing.as_bytes());
    let header = format!("multipart/form-data; boundary={boundary}");
    let got = parse_single_file(Some(&header), Some(body.len()), &body);
    let separator = format!("\r\n--{boundary}\r\n");
    // Where the parser looks: between the opening and the closing boundary.
    let between = &body[boundary.len() + 4..body.len() - closing.len()];
    let two_parts = memchr_like(between, separator.as_bytes());
    if two_parts {
        assert!(
            matches!(got, Err(MultipartError::PartCount(n)) if n > 1),
            "{got:?}"
        );
        return;
    }
    let part = got.unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&body)));
    assert_eq!(part.filename, filename);
    assert_eq!(part.field, "file");
    assert_eq!(
        part.content_type.as_deref(),
        Some(ctype.to_ascii_lowercase().as_str())
    );
    assert_eq!(part.bytes, content);
}

fn memchr_like(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fuzz_target!(|data: &[u8]| {
    as_given(data);
    round_trip(data);
});
