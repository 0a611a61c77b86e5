//! Input validation against a tool's own JSON schema, with what the real 2.1.235 binary puts in its
//! `InputValidationError` results: each issue as a zod issue object, and, where its formatter has
//! one, a sentence. A missing or wrong value of an enum has no sentence there, so a result with
//! such an issue shows the zod issues themselves.

use serde_json::{json, Value};

/// One problem with the input.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// The sentence 2.1.235 writes for it, when it has one.
    pub sentence: Option<String>,
    /// The zod issue object, keys in zod's order.
    pub zod: Value,
}

impl Issue {
    pub fn missing(path: Vec<Value>, label: &str, prop: &Value) -> Self {
        if let Some(choices) = prop["enum"].as_array() {
            return Issue::bad_option(path, choices);
        }
        let expected = zod_type(prop);
        Issue {
            sentence: Some(format!("The required parameter `{label}` is missing")),
            zod: json!({"expected": expected, "code": "invalid_type", "path": path,
                        "message": format!("Invalid input: expected {expected}, received undefined")}),
        }
    }

    fn bad_option(path: Vec<Value>, choices: &[Value]) -> Self {
        let list: Vec<String> = choices.iter().map(Value::to_string).collect();
        Issue {
            sentence: None,
            zod: json!({"code": "invalid_value", "values": choices, "path": path,
                        "message": format!("Invalid option: expected one of {}", list.join("|"))}),
        }
    }
}

/// The issues of `input` against `schema`, in schema property order, unexpected keys last.
pub fn issues(schema: &Value, input: &Value) -> Vec<Issue> {
    let Some(object) = input.as_object() else {
        return vec![Issue {
            sentence: Some(format!(
                "The input type is expected as `object` but provided as `{}`",
                type_name(input)
            )),
            zod: json!({"expected": "object", "code": "invalid_type", "path": [],
                        "message": format!("Invalid input: expected object, received {}", type_name(input))}),
        }];
    };
    let empty = serde_json::Map::new();
    let props = schema["properties"].as_object().unwrap_or(&empty);
    let required = required(schema);
    let mut out = Vec::new();
    for (name, prop) in props {
        match object.get(name) {
            // A default fills a required property in (zod's `.default()`), as in 2.1.235.
            None if required.contains(&name.as_str()) && prop.get("default").is_none() => {
                out.push(Issue::missing(vec![json!(name)], name, prop))
            }
            None => {}
            Some(value) => match property_issue(name, prop, value) {
                Some(issue) => out.push(issue),
                None => match (value.as_array(), prop.get("items")) {
                    (Some(items), Some(item_schema)) => {
                        out.extend(item_issues(name, items, item_schema))
                    }
                    _ => out.extend(nested_missing(name, prop, value)),
                },
            },
        }
    }
    if schema["additionalProperties"] == Value::Bool(false) {
        out.extend(unrecognized(object, props, json!([])));
    }
    out
}

/// An object property's own required fields, each missing one an issue by its dotted path
/// (recorded: DesignSync's `counts` without its five totals names all five).
fn nested_missing(name: &str, prop: &Value, value: &Value) -> Vec<Issue> {
    let (Some(props), Some(object)) = (prop["properties"].as_object(), value.as_object()) else {
        return Vec::new();
    };
    let required = required(prop);
    props
        .iter()
        .filter(|(field, p)| {
            required.contains(&field.as_str())
                && !object.contains_key(*field)
                && p.get("default").is_none()
        })
        .map(|(field, p)| {
            Issue::missing(
                vec![json!(name), json!(field)],
                &format!("{name}.{field}"),
                p,
            )
        })
        .collect()
}

/// Marks, in a tool's validation schema only (never sent), an array's item object that refuses
/// fields it does not name (2.1.235's strict object). The JSON schema on the wire says
/// `additionalProperties: false` both for those and for objects that drop such fields
/// (TodoWrite's items), so it cannot tell them apart.
pub const STRICT: &str = "x-strict";

