//! Pictures and documents on the wire: fixtures generated at run time (no binaries in the repo)
//! and the one-line summary traces and checks show instead of a base64 payload.

use std::io::Cursor;
use std::path::Path;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A generated picture fixture: `image = { width = 3000, height = 1500, fill = "noise" }`, its
/// format named by the file's extension (png, jpg/jpeg, gif, webp).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    #[serde(default)]
    pub fill: Fill,
}

/// What the pixels are: a `gradient` (compresses well), one `solid` colour (compresses to almost
/// nothing), or `noise` from a fixed seed (does not compress: for byte budgets).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Fill {
    #[default]
    Gradient,
    Solid,
    Noise,
}

impl Picture {
    /// The file's bytes; the same on every run.
    pub fn encode(&self, path: &Path) -> Result<Vec<u8>, String> {
        use image::ImageFormat;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let format = match ext.as_str() {
            "png" => ImageFormat::Png,
            "jpg" | "jpeg" => ImageFormat::Jpeg,
            "gif" => ImageFormat::Gif,
            "webp" => ImageFormat::WebP,
            other => {
                return Err(format!(
                "an `image` fixture needs a .png, .jpg, .jpeg, .gif or .webp name, not `.{other}`"
            ))
            }
        };
        if self.width == 0 || self.height == 0 {
            return Err("an `image` fixture needs a width and a height above 0".into());
        }
        let pixels = self.pixels();
        let mut out = Cursor::new(Vec::new());
        pixels
            .write_to(&mut out, format)
            .map_err(|e| format!("encoding the {ext} fixture: {e}"))?;
        Ok(out.into_inner())
    }

    fn pixels(&self) -> image::RgbImage {
        let (w, h) = (self.width, self.height);
        // xorshift32 from a fixed seed: the same noise on every machine and run.
        let mut state: u32 = 0x9E37_79B9;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        image::RgbImage::from_fn(w, h, |x, y| match self.fill {
            Fill::Solid => image::Rgb([10, 200, 30]),
            Fill::Gradient => image::Rgb([
                (x * 255 / (w - 1).max(1)) as u8,
                (y * 255 / (h - 1).max(1)) as u8,
                128,
            ]),
            Fill::Noise => {
                let v = next().to_le_bytes();
                image::Rgb([v[0], v[1], v[2]])
            }
        })
    }
}

/// `image/png 2000x1000 31870 bytes sha256:5f2d28da` for an `image` or `document` block with a
/// base64 source (the dimensions when the header names them); `None` for any other block.
pub fn summarize(block: &Value) -> Option<String> {
    let kind = block["type"].as_str()?;
    if kind != "image" && kind != "document" {
        return None;
    }
    let source = &block["source"];
    let media_type = source["media_type"].as_str().unwrap_or("?");
    if source["type"] != "base64" {
        return Some(format!(
            "{kind} source {}",
            source["type"].as_str().unwrap_or("?")
        ));
    }
    let data = source["data"].as_str().unwrap_or_default();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Some(format!(
            "{media_type} (invalid base64, {} chars)",
            data.len()
        ));
    };
    Some(describe(media_type, &bytes))
}

/// The summary of raw bytes declared as `media_type`.
pub fn describe(media_type: &str, bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let short: String = hash[..4].iter().map(|b| format!("{b:02x}")).collect();
    let size = dimensions(bytes)
        .map(|(w, h)| format!("{w}x{h} "))
        .unwrap_or_default();
    format!("{media_type} {size}{} bytes sha256:{short}", bytes.len())
}

