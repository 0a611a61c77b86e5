//! LSP answers as the tool's text: positions 1-based, paths relative to cwd, locations without a
//! URI and git-ignored targets dropped, in the wording 2.1.235 uses.

use std::path::Path;

use serde_json::Value;

pub fn symbol_kind(kind: u64) -> &'static str {
    const KINDS: [&str; 26] = [
        "File",
        "Module",
        "Namespace",
        "Package",
        "Class",
        "Method",
        "Property",
        "Field",
        "Constructor",
        "Enum",
        "Interface",
        "Function",
        "Variable",
        "Constant",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Key",
        "Null",
        "EnumMember",
        "Struct",
        "Event",
        "Operator",
        "TypeParameter",
    ];
    KINDS
        .get((kind as usize).wrapping_sub(1))
        .copied()
        .unwrap_or("Unknown")
}

/// `file://` URI to a path shown relative to cwd when inside it.
pub fn shown_path(uri: &str, cwd: &Path) -> String {
    let path = uri.strip_prefix("file://").unwrap_or(uri);
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_owned(),
    }
}

/// A Location or LocationLink as (uri, line, character), 0-based.
pub fn location(v: &Value) -> Option<(String, u64, u64)> {
    let uri = v["uri"].as_str().or(v["targetUri"].as_str())?.to_owned();
    let range = if v.get("targetSelectionRange").is_some() {
        &v["targetSelectionRange"]
    } else {
        &v["range"]
    };
    Some((
        uri,
        range["start"]["line"].as_u64()?,
        range["start"]["character"].as_u64()?,
    ))
}

pub fn locations(result: &Value) -> Vec<Value> {
    match result {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    }
}
