//! StructuredOutput: how the final answer comes back when the host gave a JSON Schema
//! (`--json-schema`, the SDKs' `outputFormat`). Its input schema is the host's schema as given;
//! the input is checked against it here, not by the pipeline, so a miss is told the model in
//! 2.1.235's words and it may try again (recorded on 2.1.235: sdk.invocation/json-schema). The
//! loop ends the turn once a call succeeds (`agent::turn`).

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{Access, Tool, ToolContext, ToolError, ToolOutput};

pub struct StructuredOutput;

pub const NAME: &str = "StructuredOutput";
/// The result of a call whose input matches the schema.
pub const PROVIDED: &str = "Structured output provided successfully";
/// The message a turn that ends without calling the tool gets, once (2.1.235's, a protocol line).
pub const ENFORCE: &str = "[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. Call this tool now.";

static SCHEMA: OnceLock<Value> = OnceLock::new();

/// The host's schema, for the whole process.
pub fn set_schema(schema: Value) {
    let _ = SCHEMA.set(schema);
}

impl Tool for StructuredOutput {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Give your final answer by calling this tool once, with input that matches its schema. \
         Call it at the end of the task; a call whose input does not match is refused with the \
         reason, and you may call it again."
    }

    fn input_schema(&self) -> Value {
        SCHEMA
            .get()
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}))
    }

    fn validation_schema(&self) -> Value {
        json!({})
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, _ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        if let Some(miss) = first_miss(&self.input_schema(), input, "") {
            return Err(ToolError::plain(format!(
                "Output does not match required schema: {miss}"
            )));
        }
        Ok(ToolOutput {
            content: PROVIDED.into(),
            structured: Value::String(PROVIDED.into()),
            is_error: None,
            blocks: None,
        })
    }
}

/// The first way `value` misses `schema`, as 2.1.235's validator words it (`root` for the top,
/// else the JSON pointer): required properties and types, the parts of JSON Schema a host's
/// output format states.
fn first_miss(schema: &Value, value: &Value, at: &str) -> Option<String> {
    let here = if at.is_empty() { "root" } else { at };
    if let Some(kind) = schema["type"].as_str() {
        if !has_type(value, kind) {
            return Some(format!("{here}: must be {kind}"));
        }
    }
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default();
        if value.get(name).is_none() {
            return Some(format!("{here}: must have required property '{name}'"));
        }
    }
    let properties = schema["properties"].as_object()?;
    properties.iter().find_map(|(name, property)| {
        let inner = value.get(name)?;
        first_miss(property, inner, &format!("{at}/{name}"))
    })
}

fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_miss_is_worded_as_2_1_235_words_it() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        assert_eq!(
            first_miss(&schema, &json!({"nam": 5}), "").as_deref(),
            Some("root: must have required property 'name'")
        );
        assert_eq!(
            first_miss(&schema, &json!({"name": 5}), "").as_deref(),
            Some("/name: must be string")
        );
        assert_eq!(first_miss(&schema, &json!({"name": "x"}), ""), None);
        assert_eq!(
            first_miss(&json!({"type": "string"}), &json!({}), "").as_deref(),
            Some("root: must be string")
        );
    }
}
