//! What an agent's tools did, by kind, as 2.1.235 counts it for a synchronous Agent's result
//! (`toolStats`, recorded: hooks.events/round, session.agent-transcript; the counting rules are
//! facts of its bundle): each call the agent asked for by its tool's name (Read; Grep and Glob;
//! Bash; Edit, Write and NotebookEdit with the lines their inputs add and remove; Agent and Task
//! not at all; anything else as other), plus the stats a nested agent's result carried.

use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolStats {
    pub reads: u64,
    pub searches: u64,
    pub commands: u64,
    pub edited_files: u64,
    pub lines_added: u64,
    pub lines_removed: u64,
    pub other: u64,
}

impl ToolStats {
    /// Counts one call (a `tool_use` block).
    pub fn count(&mut self, call: &Value) {
        let input = &call["input"];
        match call["name"].as_str().unwrap_or_default() {
            "Read" => self.reads += 1,
            "Grep" | "Glob" => self.searches += 1,
            "Bash" => self.commands += 1,
            "Agent" | "Task" => {}
            "Edit" => {
                self.edited_files += 1;
                let edits: Vec<&Value> = match input["edits"].as_array() {
                    Some(edits) => edits.iter().collect(),
                    None => vec![input],
                };
                for edit in edits {
                    self.lines_added += lines(&edit["new_string"]);
                    self.lines_removed += lines(&edit["old_string"]);
                }
            }
            "Write" => {
                self.edited_files += 1;
                self.lines_added += lines(&input["content"]);
            }
            "NotebookEdit" => {
                self.edited_files += 1;
                self.lines_added += lines(&input["new_source"]);
            }
            _ => self.other += 1,
        }
    }

    /// Adds what a nested agent's result reported.
    pub fn add(&mut self, nested: &Value) {
        let n = |key: &str| nested[key].as_u64().unwrap_or(0);
        self.reads += n("readCount");
        self.searches += n("searchCount");
        self.commands += n("bashCount");
        self.edited_files += n("editFileCount");
        self.lines_added += n("linesAdded");
        self.lines_removed += n("linesRemoved");
        self.other += n("otherToolCount");
    }

    /// Whether any call was counted: 2.1.235 leaves `toolStats` out otherwise (lines alone do
    /// not count; an agent that only launched agents has none).
    pub fn counted(&self) -> bool {
        self.reads + self.searches + self.commands + self.edited_files + self.other > 0
    }

    pub fn json(&self) -> Value {
        json!({
            "readCount": self.reads, "searchCount": self.searches, "bashCount": self.commands,
            "editFileCount": self.edited_files, "linesAdded": self.lines_added,
            "linesRemoved": self.lines_removed, "otherToolCount": self.other,
        })
    }
}

/// A text's lines as 2.1.235 counts them: its newlines and one more; none for an empty text.
fn lines(text: &Value) -> u64 {
    match text.as_str() {
        Some(t) if !t.is_empty() => t.matches('\n').count() as u64 + 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_by_kind_and_edits_by_their_lines() {
        let mut s = ToolStats::default();
        for call in [
            json!({"name": "Read", "input": {}}),
            json!({"name": "Grep", "input": {}}),
            json!({"name": "Glob", "input": {}}),
            json!({"name": "Bash", "input": {}}),
            json!({"name": "Agent", "input": {}}),
            json!({"name": "TodoWrite", "input": {}}),
            json!({"name": "Edit", "input": {"old_string": "a\nb", "new_string": "a\nb\nc\n"}}),
            json!({"name": "Write", "input": {"content": ""}}),
            json!({"name": "NotebookEdit", "input": {"new_source": "x"}}),
        ] {
            s.count(&call);
        }
        assert!(!ToolStats::default().counted());
        let mut only_agents = ToolStats::default();
        only_agents.count(&json!({"name": "Agent", "input": {}}));
        assert!(!only_agents.counted());
        s.add(&json!({"readCount": 2, "linesAdded": 1}));
        assert!(s.counted());
        assert_eq!(
            s.json(),
            json!({"readCount": 3, "searchCount": 2, "bashCount": 1, "editFileCount": 3,
                   "linesAdded": 6, "linesRemoved": 2, "otherToolCount": 1})
        );
    }
}
