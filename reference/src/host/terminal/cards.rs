//! The cards a person answers, in 2.1.235's layouts: a title and what the call does, the
//! decision's reason, the question, numbered options, the key hints. The short UI strings
//! (titles, questions, option labels, hints) are 2.1.235's; a quoted tool description is the
//! reference's own.

use serde_json::{json, Value};

use super::{columns, told, wrapped, Choice, Layout, Picked, Terminal, CARD_TEXT_WIDTH};
use super::{FOOTER, FOOTER_BASH, PERMISSION};
use crate::permissions::prefix;
use crate::vocab::{Ask, Reply};

/// A generic card quotes this many lines of the tool's description before cutting it.
const DESCRIPTION_LINES: usize = 2;
/// How wide the quoted description runs (2.1.235's on a 120-column terminal).
const DESCRIPTION_WIDTH: usize = 112;
/// A generic card's title (the tool and its arguments) wraps at most this wide: on 2.1.235 a
/// 113-char line fits (design.durable-grant/approve) and a 115-char one wraps
/// (design.consent/revoke, design.plan-token); 114 is not recorded either way.
const TITLE_WIDTH: usize = 114;
/// The row that switches the session to accept edits.
const ACCEPT_EDITS: &str =
    "Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session";
/// A reason longer than this many chars is set off by a bar (2.1.235's multi-line test).
const REASON_INLINE: usize = 80;

/// The "Yes, and …" row of a permission card: its label and the updates it keeps.
struct Keep {
    label: String,
    updates: Vec<Value>,
}

impl Terminal {
    pub(super) fn permission(&self, ask: &Ask) -> Reply {
        if ask.tool == "SandboxNetworkAccess" {
            return self.network(ask);
        }
        let mut lines = Vec::new();
        let question = match ask.tool {
            "Bash" => {
                lines.extend([" Bash command".to_owned(), String::new()]);
                lines.push(format!(
                    "   {}",
                    ask.input["command"].as_str().unwrap_or_default()
                ));
                if let Some(d) = ask.input["description"].as_str() {
                    lines.push(format!("   {d}"));
                }
                lines.push(String::new());
                "Do you want to proceed?".to_owned()
            }
            "Write" | "Edit" | "NotebookEdit" => self.file_card(ask, &mut lines),
            _ => {
                self.generic_card(ask, &mut lines);
                "Do you want to proceed?".to_owned()
            }
        };
        // A file card names no reason: its question says what the call does.
        if !matches!(ask.tool, "Write" | "Edit" | "NotebookEdit") {
            lines.extend(reason_lines(ask));
        }
        lines.push(format!(" {question}"));
        let keep = self.keep(ask);
        let mut choices = vec![Choice::new("Yes", false)];
        if let Some(keep) = &keep {
            choices.push(Choice::new(keep.label.clone(), false));
        }
        choices.push(Choice::new("No", true));
        let no = choices.len() - 1;
        let layout = Layout {
            footer: Some(if ask.tool == "Bash" {
                FOOTER_BASH
            } else {
                FOOTER
            }),
            ..PERMISSION
        };
        match self.card(&lines, &choices, &layout) {
            Picked::Option(0) => Reply::Allow {
                input: None,
                keep: vec![],
            },
            Picked::Option(i) if i != no => Reply::Allow {
                input: None,
                keep: keep.map(|k| k.updates).unwrap_or_default(),
            },
            Picked::Amended(i, message) if i == no => Reply::Deny {
                message: told(&message),
            },
            _ => Reply::Interrupt,
        }
    }

    /// A sandboxed command's connection to a host on no list (recorded on 2.1.235:
    /// sandbox.network/ask): the host, and whether to let it through once or from now on.
    fn network(&self, ask: &Ask) -> Reply {
        let host = ask.input["host"].as_str().unwrap_or_default();
        let lines = vec![
            " Network request outside of sandbox".to_owned(),
            String::new(),
            format!("   Host: {host}"),
            String::new(),
            "   Do you want to allow this connection?".to_owned(),
        ];
        let choices = [
            Choice::new("Yes", false),
            Choice::new(format!("Yes, and don't ask again for {host}"), false),
            Choice::new("No, and tell Claude what to do differently (esc)", false),
        ];
        let layout = Layout {
            indent: "   ",
            footer: None,
        };
        match self.card(&lines, &choices, &layout) {
            Picked::Option(0) => Reply::Allow {
                input: None,
                keep: vec![],
            },
            Picked::Option(1) => Reply::Allow {
                input: None,
                keep: ask.prompt.suggestions.clone().unwrap_or_default(),
            },
            _ => Reply::Deny {
                message: String::new(),
            },
        }
    }

