//! The single-file multipart body: a random-UUID boundary, the file name made safe for its header
//! (CR and LF removed, `\` and `"` escaped), and the narrow upload MIME table (the four image
//! types, else octet-stream).

use std::path::Path;

/// The body as three pieces, so the file's bytes (already in memory, read whole as the seed
/// says) are sent as they are, never copied into a second buffer.
pub struct Multipart {
    boundary: String,
    head: Vec<u8>,
    file: Vec<u8>,
    tail: Vec<u8>,
}

impl Multipart {
    pub fn new(filename: &str, mime: &str, file: Vec<u8>) -> Self {
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
            file,
            tail,
        }
    }

    pub fn content_type(&self) -> String {
        format!("multipart/form-data; boundary={}", self.boundary)
    }

    pub fn len(&self) -> usize {
        self.head.len() + self.file.len() + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pieces in order, for a streamed request body.
    pub fn into_chunks(self) -> [Vec<u8>; 3] {
        [self.head, self.file, self.tail]
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
