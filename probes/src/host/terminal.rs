//! A person at a terminal: the target runs without `-p` on a pseudo-terminal (rexpect), its
//! output is rendered into a screen (vt100), and the harness types what a user would — the prompt
//! once the agent waits for one, the key of the option each decision picks, `/exit` once the
//! scripted conversation is over.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::{json, Value};
use stubs::messages::MessagesStub;

use super::screen::{self, Card};
use super::Decisions;
use super::{wind_down, Driven};
use crate::mcp::McpSetup;
use crate::process::{kill_group, signal_group, wait_or_kill};
use crate::scenario::{Answer, Decision};

const ROWS: u16 = 40;
const COLS: u16 = 120;
/// A screen unchanged for this long is read as settled (the agent finished drawing).
const SETTLE: Duration = Duration::from_millis(300);
/// Between typing text and pressing Enter: a terminal app may read a fast burst as a paste.
const TYPE_PAUSE: Duration = Duration::from_millis(500);
/// How long a moved focus may take to show; past it the next key goes anyway, and a card answered
/// wrong fails the run by its checks.
const FOCUS_WAIT: Duration = Duration::from_secs(5);
/// How long the agent may sit at its prompt with script turns left before the user leaves: it
/// is waiting for the user, and nothing the scenario scripts will come.
const GIVE_UP: Duration = Duration::from_secs(3);
/// How long the agent must have sat waiting before the user types a follow-up line, so a screen
/// between the prompt and the first answer is never taken for the end of a conversation.
const FOLLOW_UP_AFTER: Duration = Duration::from_secs(1);
/// The down-arrow key.
const DOWN: &str = "\x1b[B";

/// The user state a returning user of this project has: onboarding done, the API key approved
/// (the real CLI asks about a key from the environment once), the folder trusted. Merged into a
/// `~/.claude.json` the scenario's fixtures may already have written.
pub fn prepare_home(home: &Path, cwd: &Path, api_key: Option<&String>) -> Result<()> {
    let path = home.join(".claude.json");
    let mut state: Value = match std::fs::read_to_string(&path) {
        Ok(text) => {
            serde_json::from_str(&text).context("the fixture `~/.claude.json` is not JSON")?
        }
        Err(_) => json!({}),
    };
    state["hasCompletedOnboarding"] = json!(true);
    state["theme"] = json!("dark");
    if let Some(key) = api_key {
        // The CLI remembers an approved key by its last 20 characters.
        let tail: String = key
            .chars()
            .skip(key.chars().count().saturating_sub(20))
            .collect();
        state["customApiKeyResponses"] = json!({"approved": [tail], "rejected": []});
    }
    let project = cwd.display().to_string();
    if !state["projects"].is_object() {
        state["projects"] = json!({});
    }
    if !state["projects"][&project].is_object() {
        state["projects"][&project] = json!({});
    }
    state["projects"][&project]["hasTrustDialogAccepted"] = json!(true);
    std::fs::write(&path, serde_json::to_vec_pretty(&state)?)?;
    Ok(())
}