    /// Write and Edit: the file, its new content between dashed rules, and the question naming
    /// the file.
    fn file_card(&self, ask: &Ask, lines: &mut Vec<String>) -> String {
        let path = ask.input["file_path"]
            .as_str()
            .or_else(|| ask.input["notebook_path"].as_str())
            .unwrap_or_default();
        let shown = relative(path, &self.cwd);
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
        let exists = !path.is_empty() && std::path::Path::new(path).exists();
        let (title, verb) = match ask.tool {
            "Write" if exists => ("Overwrite file", "overwrite"),
            "Write" => ("Create file", "create"),
            _ => ("Edit file", "make this edit to"),
        };
        lines.extend([format!(" {title}"), format!(" {shown}")]);
        let dashes = "╌".repeat(columns());
        lines.push(dashes.clone());
        let before = std::fs::read_to_string(path).unwrap_or_default();
        match ask.tool {
            "Write" if exists => {
                let content = ask.input["content"].as_str().unwrap_or_default();
                lines.extend(diff(&before, content, 3));
            }
            "Write" => {
                let content = ask.input["content"].as_str().unwrap_or_default();
                for (n, line) in content.lines().enumerate() {
                    lines.push(format!("{:>3} {line}", n + 1));
                }
            }
            "Edit" => {
                let old = ask.input["old_string"].as_str().unwrap_or_default();
                let new = ask.input["new_string"].as_str().unwrap_or_default();
                let after = if ask.input["replace_all"] == true {
                    before.replace(old, new)
                } else {
                    before.replacen(old, new, 1)
                };
                lines.extend(diff(&before, &after, 2));
            }
            _ => {
                let source = ask.input["new_source"].as_str().unwrap_or_default();
                lines.extend(source.lines().map(|l| format!("  + {l}")));
            }
        }
        lines.push(dashes);
        format!("Do you want to {verb} {name}?")
    }

    /// A tool without a card of its own: its name, its description quoted and cut, and the
    /// tool's own text where it has one (the seed has ClaudeDesign's consent and grant cards say
    /// what approving means).
    fn generic_card(&self, ask: &Ask, lines: &mut Vec<String>) {
        let name = match ask.tool {
            "ClaudeDesign" => {
                let op = ask.input["operation"].as_str().unwrap_or_default();
                let name = crate::design::user_facing_name(op);
                match crate::design::arguments_line(op, &ask.input["arguments"]) {
                    args if args.is_empty() => name,
                    args => format!("{name}({args})"),
                }
            }
            other => other.to_owned(),
        };
        lines.extend([" Tool use".to_owned(), String::new()]);
        lines.extend(wrapped(&name, TITLE_WIDTH).map(|l| format!("   {l}")));
        let about: Vec<String> = ask
            .about
            .lines()
            .flat_map(|l| wrapped(l.trim(), DESCRIPTION_WIDTH).collect::<Vec<_>>())
            .filter(|l| !l.is_empty())
            .collect();
        let cut = about.len() > DESCRIPTION_LINES;
        for (i, line) in about.iter().take(DESCRIPTION_LINES).enumerate() {
            let mark = if cut && i + 1 == DESCRIPTION_LINES {
                "…"
            } else {
                ""
            };
            lines.push(format!("   │ {line}{mark}"));
        }
        if cut {
            lines.push("   (ctrl+o to expand description)".into());
        }
        let terms = ask.tool != "ClaudeDesign"
            || crate::design::card_states_terms(ask.prompt.reason.as_deref().unwrap_or_default());
        if let Some(message) = ask.prompt.message.as_ref().filter(|_| terms) {
            lines.extend(wrapped(message, CARD_TEXT_WIDTH).map(|l| format!("   {l}")));
        }
        lines.push(String::new());
    }

