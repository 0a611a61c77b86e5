//! A person at a terminal: the interactive session (no `-p`). The prompt is typed into an input
//! box, the conversation is printed as a plain transcript, and every decision is a card of
//! numbered options that a digit (or ↑/↓ and Enter) picks; Esc refuses, Tab on an option adds a
//! message. A card is erased once answered, and the input box exists only while the agent waits,
//! so what is on screen is what is being asked. The layout follows 2.1.235's (a rule above each
//! card and around the input line, `❯` marking the focus) so a driver reads both the same way;
//! the words are our own.

use std::io::Write;
use std::sync::Mutex;

use crate::tools::Host;
use crate::vocab::Mode;
use crate::vocab::{Ask, Reply};

mod cards;

const WIDTH: usize = 100;

/// The terminal's width in columns (what full-width rules inside a card span), `WIDTH + 20`
/// when it cannot be asked.
fn columns() -> usize {
    // SAFETY: TIOCGWINSZ fills a zeroed winsize for a valid descriptor or fails.
    unsafe {
        let mut size: libc::winsize = std::mem::zeroed();
        if libc::ioctl(1, libc::TIOCGWINSZ, &mut size) == 0 && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    WIDTH + 20
}

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
    /// The session's directory, named by the rows that keep an allowance for it.
    cwd: String,
}

/// One option of a card.
struct Choice {
    label: String,
    /// Tab turns it into a text field.
    amendable: bool,
    /// A line under the label (a question option's description).
    detail: Option<String>,
    /// A rule across the card above this option (the question card's chat row).
    rule_above: bool,
}

impl Choice {
    fn new(label: impl Into<String>, amendable: bool) -> Self {
        Choice {
            label: label.into(),
            amendable,
            detail: None,
            rule_above: false,
        }
    }
}

/// How a card draws its options and what its last line says.
struct Layout {
    /// What goes before the focus mark of each option line.
    indent: &'static str,
    /// The key hints under the options; `None` for a card without them.
    footer: Option<&'static str>,
}

/// A permission card's hints (Bash's add one to explain the command).
const FOOTER: &str = " Esc to cancel · Tab to amend";
const FOOTER_BASH: &str = " Esc to cancel · Tab to amend · ctrl+e to explain";
const PERMISSION: Layout = Layout {
    indent: " ",
    footer: Some(FOOTER),
};

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
            cwd: cwd.to_owned(),
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
    fn card(&self, lines: &[String], choices: &[Choice], layout: &Layout) -> Picked {
        let _guard = self.io.lock().unwrap();
        self.card_with(lines, choices, layout, None)
    }

    /// A card whose only option is already open for typing.
    fn card_amending(&self, lines: &[String], choices: &[Choice], layout: &Layout) -> Picked {
        let _guard = self.io.lock().unwrap();
        self.card_with(lines, choices, layout, Some(String::new()))
    }

    fn card_with(
        &self,
        lines: &[String],
        choices: &[Choice],
        layout: &Layout,
        amending: Option<String>,
    ) -> Picked {
        let mut focus = 0;
        let mut amending = amending;
        loop {
            let mut screen = vec!["─".repeat(WIDTH)];
            screen.extend(lines.iter().map(|l| clip(l)));
            let indent = layout.indent;
            for (i, choice) in choices.iter().enumerate() {
                if choice.rule_above {
                    screen.push("─".repeat(columns()));
                }
                let cursor = if i == focus { "❯" } else { " " };
                let label = match (&amending, i == focus) {
                    (Some(text), true) => format!("{}, {}", choice.label, text),
                    _ => choice.label.clone(),
                };
                // A long label wraps under itself, as 2.1.235's option rows do.
                let number = format!("{indent}{cursor} {}. ", i + 1);
                let under = " ".repeat(number.chars().count());
                for (j, part) in wrapped(&label, LABEL_WIDTH).enumerate() {
                    let lead = if j == 0 { &number } else { &under };
                    screen.push(clip(&format!("{lead}{part}")));
                }
                if let Some(detail) = &choice.detail {
                    screen.push(clip(&format!("{indent}     {detail}")));
                }
            }
            if let Some(footer) = layout.footer {
                screen.push(String::new());
                screen.push(footer.into());
            }
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

impl crate::events::Transcript for Terminal {
    fn line(&self, line: &str) {
        Terminal::line(self, line);
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

/// How wide a card's prose runs before it wraps (the terminal is 120 columns; 2.1.235 wraps its
/// reason lines just under that).
const CARD_TEXT_WIDTH: usize = 116;
/// How wide an option's label runs before it wraps under itself.
const LABEL_WIDTH: usize = 112;

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

/// The refusal text when the user says what to do instead (2.1.235's wording).
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
