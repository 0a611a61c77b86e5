//! The expectations most kinds share (`equals`, `contains`, `not_contains` on a text; `includes`,
//! `excludes` on a set) and the diffs a failed one shows: expected against seen.

use stubs::mcp::expand;

use crate::scenario::CheckSpec;

/// `includes` (each must be there) and `excludes` (none may be), as `has` finds them; the first
/// failure is described by `missing` or `present`.
pub(crate) fn membership(
    spec: &CheckSpec,
    has: impl Fn(&str) -> bool,
    missing: impl Fn(&str) -> String,
    present: impl Fn(&str) -> String,
) -> Result<(), String> {
    if let Some(want) = spec.includes.iter().flatten().find(|w| !has(w)) {
        return Err(missing(want));
    }
    if let Some(unwanted) = spec.excludes.iter().flatten().find(|u| has(u)) {
        return Err(present(unwanted));
    }
    Ok(())
}

/// `equals`, `contains`, `not_contains` against a text; `{repeat:N:s}` in them expands, so a
/// check can state a 2,048-char cut without carrying it.
pub(crate) fn text_expectations(spec: &CheckSpec, seen: &str) -> Result<(), String> {
    if let Some(want) = &spec.equals {
        let want = want
            .as_str()
            .map(expand)
            .unwrap_or_else(|| want.to_string());
        if want != seen {
            return Err(text_diff(&want, seen));
        }
    }
    if let Some(want) = spec.contains.as_deref().map(expand) {
        if !seen.contains(want.as_str()) {
            return Err(format!(
                "expected to contain: {}\n             seen: {}",
                clip(&want),
                clip(seen)
            ));
        }
    }
    if let Some(unwanted) = spec.not_contains.as_deref().map(expand) {
        if seen.contains(unwanted.as_str()) {
            return Err(format!(
                "expected not to contain: {}\n                   seen: {}",
                clip(&unwanted),
                clip(seen)
            ));
        }
    }
    Ok(())
}

pub(super) fn field_eq<T: PartialEq + std::fmt::Debug>(
    field: &str,
    want: T,
    seen: T,
) -> Result<(), String> {
    if want == seen {
        Ok(())
    } else {
        Err(format!(
            "{field}: {}",
            expected_seen(format!("{want:?}"), format!("{seen:?}"))
        ))
    }
}

pub(crate) fn expected_seen(want: impl std::fmt::Display, seen: impl std::fmt::Display) -> String {
    format!("expected {want}, seen {seen}")
}

fn clip(s: &str) -> String {
    const MAX: usize = 400;
    if s.len() <= MAX {
        return format!("{s:?}");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}… ({} bytes in all)", &s[..end], s.len())
}

/// A unified diff, expected (`-`) against seen (`+`).
pub fn text_diff(want: &str, seen: &str) -> String {
    let diff = similar::TextDiff::from_lines(want, seen);
    let body = diff
        .unified_diff()
        .context_radius(3)
        .header("expected", "seen")
        .to_string();
    if body.trim().is_empty() {
        format!("texts differ only in line endings\n  expected: {want:?}\n  seen: {seen:?}")
    } else {
        body
    }
}

pub(crate) fn list_diff(want: &[impl AsRef<str>], seen: &[&str]) -> String {
    let want = want
        .iter()
        .map(|s| format!("{}\n", s.as_ref()))
        .collect::<String>();
    let seen = seen.iter().map(|s| format!("{s}\n")).collect::<String>();
    text_diff(&want, &seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_src: &str) -> CheckSpec {
        toml::from_str(toml_src).unwrap()
    }

    #[test]
    fn text_expectations_expand_repeats() {
        let s = spec(
            "kind = \"stdout\"\ncontains = \"{repeat:3:ab}\"\nnot_contains = \"{repeat:4:ab}\"\n",
        );
        assert!(text_expectations(&s, "xababab").is_ok());
        assert!(text_expectations(&s, "abababab").is_err());
        assert!(text_expectations(&s, "abab").is_err());
    }
}
