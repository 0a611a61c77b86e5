//! A `tools/call` outcome as the model sees it (the tool_result content) and as stream-json shows
//! it (`tool_use_result`), with the forms 2.1.235 uses: blocks for ordinary content, a string
//! for errors, empty results and structured content.

use serde_json::{json, Value};

use super::error::McpError;

pub struct CallOutput {
    /// A string or an array of blocks.
    pub content: Value,
    pub is_error: bool,
    pub structured: Value,
}

pub fn map_result(server: &str, wire_name: &str, result: &Value) -> CallOutput {
    let items: &[Value] = result["content"].as_array().map_or(&[], Vec::as_slice);
    if result["isError"] == true {
        let text: Vec<&str> = items.iter().filter_map(|b| b["text"].as_str()).collect();
        let text = if text.is_empty() {
            "Unknown error".to_owned()
        } else {
            text.join("\n")
        };
        return CallOutput {
            structured: json!(format!("Error: {text}")),
            content: json!(text),
            is_error: true,
        };
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let text = structured.to_string();
        return CallOutput {
            structured: json!({"content": text, "structuredContent": structured}),
            content: json!(text),
            is_error: false,
        };
    }
    let blocks: Vec<Value> = items.iter().filter_map(|b| block(server, b)).collect();
    if blocks.is_empty() {
        return CallOutput {
            content: json!(format!("({wire_name} completed with no output)")),
            is_error: false,
            structured: json!([]),
        };
    }
    CallOutput {
        content: json!(blocks),
        is_error: false,
        structured: json!(blocks),
    }
}

fn block(server: &str, b: &Value) -> Option<Value> {
    Some(match b["type"].as_str()? {
        "text" => json!({"type": "text", "text": b["text"]}),
        "image" => {
            json!({"type": "image", "source": {"type": "base64", "media_type": b["mimeType"], "data": b["data"]}})
        }
        "resource" => {
            let r = &b["resource"];
            json!({"type": "text", "text": format!(
                "[Resource from {server} at {}] {}",
                r["uri"].as_str().unwrap_or_default(),
                r["text"].as_str().unwrap_or_default()
            )})
        }
        "resource_link" => json!({"type": "text", "text": format!(
            "[Resource link: {}] {}",
            b["name"].as_str().unwrap_or_default(),
            b["uri"].as_str().unwrap_or_default()
        )}),
        // Audio and other binary kinds: not carried (a documented gap).
        _ => return None,
    })
}

/// A call that failed before a result came back.
pub fn map_error(e: &McpError) -> CallOutput {
    let text = e.to_string();
    CallOutput {
        structured: json!(format!("Error: {text}")),
        content: json!(text),
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_follow_the_kind_of_result() {
        let ok = map_result(
            "s",
            "mcp__s__t",
            &json!({"content": [{"type": "text", "text": "hi"}]}),
        );
        assert_eq!(ok.content, json!([{"type": "text", "text": "hi"}]));
        let err = map_result("s", "mcp__s__t", &json!({"content": [], "isError": true}));
        assert_eq!((err.content, err.is_error), (json!("Unknown error"), true));
        assert_eq!(err.structured, json!("Error: Unknown error"));
        let empty = map_result("s", "mcp__s__t", &json!({"content": []}));
        assert_eq!(empty.content, json!("(mcp__s__t completed with no output)"));
        let sc = map_result(
            "s",
            "mcp__s__t",
            &json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"k": 1}}),
        );
        assert_eq!(sc.content, json!("{\"k\":1}"));
        let res = map_result(
            "s",
            "mcp__s__t",
            &json!({"content": [{"type": "resource", "resource": {"uri": "file:///x", "text": "T"}}]}),
        );
        assert_eq!(res.content[0]["text"], "[Resource from s at file:///x] T");
    }
}
