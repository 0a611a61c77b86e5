//! The single-file multipart body: a random-UUID boundary, the file name made safe for its header
//! (CR and LF removed, `\` and `"` escaped), and the narrow upload MIME table (the four image
//! types, else octet-stream).

use std::io::{self, Read};
use std::path::Path;

/// The frame around the file: the opening boundary and part headers, and the closing boundary.
pub struct Multipart {
    boundary: String,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Multipart {
    pub fn new(filename: &str, mime: &str) -> Self {
        // A random UUID behind the prefix 2.1.235 uses.
        let boundary = format!("----FormBoundary{}", uuid::Uuid::new_v4());
        let head = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{}\"\r\nContent-Type: {mime}\r\n\r\n",
            content_disposition_filename(filename)
        )
        .into_bytes();
        let tail = format!("\r\n--{boundary}--\r\n").into_bytes();
        Multipart {
            boundary,
            head,
            tail,
        }
    }

    pub fn content_type(&self) -> String {
        format!("multipart/form-data; boundary={}", self.boundary)
    }

    /// The whole body with the file read straight into its place: one buffer of the file's size
    /// plus the frame, no second copy. Returns the body and how many bytes the file gave.
    pub fn read_body(&self, mut file: impl Read, size_hint: usize) -> io::Result<(Vec<u8>, usize)> {
        let mut body = Vec::with_capacity(self.head.len() + size_hint + self.tail.len());
        body.extend_from_slice(&self.head);
        let read = file.read_to_end(&mut body)?;
        body.extend_from_slice(&self.tail);
        Ok((body, read))
    }
}

/// A file name as it goes between the quotes of `filename="…"`.
pub fn content_disposition_filename(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '\r' && *c != '\n')
        .flat_map(|c| match c {
            '\\' => vec!['\\', '\\'],
            '"' => vec!['\\', '"'],
            other => vec![other],
        })
        .collect()
}

/// The upload body's Content-Type: PNG, JPEG, GIF and WebP get theirs; everything else is
/// `application/octet-stream` (the attachment metadata keeps a wider table).
pub fn upload_mime(path: &Path) -> &'static str {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("png") => "image/png",
        Some("jpg") | Some("jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => "application/octet-stream",
    }
}
