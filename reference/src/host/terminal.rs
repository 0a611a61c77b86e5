//! A person at a terminal: the interactive session (no `-p`). The prompt is typed into an input
//! box, the conversation is printed as a plain transcript, and every decision is a card of
//! numbered options that a digit (or ↑/↓ and Enter) picks; Esc refuses, Tab on an option adds a
//! message. A card is erased once answered, and the input box exists only while the agent waits,
//! so what is on screen is what is being asked. The layout follows 2.1.235's (a rule above each
//! card and around the input line, `❯` marking the focus) so a driver reads both the same way;
//! the words are our own.

use std::io::Write;
use std::sync::Mutex;

use serde_json::Value;

use super::{Ask, Host, Reply};
use crate::permissions::Mode;

const WIDTH: usize = 100;

/// What a key press means to a card or the input line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Char(char),
    Enter,
    Tab,
    Esc,
    Up,
    Down,
    Backspace,
    /// Ctrl-C or Ctrl-D: leave.
    Quit,
}

pub struct Terminal {
    /// Key reading and drawing happen one at a time.
    io: Mutex<()>,
    /// The terminal's settings before raw mode, restored on drop.
    saved: Option<libc::termios>,
}

/// One option of a card.
struct Choice {
    label: String,
    /// Tab turns it into a text field.
    amendable: bool,
}

impl Choice {
    fn new(label: impl Into<String>, amendable: bool) -> Self {
        Choice {
            label: label.into(),
            amendable,
        }
    }
}

/// What the user did with a card.
#[derive(Debug, PartialEq, Eq)]
enum Picked {
    /// The option at this index.
    Option(usize),
    /// The option at this index, with a message typed after Tab.
    Amended(usize, String),
    /// Esc, or the terminal went away.
    Cancel,
}

impl Terminal {
    /// Puts the terminal in raw mode (keys one at a time, no echo) and prints the banner.
    pub fn start(model: &str, cwd: &str) -> Terminal {
        let saved = raw_mode();
        on_hang_up_exit();
        let terminal = Terminal {
            io: Mutex::new(()),
            saved,
        };
        terminal.print(&format!(
            "claude-reference {} · interactive · {model}\r\n{cwd}\r\n\r\n",
            crate::CONTRACT_VERSION
        ));
        terminal
    }

