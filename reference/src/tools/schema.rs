//! Input validation against a tool's own JSON schema, with the issue wording the real 2.1.235
//! binary puts in its `InputValidationError` results.

use serde_json::Value;

/// The issues of `input` against `schema`, in schema property order, unexpected keys last.
pub fn issues(schema: &Value, input: &Value) -> Vec<String> {
    let Some(object) = input.as_object() else {
        return vec![format!(
            "The input type is expected as `object` but provided as `{}`",
            type_name(input)
        )];
    };
    let empty = serde_json::Map::new();
    let props = schema["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = Vec::new();
    for (name, prop) in props {
        match object.get(name) {
            None if required.contains(&name.as_str()) => {
                out.push(format!("The required parameter `{name}` is missing"))
            }
            None => {}
            Some(value) => out.extend(property_issue(name, prop, value)),
        }
    }
    if schema["additionalProperties"] == Value::Bool(false) {
        for key in object.keys().filter(|k| !props.contains_key(*k)) {
            out.push(format!("An unexpected parameter `{key}` was provided"));
        }
    }
    out
}

fn property_issue(name: &str, prop: &Value, value: &Value) -> Option<String> {
    let expected = prop["type"].as_str().unwrap_or("any");
    let ok = match expected {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !ok {
        return Some(format!(
            "The parameter `{name}` type is expected as `{expected}` but provided as `{}`",
            type_name(value)
        ));
    }
    // Objects inside an array: their required fields, named by path (`todos[0].activeForm`).
    if let (Some(items), Some(item_schema)) = (value.as_array(), prop.get("items")) {
        for (i, item) in items.iter().enumerate() {
            let required = item_schema["required"].as_array().into_iter().flatten();
            for field in required.filter_map(Value::as_str) {
                if item.get(field).is_none() {
                    return Some(format!(
                        "The required parameter `{name}[{i}].{field}` is missing"
                    ));
                }
            }
        }
    }
    if let Some(choices) = prop["enum"].as_array() {
        if !choices.contains(value) {
            let list: Vec<String> = choices.iter().map(|c| c.to_string()).collect();
            return Some(format!(
                "The parameter `{name}` must be one of {}",
                list.join(", ")
            ));
        }
    }
    let n = value.as_f64()?;
    if let Some(min) = prop["minimum"].as_f64() {
        if n < min {
            return Some(format!(
                "The parameter `{name}` must be greater than or equal to {min}"
            ));
        }
    }
    if let Some(min) = prop["exclusiveMinimum"].as_f64() {
        if n <= min {
            return Some(format!("The parameter `{name}` must be greater than {min}"));
        }
    }
    if let Some(max) = prop["maximum"].as_f64() {
        if n > max {
            return Some(format!(
                "The parameter `{name}` must be less than or equal to {max}"
            ));
        }
    }
    None
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The tool_result text for failed validation.
pub fn message(tool: &str, issues: &[String]) -> String {
    let noun = if issues.len() == 1 { "issue" } else { "issues" };
    format!(
        "InputValidationError: {tool} failed due to the following {noun}:\n{}",
        issues.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type":"object","properties":{"file_path":{"type":"string"},"limit":{"type":"integer","exclusiveMinimum":0}},
               "required":["file_path"],"additionalProperties":false})
    }

    #[test]
    fn wording_matches_the_recorded_binary() {
        assert_eq!(
            issues(&schema(), &json!({})),
            ["The required parameter `file_path` is missing"]
        );
        assert_eq!(
            issues(&schema(), &json!({"file_path": 5})),
            ["The parameter `file_path` type is expected as `string` but provided as `number`"]
        );
        assert_eq!(
            issues(&schema(), &json!({"file_path": "a", "bogus": 1})),
            ["An unexpected parameter `bogus` was provided"]
        );
        assert_eq!(
            issues(&schema(), &json!({"file_path": "a", "limit": 0})),
            ["The parameter `limit` must be greater than 0"]
        );
        assert!(issues(&schema(), &json!({"file_path": "a", "limit": 3})).is_empty());
        let list = json!({"type": "object", "properties": {"todos": {"type": "array",
            "items": {"type": "object", "required": ["content", "activeForm"]}}}});
        assert_eq!(
            issues(&list, &json!({"todos": [{"content": "x"}]})),
            ["The required parameter `todos[0].activeForm` is missing"]
        );
        assert_eq!(
            message("Read", &issues(&schema(), &json!({}))),
            "InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing"
        );
    }
}
