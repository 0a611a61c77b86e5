//! A strict reader of the single-file multipart body the upload endpoint accepts. Hand-written
//! rather than a form library so each deviation (two parts, a missing filename, a wrong length)
//! is a named error the scenario can check.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePart {
    pub field: String,
    /// As written between the quotes, escapes undone.
    pub filename: String,
    /// The Content-Disposition value as sent.
    pub disposition: String,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MultipartError {
    #[error("Content-Type is not multipart/form-data with a boundary")]
    NoBoundary,
    #[error("Content-Length {declared} does not match the body's {actual} bytes")]
    Length { declared: usize, actual: usize },
    #[error("the body does not start with the boundary")]
    NoOpening,
    #[error("the body has {0} parts; exactly one file part is accepted")]
    PartCount(usize),
    #[error("the part has no Content-Disposition with a filename")]
    NoFilename,
    #[error("the body does not end with the closing boundary")]
    NoClosing,
}

pub fn parse_single_file(
    content_type: Option<&str>,
    content_length: Option<usize>,
    body: &[u8],
) -> Result<FilePart, MultipartError> {
    let boundary = content_type
        .filter(|c| c.to_ascii_lowercase().starts_with("multipart/form-data;"))
        .and_then(|c| {
            c.split(';')
                .find_map(|p| p.trim().strip_prefix("boundary="))
        })
        .map(|b| b.trim_matches('"'))
        .filter(|b| !b.is_empty())
        .ok_or(MultipartError::NoBoundary)?;
    if let Some(declared) = content_length {
        if declared != body.len() {
            return Err(MultipartError::Length {
                declared,
                actual: body.len(),
            });
        }
    }
    let opening = format!("--{boundary}\r\n");
    let closing = format!("\r\n--{boundary}--\r\n");
    let rest = body
        .strip_prefix(opening.as_bytes())
        .ok_or(MultipartError::NoOpening)?;
    let rest = rest
        .strip_suffix(closing.as_bytes())
        .ok_or(MultipartError::NoClosing)?;
    let separator = format!("\r\n--{boundary}\r\n");
    let parts = 1 + find_all(rest, separator.as_bytes());
    if parts != 1 {
        return Err(MultipartError::PartCount(parts));
    }
    let header_end = find(rest, b"\r\n\r\n").ok_or(MultipartError::NoFilename)?;
    let headers = String::from_utf8_lossy(&rest[..header_end]);
    let bytes = rest[header_end + 4..].to_vec();
    let mut field = String::new();
    let mut filename = None;
    let mut disposition = String::new();
    let mut content_type = None;
    for line in headers.split("\r\n") {
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-type:") {
            content_type = Some(v.trim().to_owned());
        }
        if lower.starts_with("content-disposition:") {
            disposition = line["content-disposition:".len()..].trim().to_owned();
            field = quoted_after(line, "name=\"").unwrap_or_default();
            filename = quoted_after(line, "filename=\"");
        }
    }
    Ok(FilePart {
        field,
        filename: filename.ok_or(MultipartError::NoFilename)?,
        disposition,
        content_type,
        bytes,
    })
}

/// The quoted string after `key` (`name="` …), honouring backslash escapes.
fn quoted_after(line: &str, key: &str) -> Option<String> {
    let start = line.find(key)? + key.len();
    let mut out = String::new();
    let mut chars = line[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return Some(out),
            other => out.push(other),
        }
    }
    None
}

// memmem, not a window scan: a 30 MiB upload is searched for its boundary on every request, and
// the mock must not be what an upload benchmark measures.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

fn find_all(hay: &[u8], needle: &[u8]) -> usize {
    memchr::memmem::find_iter(hay, needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(boundary: &str, disposition: &str, data: &str) -> Vec<u8> {
        format!("--{boundary}\r\n{disposition}\r\nContent-Type: text/plain\r\n\r\n{data}\r\n--{boundary}--\r\n").into_bytes()
    }

    #[test]
    fn one_file_part_parses_with_its_escaped_name() {
        let b = body(
            "B1",
            "Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"q\\\" \\\\x.txt\"",
            "hello",
        );
        let part =
            parse_single_file(Some("multipart/form-data; boundary=B1"), Some(b.len()), &b).unwrap();
        assert_eq!(part.filename, "a \"q\" \\x.txt");
        assert_eq!(part.bytes, b"hello");
        assert_eq!(part.field, "file");
    }

    #[test]
    fn deviations_are_named() {
        let b = body("B1", "Content-Disposition: form-data; name=\"file\"", "x");
        assert_eq!(
            parse_single_file(Some("multipart/form-data; boundary=B1"), None, &b),
            Err(MultipartError::NoFilename)
        );
        assert_eq!(
            parse_single_file(Some("multipart/form-data; boundary=B1"), Some(3), &b),
            Err(MultipartError::Length {
                declared: 3,
                actual: b.len()
            })
        );
        assert_eq!(
            parse_single_file(Some("text/plain"), None, &b),
            Err(MultipartError::NoBoundary)
        );
        let two = "--B\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a\"\r\n\r\n1\r\n--B\r\nContent-Disposition: form-data; name=\"b\"; filename=\"b\"\r\n\r\n2\r\n--B--\r\n";
        assert_eq!(
            parse_single_file(
                Some("multipart/form-data; boundary=B"),
                None,
                two.as_bytes()
            ),
            Err(MultipartError::PartCount(2))
        );
    }
}
