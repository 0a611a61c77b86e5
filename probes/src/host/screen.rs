//! Reading a terminal screen as a person would: is the agent waiting for a prompt, is a card
//! asking something, which options does it offer. The reference draws its cards in the same
//! plain layout as the real 2.1.235 (a title, the question, numbered options with a `❯` cursor,
//! a hint line), so one reader serves both targets.

use std::sync::LazyLock;

use regex::Regex;

/// A numbered option line: `❯ 1. Yes` or `  2. No` (also `1. [ ] Red` in a multi-select).
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(❯)?\s*(\d+)\.\s+(\S.*?)\s*$").unwrap());
/// A horizontal rule: the line a card or the prompt box starts under.
static RULE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*[─━]{8,}\s*$").unwrap());

/// A decision card on the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// Its first line (`Bash command`, `Exit plan mode?`, `☐ Color`, …).
    pub title: String,
    /// The card's lines, trimmed at the right, from the title to its last line.
    pub text: String,
    /// Option numbers and labels, in order.
    pub options: Vec<(u32, String)>,
    /// The index in `options` of the focused one (`❯`).
    pub focus: usize,
}

impl Card {
    /// The key that picks the first option whose label satisfies `pick`.
    pub fn key_for(&self, pick: impl Fn(&str) -> bool) -> Option<char> {
        self.index_of(pick)
            .and_then(|i| char::from_digit(self.options[i].0, 10))
    }

    pub fn index_of(&self, pick: impl Fn(&str) -> bool) -> Option<usize> {
        self.options.iter().position(|(_, label)| pick(label))
    }
}

/// The card on `screen`, if one waits for an answer: below the last horizontal rule that opens a
/// block (a rule followed by an option belongs inside a card), a focused numbered option.
pub fn card(screen: &str) -> Option<Card> {
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let cursor = lines
        .iter()
        .rposition(|l| OPTION.captures(l).is_some_and(|c| c.get(1).is_some()))?;
    let opens_block = |i: usize| {
        RULE.is_match(lines[i])
            && lines[i + 1..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|next| !OPTION.is_match(next))
    };
    let start = (0..cursor)
        .rev()
        .find(|&i| opens_block(i))
        .map_or(0, |i| i + 1);
    let end = lines.iter().rposition(|l| !l.trim().is_empty())?;
    let block = &lines[start..=end];
    let mut options = Vec::new();
    let mut focus = 0;
    for line in block {
        if let Some(c) = OPTION.captures(line) {
            if c.get(1).is_some() {
                focus = options.len();
            }
            options.push((c[2].parse().ok()?, c[3].to_owned()));
        }
    }
    let first = block.iter().position(|l| !l.trim().is_empty())?;
    let text = block[first..].join("\n");
    Some(Card {
        title: block[first].trim().to_owned(),
        text,
        options,
        focus,
    })
}

/// The agent waits for the user's next prompt: an empty input line between two rules, and no
/// request or tool in flight.
pub fn idle(screen: &str) -> bool {
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let input_box = (1..lines.len().saturating_sub(1)).any(|i| {
        // `❯` and a no-break space, which trim_end takes away.
        lines[i] == "❯" && RULE.is_match(lines[i - 1]) && RULE.is_match(lines[i + 1])
    });
    input_box && card(screen).is_none() && !screen.contains("esc to interrupt")
}

