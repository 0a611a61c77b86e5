//! `--setting-sources`: which of the user's, the project's and the local settings files the
//! process reads (all three unless the flag says otherwise; `""`: none). Recorded on 2.1.235
//! (sdk.invocation/setting-sources): a source left out is not read for anything, its permission
//! rules and hooks included. And `--settings`: one more source, over the local file (recorded:
//! sdk.invocation/settings). Both fixed once at start-up, for the whole process.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

/// The sources by name, in the order of `settings_files`.
pub const NAMES: [&str; 3] = ["user", "project", "local"];

static READ: OnceLock<[bool; 3]> = OnceLock::new();

/// The flag's value as which sources are read, or 2.1.235's error.
pub fn parse(text: &str) -> Result<[bool; 3], String> {
    let mut read = [false; 3];
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(i) = NAMES.iter().position(|n| *n == name) else {
            return Err(format!(
                "Error processing --setting-sources: Invalid setting source: {name}. Valid options are: {}",
                NAMES.join(", ")
            ));
        };
        read[i] = true;
    }
    Ok(read)
}

/// Reads only these sources from now on (the first call counts).
pub fn limit(read: [bool; 3]) {
    let _ = READ.set(read);
}

/// Whether source `index` (of [`NAMES`]) is read.
pub fn reads(index: usize) -> bool {
    READ.get().is_none_or(|read| read[index])
}

static FLAG: OnceLock<Value> = OnceLock::new();

/// `--settings`: a JSON object given inline, else the path of a settings file, as 2.1.235 reads
/// it: a file that is not there stops the start; one that does not parse adds nothing.
pub fn parse_flag(text: &str) -> Result<Value, String> {
    if let Ok(inline @ Value::Object(_)) = serde_json::from_str(text) {
        return Ok(inline);
    }
    let path = Path::new(text);
    if !path.is_file() {
        return Err(format!("Error: Settings file not found: {text}"));
    }
    Ok(crate::json::read_file(path)
        .filter(Value::is_object)
        .unwrap_or_default())
}

/// The `--settings` source from now on (the first call counts).
pub fn set_flag(settings: Value) {
    let _ = FLAG.set(settings);
}

/// The `--settings` source, when one was given.
pub fn flag() -> Option<&'static Value> {
    FLAG.get().filter(|v| v.is_object())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_names_and_nothing_else() {
        assert_eq!(parse("user,project"), Ok([true, true, false]));
        assert_eq!(parse(""), Ok([false; 3]));
        assert_eq!(parse(" local "), Ok([false, false, true]));
        let e = parse("user,bogus").unwrap_err();
        assert_eq!(e, "Error processing --setting-sources: Invalid setting source: bogus. Valid options are: user, project, local");
    }

    #[test]
    fn the_flag_is_an_inline_object_or_a_file_that_must_exist() {
        assert_eq!(parse_flag(r#"{"a": 1}"#).unwrap()["a"], 1);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.json");
        std::fs::write(&file, r#"{"b": 2}"#).unwrap();
        assert_eq!(parse_flag(file.to_str().unwrap()).unwrap()["b"], 2);
        std::fs::write(&file, "{oops").unwrap();
        assert_eq!(parse_flag(file.to_str().unwrap()).unwrap(), Value::Null);
        for text in ["[1,2]", "{not json"] {
            let e = parse_flag(text).unwrap_err();
            assert_eq!(e, format!("Error: Settings file not found: {text}"));
        }
    }
}
