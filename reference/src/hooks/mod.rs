//! Hooks (seed 004 line 9: every tool call passes registry, schema, Hook and Permission): the
//! commands the settings attach to an event, each run with the event's JSON on stdin. What an
//! exit status or an answer on stdout means is 2.1.235's, recorded in the `hooks.*` scenarios.
//! Built so far: command hooks from the user, project and local settings on PreToolUse and
//! PostToolUse (issue 33 goes on).

mod command;
mod config;
pub mod tool;

use std::path::{Path, PathBuf};

use config::Entry;

/// The hooks of one session, loaded once at its start.
#[derive(Debug, Default, Clone)]
pub struct Hooks {
    entries: Vec<Entry>,
}

/// What every hook of a session is told about it.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    pub home: PathBuf,
}

impl Session {
    /// Where 2.1.235 keeps the session's transcript (`transcript_path`): the session's file in
    /// the project's folder.
    pub fn transcript_path(&self) -> PathBuf {
        crate::environment::project_dir(&self.home, &self.cwd).join(format!("{}.jsonl", self.id))
    }
}

impl Hooks {
    pub fn load(home: &Path, cwd: &Path) -> Hooks {
        Hooks {
            entries: config::load(home, cwd),
        }
    }

    /// The commands `event` runs for `target` (a tool's name), in settings order, each once.
    fn matching(&self, event: &str, target: &str) -> Vec<&config::Command> {
        let mut out: Vec<&config::Command> = Vec::new();
        for entry in self.entries.iter().filter(|e| e.event == event) {
            if !entry.matches(target) {
                continue;
            }
            for command in &entry.commands {
                if !out.iter().any(|c| c.command == command.command) {
                    out.push(command);
                }
            }
        }
        out
    }
}