    /// What "Yes, and …" offers: the directories the call needs, else the command prefix
    /// (Bash), else the proposed rules, else the proposed mode.
    fn keep(&self, ask: &Ask) -> Option<Keep> {
        let of = |kind: &str| -> Vec<Value> {
            ask.prompt
                .suggestions
                .iter()
                .flatten()
                .filter(|s| s["type"] == kind)
                .cloned()
                .collect()
        };
        let dirs = of("addDirectories");
        let mode = of("setMode");
        let file = matches!(ask.tool, "Write" | "Edit" | "NotebookEdit");
        if file && !mode.is_empty() && mode[0]["mode"] == "acceptEdits" {
            // One row keeps both: the mode, then the directory the call needs.
            let mut label = ACCEPT_EDITS.to_owned();
            let names: Vec<&str> = dirs
                .iter()
                .flat_map(|d| d["directories"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .collect();
            if !names.is_empty() {
                label.push_str(&format!(
                    "; Yes, and always allow access to {} for this session",
                    listed(&names)
                ));
            }
            label.push_str(" (shift+tab)");
            return Some(Keep {
                label,
                updates: mode.into_iter().chain(dirs).collect(),
            });
        }
        if !dirs.is_empty() {
            let names: Vec<&str> = dirs
                .iter()
                .flat_map(|d| d["directories"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .collect();
            let scope = if ask.tool == "Bash" {
                "from this project"
            } else {
                "for this session"
            };
            return Some(Keep {
                label: format!("Yes, and always allow access to {} {scope}", listed(&names)),
                updates: dirs,
            });
        }
        let rules = of("addRules");
        if ask.tool == "Bash" && !rules.is_empty() {
            let command = ask.input["command"].as_str().unwrap_or_default();
            let rule = prefix::editable_prefix(command);
            return Some(Keep {
                label: format!("Yes, and don\u{2019}t ask again for: {rule}"),
                updates: vec![
                    json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": rule}], "behavior": "allow", "destination": "localSettings"}),
                ],
            });
        }
        if !rules.is_empty() {
            let contents: Vec<&str> = rules
                .iter()
                .flat_map(|s| s["rules"].as_array().into_iter().flatten())
                .filter_map(|r| r["ruleContent"].as_str())
                .collect();
            let label = if contents.is_empty() {
                format!(
                    "Yes, and don't ask again for {} commands in {}",
                    ask.tool, self.cwd
                )
            } else {
                format!(
                    "Yes, and don\u{2019}t ask again for: {}",
                    contents.join(", ")
                )
            };
            return Some(Keep {
                label,
                updates: rules,
            });
        }
        let label = match mode.first()?["mode"].as_str()? {
            "acceptEdits" => format!("{ACCEPT_EDITS} (shift+tab)"),
            _ => return None,
        };
        Some(Keep {
            label,
            updates: mode,
        })
    }

    /// AskUserQuestion: one card per question, its options with their descriptions, a row to
    /// type an answer, and below a rule the row to talk it over instead.
    pub(super) fn question(&self, ask: &Ask) -> Reply {
        let mut input = ask.input.clone();
        let mut answers = serde_json::Map::new();
        let layout = Layout {
            indent: "",
            footer: Some("Enter to select · ↑/↓ to navigate · Esc to cancel"),
        };
        for question in ask.input["questions"].as_array().into_iter().flatten() {
            let text = question["question"].as_str().unwrap_or_default();
            let lines = vec![
                format!(" ☐ {}", question["header"].as_str().unwrap_or_default()),
                String::new(),
                text.to_owned(),
                String::new(),
            ];
            let mut choices = Vec::new();
            for option in question["options"].as_array().into_iter().flatten() {
                let mut choice = Choice::new(option["label"].as_str().unwrap_or_default(), false);
                choice.detail = option["description"].as_str().map(str::to_owned);
                choices.push(choice);
            }
            // The client's own "Other": the digit focuses it for typing, as Tab does elsewhere.
            choices.push(Choice::new("Type something.", true));
            let other = choices.len() - 1;
            let mut chat = Choice::new("Chat about this", false);
            chat.rule_above = true;
            choices.push(chat);
            let chat = choices.len() - 1;
            let answer = match self.card(&lines, &choices, &layout) {
                Picked::Option(i) if i == other => {
                    match self.card_text(&lines, &choices, other, &layout) {
                        Some(typed) => typed,
                        None => return Reply::Interrupt,
                    }
                }
                // Talking it over instead of answering: the turn stops for the user.
                Picked::Option(i) if i == chat => return Reply::Interrupt,
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
    fn card_text(
        &self,
        lines: &[String],
        choices: &[Choice],
        row: usize,
        layout: &Layout,
    ) -> Option<String> {
        let mut lines = lines.to_vec();
        lines.push(format!(
            " Type your answer for option {}, then Enter",
            row + 1
        ));
        let typed: Vec<Choice> = vec![Choice::new(choices[row].label.clone(), true)];
        // Enter with nothing typed picks the row itself, which is no answer.
        loop {
            match self.card_amending(&lines, &typed, layout) {
                Picked::Amended(_, text) => return Some(text),
                Picked::Cancel => return None,
                Picked::Option(_) => {}
            }
        }
    }

    /// ExitPlanMode: with a plan, the plan and "No, keep planning" open for a message; without
    /// one, 2.1.235's bare card.
    pub(super) fn plan(&self, ask: &Ask) -> Reply {
        let back = "Yes, and switch to default (ask each time) for this session";
        let plan = ask.input["plan"].as_str().filter(|p| !p.trim().is_empty());
        let (lines, choices, layout) = match plan {
            Some(plan) => {
                let mut lines = vec![
                    " Ready to code?".to_owned(),
                    String::new(),
                    " Here is Claude's plan:".to_owned(),
                ];
                lines.extend(plan.lines().map(|l| format!("   {l}")));
                lines.push(String::new());
                lines.push(
                    " Claude has written up a plan and is ready to execute. Would you like to proceed?"
                        .into(),
                );
                lines.push(String::new());
                let choices = vec![
                    Choice::new(back, false),
                    Choice::new("No, keep planning", true),
                ];
                (lines, choices, PERMISSION)
            }
            None => {
                let lines = vec![
                    " Exit plan mode?".to_owned(),
                    String::new(),
                    "  Claude wants to exit plan mode".to_owned(),
                    String::new(),
                ];
                let choices = vec![Choice::new(back, false), Choice::new("No", true)];
                let layout = Layout {
                    indent: "  ",
                    footer: None,
                };
                (lines, choices, layout)
            }
        };
        match self.card(&lines, &choices, &layout) {
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

/// The decision's reason above the question, as 2.1.235 shows it: a long or multi-line one set
/// off by a bar, a short one as a line, a working-directory one with where to change the rules.
fn reason_lines(ask: &Ask) -> Vec<String> {
    let Some(reason) = &ask.prompt.reason else {
        return Vec::new();
    };
    let config = match ask.prompt.reason_type {
        Some("safetyCheck" | "other") => None,
        Some("workingDir") => Some("/permissions to update rules"),
        _ => return Vec::new(),
    };
    let mut lines: Vec<String> = if reason.contains('\n') || reason.chars().count() > REASON_INLINE
    {
        reason
            .lines()
            .flat_map(|l| wrapped(l, CARD_TEXT_WIDTH).collect::<Vec<_>>())
            .map(|l| format!(" │ {l}"))
            .collect()
    } else {
        vec![format!(" {reason}")]
    };
    lines.extend(config.map(|c| format!(" {c}")));
    lines.push(String::new());
    lines
}

/// `path` as 2.1.235 names it on a file card: relative to the session's directory, `../`
/// where it lies outside.
fn relative(path: &str, cwd: &str) -> String {
    let (path, cwd) = (std::path::Path::new(path), std::path::Path::new(cwd));
    let common = path
        .components()
        .zip(cwd.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path.display().to_string();
    }
    let ups = cwd.components().count() - common;
    let rest: Vec<String> = path
        .components()
        .skip(common)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let mut parts = vec!["..".to_owned(); ups];
    parts.extend(rest);
    parts.join("/")
}

/// The change from `before` to `after` as 2.1.235's card shows it: the changed lines (old
/// ones `-` with their old numbers, new ones `+` with their new numbers) amid up to three
/// unchanged lines either side, each number right-aligned to `width`.
fn diff(before: &str, after: &str, width: usize) -> Vec<String> {
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut lines = Vec::new();
    for (i, line) in old
        .iter()
        .enumerate()
        .take(head)
        .skip(head.saturating_sub(3))
    {
        lines.push(format!("{:>width$}  {line}", i + 1));
    }
    for (i, line) in old.iter().enumerate().take(old.len() - tail).skip(head) {
        lines.push(format!("{:>width$} -{line}", i + 1));
    }
    for (i, line) in new.iter().enumerate().take(new.len() - tail).skip(head) {
        lines.push(format!("{:>width$} +{line}", i + 1));
    }
    let resume = new.len() - tail;
    for (i, line) in new.iter().enumerate().skip(resume).take(3) {
        lines.push(format!("{:>width$}  {line}", i + 1));
    }
    lines
}

/// Names as 2.1.235 lists them: `a`, `a and b`, `a, b, and c`.
fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::{listed, reason_lines};
    use crate::vocab::{Ask, Prompt};

    fn lines_for(reason: &str, kind: &'static str) -> Vec<String> {
        let prompt = Prompt {
            reason: Some(reason.into()),
            reason_type: Some(kind),
            ..Prompt::default()
        };
        let input = serde_json::json!({});
        reason_lines(&Ask {
            tool: "Bash",
            input: &input,
            tool_use_id: "t",
            description: None,
            about: "",
            prompt: &prompt,
            interactive: false,
        })
    }

    #[test]
    fn a_short_reason_stands_as_a_line_and_a_long_one_is_barred() {
        assert_eq!(
            lines_for("This command requires approval", "other"),
            [" This command requires approval", ""]
        );
        let long = "word ".repeat(30);
        let barred = lines_for(long.trim(), "safetyCheck");
        assert!(
            barred.len() > 2
                && barred[..barred.len() - 1]
                    .iter()
                    .all(|l| l.starts_with(" │ "))
        );
        assert!(lines_for("x", "rule").is_empty());
    }

    #[test]
    fn names_are_listed_with_and() {
        assert_eq!(listed(&["/a"]), "/a");
        assert_eq!(listed(&["/a", "/b"]), "/a and /b");
        assert_eq!(listed(&["/a", "/b", "/c"]), "/a, /b, and /c");
    }
}
