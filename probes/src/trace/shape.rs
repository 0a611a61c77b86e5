//! Values reduced to their shape: sorted keys, keys with their values (long strings as their
//! length), a tool's schema as its signature, never its prose.

use serde_json::Value;

use super::VERBATIM_MAX;

/// An object's entries sorted by key (none for anything else).
pub(super) fn sorted_entries(v: &Value) -> Vec<(&str, &Value)> {
    let mut entries: Vec<(&str, &Value)> = v
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    entries.sort_by_key(|(k, _)| *k);
    entries
}

pub(super) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Sorted keys with their values, long strings by their length: `a=1 b{c="x"}`.
pub(super) fn keys_and_values(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            names
                .iter()
                .map(|k| match &map[k.as_str()] {
                    inner @ Value::Object(_) => format!("{k}{{{}}}", keys_and_values(inner)),
                    inner => format!("{k}={}", keys_and_values(inner)),
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| match i {
                    Value::Object(_) => format!("{{{}}}", keys_and_values(i)),
                    _ => keys_and_values(i),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::String(s) if s.chars().count() > VERBATIM_MAX => {
            format!("({} chars)", s.chars().count())
        }
        other => other.to_string(),
    }
}

/// Sorted keys, objects expanded `depth` levels: `message{content,id}, type`.
pub(super) fn keys(v: &Value, depth: usize) -> String {
    let Some(map) = v.as_object() else {
        return String::new();
    };
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    names
        .iter()
        .map(|k| match &map[k.as_str()] {
            Value::Object(inner) if depth > 1 && !inner.is_empty() => {
                format!("{k}{{{}}}", keys(&map[k.as_str()], depth - 1))
            }
            _ => k.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Name(prop*: type, …)`, `*` marking required properties: the schema's shape, never its prose.
pub(super) fn signature(tool: &Value) -> String {
    let name = tool["name"].as_str().unwrap_or("?");
    let schema = &tool["input_schema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let props = schema["properties"].as_object().map(|props| {
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        names
            .iter()
            .map(|p| {
                let star = if required.contains(&p.as_str()) {
                    "*"
                } else {
                    ""
                };
                format!("{p}{star}: {}", type_of(&props[p.as_str()]))
            })
            .collect::<Vec<_>>()
            .join(", ")
    });
    format!("{name}({})", props.unwrap_or_default())
}

pub(super) fn type_of(schema: &Value) -> String {
    if let Some(values) = schema["enum"].as_array() {
        return values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("|");
    }
    match &schema["type"] {
        Value::String(t) if t == "array" => format!("{}[]", type_of(&schema["items"])),
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("anyOf").is_some() => "anyOf".into(),
        _ => "any".into(),
    }
}

/// A JSON value on one line, long strings by their length.
pub(super) fn compact(v: &Option<Value>) -> String {
    fn shorten(v: &Value) -> Value {
        match v {
            Value::String(s) if s.chars().count() > VERBATIM_MAX => {
                Value::String(format!("({} chars)", s.chars().count()))
            }
            Value::Array(a) => Value::Array(a.iter().map(shorten).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
            }
            other => other.clone(),
        }
    }
    v.as_ref().map_or(String::new(), |v| shorten(v).to_string())
}
