//! The client's own argument checks before anything is sent (2.1.235's `M0f` and the tool's
//! `validateInput`): the operations this version can write with have an argument table (`WRITE`),
//! the read-only ones too (`READ`); a discovered read-only operation passes, a discovered write
//! without a table and an unknown operation do not. Texts are 2.1.235's.

use serde_json::Value;

use super::catalog::{utf16_len, utf16_prefix, Hints};
use crate::limits;

enum Items {
    Strings,
    Objects {
        fields: &'static [&'static str],
        required: &'static [&'static str],
    },
}

enum Choices {
    /// Exact values.
    Exact(&'static [&'static str]),
    /// Case-insensitive, the server normalizes.
    Accepts(&'static [&'static str]),
}

struct Schema {
    top: &'static [&'static str],
    arrays: &'static [(&'static str, Items)],
    enums: &'static [(&'static str, Choices)],
}

const fn plain(top: &'static [&'static str]) -> Schema {
    Schema {
        top,
        arrays: &[],
        enums: &[],
    }
}

const ROLES: Choices = Choices::Accepts(&["viewer", "commenter", "editor"]);

/// The write-tier operations this version can validate (`WRITE_OP_SCHEMAS`).
const WRITE: &[(&str, Schema)] = &[
    ("create_project", plain(&["name", "design_system_id"])),
    (
        "put_conversation",
        Schema {
            top: &["project_id", "title", "messages"],
            arrays: &[(
                "messages",
                Items::Objects {
                    fields: &["role", "content"],
                    required: &["role", "content"],
                },
            )],
            enums: &[],
        },
    ),
    (
        "finalize_plan",
        Schema {
            top: &["project_id", "writes", "deletes", "scope"],
            arrays: &[("writes", Items::Strings), ("deletes", Items::Strings)],
            enums: &[("scope", Choices::Exact(&["paths", "project"]))],
        },
    ),
    (
        "write_files",
        Schema {
            top: &["project_id", "plan_token", "files"],
            arrays: &[(
                "files",
                Items::Objects {
                    fields: &["path", "data", "local_path", "encoding", "if_match"],
                    required: &["path"],
                },
            )],
            enums: &[],
        },
    ),
    (
        "delete_files",
        Schema {
            top: &["project_id", "plan_token", "paths", "files"],
            arrays: &[
                ("paths", Items::Strings),
                (
                    "files",
                    Items::Objects {
                        fields: &["path", "if_match"],
                        required: &["path"],
                    },
                ),
            ],
            enums: &[],
        },
    ),
    (
        "copy_files",
        Schema {
            top: &["project_id", "plan_token", "files"],
            arrays: &[(
                "files",
                Items::Objects {
                    fields: &["src", "dest", "src_project_id", "if_match"],
                    required: &["src", "dest"],
                },
            )],
            enums: &[],
        },
    ),
    (
        "render_preview",
        Schema {
            top: &["project_id", "path", "render", "validators"],
            arrays: &[("validators", Items::Strings)],
            enums: &[],
        },
    ),
    (
        "create_support_js",
        plain(&["project_id", "plan_token", "path", "if_match"]),
    ),
    (
        "add_member",
        Schema {
            top: &["project_id", "account_uuid", "email", "role"],
            arrays: &[],
            enums: &[("role", ROLES)],
        },
    ),
    (
        "update_member_role",
        Schema {
            top: &["project_id", "account_uuid", "role"],
            arrays: &[],
            enums: &[("role", ROLES)],
        },
    ),
    ("remove_member", plain(&["project_id", "account_uuid"])),
    (
        "update_sharing",
        Schema {
            top: &["project_id", "scope", "link_permission"],
            arrays: &[],
            enums: &[
                ("scope", Choices::Accepts(&["invited", "org"])),
                (
                    "link_permission",
                    Choices::Accepts(&["view", "comment", "edit"]),
                ),
            ],
        },
    ),
];

/// The read-only operations this version knows, `list` included.
const READ: &[(&str, Schema)] = &[
    ("list", plain(&["full"])),
    ("list_design_systems", plain(&[])),
    (
        "get_claude_design_prompt",
        plain(&["design_system_id", "project_id"]),
    ),
    ("list_projects", plain(&[])),
    ("get_project", plain(&["project_id"])),
    ("list_files", plain(&["project_id", "path"])),
    ("read_file", plain(&["project_id", "path"])),
    ("get_conversation", plain(&["project_id", "chat_id"])),
    ("list_members", plain(&["project_id"])),
];

