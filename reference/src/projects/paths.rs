//! Where a write lands and whether it fits, both decided before any write request (seed 000
//! part B §16): the namespace rule for a doc path and the client-side knowledge budget.

use std::collections::BTreeSet;

use crate::limits;

/// The doc path a `project_write` of `path` writes: a leading `./` dropped; a path the Project
/// already has kept as is (a replace); a new path with a `/` kept (an explicit namespace); a new
/// bare name put under `claude/`, so agent-written docs stand apart from the user's.
pub fn write_path(path: &str, existing: &BTreeSet<String>) -> String {
    let path = path.strip_prefix("./").unwrap_or(path);
    if existing.contains(path) || path.contains('/') {
        path.to_owned()
    } else {
        format!("claude/{path}")
    }
}

/// The knowledge a write of `bytes` UTF-8 bytes is estimated to add: ceil(bytes / 4) tokens.
pub fn estimate(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(limits::PROJECTS_WRITE_KNOWLEDGE_BYTES_PER_TOKEN.get())
}

/// The refusal of a write that would take the Project past its maximum, in 2.1.235's words.
/// A replace is estimated at its whole new content: the old doc's share is not deducted.
pub fn check_budget(
    knowledge_size: u64,
    max_knowledge_size: u64,
    bytes: usize,
) -> Result<(), String> {
    let estimate = estimate(bytes);
    if knowledge_size + estimate > max_knowledge_size {
        return Err(format!("Write refused: this write (~{estimate} tokens) would exceed the project's maximum size (~{max_knowledge_size} tokens). Delete unused docs or split the content across smaller writes."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn existing(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn the_four_namespace_rules() {
        let have = existing(&["notes/a.md", "a.md"]);
        assert_eq!(write_path("./b.md", &have), "claude/b.md");
        assert_eq!(write_path("notes/a.md", &have), "notes/a.md");
        assert_eq!(write_path("./notes/a.md", &have), "notes/a.md");
        assert_eq!(write_path("x/y.md", &have), "x/y.md");
        assert_eq!(write_path("a.md", &have), "a.md");
        assert_eq!(write_path("c.md", &have), "claude/c.md");
        // Only one leading `./` goes.
        assert_eq!(write_path("././c.md", &have), "./c.md");
    }

    #[test]
    fn the_budget_refuses_only_past_the_maximum() {
        assert!(check_budget(1000, 2000, 4000).is_ok());
        let e = check_budget(1000, 2000, 4001).unwrap_err();
        assert!(
            e.starts_with("Write refused: this write (~1001 tokens)"),
            "{e}"
        );
        assert!(e.contains("(~2000 tokens)"), "{e}");
        assert!(check_budget(0, 0, 0).is_ok());
        assert!(check_budget(0, 0, 1).is_err());
    }

    proptest! {
        /// Whatever the input, the result has no leading `./` of the input's, is an existing path
        /// only when the stripped input is one, and gains `claude/` only for a new bare name.
        #[test]
        fn namespace_rules_hold_for_any_path(
            name in "(\\./)?[a-z./]{0,12}",
            taken in proptest::collection::btree_set("[a-z./]{1,8}", 0..4),
        ) {
            let stripped = name.strip_prefix("./").unwrap_or(&name).to_owned();
            let out = write_path(&name, &taken);
            if taken.contains(&stripped) || stripped.contains('/') {
                prop_assert_eq!(out, stripped);
            } else {
                prop_assert_eq!(out, format!("claude/{stripped}"));
            }
        }

        #[test]
        fn the_estimate_is_the_ceiling_of_a_quarter(bytes in 0usize..1_000_000) {
            let e = estimate(bytes);
            prop_assert!(e * 4 >= bytes as u64 && e * 4 < bytes as u64 + 4);
        }
    }
}