    fn print(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    /// A line of the transcript.
    pub fn line(&self, text: &str) {
        let _guard = self.io.lock().unwrap();
        let mut out = String::new();
        for line in text.lines() {
            out.push_str(&clip(line));
            out.push_str("\r\n");
        }
        self.print(&out);
    }

    /// Draws the input box and reads the user's next prompt; `None` when the user leaves
    /// (`/exit`, Ctrl-C, Ctrl-D).
    pub fn read_prompt(&self, mode: Mode) -> Option<String> {
        let _guard = self.io.lock().unwrap();
        let rule = "─".repeat(WIDTH);
        let footer = match mode {
            Mode::Default => "  default mode · ? for shortcuts".to_owned(),
            other => format!("  {} mode on", other.as_str()),
        };
        // The box, then the cursor back on the input line.
        self.print(&format!(
            "{rule}\r\n❯ \r\n{rule}\r\n{footer}\x1b[2A\r\x1b[2C"
        ));
        let mut text = String::new();
        loop {
            match read_key()? {
                Key::Enter if text.trim().is_empty() => {}
                Key::Enter => break,
                Key::Char(c) => {
                    text.push(c);
                    self.print(&c.to_string());
                }
                Key::Backspace if text.pop().is_some() => self.print("\x08 \x08"),
                Key::Quit => {
                    self.print("\x1b[1A\r\x1b[J");
                    return None;
                }
                _ => {}
            }
        }
        // The box goes; the prompt stays in the transcript.
        self.print(&format!("\x1b[1A\r\x1b[J❯ {}\r\n", clip(&text)));
        (text.trim() != "/exit").then_some(text)
    }

    /// Shows a card and waits for the answer; the card is erased before returning.
    fn card(&self, lines: &[String], choices: &[Choice]) -> Picked {
        let _guard = self.io.lock().unwrap();
        self.card_with(lines, choices, None)
    }

    /// A card whose only option is already open for typing.
    fn card_amending(&self, lines: &[String], choices: &[Choice]) -> Picked {
        let _guard = self.io.lock().unwrap();
        self.card_with(lines, choices, Some(String::new()))
    }

    fn card_with(&self, lines: &[String], choices: &[Choice], amending: Option<String>) -> Picked {
        let mut focus = 0;
        let mut amending = amending;
        loop {
            let mut screen = vec!["─".repeat(WIDTH)];
            screen.extend(lines.iter().map(|l| clip(l)));
            for (i, choice) in choices.iter().enumerate() {
                let cursor = if i == focus { "❯" } else { " " };
                let label = match (&amending, i == focus) {
                    (Some(text), true) => format!("{}, {}", choice.label, text),
                    _ => choice.label.clone(),
                };
                screen.push(clip(&format!(" {cursor} {}. {label}", i + 1)));
            }
            screen.push(String::new());
            screen.push(" Esc to cancel · Tab to add a message".into());
            self.print(&format!("{}\r\n", screen.join("\r\n")));
            let key = read_key();
            // Erase the card before acting on the key (a redraw or the answer).
            self.print(&format!("\x1b[{}A\r\x1b[J", screen.len()));
            let Some(key) = key else {
                return Picked::Cancel;
            };
            match (key, &mut amending) {
                (Key::Esc, Some(_)) => amending = None,
                (Key::Esc | Key::Quit, None) => return Picked::Cancel,
                (Key::Enter, Some(text)) if text.is_empty() => return Picked::Option(focus),
                (Key::Enter, Some(text)) => return Picked::Amended(focus, std::mem::take(text)),
                (Key::Char(c), Some(text)) => text.push(c),
                (Key::Backspace, Some(text)) => {
                    text.pop();
                }
                (Key::Char(c), None) => {
                    if let Some(n) = c
                        .to_digit(10)
                        .filter(|n| (1..=choices.len() as u32).contains(n))
                    {
                        return Picked::Option(n as usize - 1);
                    }
                }
                (Key::Enter, None) => return Picked::Option(focus),
                (Key::Tab, None) if choices[focus].amendable => amending = Some(String::new()),
                (Key::Up, None) => focus = focus.saturating_sub(1),
                (Key::Down, None) => focus = (focus + 1).min(choices.len() - 1),
                _ => {}
            }
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            // SAFETY: restores the settings read from this same descriptor at start.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, saved);
            }
        }
    }
}

impl Host for Terminal {
    fn ask(&self, ask: &Ask) -> Reply {
        match ask.tool {
            "AskUserQuestion" => self.question(ask),
            "ExitPlanMode" => self.plan(ask),
            _ => self.permission(ask),
        }
    }
}

