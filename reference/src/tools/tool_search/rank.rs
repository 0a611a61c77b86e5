//! ToolSearch's keyword search, as 2.1.235 ranks: an exact name wins outright; an `mcp__` prefix
//! lists that server's deferred tools; otherwise each term scores against the name's parts, the
//! whole name, the search hint and the description, and `+term`s must all match.

use regex::Regex;

/// What a tool offers the search.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub aliases: Vec<String>,
    pub description: String,
    pub hint: Option<String>,
    /// An MCP tool: its server's name and its own name.
    pub mcp: Option<(String, String)>,
}

struct Parts {
    parts: Vec<String>,
    coarse: Vec<String>,
    full: String,
    mcp: bool,
}

fn parts(e: &Entry) -> Parts {
    if let Some((server, tool)) = &e.mcp {
        let coarse: Vec<String> = [server, tool]
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.to_lowercase())
            .collect();
        let parts: Vec<String> = coarse
            .iter()
            .flat_map(|s| s.split(|c: char| c.is_whitespace() || c == '_' || c == '.'))
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let full = parts.join(" ");
        return Parts {
            parts,
            coarse,
            full,
            mcp: true,
        };
    }
    // CamelCase and snake_case split into words.
    let mut spaced = String::new();
    let mut prev_lower = false;
    for c in e.name.chars() {
        if prev_lower && c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        prev_lower = c.is_ascii_lowercase();
        spaced.push(if c == '_' { ' ' } else { c });
    }
    let parts: Vec<String> = spaced
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    Parts {
        full: parts.join(" "),
        parts,
        coarse: vec![e.name.to_lowercase()],
        mcp: false,
    }
}

/// A whole-word test, with JavaScript's ASCII word boundaries.
fn word(term: &str) -> Regex {
    Regex::new(&format!(r"(?-u:\b){}(?-u:\b)", regex::escape(term))).expect("an escaped term")
}

/// JavaScript's `slice(0, n)` of a list of `len`.
pub fn take_count(len: usize, n: f64) -> usize {
    let n = n.trunc();
    if n >= 0.0 {
        (n as usize).min(len)
    } else {
        len.saturating_sub((-n) as usize)
    }
}

