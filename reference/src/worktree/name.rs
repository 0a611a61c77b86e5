//! A new worktree's name: what EnterWorktree accepts (texts recorded from 2.1.235), where the
//! worktree goes and its branch, and a random name when none is given.

use std::path::{Path, PathBuf};

use crate::limits::WORKTREE_NAME_MAX;

/// Why a name is refused, as the `InputValidationError` issue's message.
pub fn validate(name: &str) -> Result<(), String> {
    // Counted as the real CLI counts a string: UTF-16 units.
    let len = name.encode_utf16().count();
    let max = WORKTREE_NAME_MAX.usize();
    if len > max {
        return Err(format!(
            "Invalid worktree name: must be {max} characters or fewer (got {len})"
        ));
    }
    for segment in name.split('/') {
        if segment == "." || segment == ".." {
            return Err(format!(
                "Invalid worktree name \"{name}\": must not contain \".\" or \"..\" path segments"
            ));
        }
        // `.git`, `.GIT.` and the like name git's own directory on case-folding filesystems.
        if segment.to_lowercase().trim_end_matches('.') == ".git" {
            return Err(format!(
                "Invalid worktree name \"{name}\": \"{segment}\" is a reserved git directory name"
            ));
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if segment.is_empty() || !segment.chars().all(allowed) {
            return Err(format!(
                "Invalid worktree name \"{name}\": each \"/\"-separated segment must be non-empty and contain only letters, digits, dots, underscores, and dashes"
            ));
        }
    }
    Ok(())
}

/// `<repo>/.claude/worktrees`: where new worktrees go, and the only place a session already in
/// a worktree may switch to.
pub fn managed_dir(repo: &Path) -> PathBuf {
    repo.join(".claude").join("worktrees")
}

/// A nested name is flattened into one directory (`a/b` → `a+b`).
pub fn dir_for(repo: &Path, name: &str) -> PathBuf {
    managed_dir(repo).join(name.replace('/', "+"))
}

pub fn branch_for(name: &str) -> String {
    format!("worktree-{}", name.replace('/', "+"))
}

const FIRST: &[&str] = &[
    "amber", "brisk", "calm", "dapper", "eager", "gentle", "humble", "jolly", "keen", "lucid",
    "mellow", "nimble", "quiet", "rapid", "serene", "tidy", "vivid", "witty",
];
const SECOND: &[&str] = &[
    "baking",
    "climbing",
    "dancing",
    "drifting",
    "fishing",
    "gliding",
    "humming",
    "juggling",
    "knitting",
    "painting",
    "reading",
    "roaming",
    "sailing",
    "singing",
    "sketching",
    "wandering",
];
const THIRD: &[&str] = &[
    "badger", "beaver", "crane", "dolphin", "falcon", "gecko", "heron", "koala", "lemur", "otter",
    "owl", "panda", "puffin", "quokka", "raven", "walrus", "wombat", "yak",
];

/// Three words joined by dashes (the real CLI's names look like `serene-imagining-wombat`),
/// always a valid name.
pub fn random() -> String {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let pick = |words: &[&'static str], b: u8| words[b as usize % words.len()];
    format!(
        "{}-{}-{}",
        pick(FIRST, bytes[0]),
        pick(SECOND, bytes[1]),
        pick(THIRD, bytes[2])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_names() {
        for name in ["feat-a", "one/two", "v1.2_x", "a.", &"x".repeat(64)] {
            assert_eq!(validate(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn refused_names_say_why_in_the_recorded_words() {
        assert_eq!(
            validate(&"x".repeat(65)).unwrap_err(),
            "Invalid worktree name: must be 64 characters or fewer (got 65)"
        );
        assert_eq!(
            validate("../evil").unwrap_err(),
            "Invalid worktree name \"../evil\": must not contain \".\" or \"..\" path segments"
        );
        assert_eq!(
            validate("a/./b").unwrap_err(),
            "Invalid worktree name \"a/./b\": must not contain \".\" or \"..\" path segments"
        );
        assert_eq!(
            validate("x/.GIT..").unwrap_err(),
            "Invalid worktree name \"x/.GIT..\": \".GIT..\" is a reserved git directory name"
        );
        for bad in ["a b", "a//b", "", "é", "/lead", "trail/"] {
            assert_eq!(
                validate(bad).unwrap_err(),
                format!("Invalid worktree name \"{bad}\": each \"/\"-separated segment must be non-empty and contain only letters, digits, dots, underscores, and dashes"),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_length_is_counted_in_utf16_units_before_the_characters() {
        // 33 astral characters are 66 units: too long, whatever the characters.
        let e = validate(&"😀".repeat(33)).unwrap_err();
        assert!(e.ends_with("(got 66)"), "{e}");
    }

    #[test]
    fn nested_names_are_flattened_for_the_directory_and_branch() {
        let repo = Path::new("/r");
        assert_eq!(
            dir_for(repo, "one/two"),
            Path::new("/r/.claude/worktrees/one+two")
        );
        assert_eq!(branch_for("one/two"), "worktree-one+two");
    }

    #[test]
    fn random_names_are_valid() {
        for _ in 0..50 {
            let name = random();
            assert_eq!(validate(&name), Ok(()), "{name}");
            assert_eq!(name.split('-').count(), 3, "{name}");
        }
    }
}