impl Terminal {
    fn permission(&self, ask: &Ask) -> Reply {
        let (title, subject) = match ask.tool {
            "Bash" => (
                "Bash command",
                ask.input["command"].as_str().unwrap_or_default().to_owned(),
            ),
            "Write" => ("Create file", ask.description.clone().unwrap_or_default()),
            "Edit" | "NotebookEdit" => ("Edit file", ask.description.clone().unwrap_or_default()),
            // No card of its own: the generic one, naming the operation.
            "ClaudeDesign" => (
                "Tool use",
                crate::design::user_facing_name(
                    ask.input["operation"].as_str().unwrap_or_default(),
                ),
            ),
            other => (other, ask.description.clone().unwrap_or_default()),
        };
        let mut lines = vec![format!(" {title}"), String::new(), format!("   {subject}")];
        if ask.tool == "Bash" {
            if let Some(d) = ask.input["description"].as_str() {
                lines.push(format!("   {d}"));
            }
        }
        // A tool's own question (ClaudeDesign's consent and grant cards) is shown whole, and a
        // safety check's reason under it, as 2.1.235 shows it.
        if let Some(message) = &ask.prompt.message {
            lines.extend(wrapped(message, CARD_TEXT_WIDTH).map(|l| format!("   {l}")));
        }
        if let (Some("safetyCheck"), Some(reason)) = (ask.prompt.reason_type, &ask.prompt.reason) {
            lines.push(String::new());
            lines.extend(wrapped(reason, CARD_TEXT_WIDTH).map(|l| format!(" │ {l}")));
        }
        lines.extend([String::new(), " Allow this call?".to_owned()]);
        let rules: Vec<Value> = ask
            .prompt
            .suggestions
            .iter()
            .filter(|s| s["type"] == "addRules")
            .cloned()
            .collect();
        let mode = ask
            .prompt
            .suggestions
            .iter()
            .find(|s| s["type"] == "setMode");
        // "Yes, and …" keeps the proposed rules, or else the proposed mode.
        let keep: Option<(String, Vec<Value>)> = if !rules.is_empty() {
            let names: Vec<String> = rules
                .iter()
                .flat_map(|s| s["rules"].as_array().cloned().unwrap_or_default())
                .filter_map(|r| r["ruleContent"].as_str().map(str::to_owned))
                .collect();
            Some((
                format!("Yes, and keep allowing: {}", names.join(", ")),
                rules,
            ))
        } else {
            mode.map(|m| {
                (
                    "Yes, and allow file changes for the rest of this session".to_owned(),
                    vec![m.clone()],
                )
            })
        };
        let mut choices = vec![Choice::new("Yes", false)];
        if let Some((label, _)) = &keep {
            choices.push(Choice::new(label.clone(), false));
        }
        choices.push(Choice::new("No", true));
        let no = choices.len() - 1;
        match self.card(&lines, &choices) {
            Picked::Option(0) => Reply::Allow {
                input: None,
                keep: vec![],
            },
            Picked::Option(i) if i != no => Reply::Allow {
                input: None,
                keep: keep.map(|(_, k)| k).unwrap_or_default(),
            },
            Picked::Amended(i, message) if i == no => Reply::Deny {
                message: told(&message),
            },
            _ => Reply::Interrupt,
        }
    }

    /// AskUserQuestion: one card per question, its options, then a row to type an answer.
    fn question(&self, ask: &Ask) -> Reply {
        let mut input = ask.input.clone();
        let mut answers = serde_json::Map::new();
        for question in ask.input["questions"].as_array().into_iter().flatten() {
            let text = question["question"].as_str().unwrap_or_default();
            let mut lines = vec![
                format!(" ☐ {}", question["header"].as_str().unwrap_or_default()),
                format!(" {text}"),
            ];
            let mut choices = Vec::new();
            for option in question["options"].as_array().into_iter().flatten() {
                let label = option["label"].as_str().unwrap_or_default();
                if let Some(d) = option["description"].as_str() {
                    lines.push(format!("     {label}: {d}"));
                }
                choices.push(Choice::new(label, false));
            }
            lines.push(String::new());
            // The client's own "Other": the digit focuses it for typing, as Tab does elsewhere.
            choices.push(Choice::new("Type something", true));
            let other = choices.len() - 1;
            let answer = match self.card(&lines, &choices) {
                Picked::Option(i) if i == other => match self.card_text(&lines, &choices, other) {
                    Some(typed) => typed,
                    None => return Reply::Interrupt,
                },
                Picked::Option(i) => choices[i].label.clone(),
                Picked::Amended(_, typed) => typed,
                Picked::Cancel => return Reply::Interrupt,
            };
            answers.insert(text.to_owned(), Value::String(answer));
        }
        input["answers"] = Value::Object(answers);
        Reply::Allow {
            input: Some(input),
            keep: vec![],
        }
    }

    /// The card again with option `row` open for typing; the typed text, `None` on Esc.
    fn card_text(&self, lines: &[String], choices: &[Choice], row: usize) -> Option<String> {
        let mut lines = lines.to_vec();
        lines.push(format!(
            " Type your answer for option {}, then Enter",
            row + 1
        ));
        let typed: Vec<Choice> = vec![Choice::new(choices[row].label.clone(), true)];
        // Enter with nothing typed picks the row itself, which is no answer.
        loop {
            match self.card_amending(&lines, &typed) {
                Picked::Amended(_, text) => return Some(text),
                Picked::Cancel => return None,
                Picked::Option(_) => {}
            }
        }
    }

