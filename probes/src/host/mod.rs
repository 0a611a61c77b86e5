//! How the harness answers for the user. A scenario lists its decisions in order; whatever the
//! target asks (a permission, a question, a plan to approve) must match the next one, through the
//! channel the run uses: the SDK control protocol on stdin/stdout (`control`) or a terminal
//! (`pty`). The same list drives both, so one scenario states one user.

pub mod control;
pub mod screen;
pub mod terminal;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a run's host talks to the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// `-p PROMPT`: nobody answers; whatever needs a person is refused by the target itself.
    Print,
    /// `-p --input-format stream-json --permission-prompt-tool stdio`: an SDK host answering
    /// `can_use_tool` control requests.
    Control,
    /// No `-p`: a person at a terminal, typing the prompt and answering each card.
    Pty,
}

impl Channel {
    pub fn name(self) -> &'static str {
        match self {
            Channel::Print => "print",
            Channel::Control => "control",
            Channel::Pty => "pty",
        }
    }

    /// Whether the run has stream-json on stdout (a terminal run has a screen instead).
    pub fn has_stream_json(self) -> bool {
        self != Channel::Pty
    }
}

impl std::fmt::Display for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the user does when asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Allow this call once.
    Allow,
    /// Allow, and keep the rule the target proposes (it writes it to settings).
    AllowAlways,
    /// Refuse. Without `message` the turn stops there and waits for the user (a terminal's
    /// "No"; `interrupt: true` over the control protocol); with one, the model is told it and
    /// goes on ("No, and tell it what to do instead").
    Deny,
    /// Pick the options labelled `choose` (AskUserQuestion).
    Choose,
    /// Type `text` as the answer instead of an option (AskUserQuestion's `Other`).
    Text,
    /// Withdraw the question without answering it: Esc at a terminal, an `interrupt` control
    /// request from an SDK host.
    Cancel,
    /// Never answer; the harness ends the run after `wait_ms`.
    None,
}

/// One `[[decision]]`: what is expected to be asked, and the answer.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// The tool that asks (`Bash`, `Write`, `AskUserQuestion`, `ExitPlanMode`, …).
    pub tool: String,
    /// Text that what is asked must contain: on a terminal the card, over the control protocol
    /// the string values of the tool's input.
    #[serde(default)]
    pub asks: Option<String>,
    pub answer: Answer,
    /// `deny`: what the model is told.
    #[serde(default)]
    pub message: Option<String>,
    /// `choose`: the picked label per question, in order; a multi-select's labels joined by `, `
    /// (as 2.1.235 joins them).
    #[serde(default)]
    pub choose: Vec<String>,
    /// `text`: the free-text answer.
    #[serde(default)]
    pub text: Option<String>,
    /// `none`: how long the harness stays silent before it ends the run.
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// Only on this target (`claude@2.1.235`, or `claude` for every real binary): a question the
    /// seed says is never asked, which that target asks anyway.
    #[serde(default)]
    pub only: Option<String>,
    /// Why `only` is needed; required with it, shown in every report.
    #[serde(default)]
    pub reason: Option<String>,
}

impl Answer {
    /// As a scenario spells it.
    pub fn name(self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::AllowAlways => "allow_always",
            Answer::Deny => "deny",
            Answer::Choose => "choose",
            Answer::Text => "text",
            Answer::Cancel => "cancel",
            Answer::None => "none",
        }
    }
}