fn schema(op: &str) -> Option<&'static Schema> {
    WRITE
        .iter()
        .chain(READ)
        .find(|(n, _)| *n == op)
        .map(|(_, s)| s)
}

fn bytes(s: &str) -> usize {
    s.len()
}

fn echo(name: &str) -> String {
    let max = limits::DESIGN_VALIDATE_ECHO_MAX.usize();
    if utf16_len(name) > max {
        format!("{}\u{2026}", utf16_prefix(name, max))
    } else {
        name.to_owned()
    }
}

fn js_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "object",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The arguments' problem, or `None`. `hints` is what discovery recorded for an operation.
pub fn check_arguments(op: &str, args: &Value, hints: Option<Hints>) -> Option<String> {
    let Some(schema) = schema(op) else {
        return match hints {
            Some(h) if h.read_only => None,
            Some(_) => Some(format!("ClaudeDesign {op}: the server reports this operation as write-capable, and this client version can't validate its arguments (it needs a WRITE_OP_SCHEMAS entry). Update Claude Code to use it.")),
            None => Some(format!("ClaudeDesign {op}: unrecognized operation. If the server added it recently, call {{operation: \"list\"}} first \u{2014} a read-only operation becomes callable after discovery; a write-tier operation needs a WRITE_OP_SCHEMAS entry in this client.")),
        };
    };
    let n = format!("ClaudeDesign {op}");
    let empty = serde_json::Map::new();
    let object = args.as_object().unwrap_or(&empty);
    if op == "finalize_plan"
        && object.get("scope") == Some(&Value::from("project"))
        && (object.contains_key("writes") || object.contains_key("deletes"))
    {
        return Some(format!("{n}: scope \"project\" takes no writes/deletes \u{2014} a project-scoped plan covers every path in the project."));
    }
    let string_max = limits::DESIGN_INPUT_STRING_MAX.usize();
    for (key, value) in object {
        if !schema.top.contains(&key.as_str()) {
            let near = schema
                .top
                .iter()
                .find(|t| t.to_lowercase() == key.to_lowercase());
            let did_you_mean = near
                .map(|c| format!(" (did you mean '{c}'?)"))
                .unwrap_or_default();
            let allowed = if schema.top.is_empty() {
                "This operation takes no arguments.".to_owned()
            } else {
                format!("Allowed: {}.", schema.top.join(", "))
            };
            return Some(format!(
                "{n}: unrecognized argument '{}'{did_you_mean}. {allowed}",
                echo(key)
            ));
        }
        let is_array_field = schema.arrays.iter().any(|(k, _)| k == key);
        if !is_array_field && (value.is_object() || value.is_array()) {
            let what = if value.is_array() {
                "an array"
            } else {
                "an object"
            };
            return Some(format!(
                "{n}.{key}: must be a scalar (string/bool/number), not {what}."
            ));
        }
        let cap = if key == "plan_token" {
            limits::DESIGN_INPUT_PLAN_TOKEN_MAX.usize()
        } else {
            string_max
        };
        if let Some(s) = value.as_str() {
            if bytes(s) > cap {
                return Some(format!(
                    "{n}.{key}: too long ({} bytes; capped at {cap}).",
                    bytes(s)
                ));
            }
        }
        if let Some((_, choices)) = schema.enums.iter().find(|(k, _)| k == key) {
            let (set, loose) = match choices {
                Choices::Exact(s) => (*s, false),
                Choices::Accepts(s) => (*s, true),
            };
            let normalized = match value.as_str() {
                Some(s) if loose => Some(s.trim().to_lowercase()),
                Some(s) => Some(s.to_owned()),
                None => None,
            };
            if !normalized.as_deref().is_some_and(|d| set.contains(&d)) {
                let list: Vec<String> = set.iter().map(|c| format!("\"{c}\"")).collect();
                let tail = if loose { " (case-insensitive)" } else { "" };
                return Some(format!(
                    "{n}.{key}: must be one of {}{tail}.",
                    list.join(", ")
                ));
            }
            if let (true, Some(s), Some(d)) = (loose, value.as_str(), normalized.as_deref()) {
                if utf16_len(s) > utf16_len(d) + 2 {
                    return Some(format!("{n}.{key}: excess whitespace around the value."));
                }
            }
        }
    }
    for (key, items) in schema.arrays {
        let Some(value) = object.get(*key) else {
            continue;
        };
        let Some(list) = value.as_array() else {
            return Some(format!("{n}.{key}: must be an array."));
        };
        for (i, item) in list.iter().enumerate() {
            match items {
                Items::Strings => {
                    let Some(s) = item.as_str() else {
                        return Some(format!("{n}.{key}[{i}]: must be a string."));
                    };
                    if bytes(s) > string_max {
                        return Some(format!(
                            "{n}.{key}[{i}]: too long ({} bytes; capped at {string_max}).",
                            bytes(s)
                        ));
                    }
                }
                Items::Objects { fields, required } => {
                    let Some(entry) = item.as_object() else {
                        return Some(format!(
                            "{n}.{key}[{i}]: must be an object with keys from {{{}}}.",
                            fields.join(", ")
                        ));
                    };
                    for field in *required {
                        if !entry.get(*field).is_some_and(Value::is_string) {
                            return Some(format!(
                                "{n}.{key}[{i}]: missing required field '{field}'."
                            ));
                        }
                    }
                    for (field, v) in entry {
                        if !fields.contains(&field.as_str()) {
                            let near = fields
                                .iter()
                                .find(|f| f.to_lowercase() == field.to_lowercase());
                            let hint = match near {
                                Some(p) => format!(" (did you mean '{p}'?)"),
                                None if field == "content" => " (did you mean 'data'? designmcp's write_files reads 'data', not 'content')".to_owned(),
                                None => String::new(),
                            };
                            return Some(format!(
                                "{n}.{key}[{i}]: unrecognized field '{}'{hint}. Allowed: {}.",
                                echo(field),
                                fields.join(", ")
                            ));
                        }
                        let Some(s) = v.as_str() else {
                            return Some(format!(
                                "{n}.{key}[{i}].{field}: must be a string (got {}).",
                                js_type(v)
                            ));
                        };
                        if field != "data" && field != "content" && bytes(s) > string_max {
                            return Some(format!("{n}.{key}[{i}].{field}: too long ({} bytes; non-body fields are capped at {string_max}).", bytes(s)));
                        }
                    }
                }
            }
        }
    }
    None
}

