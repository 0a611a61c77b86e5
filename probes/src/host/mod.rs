//! How the harness answers for the user. A scenario lists its decisions in order; whatever the
//! target asks (a permission, a question, a plan to approve) must match the next one, through the
//! channel the run uses: the SDK control protocol on stdin/stdout (`control`), the official
//! Agent SDK in between (`sdk`), or a terminal (`pty`). The same list drives all three, so one
//! scenario states one user.

pub mod control;
mod driven;
pub mod print;
pub mod screen;
pub mod sdk;
pub mod terminal;

pub use driven::{wind_down, Driven};

use serde_json::Value;

use crate::outcome::Asked;
use crate::scenario::Decision;

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

/// What a control-protocol ask "shows": the string leaves of its input.
pub fn input_text(input: &Value) -> String {
    crate::wire::string_leaves(input)
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
}

/// A step's crash, armed on its process: once `after` has happened the process (not its group:
/// what it started is left as a crash leaves it) gets `signal`, and the board hears of it.
#[derive(Debug, Clone)]
pub struct Kill {
    pub step: String,
    pub signal: i32,
    pub after: stubs::cues::After,
}

impl Kill {
    pub fn arm(self, pid: Option<i32>, cues: stubs::cues::Cues) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let who = format!("the kill of step `{}`", self.step);
            if !cues.wait(&self.after, &who).await {
                return;
            }
            if let Some(pid) = pid {
                // SAFETY: a plain signal to the process this run started and still holds.
                unsafe { libc::kill(pid, self.signal) };
            }
            cues.publish(stubs::cues::Event::Killed { step: self.step });
        })
    }
}
