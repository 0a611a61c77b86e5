//! The limits table: every documented threshold, named once, with the seed line it comes from.
//!
//! Code and tests read thresholds from here and nowhere else; `core.limits-table` locks the whole
//! table in a snapshot so a changed number is reviewed like code. Entries whose source is the real
//! binary fill gaps the seeds leave (the seeds are silent, so the real 2.1.235 is the contract).

mod compaction;
mod real_binary;
mod seeds;

pub use compaction::*;
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
    /// Taken from the CLI's public documentation where the seeds are silent, and not yet recorded
    /// on the real binary (so not [`Source::RealBinary`]); says what the documentation states.
    Documented { note: &'static str },
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
            Source::Documented { note } => {
                write!(f, "CLI documentation, not yet recorded on 2.1.235: {note}")
            }
        }
    }
}

/// The whole table, one line per entry, sorted by name: what `claude-reference --limits` prints
/// and what the `core.limits-table` snapshot locks.
pub fn render() -> String {
    let mut all: Vec<&Limit> = ALL_SEED
        .iter()
        .chain(ALL_REAL_BINARY.iter())
        .chain(ALL_COMPACTION.iter())
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
    ALL_SEED
        .iter()
        .chain(ALL_REAL_BINARY.iter())
        .chain(ALL_COMPACTION.iter())
        .copied()
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

    /// Entries whose seed line writes the value in a way [`renderings`] does not produce: the
    /// name, the text on the cited line that states it, and why that text means this value. The
    /// test checks the text is on the line, so an exception cannot drift from its seed either.
    const WRITTEN_OTHERWISE: &[(&str, &str, &str)] = &[
        (
            "design.mcp.request_timeout",
            "timeout60,000 ms",
            "the seed runs the word into the number (no space after `timeout`), which the \
             whole-number rule otherwise reads as part of an identifier",
        ),
        (
            "upload.multipart_parts",
            "单文件 multipart/form-data body",
            "a single-file multipart body: the one file is its one part",
        ),
        (
            "upload.retries",
            "没有上传重试循环",
            "\"there is no upload retry loop\": zero retries, stated as an absence",
        ),
    ];

    /// The ways a seed may write `value` in `unit` that the test accepts (each must stand as a
    /// whole number on the line, not inside a longer one):
    /// - the digits, plain or grouped by thousands with `,`, a space or `_` (30000, 30,000,
    ///   30 000, 30_000);
    /// - a multiple of 1,000 as `30k` / `30K`; a multiple of 10,000 as `3万`;
    /// - `Millis`: whole seconds as `30s`, `30 s`, `30 sec(s)`, `30 second(s)`, `30 秒`; whole
    ///   minutes as `5 min`, `5 minute(s)`, `5 分钟`; whole hours as `2 h`, `2 hour(s)`, `2 小时`;
    ///   whole days as `7 d`, `7 day(s)`, `7 天`;
    /// - `Minutes`: the digits as `5 min`…, whole hours and days (`1 day`, `1 天`) likewise;
    /// - `Bytes`: whole KiB, MiB, GiB as `256 KiB`, `256KB`, `256K`, `1 MiB`, `1MB`, `1M`, and
    ///   whole decimal kB / MB as `100 kB`, `100KB`, `100 MB`;
    /// - `Percent`: `25%`; `PosixMode`: the octal `0600`, `600`, `0o600`;
    /// - 1 to 10 as English words (`one` … `ten`; 1 also `once`, `single`, 2 also `twice`) and
    ///   as Chinese numerals (`一` … `十`; 2 also `两`) followed by a measure word (`一次`, `五层`).
    fn renderings(value: u64, unit: Unit) -> Vec<String> {
        fn digits(n: u64) -> Vec<String> {
            let plain = n.to_string();
            let mut out = vec![plain.clone()];
            if plain.len() > 3 {
                for sep in [",", " ", "_"] {
                    let mut grouped = String::new();
                    for (i, c) in plain.chars().enumerate() {
                        if i > 0 && (plain.len() - i).is_multiple_of(3) {
                            grouped.push_str(sep);
                        }
                        grouped.push(c);
                    }
                    out.push(grouped);
                }
            }
            out
        }
        fn with(out: &mut Vec<String>, n: u64, suffixes: &[&str]) {
            for d in digits(n) {
                for suffix in suffixes {
                    out.push(format!("{d}{suffix}"));
                    out.push(format!("{d} {suffix}"));
                }
            }
        }
        const SECONDS: &[&str] = &["s", "sec", "secs", "second", "seconds", "秒"];
        const MINUTES: &[&str] = &["min", "mins", "minute", "minutes", "分钟"];
        const HOURS: &[&str] = &["h", "hour", "hours", "小时"];
        const DAYS: &[&str] = &["d", "day", "days", "天"];
        let mut out = digits(value);
        if value > 0 && value.is_multiple_of(1000) {
            with(&mut out, value / 1000, &["k", "K"]);
        }
        if value > 0 && value.is_multiple_of(10_000) {
            out.push(format!("{}万", value / 10_000));
        }
        match unit {
            Unit::Millis => {
                for (ms, names) in [
                    (1000, SECONDS),
                    (60_000, MINUTES),
                    (3_600_000, HOURS),
                    (86_400_000, DAYS),
                ] {
                    if value > 0 && value.is_multiple_of(ms) {
                        with(&mut out, value / ms, names);
                    }
                }
            }
            Unit::Minutes => {
                for (min, names) in [(1, MINUTES), (60, HOURS), (1440, DAYS)] {
                    if value > 0 && value.is_multiple_of(min) {
                        with(&mut out, value / min, names);
                    }
                }
            }
            Unit::Bytes => {
                for (size, names) in [
                    (1 << 10, &["KiB", "KB", "K"][..]),
                    (1 << 20, &["MiB", "MB", "M"][..]),
                    (1 << 30, &["GiB", "GB", "G"][..]),
                    (1000, &["kB", "KB"][..]),
                    (1_000_000, &["MB"][..]),
                ] {
                    if value > 0 && value.is_multiple_of(size) {
                        with(&mut out, value / size, names);
                    }
                }
            }
            Unit::Percent => out.push(format!("{value}%")),
            Unit::PosixMode => {
                let octal = format!("{value:o}");
                out.extend([format!("0{octal}"), format!("0o{octal}"), octal]);
            }
            _ => {}
        }
        const WORDS: [&str; 10] = [
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        ];
        const HANZI: [&str; 10] = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
        // A Chinese numeral counts only with a measure word after it (一次, 五层, 四篇, 九种 …):
        // a bare 一 is as often part of a word (同一, 统一) as a number.
        const MEASURES: &[char] = &[
            '次', '个', '层', '种', '篇', '项', '条', '页', '位', '方', '轮', '份', '张', '组',
        ];
        let mut hanzi: Vec<&str> = Vec::new();
        if (1..=10).contains(&value) {
            out.push(WORDS[value as usize - 1].to_owned());
            hanzi.push(HANZI[value as usize - 1]);
        }
        match value {
            1 => out.extend(["once".to_owned(), "single".to_owned()]),
            2 => {
                out.push("twice".to_owned());
                hanzi.push("两");
            }
            _ => {}
        }
        for h in hanzi {
            out.extend(MEASURES.iter().map(|m| format!("{h}{m}")));
        }
        out
    }

    /// `rendering` occurs in `line` standing on its own: not part of a longer number, word or
    /// Chinese numeral (ASCII letters compared without case).
    fn occurs(line: &str, rendering: &str) -> bool {
        const HANZI: &str = "零一二三四五六七八九十百千万两";
        let line: Vec<char> = line.to_ascii_lowercase().chars().collect();
        let want: Vec<char> = rendering.to_ascii_lowercase().chars().collect();
        let kind = |c: char| {
            if c.is_ascii_digit() {
                'd'
            } else if c.is_ascii_alphabetic() {
                'a'
            } else if HANZI.contains(c) {
                'h'
            } else {
                '-'
            }
        };
        let (first, last) = (want[0], want[want.len() - 1]);
        (0..line.len().saturating_sub(want.len() - 1)).any(|i| {
            if line[i..i + want.len()] != want[..] {
                return false;
            }
            let before = i.checked_sub(1).map(|j| line[j]);
            let before2 = i.checked_sub(2).map(|j| line[j]);
            let after = line.get(i + want.len()).copied();
            let after_digits: String = line[(i + want.len() + 1).min(line.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let clear_before = match (kind(first), before) {
                (_, None) => true,
                // Not inside `1,030`, `1.5`, `L214007` or `UTF-16`.
                ('d', Some(b)) => {
                    let grouped = ".,_".contains(b) && before2.is_some_and(|c| c.is_ascii_digit());
                    let suffix = b == '-' && before2.is_some_and(|c| c.is_ascii_alphabetic());
                    !(b.is_ascii_alphanumeric() || grouped || suffix)
                }
                (k, Some(b)) => k == '-' || kind(b) != k,
            };
            let clear_after = match (kind(last), after) {
                (_, None) => true,
                ('d', Some(a)) => {
                    let decimal = a == '.' && !after_digits.is_empty();
                    let grouped = ",_ ".contains(a) && after_digits.len() == 3;
                    !(a.is_ascii_digit() || decimal || grouped)
                }
                (k, Some(a)) => k == '-' || kind(a) != k,
            };
            clear_before && clear_after
        })
    }

    #[test]
    fn renderings_stand_alone() {
        assert!(occurs("timeout 30,000 ms", "30,000"));
        assert!(!occurs("timeout 30,000 ms", "30000"));
        assert!(!occurs("timeout 30,000 ms", "30"));
        assert!(!occurs("budget 300 chars", "30"));
        assert!(!occurs("1.5 s", "5 s"));
        assert!(occurs("about 30 Seconds.", "30 seconds"));
        assert!(!occurs("30 secondsx", "30 seconds"));
        assert!(renderings(1, Unit::Count)
            .iter()
            .any(|r| occurs("重试一次", r)));
        assert!(!renderings(1, Unit::Count)
            .iter()
            .any(|r| occurs("共享同一 Promise", r)));
        assert!(!occurs("十一次", "一次"));
        assert!(!occurs("UTF-16 code units", "16"));
        assert!(!occurs("L214007", "214007"));
        assert!(occurs("options 必须 2-4 项", "4"));
        assert!(renderings(1_048_576, Unit::Bytes).contains(&"1 MiB".to_owned()));
        assert!(renderings(30_000, Unit::Millis).contains(&"30 秒".to_owned()));
        assert!(renderings(384, Unit::PosixMode).contains(&"0600".to_owned()));
    }

    #[test]
    fn every_seed_or_matrix_source_points_at_a_line_that_states_its_value() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/seeds");
        if !dir.is_dir() {
            // shared/ sits beside the clone in CI and in sessions; say so rather than pass silently.
            panic!("seed folder not found at {}", dir.display());
        }
        let mut wrong = Vec::new();
        for l in all() {
            // The matrix rows the table cites are held to the same rule as seed lines.
            let (file, path, line) = match l.source {
                Source::Seed { file, line } => (file, dir.join(file), line),
                Source::Matrix { line } => (
                    "conformance-matrix.md",
                    dir.join("../conformance-matrix.md"),
                    line,
                ),
                Source::RealBinary { .. } | Source::Documented { .. } => continue,
            };
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
            let at = text
                .lines()
                .nth(line as usize - 1)
                .unwrap_or_else(|| panic!("{}: {file} has no line {line}", l.name));
            let exception = WRITTEN_OTHERWISE.iter().find(|(name, ..)| *name == l.name);
            let holds = match exception {
                Some((_, written, _)) => at.contains(written),
                None => renderings(l.value, l.unit).iter().any(|r| occurs(at, r)),
            };
            if !holds {
                wrong.push(format!(
                    "{} = {} {:?}: {file}:{line} does not state it{}:\n    {at}",
                    l.name,
                    l.value,
                    l.unit,
                    match exception {
                        Some((_, written, _)) => format!(" (as `{written}`)"),
                        None => String::new(),
                    }
                ));
            }
        }
        for (name, ..) in WRITTEN_OTHERWISE {
            assert!(
                all().any(|l| l.name == *name
                    && matches!(l.source, Source::Seed { .. } | Source::Matrix { .. })),
                "WRITTEN_OTHERWISE names `{name}`, which cites no seed or matrix line"
            );
        }
        assert!(
            wrong.is_empty(),
            "{} entries whose cited seed line does not hold their value:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }
}