/// The tool's `validateInput`: the argument checks, then a plan's project id.
pub fn validate_input(op: &str, args: &Value, hints: Option<Hints>) -> Option<String> {
    if let Some(problem) = check_arguments(op, args, hints) {
        return Some(problem);
    }
    if op == "finalize_plan" {
        let id = args
            .get("project_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if id.is_empty() {
            return Some("ClaudeDesign finalize_plan: project_id is required (a plan is always scoped to one project).".into());
        }
        if !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Some("ClaudeDesign finalize_plan: project_id contains characters outside the server id charset (letters, digits, dot, underscore, dash).".into());
        }
        if utf16_len(id) > limits::DESIGN_PLAN_PATH_MAX.usize() - 2 {
            return Some("ClaudeDesign finalize_plan: project_id is longer than any server-issued project id.".into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(op: &str, args: Value) -> Option<String> {
        validate_input(op, &args, super::super::catalog::client_hints(op))
    }

    #[test]
    fn unknown_and_new_write_operations() {
        assert!(v("brand_new", json!({})).unwrap().contains("unrecognized operation. If the server added it recently, call {operation: \"list\"} first"));
        let write = Some(Hints {
            read_only: false,
            destructive: true,
        });
        assert_eq!(check_arguments("shiny", &json!({}), write).unwrap(), "ClaudeDesign shiny: the server reports this operation as write-capable, and this client version can't validate its arguments (it needs a WRITE_OP_SCHEMAS entry). Update Claude Code to use it.");
        let read = Some(Hints {
            read_only: true,
            destructive: true,
        });
        assert_eq!(
            check_arguments("shiny", &json!({"anything": [1]}), read),
            None
        );
    }

    #[test]
    fn argument_texts() {
        assert_eq!(v("get_project", json!({"Project_ID": "x"})).unwrap(), "ClaudeDesign get_project: unrecognized argument 'Project_ID' (did you mean 'project_id'?). Allowed: project_id.");
        assert_eq!(v("list_projects", json!({"x": 1})).unwrap(), "ClaudeDesign list_projects: unrecognized argument 'x'. This operation takes no arguments.");
        assert_eq!(v("get_project", json!({"project_id": {}})).unwrap(), "ClaudeDesign get_project.project_id: must be a scalar (string/bool/number), not an object.");
        let max = limits::DESIGN_INPUT_STRING_MAX.usize();
        assert_eq!(
            v("get_project", json!({"project_id": "a".repeat(max)})),
            None
        );
        assert_eq!(
            v("get_project", json!({"project_id": "a".repeat(max + 1)})).unwrap(),
            format!(
                "ClaudeDesign get_project.project_id: too long ({} bytes; capped at {max}).",
                max + 1
            )
        );
        let token_max = limits::DESIGN_INPUT_PLAN_TOKEN_MAX.usize();
        assert_eq!(
            v("write_files", json!({"plan_token": "t".repeat(token_max)})),
            None
        );
        assert!(v(
            "write_files",
            json!({"plan_token": "t".repeat(token_max + 1)})
        )
        .unwrap()
        .ends_with(&format!("capped at {token_max}).")));
        assert_eq!(v("add_member", json!({"role": " Editor "})), None);
        assert_eq!(v("add_member", json!({"role": "owner"})).unwrap(), "ClaudeDesign add_member.role: must be one of \"viewer\", \"commenter\", \"editor\" (case-insensitive).");
        assert_eq!(
            v("add_member", json!({"role": "   editor   "})).unwrap(),
            "ClaudeDesign add_member.role: excess whitespace around the value."
        );
        assert_eq!(v("write_files", json!({"files": [{"path": "a", "content": "x"}]})).unwrap(), "ClaudeDesign write_files.files[0]: unrecognized field 'content' (did you mean 'data'? designmcp's write_files reads 'data', not 'content'). Allowed: path, data, local_path, encoding, if_match.");
        assert_eq!(
            v("write_files", json!({"files": [{}]})).unwrap(),
            "ClaudeDesign write_files.files[0]: missing required field 'path'."
        );
        assert_eq!(
            v("write_files", json!({"files": "x"})).unwrap(),
            "ClaudeDesign write_files.files: must be an array."
        );
        assert_eq!(
            v("write_files", json!({"files": [{"path": "a", "data": 3}]})).unwrap(),
            "ClaudeDesign write_files.files[0].data: must be a string (got number)."
        );
        let long = "k".repeat(61);
        assert!(v("list", json!({ long.clone(): 1 }))
            .unwrap()
            .contains(&format!("'{}\u{2026}'", &long[..60])));
    }

    #[test]
    fn finalize_plan_project_ids() {
        assert_eq!(v("finalize_plan", json!({"writes": []})).unwrap(), "ClaudeDesign finalize_plan: project_id is required (a plan is always scoped to one project).");
        assert_eq!(v("finalize_plan", json!({"project_id": "a/b"})).unwrap(), "ClaudeDesign finalize_plan: project_id contains characters outside the server id charset (letters, digits, dot, underscore, dash).");
        let max = limits::DESIGN_PLAN_PATH_MAX.usize() - 2;
        assert_eq!(
            v("finalize_plan", json!({"project_id": "p".repeat(max)})),
            None
        );
        assert_eq!(
            v("finalize_plan", json!({"project_id": "p".repeat(max + 1)})).unwrap(),
            "ClaudeDesign finalize_plan: project_id is longer than any server-issued project id."
        );
        assert_eq!(v("finalize_plan", json!({"project_id": "p", "scope": "project", "writes": []})).unwrap(), "ClaudeDesign finalize_plan: scope \"project\" takes no writes/deletes \u{2014} a project-scoped plan covers every path in the project.");
        assert_eq!(
            v("finalize_plan", json!({"project_id": "p", "scope": "all"})).unwrap(),
            "ClaudeDesign finalize_plan.scope: must be one of \"paths\", \"project\"."
        );
    }
}
