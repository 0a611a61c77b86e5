//! JSON read the lenient way the CLI reads its own files and the members it takes from them: a
//! missing or malformed file is no file, and a member of the wrong type is skipped.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The file at `path` as JSON, or `None` when it cannot be read or parsed.
pub fn read_file(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The strings of a JSON array (other members are skipped; not an array, none).
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// The string members of a JSON object (others are skipped).
pub fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
        .collect()
}
