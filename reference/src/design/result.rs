//! A Design result as tool_result content (2.1.235's `yoS`, `boS` and the tool's mapping): text
//! stays text; a `render_preview` image becomes an image block unless its base64 is over 130,000
//! chars; blocks are kept in order while they fit a 130,000-char aggregate, the rest replaced by
//! one notice; an error result is its text joined, an empty result says so.

use serde_json::{json, Value};

use super::catalog::utf16_len;
use crate::limits;

fn js_round_k(n: usize) -> u64 {
    (n as f64 / 1024.0).round() as u64
}

fn image_type(mime: &str) -> bool {
    matches!(
        mime,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    )
}

/// One server block as Messages API blocks.
fn block(b: &Value) -> Value {
    if b["type"] == "text" {
        if let Some(text) = b["text"].as_str() {
            return json!({"type": "text", "text": text});
        }
    }
    if b["type"] == "image" {
        if let (Some(data), Some(mime)) = (b["data"].as_str(), b["mimeType"].as_str()) {
            if image_type(mime) {
                let cap = limits::DESIGN_RESULT_PREVIEW_IMAGE_MAX.usize();
                if data.len() > cap {
                    return json!({"type": "text", "text": format!(
                        "[render_preview image omitted \u{2014} {}KB exceeds {}KB cap]", js_round_k(data.len()), js_round_k(cap))});
                }
                return json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}});
            }
        }
    }
    json!({"type": "text", "text": b.to_string()})
}

fn size(b: &Value) -> usize {
    match b["type"].as_str() {
        Some("image") => b["source"]["data"].as_str().map_or(0, str::len),
        Some("text") => b["text"].as_str().map_or(0, utf16_len),
        _ => 0,
    }
}

/// The blocks that fit the aggregate budget, in order, then the notice for the rest.
fn within_budget(blocks: Vec<Value>) -> Vec<Value> {
    let cap = limits::DESIGN_RESULT_AGGREGATE_MAX.usize();
    let mut left = cap;
    let (mut out, mut dropped, mut dropped_chars) = (Vec::new(), 0, 0);
    for b in blocks {
        let s = size(&b);
        if s <= left {
            left -= s;
            out.push(b);
        } else {
            dropped += 1;
            dropped_chars += s;
        }
    }
    if dropped > 0 {
        out.push(json!({"type": "text", "text": format!(
            "[ClaudeDesign result truncated \u{2014} {dropped} block(s) ({}k chars) omitted; aggregate over {}k-char cap]",
            js_round_k(dropped_chars), js_round_k(cap))}));
    }
    out
}

/// The tool_result content for a result: a string (an error's text, or `(empty result)`) or the
/// blocks.
pub fn map_result(content: &[Value], is_error: Option<bool>) -> Value {
    let blocks = within_budget(content.iter().map(block).collect());
    if is_error == Some(true) {
        let text = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .map(|b| b["text"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let text = text.trim();
        return json!(if text.is_empty() {
            "(error with no message)"
        } else {
            text
        });
    }
    if blocks.is_empty() {
        json!("(empty result)")
    } else {
        Value::Array(blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(len: usize) -> Value {
        json!({"type": "image", "data": "A".repeat(len), "mimeType": "image/png"})
    }

    #[test]
    fn image_cap() {
        let cap = limits::DESIGN_RESULT_PREVIEW_IMAGE_MAX.usize();
        assert_eq!(map_result(&[image(cap)], None)[0]["type"], "image");
        assert_eq!(
            map_result(&[image(cap + 1)], None)[0]["text"],
            "[render_preview image omitted \u{2014} 127KB exceeds 127KB cap]"
        );
        assert_eq!(
            map_result(
                &[json!({"type": "image", "data": "x", "mimeType": "image/bmp"})],
                None
            )[0]["type"],
            "text"
        );
    }

    #[test]
    fn aggregate_cap() {
        let cap = limits::DESIGN_RESULT_AGGREGATE_MAX.usize();
        let text = |n: usize| json!({"type": "text", "text": "x".repeat(n)});
        let out = map_result(&[text(cap)], None);
        assert_eq!(out.as_array().unwrap().len(), 1);
        let out = map_result(&[text(cap - 10), text(11), text(10)], None);
        let out = out.as_array().unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(out[2]["text"], "[ClaudeDesign result truncated \u{2014} 1 block(s) (0k chars) omitted; aggregate over 127k-char cap]");
        let out = map_result(&[text(cap + 1)], None);
        assert_eq!(out[0]["text"], "[ClaudeDesign result truncated \u{2014} 1 block(s) (127k chars) omitted; aggregate over 127k-char cap]");
    }

    #[test]
    fn errors_and_empty() {
        assert_eq!(map_result(&[], None), json!("(empty result)"));
        assert_eq!(
            map_result(&[], Some(true)),
            json!("(error with no message)")
        );
        let c = [
            json!({"type": "text", "text": " a "}),
            json!({"type": "text", "text": "b\n"}),
        ];
        assert_eq!(map_result(&c, Some(true)), json!("a \nb"));
        assert_eq!(
            map_result(&[json!({"type": "resource", "x": 1})], None)[0]["text"],
            r#"{"type":"resource","x":1}"#
        );
    }
}
