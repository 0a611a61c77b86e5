//! What a compaction brings back for the model, as a reminder in our words and as the
//! attachment record 2.1.235 keeps for it (`file`, `compact_file_reference`, `invoked_skills`:
//! recorded, compact.restore/resume-auto), so a session file written by either target is
//! worded again in the reader's own prose when it resumes.

use serde_json::{json, Value};

/// A skill invoked before the compaction: its name, where it came from, the body it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub path: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restored {
    /// A file read before, as it is now.
    File { path: String, text: String },
    /// A file read before that is too large to bring back: only named.
    TooLarge { path: String },
    /// The skills invoked before, newest first.
    Skills(Vec<Skill>),
}

impl Restored {
    /// The reminder the model is given.
    pub fn text(&self) -> String {
        match self {
            Restored::File { path, text } => {
                let numbered: String = text
                    .lines()
                    .enumerate()
                    .map(|(i, line)| format!("{}\t{line}\n", i + 1))
                    .collect();
                format!(
                    "<system-reminder>\nRead before the conversation was summarized, and read again now: {path}\n{numbered}</system-reminder>"
                )
            }
            Restored::TooLarge { path } => format!(
                "<system-reminder>\n{path} was read before the conversation was summarized; it is \
                 too large to show again here. Read it again where it is needed.\n</system-reminder>"
            ),
            Restored::Skills(skills) => {
                let sections: Vec<String> = skills
                    .iter()
                    .map(|s| format!("### Skill: {}\nPath: {}\n\n{}", s.name, s.path, s.content))
                    .collect();
                format!(
                    "<system-reminder>\nSkills used earlier in this session, before the \
                     conversation was summarized. Their guidance still applies where it is \
                     relevant; they are not being asked for again, so do not repeat what running \
                     them once did.\n\n{}\n</system-reminder>",
                    sections.join("\n\n")
                )
            }
        }
    }

    /// The attachment record's data, in 2.1.235's shape; paths shown relative to `cwd`.
    pub fn attachment(&self, cwd: &std::path::Path) -> Value {
        let shown = |path: &str| {
            std::path::Path::new(path)
                .strip_prefix(cwd)
                .map_or_else(|_| path.to_owned(), |p| p.display().to_string())
        };
        match self {
            Restored::File { path, text } => {
                // Lines as 2.1.235's Read counts them: a final newline starts an empty one.
                let lines = text.split('\n').count();
                json!({"type": "file", "filename": path, "content": {"type": "text", "file": {
                    "filePath": path, "content": text, "numLines": lines, "startLine": 1,
                    "totalLines": lines}}, "displayPath": shown(path)})
            }
            Restored::TooLarge { path } => {
                json!({"type": "compact_file_reference", "filename": path, "displayPath": shown(path)})
            }
            Restored::Skills(skills) => json!({"type": "invoked_skills", "skills": skills
                .iter()
                .map(|s| json!({"name": s.name, "path": s.path, "content": s.content}))
                .collect::<Vec<_>>()}),
        }
    }

    /// What an attachment record of one of these kinds stands for.
    pub fn of_attachment(a: &Value) -> Option<Restored> {
        let string = |v: &Value| v.as_str().map(str::to_owned);
        match a["type"].as_str()? {
            "file" => Some(Restored::File {
                path: string(&a["filename"])?,
                text: string(&a["content"]["file"]["content"])?,
            }),
            "compact_file_reference" => Some(Restored::TooLarge {
                path: string(&a["filename"])?,
            }),
            "invoked_skills" => Some(Restored::Skills(
                a["skills"]
                    .as_array()?
                    .iter()
                    .filter_map(|s| {
                        Some(Skill {
                            name: string(&s["name"])?,
                            path: string(&s["path"])?,
                            content: string(&s["content"])?,
                        })
                    })
                    .collect(),
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_kept_as_2_1_235_keeps_it_and_worded_again_the_same() {
        let cwd = std::path::Path::new("/w");
        let kinds = [
            Restored::File {
                path: "/w/notes.txt".into(),
                text: "alpha\n".into(),
            },
            Restored::TooLarge {
                path: "/w/big.txt".into(),
            },
            Restored::Skills(vec![Skill {
                name: "tidy".into(),
                path: "userSettings:tidy".into(),
                content: "TIDY".into(),
            }]),
        ];
        for r in &kinds {
            let a = r.attachment(cwd);
            assert_eq!(Restored::of_attachment(&a).as_ref(), Some(r), "{a}");
        }
        let file = kinds[0].attachment(cwd);
        assert_eq!(file["displayPath"], "notes.txt");
        assert_eq!(file["content"]["file"]["numLines"], 2);
        assert!(kinds[0].text().contains("1\talpha\n"));
        assert_eq!(kinds[1].attachment(cwd)["type"], "compact_file_reference");
        assert!(kinds[2]
            .text()
            .contains("### Skill: tidy\nPath: userSettings:tidy\n\nTIDY"));
    }
}
