//! "Did you mean" for an unknown option, as commander.js (2.1.235's parser) picks it: among the
//! options `--help` shows, by their long name (the second of two long spellings), those whose
//! edit distance is under 3 and whose similarity is above 0.4, the nearest ones, sorted.
//! Hidden options are never suggested (recorded: `--max-turn` gets no suggestion).

use clap::CommandFactory;

const MAX_DISTANCE: usize = 3;
const MIN_SIMILARITY: f64 = 0.4;

/// The suggestion line for `unknown` (`--name`), or `None`.
pub fn for_option(unknown: &str) -> Option<String> {
    let word = unknown.strip_prefix("--")?;
    let command = super::Args::command();
    let mut candidates: Vec<String> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let aliases = a.get_visible_aliases().unwrap_or_default();
            aliases.first().copied().or(a.get_long()).map(str::to_owned)
        })
        .chain(std::iter::once("help".to_owned()))
        .collect();
    candidates.sort();
    candidates.dedup();
    let mut best = MAX_DISTANCE;
    let mut similar: Vec<String> = Vec::new();
    for candidate in candidates.into_iter().filter(|c| c.chars().count() > 1) {
        let distance = edit_distance(word, &candidate);
        let length = word.chars().count().max(candidate.chars().count());
        let similarity = (length - distance.min(length)) as f64 / length as f64;
        if similarity <= MIN_SIMILARITY {
            continue;
        }
        if distance < best {
            best = distance;
            similar = vec![candidate];
        } else if distance == best {
            similar.push(candidate);
        }
    }
    similar.sort();
    let named: Vec<String> = similar.iter().map(|c| format!("--{c}")).collect();
    match named.as_slice() {
        [] => None,
        [one] => Some(format!("(Did you mean {one}?)")),
        many => Some(format!("(Did you mean one of {}?)", many.join(", "))),
    }
}

/// Damerau-Levenshtein distance with adjacent transpositions (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::for_option;

    /// Each recorded on 2.1.235 (`claude -p hi OPTION`).
    #[test]
    fn suggests_what_commander_suggested() {
        let recorded = [
            ("--bogus-flag", None),
            ("--verbos", Some("--verbose")),
            ("--modle", Some("--model")),
            ("--bgx", None),
            ("--sytem-prompt", Some("--system-prompt")),
            ("--max-turn", None),
            ("--thinkin", None),
            ("--tool", Some("--tools")),
            ("--resum", Some("--resume")),
            ("--debugg", Some("--debug")),
            ("--ad-dir", Some("--add-dir")),
            ("--x", None),
            ("--hel", Some("--help")),
        ];
        for (typed, said) in recorded {
            let want = said.map(|s| format!("(Did you mean {s}?)"));
            assert_eq!(for_option(typed), want, "{typed}");
        }
    }
}
