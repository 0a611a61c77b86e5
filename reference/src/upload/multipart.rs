//! The single-file multipart body: a random-UUID boundary, the file name made safe for its header
//! (CR and LF removed, `\` and `"` escaped), and the narrow upload MIME table (the four image
//! types, else octet-stream).

use std::path::Path;

pub struct Multipart {
    boundary: String,
    body: Vec<u8>,
}

impl Multipart {
    pub fn new(filename: &str, mime: &str, bytes: &[u8]) -> Self {
        let boundary = uuid::Uuid::new_v4().to_string();
        let mut body = Vec::with_capacity(bytes.len() + 256);
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        body.extend_from_slice(
            format!(
                "Content-Disposition: form-data; name=\"file\"; filename=\"{}\"\r\n",
                content_disposition_filename(filename)
            )
            .as_bytes(),
        );
        body.extend_from_slice(format!("Content-Type: {mime}\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        Multipart { boundary, body }
    }

    pub fn content_type(&self) -> String {
        format!("multipart/form-data; boundary={}", self.boundary)
    }

    pub fn len(&self) -> usize {
        self.body.len()
    }

    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.body
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
