//! Reading a terminal screen as a person would: is the agent waiting for a prompt, is a card
//! asking something, which options does it offer. The reference draws its cards in the same
//! plain layout as the real 2.1.235 (a title, the question, numbered options with a `❯` cursor,
//! a hint line), so one reader serves both targets.

use std::sync::LazyLock;

use regex::Regex;

/// A numbered option line: `❯ 1. Yes` or `  2. No`.
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:❯\s*)?(\d+)\.\s+(\S.*?)\s*$").unwrap());
/// A horizontal rule: the line a card or the prompt box starts under.
static RULE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*[─━]{8,}\s*$").unwrap());

/// A decision card on the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// Its first line (`Bash command`, …).
    pub title: String,
    /// The card's lines, trimmed at the right, from the title to the hint.
    pub text: String,
    /// Option numbers and labels, in order.
    pub options: Vec<(u32, String)>,
}

impl Card {
    /// The key that picks the option whose label satisfies `pick`.
    pub fn key_for(&self, pick: impl Fn(&str) -> bool) -> Option<char> {
        self.options
            .iter()
            .find(|(_, label)| pick(label))
            .and_then(|(n, _)| char::from_digit(*n, 10))
    }
}

/// The card on `screen`, if one is waiting for an answer: the block under the last rule that
/// offers numbered options and ends with an `Esc to cancel` hint.
pub fn card(screen: &str) -> Option<Card> {
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let hint = lines.iter().rposition(|l| l.contains("Esc to cancel"))?;
    let start = lines[..hint]
        .iter()
        .rposition(|l| RULE.is_match(l))
        .map_or(0, |i| i + 1);
    let block = &lines[start..=hint];
    let options: Vec<(u32, String)> = block
        .iter()
        .filter_map(|l| OPTION.captures(l))
        .filter_map(|c| Some((c[1].parse().ok()?, c[2].to_owned())))
        .collect();
    if options.is_empty() {
        return None;
    }
    let first = block.iter().position(|l| !l.trim().is_empty())?;
    let text = block[first..]
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    Some(Card {
        title: block[first].trim().to_owned(),
        text,
        options,
    })
}

/// The agent waits for the user's next prompt: an empty input line and the shortcuts hint.
pub fn idle(screen: &str) -> bool {
    card(screen).is_none()
        && screen.contains("? for shortcuts")
        && screen.lines().any(|l| l.trim_end() == "❯")
}

/// The tool a card asks for, by its title.
pub fn tool_of(card: &Card) -> String {
    let title = card.title.as_str();
    let tool = match title {
        "Bash command" => "Bash",
        _ => title,
    };
    tool.to_owned()
}

#[cfg(test)]
mod tests {
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
        let screen = "────────\n❯ \n────────\n  ⏸ manual mode on · ? for shortcuts\n";
        assert!(card(screen).is_none());
        assert!(idle(screen));
    }
}
