//! `--setting-sources`: which of the user's, the project's and the local settings files the
//! process reads (all three unless the flag says otherwise; `""`: none). Recorded on 2.1.235
//! (sdk.invocation/setting-sources): a source left out is not read for anything, its permission
//! rules and hooks included. Fixed once at start-up, for the whole process.

use std::sync::OnceLock;

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
}