/// Every issue of the objects inside an array, item by item, as zod reports them all: an item
/// of the wrong type, else its missing required fields (by path, `todos[0].activeForm`), its
/// enums, and, for a strict item, the fields its schema does not name.
fn item_issues(name: &str, items: &[Value], item_schema: &Value) -> Vec<Issue> {
    let mut out = Vec::new();
    let item_props = &item_schema["properties"];
    for (i, item) in items.iter().enumerate() {
        if let Some(issue) = item_type_issue(name, i, item_schema, item) {
            out.push(issue);
            continue;
        }
        for field in required(item_schema) {
            // A field with a default is filled in, not missing (AskUserQuestion's multiSelect).
            if item.get(field).is_none() && item_props[field].get("default").is_none() {
                out.push(Issue::missing(
                    vec![json!(name), json!(i), json!(field)],
                    &format!("{name}[{i}].{field}"),
                    &item_props[field],
                ));
            }
        }
        for (field, field_schema) in item_props.as_object().into_iter().flatten() {
            let choices = field_schema["enum"].as_array();
            if let (Some(choices), Some(v)) = (choices, item.get(field)) {
                if !choices.contains(v) {
                    out.push(Issue::bad_option(
                        vec![json!(name), json!(i), json!(field)],
                        choices,
                    ));
                }
            }
        }
        if let (Some(object), Some(props), true) = (
            item.as_object(),
            item_props.as_object(),
            item_schema[STRICT] == Value::Bool(true),
        ) {
            out.extend(unrecognized(object, props, json!([name, i])));
        }
    }
    out
}

