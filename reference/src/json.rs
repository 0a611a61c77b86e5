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

/// A number as JavaScript's `String(n)` writes it: the shortest form that reads back, with an
/// exponent below 1e-6 and from 1e21 on (`1e-7`, `0.000105`, `2.5`).
pub fn js_number(n: f64) -> String {
    if n == 0.0 {
        // -0 too: JavaScript writes it "0".
        return "0".into();
    }
    let magnitude = n.abs();
    if n != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        return format!("{n:e}").replace("e", "e+").replace("e+-", "e-");
    }
    format!("{n}")
}

#[cfg(test)]
mod js_number_tests {
    use super::js_number;

    #[test]
    fn numbers_read_as_javascript_writes_them() {
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
        assert_eq!(js_number(0.000105), "0.000105");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(3.0), "3");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(-0.0), "0");
    }
}
