//! The limits table: every documented threshold, named once, with the seed line it comes from.
//!
//! Code and tests read thresholds from here and nowhere else; `core.limits-table` locks the whole
//! table in a snapshot so a changed number is reviewed like code. Entries whose source is the real
//! binary fill gaps the seeds leave (the seeds are silent, so the real 2.1.235 is the contract).

mod real_binary;
mod seeds;

pub use real_binary::*;
pub use seeds::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Count,
    Millis,
    Minutes,
    Chars,
    Bytes,
    Lines,
    Percent,
    Entries,
    Levels,
    Utf16Units,
    PosixMode,
    BytesPerToken,
    CharsPerToken,
    Pages,
    ExitCode,
    HttpStatus,
    Tokens,
    Pixels,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A threshold the client enforces.
    Limit,
    /// A documented fixed count (e.g. the number of reference tools).
    Fact,
    /// A worked example derived from other limits (e.g. 1% of 200k × 4).
    Derived,
    /// A probe's pass criterion (e.g. exit within 3 s).
    Acceptance,
    /// Model-visible prompt text that the seed shows contradicting the runtime constant.
    PromptClaim,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A line of a seed under `shared/spec/seeds/`.
    Seed { file: &'static str, line: u32 },
    /// A row of `shared/spec/conformance-matrix.md` with no seed line behind it.
    Matrix { line: u32 },
    /// Observed on the real 2.1.235 binary where the seeds are silent; names the recorded case.
    RealBinary { case: &'static str },
}

#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub name: &'static str,
    pub value: u64,
    pub unit: Unit,
    pub kind: Kind,
    /// The seed hedges the number (约, 级).
    pub approx: bool,
    pub source: Source,
    pub what: &'static str,
}

impl Limit {
    pub const fn get(&self) -> u64 {
        self.value
    }

    pub const fn usize(&self) -> usize {
        self.value as usize
    }

    pub const fn duration(&self) -> std::time::Duration {
        match self.unit {
            Unit::Minutes => std::time::Duration::from_secs(self.value * 60),
            _ => std::time::Duration::from_millis(self.value),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Seed { file, line } => write!(f, "{file}:{line}"),
            Source::Matrix { line } => write!(f, "conformance-matrix.md:{line}"),
            Source::RealBinary { case } => write!(f, "real 2.1.235: {case}"),
        }
    }
}

/// The whole table, one line per entry, sorted by name: what `claude-reference --limits` prints
/// and what the `core.limits-table` snapshot locks.
pub fn render() -> String {
    let mut all: Vec<&Limit> = ALL_SEED
        .iter()
        .chain(ALL_REAL_BINARY.iter())
        .copied()
        .collect();
    all.sort_by_key(|l| l.name);
    let mut out = String::new();
    for l in all {
        let approx = if l.approx { "~" } else { "" };
        out.push_str(&format!(
            "{} = {approx}{} {:?} [{:?}] ({}) {}\n",
            l.name, l.value, l.unit, l.kind, l.source, l.what
        ));
    }
    out
}

pub fn all() -> impl Iterator<Item = &'static Limit> {
    ALL_SEED.iter().chain(ALL_REAL_BINARY.iter()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_dotted() {
        let mut names: Vec<&str> = all().map(|l| l.name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate limit names");
        for name in names {
            assert!(
                name.contains('.')
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._".contains(c)),
                "{name}"
            );
        }
    }

    #[test]
    fn every_seed_source_points_at_a_line_that_states_a_number() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/seeds");
        if !dir.is_dir() {
            // shared/ sits beside the clone in CI and in sessions; say so rather than pass silently.
            panic!("seed folder not found at {}", dir.display());
        }
        for l in all() {
            if let Source::Seed { file, line } = l.source {
                let text = std::fs::read_to_string(dir.join(file))
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                let at = text
                    .lines()
                    .nth(line as usize - 1)
                    .unwrap_or_else(|| panic!("{}: {file} has no line {line}", l.name));
                assert!(
                    at.chars()
                        .any(|c| c.is_ascii_digit() || "一二三四五六七八九十百千万".contains(c)),
                    "{}: {file}:{line} states no number: {at}",
                    l.name
                );
            }
        }
    }
}
