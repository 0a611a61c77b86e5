//! Discovery: `tools/list` with cursor pagination and bounded retries, and the conversion of each
//! listed tool into a Claude tool (wire name, cut description, schema checked), a bad tool dropped
//! alone.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::error::McpError;
use crate::limits;

/// A converted MCP tool as `tools[]` carries it.
#[derive(Debug, Clone)]
pub struct McpTool {
    pub wire_name: String,
    pub server: String,
    /// The name the server knows it by, for `tools/call`.
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server's `alwaysLoad`: never deferred by tool search.
    pub always_load: bool,
    /// The tool's hints as the host's `mcp_status` shows them (recorded on 2.1.235: only
    /// `readOnly`, `destructive` and `openWorld`, each when its hint is true).
    pub annotations: Value,
}

impl McpTool {
    pub fn definition(&self) -> Value {
        json!({"name": self.wire_name, "description": self.description, "input_schema": self.input_schema})
    }
}

/// One applied catalog of one server.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// 0 before the first successful list; each applied refresh adds one.
    pub generation: u64,
    pub tools: Vec<McpTool>,
}

/// The result of listing: the tools, and whether the page cap cut the list short.
pub struct Listing {
    pub tools: Vec<Value>,
    pub capped: bool,
}

/// `mcp__<server>__<tool>`, each part with characters outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn wire_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", normalize(server), normalize(tool))
}

pub(super) fn normalize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Cuts at `max` chars, marking the cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push_str("… [truncated]");
    out
}

/// Lists every page, merging up to the page cap; each page's retryable failures are retried
/// after the documented pauses. A cursor that never advances ends at the cap like any other;
/// tools listed twice are kept once.
pub async fn list_tools<F, Fut>(mut request: F) -> Result<Listing, McpError>
where
    F: FnMut(Value) -> Fut,
    Fut: std::future::Future<Output = Result<Value, McpError>>,
{
    let max_pages = limits::MCP_TOOLS_LIST_MAX_PAGES.usize();
    let mut tools = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..max_pages {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => Value::Null,
        };
        let page = with_retries(|| request(params.clone())).await?;
        for tool in page["tools"].as_array().into_iter().flatten() {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            if seen.insert(name) {
                tools.push(tool.clone());
            }
        }
        match page["nextCursor"].as_str() {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => {
                return Ok(Listing {
                    tools,
                    capped: false,
                })
            }
        }
    }
    Ok(Listing {
        tools,
        capped: true,
    })
}

async fn with_retries<F, Fut>(mut attempt: F) -> Result<Value, McpError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Value, McpError>>,
{
    let delays = [
        &limits::MCP_TOOLS_LIST_RETRY_DELAY_1,
        &limits::MCP_TOOLS_LIST_RETRY_DELAY_2,
        &limits::MCP_TOOLS_LIST_RETRY_DELAY_3,
    ];
    debug_assert_eq!(delays.len(), limits::MCP_TOOLS_LIST_MAX_RETRIES.usize());
    let mut tries = 0;
    loop {
        match attempt().await {
            Ok(v) => return Ok(v),
            Err(e) if e.retryable() && tries < delays.len() => {
                tokio::time::sleep(Duration::from_millis(delays[tries].get())).await;
                tries += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Converts listed tools; returns the good ones and a line per dropped one.
pub fn convert(server: &str, listed: &[Value]) -> (Vec<McpTool>, Vec<String>) {
    let mut tools = Vec::new();
    let mut dropped = Vec::new();
    for raw in listed {
        let Some(name) = raw["name"].as_str().filter(|n| !n.is_empty()) else {
            dropped.push(format!(
                "MCP server \"{server}\": a tool without a name was dropped"
            ));
            continue;
        };
        let schema = raw
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        if let Err(why) = check_schema(&schema) {
            dropped.push(format!(
                "MCP server \"{server}\" Skipping tool \"{name}\": its input schema {why}. Other tools from this server remain available."
            ));
            continue;
        }
        tools.push(McpTool {
            wire_name: wire_name(server, name),
            server: server.to_owned(),
            name: name.to_owned(),
            description: cut(
                raw["description"].as_str().unwrap_or_default(),
                limits::MCP_TOOLS_DESCRIPTION_MAX.usize(),
            ),
            input_schema: reorder(schema),
            always_load: false,
            annotations: shown_hints(&raw["annotations"]),
        });
    }
    (tools, dropped)
}

fn shown_hints(annotations: &Value) -> Value {
    let shown = [
        ("readOnlyHint", "readOnly"),
        ("destructiveHint", "destructive"),
        ("openWorldHint", "openWorld"),
    ]
    .into_iter()
    .filter(|(hint, _)| annotations[hint] == true)
    .map(|(_, key)| (key.to_owned(), Value::Bool(true)));
    Value::Object(shown.collect())
}

/// `type`, `properties`, `required` first, then the rest in the server's order, as 2.1.235 sends
/// a passed-through schema.
fn reorder(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let mut out = serde_json::Map::new();
    for key in ["type", "properties", "required"] {
        if let Some(v) = map.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(map);
    Value::Object(out)
}

/// What the Messages API would reject: not an object schema, a top-level combinator, or a
/// property key outside `^[a-zA-Z0-9_.-]{1,64}$`.
fn check_schema(schema: &Value) -> Result<(), String> {
    let Some(obj) = schema.as_object() else {
        return Err("is not an object".into());
    };
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if obj.contains_key(combinator) {
            return Err(format!(
                "uses top-level {combinator}, which the Anthropic API does not accept"
            ));
        }
    }
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err("does not have type \"object\"".into());
    }
    for key in obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
    {
        let ok = (1..=64).contains(&key.len())
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !ok {
            return Err(format!(
                "has property key {key:?}, which does not match /^[a-zA-Z0-9_.-]{{1,64}}$/"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalized_per_part() {
        assert_eq!(
            wire_name("my server.x", "get/thing"),
            "mcp__my_server_x__get_thing"
        );
    }

    #[test]
    fn a_bad_tool_is_dropped_alone() {
        let listed = vec![
            json!({"name": "good", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}),
            json!({"name": "combi", "inputSchema": {"anyOf": [{"type": "object"}]}}),
            json!({"name": "badkey", "inputSchema": {"type": "object", "properties": {"bad key!": {}}}}),
        ];
        let (tools, dropped) = convert("s", &listed);
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].wire_name, "mcp__s__good");
        assert_eq!(dropped.len(), 2);
    }

    #[test]
    fn descriptions_are_cut_at_the_limit() {
        let long = "d".repeat(3000);
        let (tools, _) = convert("s", &[json!({"name": "t", "description": long})]);
        let max = limits::MCP_TOOLS_DESCRIPTION_MAX.usize();
        assert!(tools[0].description.starts_with(&"d".repeat(max)));
        assert!(!tools[0].description.starts_with(&"d".repeat(max + 1)));
    }

    #[tokio::test]
    async fn pages_merge_and_a_stuck_cursor_stops_at_the_cap() {
        let mut calls = 0;
        let listing = list_tools(|_| {
            calls += 1;
            let n = calls;
            async move {
                Ok(json!({"tools": [{"name": format!("t{}", n.min(2))}], "nextCursor": "same"}))
            }
        })
        .await
        .unwrap();
        assert_eq!(calls, limits::MCP_TOOLS_LIST_MAX_PAGES.usize());
        assert!(listing.capped);
        assert_eq!(listing.tools.len(), 2, "no duplicates");
    }
}
