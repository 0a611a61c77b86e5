//! The operation catalog: the client's own hints for the operations it knows (`PAi`), the merge
//! with what `tools/list` says (a server can add read-only operations and describe them, never make
//! a known write read-only or a destructive one harmless), and the `list` result with its hash, so
//! an unchanged catalog is served again as a short `catalog_unchanged` note.

use std::collections::HashMap;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::limits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
}

/// The client's hints for the operations this version knows, in 2.1.235's order.
const CLIENT_HINTS: &[(&str, bool, bool)] = &[
    ("list_design_systems", true, false),
    ("get_claude_design_prompt", true, false),
    ("list_projects", true, false),
    ("get_project", true, false),
    ("list_files", true, false),
    ("read_file", true, false),
    ("get_conversation", true, false),
    ("list_members", true, false),
    ("render_preview", false, false),
    ("create_project", false, false),
    ("put_conversation", false, false),
    ("finalize_plan", false, false),
    ("write_files", false, false),
    ("copy_files", false, false),
    ("create_support_js", false, false),
    ("add_member", false, false),
    ("delete_files", false, true),
    ("remove_member", false, true),
    ("update_member_role", false, true),
    ("update_sharing", false, true),
];

/// The client's own hints for `op`, if this version knows it.
pub fn client_hints(op: &str) -> Option<Hints> {
    CLIENT_HINTS
        .iter()
        .find(|(name, ..)| *name == op)
        .map(|&(_, read_only, destructive)| Hints {
            read_only,
            destructive,
        })
}

/// One discovered operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub hints: Hints,
}

/// Parses a `tools/list` answer's tools (entries that do not parse are skipped) and merges the
/// hints: for a known operation read-only needs both sides, destructive either; without
/// annotations the client's hints stand, or read-write and destructive for an unknown one.
pub fn merge(tools: &[Value]) -> (HashMap<String, Hints>, Vec<Entry>) {
    let mut registry = HashMap::new();
    let mut entries = Vec::new();
    for tool in tools {
        let Some(entry) = parse(tool) else { continue };
        registry.insert(entry.name.clone(), entry.hints);
        entries.push(entry);
    }
    (registry, entries)
}

fn parse(tool: &Value) -> Option<Entry> {
    let name = tool.get("name")?.as_str()?.to_owned();
    let description = match tool.get("description") {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return None,
    };
    let input_schema = match tool.get("inputSchema") {
        None => json!({}),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => return None,
    };
    let (mut server_ro, mut server_destructive) = (None, None);
    match tool.get("annotations") {
        None => {}
        Some(Value::Object(a)) => {
            let flag = |k: &str| match a.get(k) {
                None => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(_) => Err(()),
            };
            server_ro = flag("readOnlyHint").ok()?;
            server_destructive = flag("destructiveHint").ok()?;
        }
        Some(_) => return None,
    }
    let client = client_hints(&name);
    let mut read_only = server_ro.or(client.map(|c| c.read_only)).unwrap_or(false);
    let mut destructive = server_destructive
        .or(client.map(|c| c.destructive))
        .unwrap_or(true);
    if let Some(c) = client {
        read_only &= c.read_only;
        destructive |= c.destructive;
    }
    Some(Entry {
        name,
        description,
        input_schema,
        hints: Hints {
            read_only,
            destructive,
        },
    })
}

/// The full `list` result text: `{"tools":[{name,description,inputSchema}]}`, compact.
pub fn list_text(entries: &[Entry]) -> String {
    let tools: Vec<Value> = entries
        .iter()
        .map(|e| json!({"name": e.name, "description": e.description, "inputSchema": e.input_schema}))
        .collect();
    json!({ "tools": tools }).to_string()
}

/// The catalog hash: the first 12 hex digits of the SHA-256 of the list text.
pub fn hash(list_text: &str) -> String {
    let digest = Sha256::digest(list_text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..12].to_owned()
}

/// Whether `arguments.full` asks for the whole catalog again (anything but absent, `false`,
/// `"false"`, `0` and `""`).
pub fn wants_full(arguments: &Value) -> bool {
    match arguments.get("full") {
        None => false,
        Some(Value::Bool(false)) => false,
        Some(Value::String(s)) if s.is_empty() || s == "false" => false,
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => false,
        Some(_) => true,
    }
}

/// A JS string's length: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The first `max` UTF-16 units of `s`, never ending in half a surrogate pair (2.1.235's `Io`).
pub fn utf16_prefix(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let n = c.len_utf16();
        if used + n > max {
            break;
        }
        used += n;
        out.push(c);
    }
    out
}

/// An operation's one-line summary: whitespace folded, the first sentence, at most 140 units.
pub fn summary(description: &str) -> String {
    let folded = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match folded.find(". ") {
        Some(i) if i > 0 => &folded[..=i],
        _ => &folded[..],
    };
    let max = limits::DESIGN_CATALOG_SUMMARY_MAX.usize();
    if utf16_len(first) > max {
        format!("{}\u{2026}", utf16_prefix(first, max).trim_end())
    } else {
        first.to_owned()
    }
}