/// The fields of `object` its schema does not name, as zod reports them: one issue, one sentence
/// a key (recorded: TaskList with `x` and `y` says "issues"); inside an array item 2.1.235's
/// sentence names the key alone, not its path.
fn unrecognized(
    object: &serde_json::Map<String, Value>,
    props: &serde_json::Map<String, Value>,
    path: Value,
) -> Option<Issue> {
    let unexpected: Vec<&String> = object.keys().filter(|k| !props.contains_key(*k)).collect();
    if unexpected.is_empty() {
        return None;
    }
    let quoted: Vec<String> = unexpected.iter().map(|k| format!("\"{k}\"")).collect();
    let noun = if quoted.len() == 1 { "key" } else { "keys" };
    let sentences: Vec<String> = unexpected
        .iter()
        .map(|k| format!("An unexpected parameter `{k}` was provided"))
        .collect();
    Some(Issue {
        sentence: Some(sentences.join("\n")),
        zod: json!({"code": "unrecognized_keys", "keys": unexpected, "path": path,
                    "message": format!("Unrecognized {noun}: {}", quoted.join(", "))}),
    })
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn property_issue(name: &str, prop: &Value, value: &Value) -> Option<Issue> {
    if let Some(branches) = prop["anyOf"].as_array() {
        return union_issue(name, branches, value);
    }
    let expected = match zod_type(prop) {
        "record" => "record",
        _ => prop["type"].as_str().unwrap_or("any"),
    };
    let ok = match prop["type"].as_str().unwrap_or("any") {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !ok {
        let zod_expected = zod_type(prop);
        return Some(Issue {
            sentence: Some(format!(
                "The parameter `{name}` type is expected as `{expected}` but provided as `{}`",
                type_name(value)
            )),
            zod: json!({"expected": zod_expected, "code": "invalid_type", "path": [name],
                        "message": format!("Invalid input: expected {zod_expected}, received {}", type_name(value))}),
        });
    }
    // A string's pattern, as zod's regex check reports it (no sentence for it).
    if let (Some(pattern), Some(text)) = (prop["pattern"].as_str(), value.as_str()) {
        let re =
            regex::Regex::new(&format!("(?-u){pattern}")).or_else(|_| regex::Regex::new(pattern));
        if re.is_ok_and(|re| !re.is_match(text)) {
            return Some(Issue {
                sentence: None,
                zod: json!({"origin": "string", "code": "invalid_format", "format": "regex", "pattern": format!("/{pattern}/"), "path": [name],
                            "message": format!("Invalid string: must match pattern /{pattern}/")}),
            });
        }
    }
    if let Some(choices) = prop["enum"].as_array() {
        if !choices.contains(value) {
            return Some(Issue::bad_option(vec![json!(name)], choices));
        }
    }
    let n = value.as_f64()?;
    // Only an exclusive bound has a sentence in 2.1.235's formatter; an inclusive one shows the
    // zod issue itself (recorded: Projects' `n` of 0 and 16).
    let bound = |code: &str, limit: &Value, inclusive: bool| {
        let key = if code == "too_small" {
            "minimum"
        } else {
            "maximum"
        };
        let sentence = (!inclusive).then(|| match code {
            "too_small" => format!("The parameter `{name}` must be greater than {limit}"),
            _ => format!("The parameter `{name}` must be less than {limit}"),
        });
        Some(Issue {
            sentence,
            zod: json!({"origin": "number", "code": code, key: limit, "inclusive": inclusive, "path": [name],
                        "message": format!("Too {}: expected number to be {}{limit}",
                            if code == "too_small" { "small" } else { "big" },
                            match (code, inclusive) { ("too_small", true) => ">=", ("too_small", false) => ">", (_, true) => "<=", _ => "<" })}),
        })
    };
    if prop["minimum"].as_f64().is_some_and(|min| n < min) {
        return bound("too_small", &prop["minimum"], true);
    }
    if prop["exclusiveMinimum"]
        .as_f64()
        .is_some_and(|min| n <= min)
    {
        return bound("too_small", &prop["exclusiveMinimum"], false);
    }
    if prop["maximum"].as_f64().is_some_and(|max| n > max) {
        return bound("too_big", &prop["maximum"], true);
    }
    None
}

/// A primitive array item of the wrong type (`addBlocks[0]` a number), by its index.
fn item_type_issue(name: &str, i: usize, item_schema: &Value, item: &Value) -> Option<Issue> {
    let expected = item_schema["type"].as_str()?;
    let ok = match expected {
        "string" => item.is_string(),
        "number" => item.is_number(),
        "boolean" => item.is_boolean(),
        _ => return None,
    };
    (!ok).then(|| Issue {
        sentence: Some(format!(
            "The parameter `{name}[{i}]` type is expected as `{expected}` but provided as `{}`",
            type_name(item)
        )),
        zod: json!({"expected": expected, "code": "invalid_type", "path": [name, i],
                    "message": format!("Invalid input: expected {expected}, received {}", type_name(item))}),
    })
}

/// A value no branch of an `anyOf` of enums and constants accepts: zod's `invalid_union`, one
/// issue per branch, with no sentence (recorded: TaskUpdate's `status` of "bogus" and of 5).
fn union_issue(name: &str, branches: &[Value], value: &Value) -> Option<Issue> {
    let accepts = |b: &Value| match (b["enum"].as_array(), b.get("const")) {
        (Some(choices), _) => choices.contains(value),
        (None, Some(constant)) => constant == value,
        (None, None) => b["type"].as_str().is_none_or(|t| t == type_name(value)),
    };
    if branches.iter().any(accepts) {
        return None;
    }
    let errors: Vec<Value> = branches
        .iter()
        .map(|b| match b["enum"].as_array() {
            Some(choices) => vec![Issue::bad_option(vec![], choices).zod],
            None if b.get("const").is_some() => vec![json!({"code": "invalid_value", "values": [b["const"]], "path": [],
                                "message": format!("Invalid input: expected {}", b["const"])})],
            None => vec![json!({"expected": b["type"], "code": "invalid_type", "path": [],
                                "message": format!("Invalid input: expected {}, received {}", b["type"].as_str().unwrap_or("any"), type_name(value))})],
        })
        .map(Value::from)
        .collect();
    Some(Issue {
        sentence: None,
        zod: json!({"code": "invalid_union", "errors": errors, "path": [name], "message": "Invalid input"}),
    })
}

/// zod's name for a JSON schema type (`integer` is a number to it, an object with
/// `propertyNames` a record).
fn zod_type(prop: &Value) -> &str {
    match prop["type"].as_str() {
        Some("object") if prop.get("propertyNames").is_some() => "record",
        Some("integer") => "number",
        Some(t) => t,
        None => "string",
    }
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `input` as the schema parses it (what 2.1.235 hands its permission prompt and its tool):
/// properties in the schema's order with their defaults filled in, keys the schema does not name
/// after them.
pub fn normalize(schema: &Value, input: &Value) -> Value {
    if let (Some(props), Some(object)) = (schema["properties"].as_object(), input.as_object()) {
        let mut out = serde_json::Map::new();
        for (name, prop) in props {
            match object.get(name) {
                Some(value) => {
                    out.insert(name.clone(), normalize(prop, value));
                }
                None => {
                    if let Some(default) = prop.get("default") {
                        out.insert(name.clone(), default.clone());
                    }
                }
            }
        }
        for (name, value) in object {
            if !props.contains_key(name) {
                out.insert(name.clone(), value.clone());
            }
        }
        return Value::Object(out);
    }
    match (input.as_array(), schema.get("items")) {
        (Some(items), Some(item)) => {
            Value::Array(items.iter().map(|i| normalize(item, i)).collect())
        }
        _ => input.clone(),
    }
}

/// The tool_result text for failed validation: the sentences, or the zod issues themselves when
/// one of them has no sentence.
pub fn message(tool: &str, issues: &[Issue]) -> String {
    let sentences: Option<Vec<&str>> = issues.iter().map(|i| i.sentence.as_deref()).collect();
    match sentences {
        Some(lines) => {
            let count: usize = lines.iter().map(|l| l.lines().count()).sum();
            let noun = if count == 1 { "issue" } else { "issues" };
            format!(
                "InputValidationError: {tool} failed due to the following {noun}:\n{}",
                lines.join("\n")
            )
        }
        None => structured(issues),
    }
}

/// The stream-json `tool_use_result` of failed validation: always the zod issues.
pub fn structured(issues: &[Issue]) -> String {
    let zod: Vec<&Value> = issues.iter().map(|i| &i.zod).collect();
    format!(
        "InputValidationError: {}",
        serde_json::to_string_pretty(&zod).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalized_input_follows_the_schema_and_fills_defaults() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}, "flag": {"type": "boolean", "default": false}}}},
            "z": {"type": "boolean", "default": true},
        }});
        let input = json!({"list": [{"x": "1"}], "a": "b", "extra": 1});
        assert_eq!(
            serde_json::to_string(&normalize(&schema, &input)).unwrap(),
            r#"{"a":"b","list":[{"x":"1","flag":false}],"z":true,"extra":1}"#
        );
    }

    fn schema() -> Value {
        json!({"type":"object","properties":{"file_path":{"type":"string"},"limit":{"type":"integer","exclusiveMinimum":0}},
               "required":["file_path"],"additionalProperties":false})
    }

    fn sentences(schema: &Value, input: &Value) -> Vec<String> {
        issues(schema, input)
            .into_iter()
            .map(|i| i.sentence.unwrap_or_default())
            .collect()
    }

    #[test]
    fn wording_matches_the_recorded_binary() {
        assert_eq!(
            sentences(&schema(), &json!({})),
            ["The required parameter `file_path` is missing"]
        );
        assert_eq!(
            sentences(&schema(), &json!({"file_path": 5})),
            ["The parameter `file_path` type is expected as `string` but provided as `number`"]
        );
        assert_eq!(
            sentences(&schema(), &json!({"file_path": "a", "bogus": 1})),
            ["An unexpected parameter `bogus` was provided"]
        );
        assert_eq!(
            sentences(&schema(), &json!({"file_path": "a", "limit": 0})),
            ["The parameter `limit` must be greater than 0"]
        );
        assert!(issues(&schema(), &json!({"file_path": "a", "limit": 3})).is_empty());
        let list = json!({"type": "object", "properties": {"todos": {"type": "array",
            "items": {"type": "object", "required": ["content", "activeForm"]}}}});
        assert_eq!(
            sentences(&list, &json!({"todos": [{"content": "x"}]})),
            ["The required parameter `todos[0].activeForm` is missing"]
        );
        assert_eq!(
            message("Read", &issues(&schema(), &json!({}))),
            "InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing"
        );
        // The structured result is zod's issue list even when the text is a sentence.
        assert_eq!(
            structured(&issues(&schema(), &json!({}))),
            "InputValidationError: [\n  {\n    \"expected\": \"string\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"file_path\"\n    ],\n    \"message\": \"Invalid input: expected string, received undefined\"\n  }\n]"
        );
    }

    /// An enum has no sentence in 2.1.235: the result is zod's issue list (recorded for
    /// NotebookEdit's edit_mode, TodoWrite's nested status, SendUserMessage's status).
    #[test]
    fn a_bad_or_missing_enum_value_shows_the_zod_issues() {
        let enum_schema = json!({"type": "object", "properties": {"status": {"type": "string",
            "enum": ["normal", "proactive"]}}, "required": ["status"]});
        let want = "InputValidationError: [\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"normal\",\n      \"proactive\"\n    ],\n    \"path\": [\n      \"status\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"normal\\\"|\\\"proactive\\\"\"\n  }\n]";
        assert_eq!(
            message(
                "SendUserMessage",
                &issues(&enum_schema, &json!({"status": "urgent"}))
            ),
            want
        );
        assert_eq!(
            message("SendUserMessage", &issues(&enum_schema, &json!({}))),
            want
        );
        let todos = json!({"type": "object", "properties": {"todos": {"type": "array", "items": {
            "type": "object", "properties": {"status": {"type": "string", "enum": ["pending", "done"]}}}}}});
        let nested = &issues(&todos, &json!({"todos": [{"status": "x"}]}))[0].zod;
        assert_eq!(nested["path"], json!(["todos", 0, "status"]));
    }

    #[test]
    fn a_union_of_enums_fails_as_one_raw_invalid_union() {
        let schema = json!({"type": "object", "properties": {"status": {"anyOf": [
            {"type": "string", "enum": ["pending", "completed"]},
            {"type": "string", "const": "deleted"},
        ]}}});
        assert!(issues(&schema, &json!({"status": "deleted"})).is_empty());
        let found = issues(&schema, &json!({"status": 5}));
        assert_eq!(found[0].sentence, None);
        assert_eq!(found[0].zod["code"], "invalid_union");
        assert_eq!(
            found[0].zod["errors"][1][0]["message"],
            "Invalid input: expected \"deleted\""
        );
        assert!(message("TaskUpdate", &found)
            .starts_with("InputValidationError: [\n  {\n    \"code\": \"invalid_union\""));
    }

    #[test]
    fn primitive_items_records_and_unexpected_keys_read_as_2_1_235_writes_them() {
        let schema = json!({"type": "object", "additionalProperties": false, "properties": {
            "ids": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
        }});
        let item = issues(&schema, &json!({"ids": ["1", 2]}));
        assert_eq!(item[0].zod["path"], json!(["ids", 1]));
        assert_eq!(message("T", &item), "InputValidationError: T failed due to the following issue:\nThe parameter `ids[1]` type is expected as `string` but provided as `number`");
        let record = issues(&schema, &json!({"meta": "x"}));
        assert_eq!(record[0].zod["expected"], "record");
        let extra = issues(&schema, &json!({"x": 1, "y": 2}));
        assert_eq!(extra.len(), 1, "one zod issue for all the keys");
        assert_eq!(extra[0].zod["message"], "Unrecognized keys: \"x\", \"y\"");
        assert_eq!(message("T", &extra), "InputValidationError: T failed due to the following issues:\nAn unexpected parameter `x` was provided\nAn unexpected parameter `y` was provided");
    }

    #[test]
    fn every_issue_of_every_item_is_reported_and_unknown_fields_only_for_a_strict_item() {
        let mut schema = json!({"type": "object", "properties": {"plugins": {"type": "array", "items": {
            "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
            "required": ["id", "name"], "additionalProperties": false}}}});
        let input = json!({"plugins": [{"x": 1}, {"id": "a", "name": "b"}, {"name": "c"}]});
        let sentences = |schema: &Value| -> Vec<String> {
            issues(schema, &input)
                .into_iter()
                .filter_map(|i| i.sentence)
                .collect()
        };
        assert_eq!(
            sentences(&schema),
            [
                "The required parameter `plugins[0].id` is missing",
                "The required parameter `plugins[0].name` is missing",
                "The required parameter `plugins[2].id` is missing",
            ]
        );
        schema["properties"]["plugins"]["items"][STRICT] = json!(true);
        assert_eq!(
            sentences(&schema)[2],
            "An unexpected parameter `x` was provided"
        );
    }
}
