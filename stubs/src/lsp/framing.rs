//! LSP base protocol framing: `Content-Length: N\r\n\r\n` then N bytes of JSON. Hand-written
//! (instead of a library transport) so a scenario can script framing faults later.

use std::io::{self, BufRead, Write};

use serde_json::Value;

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
    let mut body = vec![0u8; length];
    input.read_exact(&mut body)?;
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
}
