//! Read's token cap (2.1.235, recon read-tokens; recorded: tools.read/token-cap): what a read
//! returns may not pass 25,000 tokens. The text is estimated first (4 characters a token, 2 for
//! JSON); only an estimate past a quarter of the cap is worth a `count_tokens` request, whose
//! answer (or, without one, the estimate) decides. A whole-file read past the cap shows a first
//! page with a note saying where to go on; a read of a range is refused with the count.

use std::path::Path;

use crate::limits;

/// What the cap leaves of a read.
#[derive(Debug, PartialEq)]
pub enum Capped {
    /// Within the cap: all of it.
    Fits,
    /// A whole-file read cut to its first `lines` lines, or to its first `chars` characters
    /// when its lines are too long to page by; `note` says so.
    Page {
        lines: usize,
        note: String,
    },
    Excerpt {
        chars: usize,
        note: String,
    },
}

/// Characters a token by the client's estimate.
fn chars_per_token(ext: &str) -> usize {
    match ext {
        "json" | "jsonl" | "jsonc" => 2,
        _ => 4,
    }
}

/// The refusal for a read past the cap.
fn refusal(tokens: u64, cap: u64) -> String {
    format!("File content ({tokens} tokens) exceeds maximum allowed tokens ({cap}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.")
}

/// `text` as the read selected it (lines joined, no numbers); `whole`: the read asked for the
/// whole file (no offset past 1, no limit). `count` asks the API.
pub fn cap(
    text: &str,
    path: &Path,
    whole: bool,
    count: impl FnOnce(&str) -> Option<u64>,
) -> Result<Capped, String> {
    let cap = limits::READ_MAX_TOKENS.get();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let len = text.encode_utf16().count();
    let estimate = (len as f64 / chars_per_token(&ext) as f64).round() as u64;
    if estimate == 0 || estimate <= cap / limits::READ_TOKEN_COUNT_SHARE.get() {
        return Ok(Capped::Fits);
    }
    if !whole && len as u64 > cap * limits::READ_MAX_CHARS_PER_TOKEN.get() {
        return Err(refusal(estimate, cap));
    }
    let tokens = count(text).unwrap_or(estimate);
    if tokens <= cap {
        return Ok(Capped::Fits);
    }
    if !whole {
        return Err(refusal(tokens, cap));
    }
    Ok(first_page(text, path, tokens, cap))
}

/// 2.1.235's cut: a share of the lines sized by the count (85% of the cap's share), shrunk by
/// 30% up to six times until it fits by the text's own characters-a-token; failing that, the
/// first characters, shrunk the same way.
fn first_page(text: &str, path: &Path, tokens: u64, cap: u64) -> Capped {
    let lines: Vec<&str> = text.split('\n').collect();
    let units = |s: &str| s.encode_utf16().count();
    let per_token = (units(text) as f64 / tokens.max(1) as f64).max(0.5);
    let fits = |s: &str| units(s) as f64 / per_token <= cap as f64;
    let share = (lines.len() as f64 * cap as f64 / tokens.max(1) as f64 * 0.85).floor() as usize;
    let mut kept = share.clamp(1, lines.len());
    let mut page = lines[..kept].join("\n");
    for _ in 0..6 {
        if fits(&page) || kept <= 1 {
            break;
        }
        kept = ((kept as f64 * 0.7).floor() as usize).max(1);
        page = lines[..kept].join("\n");
    }
    let shown = path.display();
    if fits(&page) && !page.trim().is_empty() {
        let total = lines.len();
        let note = format!(
            "[Truncated: PARTIAL view \u{2014} {shown}: showing lines 1-{kept} of {total} total ({tokens} tokens, cap {cap}). Call Read with offset={} limit={kept} for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]",
            kept + 1
        );
        return Capped::Page { lines: kept, note };
    }
    let mut chars = ((cap as f64 * per_token * 0.85).floor() as usize).max(1);
    let chars_of = |n: usize| text.chars().take(n).collect::<String>();
    let mut excerpt = chars_of(chars);
    for _ in 0..6 {
        if fits(&excerpt) {
            break;
        }
        chars = ((chars as f64 * 0.7).floor() as usize).max(1);
        excerpt = chars_of(chars);
    }
    let note = format!(
        "[Truncated: PARTIAL view \u{2014} {shown}: showing the first {} of {} characters ({tokens} tokens, cap {cap}); this file has very long lines and cannot be paginated by line. Use Grep to find a specific section, or Read with offset/limit to page through it. Do NOT answer from this excerpt alone if the answer may be elsewhere in the file.]",
        units(&excerpt),
        units(text)
    );
    Capped::Excerpt {
        chars: excerpt.chars().count(),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "0123456789 abcdefghij 0123456789 abcdefghij 012345";

    fn big(lines: usize) -> String {
        format!("{LINE}\n").repeat(lines)
    }

    #[test]
    fn a_small_read_is_never_counted() {
        let counted = std::cell::Cell::new(false);
        let text = big(400);
        let fits = cap(&text, Path::new("a.txt"), true, |_| {
            counted.set(true);
            None
        });
        assert_eq!(fits, Ok(Capped::Fits));
        assert!(!counted.get());
    }

    #[test]
    fn a_whole_read_past_the_cap_is_cut_where_2_1_235_cuts_it() {
        // Recorded: 2,000 lines of 51 characters, counted 25,500 tokens → lines 1-1667 of 2001.
        let text = big(2000);
        let capped = cap(&text, Path::new("/w/big.txt"), true, |t| {
            Some(t.len() as u64 / 4)
        })
        .unwrap();
        let Capped::Page { lines, note } = capped else {
            panic!("{capped:?}")
        };
        assert_eq!(lines, 1667);
        assert_eq!(note, "[Truncated: PARTIAL view \u{2014} /w/big.txt: showing lines 1-1667 of 2001 total (25500 tokens, cap 25000). Call Read with offset=1668 limit=1667 for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]");
    }

    #[test]
    fn a_ranged_read_past_the_cap_is_refused_and_a_low_count_lets_json_through() {
        let text = big(1990);
        let refused = cap(&text, Path::new("big.txt"), false, |_| Some(25_372)).unwrap_err();
        assert!(refused
            .starts_with("File content (25372 tokens) exceeds maximum allowed tokens (25000)."));
        // 60,000 characters of JSON: 30,000 tokens by the estimate, 15,000 by the count.
        let json = "\"abcdefghijklmnopq\",".repeat(3000);
        assert_eq!(
            cap(&json, Path::new("d.json"), true, |_| Some(15_000)),
            Ok(Capped::Fits)
        );
        // Without a count the estimate decides.
        assert!(matches!(
            cap(&json, Path::new("d.json"), true, |_| None),
            Ok(Capped::Page { .. } | Capped::Excerpt { .. })
        ));
    }

    #[test]
    fn one_very_long_line_is_cut_by_characters() {
        let text = "x".repeat(200_000);
        let capped = cap(&text, Path::new("a.txt"), true, |_| None).unwrap();
        let Capped::Excerpt { chars, note } = capped else {
            panic!("{capped:?}")
        };
        assert!(chars <= 100_000, "{chars}");
        assert!(note.contains("cannot be paginated by line"), "{note}");
    }
}
