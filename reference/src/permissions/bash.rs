//! How a Bash command line reads to the permission decision (seed 004, Bash: the line is split
//! into segments and each is judged; any deny stops the whole line). A segment only reads, or it
//! runs something the user has to allow; a segment that creates or changes a file names that
//! file, which 2.1.235 reports as the call's blocked path.

/// One simple command of a line: its words and the files its output redirects go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub words: Vec<String>,
    pub redirects: Vec<String>,
}

/// Commands that only read (or print), whatever their arguments.
const READ_ONLY: &[&str] = &[
    "basename",
    "cat",
    "cut",
    "date",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "env",
    "false",
    "file",
    "grep",
    "head",
    "hostname",
    "id",
    "less",
    "ls",
    "md5sum",
    "more",
    "nl",
    "printenv",
    "printf",
    "pwd",
    "readlink",
    "realpath",
    "rg",
    "sha1sum",
    "sha256sum",
    "sort",
    "stat",
    "tail",
    "test",
    "tr",
    "tree",
    "true",
    "type",
    "uname",
    "uniq",
    "wc",
    "which",
    "whoami",
];

/// Git subcommands that only read the repository.
const GIT_READ_ONLY: &[&str] = &[
    "blame",
    "branch",
    "diff",
    "log",
    "ls-files",
    "remote",
    "rev-parse",
    "show",
    "status",
    "tag",
];

/// Commands whose operands are files they create or change, and which operand that is.
enum Writes {
    Every,
    Last,
}

fn writes(name: &str) -> Option<Writes> {
    match name {
        "touch" | "mkdir" | "rm" | "rmdir" | "tee" | "truncate" => Some(Writes::Every),
        "cp" | "mv" | "ln" | "install" => Some(Writes::Last),
        _ => None,
    }
}

/// The segments of `line`, split on `&&`, `||`, `;`, `|` and `&` outside quotes.
pub fn segments(line: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut current = Segment {
        words: Vec::new(),
        redirects: Vec::new(),
    };
    let mut word = String::new();
    let mut in_word = false;
    let mut redirect_next = false;
    let mut chars = line.chars().peekable();
    let finish_word =
        |word: &mut String, in_word: &mut bool, redirect_next: &mut bool, seg: &mut Segment| {
            if *in_word {
                if *redirect_next {
                    seg.redirects.push(std::mem::take(word));
                    *redirect_next = false;
                } else {
                    seg.words.push(std::mem::take(word));
                }
                *in_word = false;
            }
        };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            ' ' | '\t' | '\n' => {
                finish_word(&mut word, &mut in_word, &mut redirect_next, &mut current)
            }
            '&' | '|' | ';' => {
                finish_word(&mut word, &mut in_word, &mut redirect_next, &mut current);
                if c == '&' && chars.peek() == Some(&'>') {
                    // `&>file`: both streams to a file.
                    chars.next();
                    redirect_next = true;
                    continue;
                }
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                if !current.words.is_empty() || !current.redirects.is_empty() {
                    out.push(std::mem::replace(
                        &mut current,
                        Segment {
                            words: Vec::new(),
                            redirects: Vec::new(),
                        },
                    ));
                }
            }
            '>' => {
                // `2>`: the digit was read as a word of its own.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                } else {
                    finish_word(&mut word, &mut in_word, &mut redirect_next, &mut current);
                }
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    // `2>&1` duplicates a stream; no file.
                    chars.next();
                    chars.next();
                    continue;
                }
                redirect_next = true;
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    finish_word(&mut word, &mut in_word, &mut redirect_next, &mut current);
    if !current.words.is_empty() || !current.redirects.is_empty() {
        out.push(current);
    }
    out
}

impl Segment {
    fn name(&self) -> &str {
        self.words.first().map(String::as_str).unwrap_or_default()
    }

    /// The segment only reads: a read-only command and no redirect into a file.
    pub fn read_only(&self) -> bool {
        if self.redirects.iter().any(|r| r != "/dev/null") {
            return false;
        }
        match self.name() {
            "git" => self
                .words
                .iter()
                .skip(1)
                .find(|w| !w.starts_with('-'))
                .is_some_and(|sub| GIT_READ_ONLY.contains(&sub.as_str())),
            "find" => !self.words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "-exec" | "-execdir" | "-delete" | "-ok" | "-fprint"
                )
            }),
            "sed" => !self.words.iter().any(|w| w.starts_with("-i")),
            name => READ_ONLY.contains(&name),
        }
    }

    /// The first file the segment would create or change, with the command that would.
    pub fn written_path(&self) -> Option<(&str, &str)> {
        if let Some(target) = self.redirects.iter().find(|r| *r != "/dev/null") {
            return Some((self.name(), target));
        }
        let operands: Vec<&String> = self
            .words
            .iter()
            .skip(1)
            .filter(|w| !w.starts_with('-'))
            .collect();
        match writes(self.name())? {
            Writes::Every => operands.first().map(|p| (self.name(), p.as_str())),
            Writes::Last => operands
                .last()
                .filter(|_| operands.len() >= 2)
                .map(|p| (self.name(), p.as_str())),
        }
    }

    /// The segment as one line, words joined by spaces (for rule matching).
    pub fn text(&self) -> String {
        self.words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        segments(line).into_iter().map(|s| s.words).collect()
    }

    #[test]
    fn lines_split_on_operators_outside_quotes() {
        assert_eq!(
            words("cat notes.txt && touch made.txt"),
            vec![vec!["cat", "notes.txt"], vec!["touch", "made.txt"]]
        );
        assert_eq!(
            words("echo 'a && b' | wc -l; ls"),
            vec![vec!["echo", "a && b"], vec!["wc", "-l"], vec!["ls"]]
        );
        assert_eq!(words("echo \"x\\\"y\""), vec![vec!["echo", "x\"y"]]);
    }

    #[test]
    fn reads_and_writes_are_told_apart() {
        let judge = |line: &str| {
            let segs = segments(line);
            (
                segs.iter().all(Segment::read_only),
                segs.iter()
                    .find_map(|s| s.written_path().map(|(c, p)| (c.to_owned(), p.to_owned()))),
            )
        };
        assert_eq!(judge("ls -la"), (true, None));
        assert_eq!(judge("cat notes.txt"), (true, None));
        assert_eq!(judge("git status"), (true, None));
        assert_eq!(judge("git push origin main"), (false, None));
        assert_eq!(
            judge("touch made.txt"),
            (false, Some(("touch".into(), "made.txt".into())))
        );
        assert_eq!(
            judge("cat a && touch b"),
            (false, Some(("touch".into(), "b".into())))
        );
        assert_eq!(
            judge("echo hi > out.txt"),
            (false, Some(("echo".into(), "out.txt".into())))
        );
        assert_eq!(judge("ls 2>/dev/null"), (true, None));
        assert_eq!(judge("ls 2>&1 | head"), (true, None));
        assert_eq!(
            judge("cp a.txt b.txt"),
            (false, Some(("cp".into(), "b.txt".into())))
        );
        assert_eq!(judge("find . -delete"), (false, None));
        assert_eq!(judge("npm test"), (false, None));
    }
}
