//! A byte-level incremental decoder for server-sent events.
//!
//! Chunks may split anywhere, even inside a UTF-8 sequence or a `\r\n`. Each byte is scanned once:
//! the decoder remembers how far it looked for a newline and drains consumed bytes once per chunk,
//! so a long event arriving a byte at a time stays linear, not quadratic.

/// One dispatched event: its `event:` name (empty when absent) and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseFrame {
    pub event: String,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already searched for a newline.
    scanned: usize,
    event: String,
    data: Vec<u8>,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk; every event completed by it is appended to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) {
        self.buf.extend_from_slice(chunk);
        let mut line_start = 0;
        let mut i = self.scanned;
        while let Some(pos) = self.buf[i..].iter().position(|&b| b == b'\n') {
            let end = i + pos;
            let mut line = &self.buf[line_start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = line.to_vec();
            self.line(&line, out);
            line_start = end + 1;
            i = line_start;
        }
        self.buf.drain(..line_start);
        self.scanned = self.buf.len();
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseFrame>) {
        if line.is_empty() {
            if self.has_data || !self.event.is_empty() {
                out.push(SseFrame {
                    event: std::mem::take(&mut self.event),
                    data: String::from_utf8_lossy(&self.data).into_owned(),
                });
            }
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Vec<SseFrame> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
        }
        out
    }

    #[test]
    fn splits_anywhere_including_crlf_and_utf8() {
        let body =
            "event: a\r\ndata: {\"t\":\"é\"}\r\n\r\n: comment\nevent: b\ndata: 1\ndata: 2\n\n"
                .as_bytes();
        let whole = decode(&[body]);
        assert_eq!(whole.len(), 2);
        assert_eq!(
            whole[0],
            SseFrame {
                event: "a".into(),
                data: "{\"t\":\"é\"}".into()
            }
        );
        assert_eq!(whole[1].data, "1\n2");
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(decode(&bytes), whole);
    }

    #[test]
    fn an_unterminated_event_is_not_dispatched() {
        assert!(decode(&[b"event: a\ndata: x\n"]).is_empty());
    }
}