/// The short answer to `list` when this agent was already served the same catalog.
pub fn unchanged_text(entries: &[Entry], hash: &str) -> String {
    let note = format!(
        "The operation catalog is unchanged since the earlier \"{list}\" result in this conversation (hash {hash}) \u{2014} full descriptions and argument schemas are in that result. If it is no longer in context, call {tool}({{operation: \"{list}\", arguments: {{full: true}}}}) for the full catalog.",
        list = super::LIST,
        tool = super::TOOL_NAME,
    );
    let operations: Vec<Value> = entries
        .iter()
        .map(|e| json!({"name": e.name, "summary": summary(&e.description)}))
        .collect();
    json!({"catalog_unchanged": true, "catalog_hash": hash, "note": note, "operations": operations})
        .to_string()
}

/// What a card calls an operation (2.1.235's user-facing name, `Claude Design: <label>`).
pub fn user_facing_name(operation: &str) -> String {
    let label = match operation {
        "list" => "List operations",
        "list_design_systems" => "List design systems",
        "get_claude_design_prompt" => "Get design prompt",
        "list_projects" => "List projects",
        "get_project" => "Read project metadata",
        "list_files" => "List project files",
        "read_file" => "Read file",
        "get_conversation" => "Read conversation",
        "list_members" => "List project members",
        "create_project" => "Create project",
        "put_conversation" => "Write conversation",
        "finalize_plan" => "Finalize plan",
        "write_files" => "Write files",
        "copy_files" => "Copy files",
        "delete_files" => "Delete files",
        "render_preview" => "Render preview",
        "create_support_js" => "Create support.js",
        "add_member" => "Add project member",
        "update_member_role" => "Update member role",
        "remove_member" => "Remove project member",
        "update_sharing" => "Update sharing",
        other => other,
    };
    if label.is_empty() {
        "Claude Design".into()
    } else {
        format!("Claude Design: {label}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(tools: Value) -> HashMap<String, Hints> {
        merge(tools.as_array().unwrap()).0
    }

    #[test]
    fn a_server_cannot_make_a_known_write_read_only_or_harmless() {
        let h = hints(json!([
            {"name": "write_files", "annotations": {"readOnlyHint": true, "destructiveHint": false}},
            {"name": "delete_files", "annotations": {"destructiveHint": false}},
            {"name": "read_file", "annotations": {"destructiveHint": true}},
        ]));
        assert_eq!(
            h["write_files"],
            Hints {
                read_only: false,
                destructive: false
            }
        );
        assert_eq!(
            h["delete_files"],
            Hints {
                read_only: false,
                destructive: true
            }
        );
        assert_eq!(
            h["read_file"],
            Hints {
                read_only: true,
                destructive: true
            }
        );
    }

    #[test]
    fn without_annotations_the_client_hints_or_fail_closed() {
        let h = hints(
            json!([{"name": "list_files"}, {"name": "brand_new"}, {"name": "new_reader", "annotations": {"readOnlyHint": true}}, {"name": 3}, {"name": "bad", "annotations": {"readOnlyHint": "yes"}}]),
        );
        assert_eq!(
            h["list_files"],
            Hints {
                read_only: true,
                destructive: false
            }
        );
        assert_eq!(
            h["brand_new"],
            Hints {
                read_only: false,
                destructive: true
            }
        );
        assert_eq!(
            h["new_reader"],
            Hints {
                read_only: true,
                destructive: true
            }
        );
        assert_eq!(h.len(), 3);
    }

    #[test]
    fn list_text_and_hash_are_stable() {
        let (_, entries) =
            merge(&[json!({"name": "a", "inputSchema": {"type": "object"}, "annotations": {}})]);
        let text = list_text(&entries);
        assert_eq!(
            text,
            r#"{"tools":[{"name":"a","description":"","inputSchema":{"type":"object"}}]}"#
        );
        let h = hash(&text);
        assert_eq!(h.len(), 12);
        assert_eq!(h, hash(&text));
    }

    #[test]
    fn summaries_take_the_first_sentence_up_to_the_cap() {
        assert_eq!(
            summary("Lists  things.\nThen more. Even more"),
            "Lists things."
        );
        assert_eq!(summary("No stop here"), "No stop here");
        let long = "x".repeat(200);
        let s = summary(&long);
        assert_eq!(
            utf16_len(&s),
            limits::DESIGN_CATALOG_SUMMARY_MAX.usize() + 1
        );
        assert!(s.ends_with('\u{2026}'));
        assert_eq!(summary(&"y".repeat(140)), "y".repeat(140));
    }

    #[test]
    fn full_is_asked_for_by_anything_truthy_or_null() {
        assert!(!wants_full(&json!({})));
        for v in [json!(false), json!("false"), json!(0), json!("")] {
            assert!(!wants_full(&json!({ "full": v })));
        }
        for v in [json!(true), json!(null), json!(1), json!("yes")] {
            assert!(wants_full(&json!({ "full": v })));
        }
    }
}