/// The tool a card asks for, by its title (the titles 2.1.235 gives its cards; the reference
/// draws the same ones).
pub fn tool_of(card: &Card) -> String {
    let title = card.title.as_str();
    let tool = match title {
        "Bash command" => "Bash",
        "Create file" | "Overwrite file" => "Write",
        "Edit file" => "Edit",
        "Exit plan mode?" | "Ready to code?" => "ExitPlanMode",
        // A sandboxed command's connection to a host on no list (can_use_tool's tool name).
        "Network request outside of sandbox" => "SandboxNetworkAccess",
        t if t.contains('☐') || t.contains('☒') => "AskUserQuestion",
        // A tool without a card of its own: its user-facing name is the card's next line. From
        // 2.1.332 the tool's description comes first, as `│ ` lines and a `(ctrl+o …)` hint
        // above a `╌` rule, with the name under the rule.
        "Tool use" => {
            let lines: Vec<&str> = card.text.lines().skip(1).map(str::trim).collect();
            let after_rule = match lines.iter().position(|l| l.starts_with('╌')) {
                Some(rule)
                    if lines[..rule].iter().all(|l| {
                        l.is_empty() || l.starts_with('│') || l.starts_with("(ctrl+o")
                    }) =>
                {
                    &lines[rule + 1..]
                }
                _ => &lines[..],
            };
            let shown = after_rule
                .iter()
                .map(|l| l.trim_start_matches('│').trim())
                .find(|l| !l.is_empty());
            return match shown {
                Some(name) if name.starts_with("Claude Design") => "ClaudeDesign".into(),
                Some(name) => name.to_owned(),
                None => title.to_owned(),
            };
        }
        t => t,
    };
    tool.to_owned()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The real 2.1.235's Bash card, as a 120×40 terminal showed it.
    const BASH_CARD: &str = "\
❯ make a file

● Bash(touch made.txt)
  ⎿  Waiting…

────────────────────────────────────────────────────────────────────────
 Bash command

   touch made.txt
   make a file

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to /tmp/w from this project
   3. No

 Esc to cancel · Tab to amend · ctrl+e to explain
";

    /// 2.1.235's card for a sandboxed command's connection to a host on no list.
    pub(in crate::host) const NETWORK_CARD: &str = "\
● Bash(curl -sS http://no.test/p)
  ⎿  Running…

────────────────────────────────────────────────────────────────────────
 Network request outside of sandbox

   Host: no.test

   Do you want to allow this connection?
   ❯ 1. Yes
     2. Yes, and don't ask again for no.test
     3. No, and tell Claude what to do differently (esc)
";

    #[test]
    fn the_network_card_asks_for_sandbox_network_access() {
        let card = card(NETWORK_CARD).expect("a card");
        assert_eq!(tool_of(&card), "SandboxNetworkAccess");
        assert!(card.text.contains("Host: no.test"));
    }

    /// 2.1.235's consent card for ClaudeDesign (the description is the tool's own, cut here).
    /// Also the terminal driver's test card.
    pub(in crate::host) const DESIGN_CARD: &str = "\
● Claude Design: List projects

────────────────────────────────────────────────────────────────────────
 Tool use

   Claude Design: List projects
   │ A tool description.…

 │ design agent consent — approving records a server-side grant

 Do you want to proceed?
 ❯ 1. Yes
   2. No

 Esc to cancel · Tab to amend
";

    #[test]
    fn a_tool_use_card_names_its_tool_by_the_line_under_the_title() {
        let card = card(DESIGN_CARD).expect("a card");
        assert_eq!(card.title, "Tool use");
        assert_eq!(tool_of(&card), "ClaudeDesign");
        assert_eq!(card.options.len(), 2);
    }

    /// 2.1.332's: the description above a rule, the tool's name under it.
    const DESIGN_CARD_332: &str = "\
● Claude Design: List projects

────────────────────────────────────────────────────────────────────────
 Tool use
 │ A tool description.
 │ More of it.…
 (ctrl+o to expand description)
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Claude Design: List projects
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 │ design agent consent — approving records a server-side grant

 Do you want to proceed?
 ❯ 1. Yes
   2. No

 Esc to cancel · Tab to amend
";

    #[test]
    fn a_tool_use_card_with_its_description_first_names_its_tool_under_the_rule() {
        let card = card(DESIGN_CARD_332).expect("a card");
        assert_eq!(card.title, "Tool use");
        assert_eq!(tool_of(&card), "ClaudeDesign");
        assert_eq!(card.options.len(), 2);
    }

    #[test]
    fn the_bash_card_is_read_with_its_options() {
        let card = card(BASH_CARD).expect("a card");
        assert_eq!(card.title, "Bash command");
        assert_eq!(tool_of(&card), "Bash");
        assert_eq!(card.options.len(), 3);
        assert_eq!(
            card.options[1].1,
            "Yes, and always allow access to /tmp/w from this project"
        );
        assert_eq!(card.key_for(|l| l == "No"), Some('3'));
        assert!(card.text.contains("touch made.txt"));
        assert!(!idle(BASH_CARD));
    }

    #[test]
    fn an_idle_prompt_has_no_card() {
        let screen = "● DONE\n────────\n❯\u{a0}\n────────\n  ⏸ manual mode on · ? for shortcuts\n";
        assert!(card(screen).is_none());
        assert!(idle(screen));
        let busy = screen.replace("? for shortcuts", "esc to interrupt");
        assert!(!idle(&busy));
        let typed = screen.replace("❯\u{a0}", "❯ make a file");
        assert!(!idle(&typed));
    }

    /// 2.1.235's question card: a rule inside it, above the chat option.
    const QUESTION_CARD: &str = "\
❯ ask one
────────────────────────────────
 ☐ Color
Which color?
❯ 1. Red
     warm
  2. Blue
     cool
  3. Type something.
────────────────────────────────
  4. Chat about this
Enter to select · ↑/↓ to navigate · Esc to cancel
";

    #[test]
    fn a_question_card_spans_its_inner_rule() {
        let card = card(QUESTION_CARD).expect("a card");
        assert_eq!(card.title, "☐ Color");
        assert_eq!(tool_of(&card), "AskUserQuestion");
        assert_eq!(card.options.len(), 4);
        assert_eq!(card.key_for(|l| l.starts_with("Type something")), Some('3'));
    }

    #[test]
    fn a_write_over_an_existing_file_is_a_write_card() {
        let screen = "────────────\n Overwrite file\n notes.txt\n Do you want to overwrite notes.txt?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel · Tab to amend\n";
        let card = card(screen).expect("a card");
        assert_eq!(tool_of(&card), "Write");
    }

    #[test]
    fn a_card_without_a_hint_line_is_still_a_card() {
        let screen = "● Entered plan mode\n──────────\n Exit plan mode?\n  Claude wants to exit plan mode\n  ❯ 1. Yes, and switch to default (ask each time) for this session\n    2. No\n";
        let card = card(screen).expect("a card");
        assert_eq!(tool_of(&card), "ExitPlanMode");
        assert_eq!(card.options.len(), 2);
    }
}
