//! LSP base protocol framing: `Content-Length: N\r\n\r\n` then N bytes of JSON. Hand-written
//! (instead of a library transport) so a scenario can script framing faults later.

use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

/// The largest body `read_message` accepts. The length comes from the peer, so without a bound a
/// header such as `Content-Length: 99999999999` would make the reader allocate that much before
/// reading a byte of it; the largest message either side sends (a `didOpen` carrying a file) is
/// far below this.
pub const MAX_CONTENT_LENGTH: usize = 64 << 20;

/// The next message, `Ok(None)` at end of input.
pub fn read_message(input: &mut impl BufRead) -> io::Result<Option<Value>> {
    let mut length: Option<usize> = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
    let length = length.ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidData, "header without Content-Length")
    })?;
    if length > MAX_CONTENT_LENGTH {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("Content-Length {length} exceeds the limit of {MAX_CONTENT_LENGTH} bytes"),
        ));
    }
    // Grown as bytes arrive rather than allocated up front: a truncated stream that declares a
    // large length costs what it sent, not what it declared.
    let mut body = Vec::new();
    input.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "Content-Length {length} but the stream ended after {} bytes",
                body.len()
            ),
        ));
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

pub fn write_message(out: &mut impl Write, msg: &Value) -> io::Result<()> {
    let body = msg.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_round_trip() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"id": 1, "method": "initialize"})).unwrap();
        write_message(&mut buf, &json!({"method": "initialized"})).unwrap();
        let mut input = std::io::Cursor::new(buf);
        assert_eq!(read_message(&mut input).unwrap().unwrap()["id"], 1);
        assert_eq!(
            read_message(&mut input).unwrap().unwrap()["method"],
            "initialized"
        );
        assert!(read_message(&mut input).unwrap().is_none());
    }

    #[test]
    fn a_huge_content_length_is_an_error_not_an_allocation() {
        // The length is the peer's to declare: this used to be `vec![0u8; length]` before a byte
        // of the body was read.
        let input = format!("Content-Length: {}\r\n\r\n{{}}", usize::MAX);
        let err = read_message(&mut std::io::Cursor::new(input)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("exceeds the limit"), "{err}");
        let just_over = format!("Content-Length: {}\r\n\r\n", MAX_CONTENT_LENGTH + 1);
        let err = read_message(&mut std::io::Cursor::new(just_over)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_body_shorter_than_its_length_is_unexpected_eof() {
        let input = format!("Content-Length: {MAX_CONTENT_LENGTH}\r\n\r\n{{}}");
        let err = read_message(&mut std::io::Cursor::new(input)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_float_round_trips_to_the_same_double() {
        // Found by the `lsp_framing` fuzz target: without serde_json's `float_roundtrip` this
        // integer too large for u64 parsed one ulp away from the nearest double, and the value
        // written back parsed to another one.
        let value: Value = serde_json::from_str("99999999999999949900").unwrap();
        assert_eq!(value.as_f64(), Some(99999999999999949900.0));
        let mut buf = Vec::new();
        write_message(&mut buf, &value).unwrap();
        let back = read_message(&mut std::io::Cursor::new(buf))
            .unwrap()
            .unwrap();
        assert_eq!(back, value);
    }
}