/// Width and height from a PNG, GIF, JPEG or WebP header, as the image crate reads it without
/// decoding the picture.
pub fn dimensions(b: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::new(std::io::Cursor::new(b))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// The summaries of the pictures inside a tool_result block.
pub fn in_result(tool_result: &Value) -> Vec<String> {
    tool_result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(summarize)
        .collect()
}

/// What the tool_result answering `id` brought to the model, one line each: `result: …` for the
/// pictures inside it, then `after: …` for each block its message carries after it up to the next
/// tool_result (a picture's note, a PDF, its pages). The client's budget reminders are left out.
/// `None` when no block answers `id`.
pub fn around_result(blocks: &[&Value], id: &str) -> Option<String> {
    let at = blocks
        .iter()
        .position(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)?;
    let mut lines: Vec<String> = in_result(blocks[at])
        .into_iter()
        .map(|m| format!("result: {m}"))
        .collect();
    for b in blocks[at + 1..]
        .iter()
        .take_while(|b| b["type"] != "tool_result")
    {
        if let Some(m) = summarize(b) {
            lines.push(format!("after: {} {m}", b["type"].as_str().unwrap_or("?")));
        } else if let Some(t) = b["text"].as_str() {
            if !t.trim_start().starts_with("<system-reminder>") {
                lines.push(format!("after: text {t}"));
            }
        }
    }
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn picture(w: u32, h: u32, fill: Fill, name: &str) -> Vec<u8> {
        Picture {
            width: w,
            height: h,
            fill,
        }
        .encode(Path::new(name))
        .unwrap()
    }

    #[test]
    fn fixtures_have_the_asked_size_in_every_format() {
        for name in ["a.png", "a.jpg", "a.JPEG", "a.gif", "a.webp"] {
            let bytes = picture(7, 5, Fill::Gradient, name);
            assert_eq!(dimensions(&bytes), Some((7, 5)), "{name}");
        }
    }

    #[test]
    fn fixtures_are_the_same_every_time_and_noise_does_not_compress() {
        let a = picture(64, 64, Fill::Noise, "n.png");
        assert_eq!(a, picture(64, 64, Fill::Noise, "n.png"));
        assert!(a.len() > 64 * 64 * 3, "{} bytes", a.len());
        assert!(picture(64, 64, Fill::Solid, "s.png").len() < 1000);
    }

    #[test]
    fn an_unknown_extension_is_an_error_naming_it() {
        let e = Picture {
            width: 1,
            height: 1,
            fill: Fill::Solid,
        }
        .encode(Path::new("x.bmp"))
        .unwrap_err();
        assert!(e.contains("`.bmp`"), "{e}");
    }

    #[test]
    fn a_block_is_summarized_without_its_payload() {
        let bytes = picture(3, 2, Fill::Solid, "p.png");
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let block = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}});
        let line = summarize(&block).unwrap();
        assert!(
            line.starts_with(&format!("image/png 3x2 {} bytes sha256:", bytes.len())),
            "{line}"
        );
        assert!(!line.contains(&data));
        let doc = json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}});
        assert!(summarize(&doc)
            .unwrap()
            .starts_with("application/pdf 5 bytes sha256:"));
        assert_eq!(summarize(&json!({"type": "text", "text": "x"})), None);
    }

    #[test]
    fn around_a_result_are_its_pictures_and_what_follows_it_up_to_the_next_result() {
        let png =
            base64::engine::general_purpose::STANDARD.encode(picture(2, 2, Fill::Solid, "a.png"));
        let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}});
        let blocks = [
            json!({"type": "tool_result", "tool_use_id": "a", "content": [image.clone()]}),
            json!({"type": "text", "text": "<system-reminder>budget</system-reminder>"}),
            json!({"type": "text", "text": "[Image: note]"}),
            json!({"type": "tool_result", "tool_use_id": "b", "content": "PDF file read"}),
            json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}),
        ];
        let refs: Vec<&Value> = blocks.iter().collect();
        let a = around_result(&refs, "a").unwrap();
        assert!(a.starts_with("result: image/png 2x2 "), "{a}");
        assert!(a.ends_with("\nafter: text [Image: note]"), "{a}");
        assert!(!a.contains("budget") && !a.contains(&png));
        let b = around_result(&refs, "b").unwrap();
        assert!(
            b.starts_with("after: document application/pdf 5 bytes sha256:"),
            "{b}"
        );
        assert_eq!(around_result(&refs, "c"), None);
    }
}