impl Decision {
    /// The first field that does not fit the answer, for the scenario loader's error.
    pub fn validate(&self) -> Result<(), String> {
        if self.only.is_some() != self.reason.as_deref().is_some_and(|r| !r.trim().is_empty()) {
            return Err("`only` and a one-line `reason` go together: a question only one target asks is an expected difference".into());
        }
        match self.answer {
            Answer::Choose if self.choose.is_empty() => {
                Err("`answer = \"choose\"` needs `choose = [\"label\", …]`".into())
            }
            Answer::Text if self.text.as_deref().is_none_or(str::is_empty) => {
                Err("`answer = \"text\"` needs a non-empty `text`".into())
            }
            Answer::None if self.wait_ms.is_none() => {
                Err("`answer = \"none\"` needs `wait_ms`: how long nobody answers".into())
            }
            _ if self.message.is_some() && self.answer != Answer::Deny => {
                Err("`message` goes with `answer = \"deny\"` only".into())
            }
            _ if !self.choose.is_empty() && self.answer != Answer::Choose => {
                Err("`choose` goes with `answer = \"choose\"` only".into())
            }
            _ if self.text.is_some() && self.answer != Answer::Text => {
                Err("`text` goes with `answer = \"text\"` only".into())
            }
            _ if self.wait_ms.is_some() && self.answer != Answer::None => {
                Err("`wait_ms` goes with `answer = \"none\"` only".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether the decision is part of `target`'s run.
    pub fn applies_to(&self, target: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| crate::target::Target::keyed(only, target))
    }

    /// ` asking "…"` when the decision names what is asked.
    fn asking(&self) -> String {
        self.asks
            .as_deref()
            .map(|a| format!(" asking {a:?}"))
            .unwrap_or_default()
    }

    fn matches(&self, tool: &str, text: &str) -> bool {
        self.tool == tool && self.asks.as_deref().is_none_or(|a| text.contains(a))
    }
}

/// One thing the target asked, and what the harness did about it.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    /// The tool as the target named it (a terminal card's title maps to a tool).
    pub tool: String,
    /// What was shown: the card on a terminal, the request's input over the control protocol.
    pub text: String,
    /// The 1-based decision that answered it, if one matched.
    pub decision: Option<usize>,
    /// What the harness did: the answer, or why it did not answer.
    pub outcome: String,
}

/// The decisions of a run, consumed in order.
#[derive(Debug, Default)]
pub struct Decisions {
    list: Vec<Decision>,
    next: usize,
    pub asked: Vec<Asked>,
}

impl Decisions {
    /// The decisions of a run on `target`.
    pub fn new(list: Vec<Decision>, target: &str) -> Self {
        Decisions {
            list: list.into_iter().filter(|d| d.applies_to(target)).collect(),
            next: 0,
            asked: Vec::new(),
        }
    }

    /// The reasons of the target-only decisions that were used: expected differences.
    pub fn differences(&self) -> Vec<String> {
        self.list[..self.next]
            .iter()
            .filter_map(|d| d.reason.clone())
            .collect()
    }

    /// The decision for what the target asks now; `None` (recorded as unexpected) when the next
    /// decision does not match or none is left.
    pub fn take(&mut self, tool: &str, text: &str) -> Option<(usize, Decision)> {
        let found = match self.list.get(self.next) {
            Some(d) if d.matches(tool, text) => {
                self.next += 1;
                Some((self.next, d.clone()))
            }
            _ => None,
        };
        let outcome = match (&found, self.list.get(self.next)) {
            (Some((_, d)), _) => d.answer.name().to_owned(),
            (None, Some(d)) => format!(
                "unexpected: decision {} expects tool `{}`{}",
                self.next + 1,
                d.tool,
                d.asking()
            ),
            (None, None) => "unexpected: no decision is left".into(),
        };
        self.asked.push(Asked {
            tool: tool.into(),
            text: text.into(),
            decision: found.as_ref().map(|(n, _)| *n),
            outcome,
        });
        found
    }

    /// Marks the last ask as not answered after all (its decision could not be given).
    pub fn refuse_last(&mut self, why: String) {
        if let Some(last) = self.asked.last_mut() {
            last.decision = None;
            last.outcome = format!("unanswerable: {why}");
        }
    }

    /// The builtin check's verdict: every ask matched in order and every decision was used.
    pub fn verdict(&self) -> Result<(), String> {
        if let Some(bad) = self.asked.iter().find(|a| a.decision.is_none()) {
            return Err(format!(
                "the target asked through `{}` — {}\n--- what it showed ---\n{}",
                bad.tool, bad.outcome, bad.text
            ));
        }
        if let Some(left) = self.list.get(self.next) {
            return Err(format!(
                "decision {} (tool `{}`{}) was never asked; {} of {} decisions used",
                self.next + 1,
                left.tool,
                left.asking(),
                self.next,
                self.list.len()
            ));
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The string leaves of a JSON value, one per line: what a control-protocol ask "shows".
pub fn input_text(input: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(input, &mut out);
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(src: &str) -> Decision {
        toml::from_str(src).unwrap()
    }

    #[test]
    fn decisions_match_in_order_and_report_what_was_left() {
        let mut d = Decisions::new(
            vec![
                decision("tool = \"Bash\"\nasks = \"touch\"\nanswer = \"allow\""),
                decision("tool = \"Write\"\nanswer = \"deny\"\nmessage = \"no\""),
            ],
            "reference",
        );
        assert!(d.take("Bash", "touch made.txt").is_some());
        assert!(d
            .verdict()
            .unwrap_err()
            .contains("decision 2 (tool `Write`)"));
        assert!(d.take("Bash", "touch again").is_none(), "out of order");
        let err = d.verdict().unwrap_err();
        assert!(err.contains("decision 2 expects tool `Write`"), "{err}");
        assert!(
            err.contains("touch again"),
            "the card is in the diff: {err}"
        );
    }

    #[test]
    fn asks_must_be_contained() {
        let mut d = Decisions::new(
            vec![decision(
                "tool = \"Bash\"\nasks = \"rm -rf\"\nanswer = \"deny\"",
            )],
            "reference",
        );
        assert!(d.take("Bash", "touch made.txt").is_none());
    }

    #[test]
    fn a_target_only_decision_is_left_out_elsewhere_and_counted_as_a_difference() {
        let only = decision("tool = \"Write\"\nanswer = \"deny\"\nmessage = \"no\"\nonly = \"claude\"\nreason = \"asks in plan mode\"");
        assert!(only.validate().is_ok());
        assert!(Decisions::new(vec![only.clone()], "reference").is_empty());
        let mut real = Decisions::new(vec![only], "claude@2.1.235");
        assert!(real.take("Write", "x").is_some());
        assert_eq!(real.differences(), vec!["asks in plan mode".to_owned()]);
        let bare = decision("tool = \"Write\"\nanswer = \"allow\"\nonly = \"claude\"");
        assert!(bare.validate().is_err(), "`only` needs a reason");
    }

    #[test]
    fn answers_validate_their_fields() {
        assert!(decision("tool = \"AskUserQuestion\"\nanswer = \"choose\"")
            .validate()
            .is_err());
        assert!(
            decision("tool = \"Bash\"\nanswer = \"allow\"\nmessage = \"x\"")
                .validate()
                .is_err()
        );
        assert!(decision("tool = \"Bash\"\nanswer = \"none\"")
            .validate()
            .is_err());
        assert!(
            decision("tool = \"Bash\"\nanswer = \"deny\"\nmessage = \"x\"")
                .validate()
                .is_ok()
        );
    }
}
