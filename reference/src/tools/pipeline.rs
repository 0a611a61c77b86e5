//! The one path every tool_use takes: lookup → input schema validation → permission decision →
//! execution → result mapping with the tool's own budget. Every outcome is a tool_result paired
//! with its tool_use id.

use serde_json::{json, Value};

use super::{persist, schema, Tool, ToolContext, ToolError};
use crate::permissions::Decision;

pub struct ToolResult {
    pub tool_use_id: String,
    pub content: String,
    /// Content as blocks (a notebook Read), used instead of `content` when present.
    pub blocks: Option<Value>,
    /// `None` leaves the key out, as successful Read/Write/Edit results do.
    pub is_error: Option<bool>,
    /// The stream-json `tool_use_result`.
    pub structured: Value,
    /// Set when the permission decision refused the call: the message for the denial event.
    pub denied: Option<String>,
}

impl ToolResult {
    fn error(id: &str, message: String, wrap: bool) -> Self {
        let content = if wrap {
            format!("<tool_use_error>{message}</tool_use_error>")
        } else {
            message.clone()
        };
        ToolResult {
            tool_use_id: id.into(),
            content,
            is_error: Some(true),
            structured: Value::String(format!("Error: {message}")),
            denied: None,
            blocks: None,
        }
    }

    /// The block as it goes into the next request (key order as the real binary sends it).
    pub fn block(&self) -> Value {
        match self.is_error {
            Some(true) => {
                json!({"type": "tool_result", "content": self.content, "is_error": true, "tool_use_id": self.tool_use_id})
            }
            Some(false) => {
                json!({"tool_use_id": self.tool_use_id, "type": "tool_result", "content": self.content, "is_error": false})
            }
            None => {
                let content = self.blocks.clone().unwrap_or_else(|| json!(self.content));
                json!({"tool_use_id": self.tool_use_id, "type": "tool_result", "content": content})
            }
        }
    }
}

/// Tools that exist but are not always offered (the text recorded for LSP and TodoWrite).
const DISABLED_WHEN_ABSENT: &[&str] = &["LSP", "TodoWrite"];

pub fn run_tool(tools: &[&dyn Tool], tool_use: &Value, ctx: &mut ToolContext) -> ToolResult {
    let id = tool_use["id"].as_str().unwrap_or_default();
    let name = tool_use["name"].as_str().unwrap_or_default();
    let input = &tool_use["input"];
    let Some(tool) = tools.iter().find(|t| t.name() == name) else {
        // Tools this agent has but did not offer this turn say so, as 2.1.235's do.
        let message = if DISABLED_WHEN_ABSENT.contains(&name) {
            format!("Error: No such tool available: {name}. {name} is disabled for this session, in subagents as well as here.")
        } else {
            format!("Error: No such tool available: {name}")
        };
        return ToolResult::error(id, message, true);
    };
    let issues = schema::issues(&tool.input_schema(), input);
    if !issues.is_empty() {
        let mut result = ToolResult::error(id, schema::message(name, &issues), true);
        result.structured = Value::String(schema::structured(&issues));
        return result;
    }
    match ctx.permissions.decide(&tool.access(input, ctx)) {
        Decision::Allow => {}
        Decision::Rule(message) => return ToolResult::error(id, message, true),
        Decision::Ask(message) => {
            let mut result = ToolResult::error(id, message.clone(), false);
            result.denied = Some(message);
            return result;
        }
    }
    match tool.call(input, ctx) {
        Err(ToolError { message, wrap }) => ToolResult::error(id, message, wrap),
        Ok(output) => {
            let mut content = output.content;
            if let Some(budget) = tool.result_budget() {
                if content.chars().count() > budget.usize() {
                    // Bash names its saved output at random; other tools by their tool_use id.
                    let name = (tool.name() != "Bash").then_some(id);
                    content =
                        persist::persist(&ctx.home, &ctx.cwd, &ctx.session_id, name, &content)
                            .unwrap_or_else(|e| {
                                format!("tool output over budget and could not be saved: {e}")
                            });
                }
            }
            ToolResult {
                tool_use_id: id.into(),
                content,
                is_error: output.is_error,
                structured: output.structured,
                denied: None,
                blocks: output.blocks,
            }
        }
    }
}
