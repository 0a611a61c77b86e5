//! Which targets a per-target key names. `differs` keys and named trace differences hold for a
//! target family or a range of its versions, so one difference that holds across many releases is
//! written once:
//!
//! - `claude` or `claude@*`: every real binary; `reference`: the reference;
//! - `claude@2.1.235`: exactly that version (a bare version is exact, not semver's caret);
//! - `claude@>=2.1.235, <2.1.300`, `claude@2.1.*`, `claude@~2.1.240`: a semver requirement.
//!
//! Every requirement is reduced to one half-open interval of versions, so whether two keys can
//! both apply to one target (an ambiguity the loader refuses) is an interval intersection.

use std::fmt;

use semver::{Comparator, Op, Version, VersionReq};

/// A parsed per-target key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetKey {
    text: String,
    family: String,
    /// `None` for a family without versions (`reference`, or a target named without `@`).
    range: Option<Interval>,
}

/// Versions `v` with `low <= v < high` (no upper bound when `high` is `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Interval {
    low: Version,
    high: Option<Version>,
}

impl TargetKey {
    pub fn parse(key: &str) -> Result<TargetKey, String> {
        let key = key.trim();
        let (family, requirement) = match key.split_once('@') {
            Some((f, r)) => (f, Some(r.trim())),
            None => (key, None),
        };
        if family.is_empty()
            || !family
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(format!("`{key}` does not name a target (expected e.g. `claude@2.1.235`, `claude@>=2.1.235, <2.1.300` or `claude`)"));
        }
        let range = match requirement {
            None if family == "reference" => None,
            None => Some(Interval::all()),
            Some(r) => Some(Interval::of(r).map_err(|e| format!("`{key}`: {e}"))?),
        };
        Ok(TargetKey {
            text: key.to_owned(),
            family: family.to_owned(),
            range,
        })
    }

    /// Whether this key names the target called `name` (`reference`, `claude@2.1.235`).
    pub fn matches(&self, name: &str) -> bool {
        let (family, version) = match name.split_once('@') {
            Some((f, v)) => (f, Version::parse(v).ok()),
            None => (name, None),
        };
        if family != self.family {
            return false;
        }
        match (&self.range, version) {
            (None, _) => true,
            (Some(range), Some(v)) => range.contains(&v),
            // A version that is not semver (a local build's label) is named only by the family.
            (Some(range), None) => *range == Interval::all(),
        }
    }

    /// `claude` in `claude@>=2.1.235`.
    pub fn family(&self) -> &str {
        &self.family
    }

    /// A version both keys name, when there is one (the lowest); `None` when they are disjoint.
    pub fn overlap(&self, other: &TargetKey) -> Option<String> {
        if self.family != other.family {
            return None;
        }
        match (&self.range, &other.range) {
            (Some(a), Some(b)) => a.intersect(b).map(|i| format!("{}@{}", self.family, i.low)),
            _ => Some(self.family.clone()),
        }
    }

    /// The oldest version the key names (`None` for `reference`).
    pub fn low(&self) -> Option<&Version> {
        self.range.as_ref().map(|r| &r.low)
    }

    /// Whether the key names one exact version (as `adopt` writes it before a range is chosen).
    pub fn exact_version(&self) -> Option<&Version> {
        let range = self.range.as_ref()?;
        let high = range.high.as_ref()?;
        (*high == bump_patch(&range.low)).then_some(&range.low)
    }
}

impl fmt::Display for TargetKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Refuses keys of one map that could both apply to a target, naming both and a version they share.
pub fn refuse_overlaps<'a>(
    keys: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<TargetKey>, String> {
    let parsed: Vec<TargetKey> = keys
        .into_iter()
        .map(TargetKey::parse)
        .collect::<Result<_, _>>()?;
    for (i, a) in parsed.iter().enumerate() {
        for b in &parsed[i + 1..] {
            if let Some(both) = a.overlap(b) {
                return Err(format!(
                    "`{a}` and `{b}` overlap (both hold for {both}); make their ranges disjoint"
                ));
            }
        }
    }
    Ok(parsed)
}

impl Interval {
    fn all() -> Interval {
        Interval {
            low: Version::new(0, 0, 0),
            high: None,
        }
    }

    fn of(requirement: &str) -> Result<Interval, String> {
        if let Ok(v) = Version::parse(requirement) {
            let high = bump_patch(&v);
            return Ok(Interval {
                low: v,
                high: Some(high),
            });
        }
        let req = VersionReq::parse(requirement)
            .map_err(|e| format!("not a version requirement: {e}"))?;
        let mut range = Interval::all();
        for c in &req.comparators {
            range = range
                .intersect(&Interval::comparator(c)?)
                .ok_or_else(|| format!("`{requirement}` holds for no version"))?;
        }
        Ok(range)
    }