/// The names matching `query`, best first, at most `max` of them. `deferred` is searched;
/// `all` only for an exact name.
pub fn keyword(query: &str, deferred: &[Entry], all: &[Entry], max: f64) -> Vec<String> {
    let q = query.trim().to_lowercase();
    if let Some(e) = deferred
        .iter()
        .chain(all)
        .find(|e| e.name.to_lowercase() == q)
    {
        return vec![e.name.clone()];
    }
    if q.starts_with("mcp__") && q.len() > 5 {
        let hits: Vec<String> = deferred
            .iter()
            .filter(|e| e.name.to_lowercase().starts_with(&q))
            .map(|e| e.name.clone())
            .collect();
        if !hits.is_empty() {
            let n = take_count(hits.len(), max);
            return hits[..n].to_vec();
        }
    }
    let terms: Vec<&str> = q.split_whitespace().collect();
    let required: Vec<&str> = terms
        .iter()
        .filter(|t| t.len() > 1 && t.starts_with('+'))
        .map(|t| &t[1..])
        .collect();
    let optional: Vec<&str> = terms
        .iter()
        .filter(|t| !(t.len() > 1 && t.starts_with('+')))
        .copied()
        .collect();
    let scoring: Vec<&str> = if required.is_empty() {
        terms.clone()
    } else {
        required.iter().chain(&optional).copied().collect()
    };
    let words: Vec<(String, Regex)> = scoring.iter().map(|t| (t.to_string(), word(t))).collect();
    let find = |t: &str| {
        &words
            .iter()
            .find(|(w, _)| w == t)
            .expect("every term has one")
            .1
    };
    let mut scored: Vec<(String, u32)> = Vec::new();
    for e in deferred {
        let p = parts(e);
        let desc = e.description.to_lowercase();
        let hint = e.hint.as_deref().map(str::to_lowercase).unwrap_or_default();
        let matches_required = required.iter().all(|t| {
            p.parts.iter().any(|x| x == t || x.contains(t))
                || p.coarse.iter().any(|x| x == t || x.contains(t))
                || find(t).is_match(&desc)
                || (!hint.is_empty() && find(t).is_match(&hint))
        });
        if !matches_required {
            continue;
        }
        let mut score = 0;
        for t in &scoring {
            let re = find(t);
            if p.parts.iter().any(|x| x == t) {
                score += if p.mcp { 12 } else { 10 };
            } else if p.parts.iter().any(|x| x.contains(t)) {
                score += if p.mcp { 6 } else { 5 };
            }
            if p.coarse.iter().any(|x| x == t) {
                score += if p.mcp { 12 } else { 10 };
            } else if p.coarse.iter().any(|x| x.contains(t)) {
                score += if p.mcp { 4 } else { 3 };
            }
            if p.full.contains(t) && score == 0 {
                score += 3;
            }
            if !hint.is_empty() && re.is_match(&hint) {
                score += 4;
            }
            if re.is_match(&desc) {
                score += 2;
            }
        }
        if score > 0 {
            scored.push((e.name.clone(), score));
        }
    }
    // Stable: equal scores keep the deferred list's order.
    scored.sort_by_key(|s| std::cmp::Reverse(s.1));
    let n = take_count(scored.len(), max);
    scored.into_iter().take(n).map(|(name, _)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin(name: &str, description: &str) -> Entry {
        Entry {
            name: name.into(),
            aliases: Vec::new(),
            description: description.into(),
            hint: None,
            mcp: None,
        }
    }

    fn deferred() -> Vec<Entry> {
        vec![
            builtin("CronCreate", "Schedule a prompt."),
            builtin("CronDelete", "Cancel a job."),
            builtin("CronList", "Show jobs."),
            builtin("NotebookEdit", "Change a cell."),
            builtin("TaskStop", "End a task."),
            Entry {
                name: "mcp__probe__echo_thing".into(),
                aliases: Vec::new(),
                description: "Echoes.".into(),
                hint: None,
                mcp: Some(("probe".into(), "echo_thing".into())),
            },
        ]
    }

    #[test]
    fn an_exact_name_wins_whatever_its_case_and_may_be_a_loaded_tool() {
        let all = vec![builtin("Read", "Reads a file.")];
        assert_eq!(
            keyword("notebookedit", &deferred(), &all, 5.0),
            ["NotebookEdit"]
        );
        assert_eq!(keyword(" READ ", &deferred(), &all, 5.0), ["Read"]);
    }

    #[test]
    fn name_parts_outrank_descriptions_and_ties_keep_list_order() {
        // "cron" is a name part of all three; "schedule" is a word of CronCreate's description.
        assert_eq!(
            keyword("cron schedule", &deferred(), &[], 2.0),
            ["CronCreate", "CronDelete"]
        );
        assert_eq!(keyword("notebook", &deferred(), &[], 5.0), ["NotebookEdit"]);
        assert!(keyword("zzzqqq", &deferred(), &[], 5.0).is_empty());
    }

    #[test]
    fn mcp_tools_match_by_server_tool_words_and_by_prefix() {
        assert_eq!(
            keyword("echo", &deferred(), &[], 5.0),
            ["mcp__probe__echo_thing"]
        );
        assert_eq!(
            keyword("mcp__probe", &deferred(), &[], 5.0),
            ["mcp__probe__echo_thing"]
        );
    }

    #[test]
    fn a_required_term_filters_before_ranking() {
        assert_eq!(keyword("+task stop", &deferred(), &[], 5.0), ["TaskStop"]);
        assert!(keyword("+zzz cron", &deferred(), &[], 5.0).is_empty());
    }

    #[test]
    fn counts_follow_javascript_slice() {
        assert_eq!(take_count(3, 5.0), 3);
        assert_eq!(take_count(3, 1.9), 1);
        assert_eq!(take_count(3, -1.0), 2);
        assert_eq!(take_count(3, 0.0), 0);
    }
}