pub(crate) async fn drive(
    mut command: std::process::Command,
    prompt: &str,
    then_type: &[String],
    decisions: &mut Decisions,
    stub: &MessagesStub,
    timeout: Duration,
    mcp: &McpSetup,
) -> Result<Driven> {
    use std::os::unix::process::CommandExt;
    // SAFETY: the hook runs in the child between fork and exec and only calls ioctl(2) on its
    // stdin, which rexpect has just made the terminal.
    unsafe {
        command.pre_exec(|| {
            let size = libc::winsize {
                ws_row: ROWS,
                ws_col: COLS,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            libc::ioctl(0, libc::TIOCSWINSZ, &size);
            Ok(())
        });
    }
    // rexpect's process only: its reader decodes bytes one by one as chars, which breaks on the
    // UTF-8 a terminal UI draws with, so the harness reads the terminal's bytes itself.
    let process = rexpect::process::PtyProcess::new(command)?;
    // rexpect makes the child a session leader, so its pid is also its process group.
    let pid = process.child_pid.as_raw();
    let mut writer = process.get_file_handle()?;
    let output = read_terminal(process.get_file_handle()?);
    let reaper = tokio::spawn(wait_or_kill(Some(pid), timeout));
    let mut term = Terminal::new();
    let mut user = User {
        typed: Vec::new(),
        screens: Vec::new(),
        phase: Phase::Starting,
        answered: None,
        amending: None,
        hang_up_at: None,
        hung_up: false,
        then_type: then_type.iter().cloned().collect(),
    };
    while !reaper.is_finished() {
        term.drain(&output);
        if let Some(at) = user.hang_up_at {
            if Instant::now() >= at {
                // The user walked away: the terminal hangs up.
                signal_group(Some(pid), libc::SIGHUP);
                user.hang_up_at = None;
                user.hung_up = true;
            }
        } else if term.settled() {
            let keys = user.act(
                &term.screen(),
                prompt,
                decisions,
                stub.turns_left() == 0,
                term.changed.elapsed(),
            );
            for chunk in keys {
                match chunk {
                    Key::Text(text) => {
                        writer.write_all(text.as_bytes())?;
                        writer.flush()?;
                    }
                    Key::Pause => tokio::time::sleep(TYPE_PAUSE).await,
                    Key::Focused(row) => {
                        let until = Instant::now() + FOCUS_WAIT;
                        while Instant::now() < until
                            && screen::card(&term.screen()).is_none_or(|c| c.focus != row)
                        {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            term.drain(&output);
                        }
                    }
                    Key::Kill => kill_group(Some(pid)),
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let exited = reaper.await.context("the terminal's reaper task")?;
    let mcp_survivors = wind_down(&exited, Some(pid), mcp).await;
    // What the terminal still held when the target ended.
    while let Ok(bytes) = output.recv_timeout(Duration::from_millis(50)) {
        term.feed(&bytes);
    }
    user.screens.push(term.screen());
    // Reaped above; rexpect's drop finds nothing left to end.
    drop(process);
    Ok(Driven {
        exited,
        stdout: term.raw.text(),
        flooded: term
            .raw
            .overflow("the terminal's output")
            .into_iter()
            .collect(),
        stderr: String::new(),
        stdin: user.typed,
        screens: user.screens,
        mcp_survivors,
    })
}

/// The terminal's output as it arrives, read on a thread of its own (the read blocks until the
/// target writes or the terminal closes).
fn read_terminal(mut master: std::fs::File) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

/// The screen as a terminal shows it, and when it last changed.
struct Terminal {
    parser: vt100::Parser,
    raw: crate::process::Kept,
    changed: Instant,
}

impl Terminal {
    fn new() -> Self {
        Terminal {
            parser: vt100::Parser::new(ROWS, COLS, 0),
            raw: Default::default(),
            changed: Instant::now(),
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
        self.raw.push(bytes);
        self.changed = Instant::now();
    }

    /// Everything the target wrote since the last look, without waiting for more.
    fn drain(&mut self, output: &std::sync::mpsc::Receiver<Vec<u8>>) {
        while let Ok(bytes) = output.try_recv() {
            self.feed(&bytes);
        }
    }

    fn settled(&self) -> bool {
        self.changed.elapsed() >= SETTLE
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }
}

enum Key {
    Text(String),
    Pause,
    /// Wait until the card on screen has its focus on this option (0-based), so the next key
    /// goes to the row it is meant for: keys written back to back can reach a busy target as
    /// one read, where an arrow's escape byte reads as Esc and cancels the card.
    Focused(usize),
    /// Stop the run: the target asked something the scenario's user does not expect.
    Kill,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the agent to offer its prompt.
    Starting,
    /// The prompt is typed; answering cards until the script is played out.
    Talking,
    /// `/exit` typed.
    Leaving,
}

struct User {
    typed: Vec<String>,
    screens: Vec<String>,
    phase: Phase,
    /// The card last answered, so a card still on screen is not answered twice.
    answered: Option<String>,
    /// The focused label a card shows while the deny message just typed waits for its Enter
    /// (`No, <message>`).
    amending: Option<String>,
    hang_up_at: Option<Instant>,
    /// The terminal has hung up: the user is gone.
    hung_up: bool,
    /// Lines still to type, each once the agent waits again.
    then_type: std::collections::VecDeque<String>,
}

impl User {
    /// What the user types on this settled screen.
    fn act(
        &mut self,
        screen: &str,
        prompt: &str,
        decisions: &mut Decisions,
        script_done: bool,
        idle_for: Duration,
    ) -> Vec<Key> {
        if self.hung_up {
            // Nobody is there: what the target prints on its way out (the card with "Resume
            // this session with:" under it, on a slow exit under load) is read by no one.
            return Vec::new();
        }
        let card = screen::card(screen);
        if card.is_none() {
            self.answered = None;
            self.amending = None;
        }
        match (&self.phase, card) {
            (Phase::Starting, None) if screen::idle(screen) => {
                self.phase = Phase::Talking;
                self.type_line(prompt)
            }
            (Phase::Talking, Some(card)) if self.answered.as_deref() != Some(&card.text) => {
                let focused = card.options.get(card.focus).map(|(_, label)| label);
                if self.amending.is_some() && focused == self.amending.as_ref() {
                    // The message is in the field but the card is still up: a busy target read
                    // the Enter with the text, as a paste. The user presses Enter again; the card
                    // is the one answered, not a new question.
                    self.amending = None;
                    self.answered = Some(card.text.clone());
                    return vec![self.typed("\r".into())];
                }
                self.screens.push(screen.to_owned());
                self.answered = Some(card.text.clone());
                let Some((_, decision)) = decisions.take(&screen::tool_of(&card), &card.text)
                else {
                    return vec![Key::Kill];
                };
                match self.keys(&decision, &card) {
                    Some(keys) => keys,
                    None => {
                        let why = if decision.choose.len() > 1
                            || decision.choose.iter().any(|c| c.contains(", "))
                        {
                            " (several labels need a multi-select, which the terminal driver does not answer)"
                        } else if decision.message.is_some() {
                            " with a message (the card offers no field to type one)"
                        } else {
                            ""
                        };
                        decisions.refuse_last(format!(
                            "the card offers no way to answer `{}`{why}",
                            decision.answer.name()
                        ));
                        vec![Key::Kill]
                    }
                }
            }
            // The agent waits again, settled: the user's next line.
            (Phase::Talking, None)
                if screen::idle(screen)
                    && idle_for >= FOLLOW_UP_AFTER
                    && !self.then_type.is_empty() =>
            {
                self.screens.push(screen.to_owned());
                let line = self.then_type.pop_front().expect("not empty");
                self.type_line(&line)
            }
            // The conversation is over, or it stopped where the user refused and nothing more
            // will come: the user leaves (unplayed turns are the script check's to report).
            (Phase::Talking, None)
                if screen::idle(screen) && (script_done || idle_for >= GIVE_UP) =>
            {
                self.screens.push(screen.to_owned());
                self.phase = Phase::Leaving;
                self.type_line("/exit")
            }
            _ => Vec::new(),
        }
    }

    fn type_line(&mut self, text: &str) -> Vec<Key> {
        self.typed.push(text.to_owned());
        self.typed.push("\r".to_owned());
        vec![
            Key::Text(text.to_owned()),
            Key::Pause,
            Key::Text("\r".into()),
        ]
    }

    /// The keys of a decision on this card; `None` when the card offers no way to give it.
    fn keys(&mut self, decision: &Decision, card: &Card) -> Option<Vec<Key>> {
        let yes = |l: &str| l == "Yes" || l.starts_with("Yes,") || l.starts_with("Yes ");
        let no = |l: &str| l == "No" || l.starts_with("No,") || l.starts_with("No ");
        let mut keys = Vec::new();
        match decision.answer {
            Answer::Allow => {
                let key = card.key_for(|l| l == "Yes").or_else(|| card.key_for(yes))?;
                keys.push(self.typed(key.to_string()));
            }
            Answer::AllowAlways => {
                keys.push(self.typed(card.key_for(|l| l.starts_with("Yes, and"))?.to_string()))
            }
            Answer::Deny => match &decision.message {
                // "No": the turn stops and waits for the user. A "No" row whose label names Esc
                // (the network card's) opens a field when picked by its digit: Esc is the answer.
                None => {
                    let by_escape = card.key_for(|l| no(l) && l.ends_with("(esc)")).is_some();
                    let key = match card.key_for(no) {
                        Some(k) if !by_escape => k.to_string(),
                        _ => "\x1b".into(),
                    };
                    keys.push(self.typed(key))
                }
                // "No, and tell it what to do instead": focus No, open it with Tab, type, Enter.
                // A card whose hint offers no Tab has no field for a message.
                Some(message) => {
                    if !card.text.contains("Tab to") {
                        return None;
                    }
                    let target = card.index_of(no)?;
                    for row in card.focus..target {
                        keys.push(self.typed(DOWN.into()));
                        keys.push(Key::Focused(row + 1));
                    }
                    keys.push(self.typed("\t".into()));
                    keys.push(Key::Pause);
                    keys.push(self.typed(message.clone()));
                    keys.push(Key::Pause);
                    keys.push(self.typed("\r".into()));
                    self.amending = Some(format!("No, {message}"));
                }
            },
            Answer::Choose => {
                // One question, one label: its digit picks it (several questions, or a
                // multi-select's boxes and review screen, this driver does not answer).
                let [label] = decision.choose.as_slice() else {
                    return None;
                };
                keys.push(self.typed(card.key_for(|l| l == label)?.to_string()));
            }
            Answer::Text => {
                let row = card.key_for(|l| l.starts_with("Type something"))?;
                keys.push(self.typed(row.to_string()));
                keys.push(Key::Pause);
                let text = decision.text.clone().unwrap_or_default();
                keys.push(self.typed(text.clone()));
                keys.push(Key::Pause);
                keys.push(self.typed("\r".into()));
                // A busy target can read the Enter with the text, as a paste: the card stays up
                // with the text as its focused row (seen under load, `--repeat`); that is this
                // answer still in the field, not a new question.
                self.amending = Some(text);
            }
            Answer::Cancel => keys.push(self.typed("\x1b".into())),
            Answer::None => {
                self.hang_up_at =
                    Some(Instant::now() + Duration::from_millis(decision.wait_ms.unwrap_or(0)));
            }
        }
        Some(keys)
    }

    /// Records what is typed and returns it as a key press.
    fn typed(&mut self, text: String) -> Key {
        self.typed.push(text.clone());
        Key::Text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::host::screen::tests::DESIGN_CARD as CARD;

    fn user() -> User {
        User {
            typed: Vec::new(),
            screens: Vec::new(),
            phase: Phase::Talking,
            answered: None,
            amending: None,
            hang_up_at: None,
            hung_up: false,
            then_type: Default::default(),
        }
    }

    /// `--repeat` under load: after the hang-up, a slow 2.1.235 printed its resume hint under the
    /// card, the driver read it as a new question and failed the run for it.
    #[test]
    fn after_a_hang_up_nobody_answers_what_the_target_prints_on_its_way_out() {
        let mut decisions = Decisions::new(Vec::new(), "claude@2.1.235");
        let mut user = user();
        user.hung_up = true;
        let leaving = format!("{CARD}\nResume this session with:\nclaude --resume 88cd8173\n");
        assert!(user
            .act(&leaving, "p", &mut decisions, false, Duration::ZERO)
            .is_empty());
        assert!(
            decisions.asked.is_empty(),
            "nothing was taken for a question"
        );
        // The same screen before the hang-up is a question (and here one no decision answers).
        user.hung_up = false;
        let keys = user.act(&leaving, "p", &mut decisions, false, Duration::ZERO);
        assert!(matches!(keys.as_slice(), [Key::Kill]));
    }

    fn texts(keys: &[Key]) -> Vec<&str> {
        keys.iter()
            .filter_map(|k| match k {
                Key::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// A busy 2.1.235 read `no` and Enter as one paste: the card stayed up with `No, no` in its
    /// field (design.consent/revoke in CI). The user presses Enter again; that card is not a
    /// second question, and a card that differs otherwise still is.
    #[test]
    fn a_no_row_that_names_esc_is_answered_with_esc() {
        let decision = serde_json::json!({"tool": "SandboxNetworkAccess", "asks": "no.test", "answer": "deny"});
        let mut decisions = Decisions::new(
            vec![serde_json::from_value(decision).unwrap()],
            "claude@2.1.235",
        );
        let card = crate::host::screen::tests::NETWORK_CARD;
        let keys = user().act(card, "p", &mut decisions, false, Duration::ZERO);
        assert_eq!(texts(&keys), ["\x1b"]);
    }

    #[test]
    fn a_deny_message_left_in_its_field_gets_enter_again_not_another_answer() {
        let decision = serde_json::json!({"tool": "ClaudeDesign", "asks": "design agent consent",
                                          "answer": "deny", "message": "no"});
        let mut decisions = Decisions::new(
            vec![serde_json::from_value(decision).unwrap()],
            "claude@2.1.235",
        );
        let mut user = user();
        let keys = user.act(CARD, "p", &mut decisions, false, Duration::ZERO);
        assert_eq!(texts(&keys), [DOWN, "\t", "no", "\r"]);

        let left = CARD
            .replace(" ❯ 1. Yes", "   1. Yes")
            .replace("   2. No", " ❯ 2. No, no")
            .replace(" · Tab to amend", "");
        let keys = user.act(&left, "p", &mut decisions, false, Duration::ZERO);
        assert_eq!(texts(&keys), ["\r"]);
        assert_eq!(
            user.screens.len(),
            1,
            "the card left up is not a new question"
        );
        // Still up after that Enter: nothing more is typed.
        assert!(user
            .act(&left, "p", &mut decisions, false, Duration::ZERO)
            .is_empty());

        // Another card after that is a question again, and no decision is left for it.
        let next = CARD.replace("List projects", "Delete a project");
        let keys = user.act(&next, "p", &mut decisions, false, Duration::ZERO);
        assert!(matches!(keys.as_slice(), [Key::Kill]));
        assert_eq!(user.screens.len(), 2);
    }
}