    fn comparator(c: &Comparator) -> Result<Interval, String> {
        if !c.pre.is_empty() {
            return Err("pre-release versions are not supported in a requirement".into());
        }
        let (major, minor, patch) = (c.major, c.minor, c.patch);
        let floor = Version::new(major, minor.unwrap_or(0), patch.unwrap_or(0));
        // The first version past everything the comparator's given parts name.
        let past = match (minor, patch) {
            (Some(m), Some(p)) => Version::new(major, m, p + 1),
            (Some(m), None) => Version::new(major, m + 1, 0),
            _ => Version::new(major + 1, 0, 0),
        };
        let (low, high) = match c.op {
            Op::Exact | Op::Wildcard => (floor, Some(past)),
            Op::Greater => (past, None),
            Op::GreaterEq => (floor, None),
            Op::Less => (Version::new(0, 0, 0), Some(floor)),
            Op::LessEq => (Version::new(0, 0, 0), Some(past)),
            Op::Tilde => {
                let high = match minor {
                    Some(m) => Version::new(major, m + 1, 0),
                    None => Version::new(major + 1, 0, 0),
                };
                (floor, Some(high))
            }
            Op::Caret => {
                let high = match (major, minor, patch) {
                    (0, Some(0), Some(p)) => Version::new(0, 0, p + 1),
                    (0, Some(m), _) => Version::new(0, m + 1, 0),
                    _ => Version::new(major + 1, 0, 0),
                };
                (floor, Some(high))
            }
            _ => return Err(format!("unsupported operator in `{c}`")),
        };
        Ok(Interval { low, high })
    }

    fn contains(&self, v: &Version) -> bool {
        let v = Version::new(v.major, v.minor, v.patch);
        v >= self.low && self.high.as_ref().is_none_or(|h| v < *h)
    }

    fn intersect(&self, other: &Interval) -> Option<Interval> {
        let low = self.low.clone().max(other.low.clone());
        let high = match (&self.high, &other.high) {
            (Some(a), Some(b)) => Some(a.clone().min(b.clone())),
            (a, b) => a.clone().or(b.clone()),
        };
        high.as_ref()
            .is_none_or(|h| low < *h)
            .then_some(Interval { low, high })
    }
}

fn bump_patch(v: &Version) -> Version {
    Version::new(v.major, v.minor, v.patch + 1)
}

/// The family a target name belongs to: `claude` for `claude@2.1.235` or `claude:/path`.
pub fn family(name: &str) -> &str {
    name.split(['@', ':']).next().unwrap_or(name)
}

/// Whether the difference key `key` (a family, a version or a range) names the target `target`;
/// a key that does not parse names nothing (the loader refused it already).
pub fn names(key: &str, target: &str) -> bool {
    TargetKey::parse(key).is_ok_and(|k| k.matches(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> TargetKey {
        TargetKey::parse(s).unwrap()
    }

    #[test]
    fn a_bare_version_is_exact_not_a_caret() {
        let k = key("claude@2.1.235");
        assert!(k.matches("claude@2.1.235"));
        assert!(!k.matches("claude@2.1.236"));
        assert!(!k.matches("claude@2.1.234"));
        assert!(!k.matches("reference"));
        assert_eq!(k.exact_version(), Some(&Version::new(2, 1, 235)));
    }

    #[test]
    fn ranges_families_and_wildcards() {
        let r = key("claude@>=2.1.235, <2.1.300");
        assert!(r.matches("claude@2.1.235") && r.matches("claude@2.1.299"));
        assert!(!r.matches("claude@2.1.300") && !r.matches("claude@2.1.234"));
        assert_eq!(r.exact_version(), None);
        for all in ["claude", "claude@*"] {
            assert!(key(all).matches("claude@9.9.9"), "{all}");
            assert!(!key(all).matches("reference"), "{all}");
        }
        assert!(key("claude@2.1.*").matches("claude@2.1.332"));
        assert!(!key("claude@2.1.*").matches("claude@2.2.0"));
        assert!(key("claude@<=2.1.240").matches("claude@2.1.240"));
        assert!(!key("claude@>2.1.240").matches("claude@2.1.240"));
        assert!(key("claude@~2.1.240").matches("claude@2.1.999"));
        assert!(key("reference").matches("reference"));
    }

    #[test]
    fn overlapping_keys_are_refused_naming_both_and_a_shared_version() {
        let e = refuse_overlaps(["claude@2.1.235", "claude@>=2.1.200, <2.1.300"]).unwrap_err();
        assert!(e.contains("`claude@2.1.235` and `claude@>=2.1.200, <2.1.300` overlap (both hold for claude@2.1.235)"), "{e}");
        let e = refuse_overlaps(["claude", "claude@2.1.300"]).unwrap_err();
        assert!(e.contains("both hold for claude@2.1.300"), "{e}");
        assert!(refuse_overlaps(["claude@<2.1.300", "claude@>=2.1.300", "reference"]).is_ok());
    }

    #[test]
    fn bad_keys_name_what_is_wrong() {
        assert!(TargetKey::parse("claude@banana")
            .unwrap_err()
            .contains("not a version requirement"));
        assert!(TargetKey::parse("claude@>2.1.300, <2.1.200")
            .unwrap_err()
            .contains("holds for no version"));
        assert!(TargetKey::parse("@2.1.235")
            .unwrap_err()
            .contains("does not name a target"));
    }
}