    fn plan(&self, ask: &Ask) -> Reply {
        let mut lines = vec![" Exit plan mode?".to_owned(), String::new()];
        match ask.input["plan"].as_str() {
            Some(plan) => lines.extend(plan.lines().map(|l| format!("   {l}"))),
            None => lines.push("   The agent is done planning and asks to start.".into()),
        }
        lines.push(String::new());
        let choices = [
            Choice::new("Yes, approve the plan and leave plan mode", false),
            Choice::new("No, keep planning", true),
        ];
        match self.card(&lines, &choices) {
            Picked::Option(0) => Reply::Allow {
                input: None,
                keep: vec![],
            },
            Picked::Amended(1, message) => Reply::Deny {
                message: told(&message),
            },
            _ => Reply::Interrupt,
        }
    }
}

/// The refusal text when the user says what to do instead (2.1.235's wording).
/// How wide a card's prose runs before it wraps (the terminal is 120 columns; 2.1.235 wraps its
/// reason lines just under that).
const CARD_TEXT_WIDTH: usize = 114;

/// `text` in lines of at most `width` chars, broken at spaces (a longer word stands alone).
fn wrapped(text: &str, width: usize) -> impl Iterator<Item = String> + '_ {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines.into_iter()
}

fn told(message: &str) -> String {
    format!(
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n{message}"
    )
}

fn clip(line: &str) -> String {
    line.chars().take(WIDTH + 20).collect()
}

/// The terminal went away (SIGHUP): the session ends with 128 + SIGHUP, as 2.1.235's does,
/// without waiting for an answer that cannot come.
fn on_hang_up_exit() {
    extern "C" fn hung_up(_: libc::c_int) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + libc::SIGHUP) }
    }
    // SAFETY: installs a handler that only calls an async-signal-safe function.
    unsafe {
        libc::signal(libc::SIGHUP, hung_up as *const () as libc::sighandler_t);
    }
}

/// Raw mode on stdin: keys arrive one by one and are not echoed. `None` when stdin is not a
/// terminal (then lines are read as they come).
fn raw_mode() -> Option<libc::termios> {
    // SAFETY: tcgetattr/tcsetattr on fd 0 with a zeroed termios that tcgetattr fills first.
    unsafe {
        let mut saved: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(0, &mut saved) != 0 {
            return None;
        }
        let mut raw = saved;
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        raw.c_iflag &= !(libc::ICRNL | libc::IXON);
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        libc::tcsetattr(0, libc::TCSANOW, &raw);
        Some(saved)
    }
}

/// One byte from the terminal, unbuffered: whether more bytes follow is asked of the
/// descriptor itself (an escape sequence), so none may wait in a buffer.
fn read_byte() -> Option<u8> {
    let mut byte = 0u8;
    // SAFETY: reads at most one byte into a valid one-byte buffer.
    let n = unsafe { libc::read(0, (&mut byte as *mut u8).cast(), 1) };
    (n == 1).then_some(byte)
}

/// Whether another byte arrives within a few milliseconds (an escape sequence, not Esc alone).
fn more_within(ms: i32) -> bool {
    let mut fd = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: polls one valid descriptor for readability.
    unsafe { libc::poll(&mut fd, 1, ms) > 0 }
}

/// The next key; `None` at the end of input.
fn read_key() -> Option<Key> {
    let byte = read_byte()?;
    Some(match byte {
        b'\r' | b'\n' => Key::Enter,
        b'\t' => Key::Tab,
        0x7f | 0x08 => Key::Backspace,
        0x03 | 0x04 => Key::Quit,
        0x1b if !more_within(50) => Key::Esc,
        0x1b => match (read_byte(), read_byte()) {
            (Some(b'['), Some(b'A')) => Key::Up,
            (Some(b'['), Some(b'B')) => Key::Down,
            _ => return read_key(),
        },
        b if b < 0x80 => Key::Char(b as char),
        first => {
            // A UTF-8 sequence: its length is in the first byte.
            let len = first.leading_ones() as usize;
            let mut bytes = vec![first];
            for _ in 1..len {
                bytes.push(read_byte()?);
            }
            Key::Char(
                String::from_utf8_lossy(&bytes)
                    .chars()
                    .next()
                    .unwrap_or('?'),
            )
        }
    })
}
