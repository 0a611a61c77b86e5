//! Who answers for the user in a scenario: the channel a run uses to talk to the target, and the
//! `[[decision]]` list, one user's answers in order, which every channel gives the same way
//! (the host layer consumes them during the run).

use serde::{Deserialize, Serialize};

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
    /// The official TypeScript Agent SDK as the host: the control host's answers given through
    /// the SDK's `canUseTool` and hook callbacks (`probes/sdk-host/host.mjs`).
    Sdk,
}

impl Channel {
    pub fn name(self) -> &'static str {
        match self {
            Channel::Print => "print",
            Channel::Control => "control",
            Channel::Pty => "pty",
            Channel::Sdk => "sdk",
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
    /// `allow` over the control protocol: the input the host answers with (`updatedInput`)
    /// instead of the one it was asked about, as a host whose card the user fills in does.
    #[serde(default)]
    pub input: Option<serde_json::Value>,
    /// Only on these targets (`claude@2.1.235`, a range such as `claude@>=2.1.235, <=2.1.332`, or
    /// `claude` for every real binary): a question the seed says is never asked, which they ask
    /// anyway.
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
        if let Some(only) = &self.only {
            crate::version::TargetKey::parse(only).map_err(|e| format!("`only`: {e}"))?;
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
            _ if self.input.is_some() && self.answer != Answer::Allow => {
                Err("`input` goes with `answer = \"allow\"` only".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether the decision is part of `target`'s run.
    pub fn applies_to(&self, target: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| crate::version::names(only, target))
    }

    /// ` asking "…"` when the decision names what is asked.
    pub(crate) fn asking(&self) -> String {
        self.asks
            .as_deref()
            .map(|a| format!(" asking {a:?}"))
            .unwrap_or_default()
    }

    pub(crate) fn matches(&self, tool: &str, text: &str) -> bool {
        self.tool == tool && self.asks.as_deref().is_none_or(|a| text.contains(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(src: &str) -> Decision {
        toml::from_str(src).unwrap()
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
