//! The permission decision: the session's mode, and `Read(…)` deny rules from settings, which
//! Edit and Write inherit (a file the model may not read, it may not write either).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::Value;

use crate::tools::Access;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Default,
    AcceptEdits,
    BypassPermissions,
    Plan,
    DontAsk,
}

impl Mode {
    pub const CHOICES: &'static [&'static str] = &["acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"];

    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "default" => Mode::Default,
            "acceptEdits" => Mode::AcceptEdits,
            "bypassPermissions" => Mode::BypassPermissions,
            "plan" => Mode::Plan,
            "dontAsk" => Mode::DontAsk,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::BypassPermissions => "bypassPermissions",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
        }
    }
}

pub enum Decision {
    Allow,
    Deny(String),
}

pub struct Permissions {
    pub mode: Mode,
    read_deny: GlobSet,
}

impl Permissions {
    /// Reads deny rules from the user's and the project's settings files.
    pub fn load(mode: Mode, cwd: &Path, home: &Path) -> Self {
        let files = [home.join(".claude/settings.json"), cwd.join(".claude/settings.json"), cwd.join(".claude/settings.local.json")];
        let mut builder = GlobSetBuilder::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let Ok(settings) = serde_json::from_str::<Value>(&text) else { continue };
            for rule in settings["permissions"]["deny"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                if let Some(pattern) = rule.strip_prefix("Read(").and_then(|r| r.strip_suffix(')')) {
                    if let Ok(glob) = Glob::new(&absolute_pattern(pattern, cwd, home)) {
                        builder.add(glob);
                    }
                }
            }
        }
        Permissions { mode, read_deny: builder.build().unwrap_or_else(|_| GlobSet::empty()) }
    }

    pub fn decide(&self, access: &Access) -> Decision {
        match access {
            Access::ReadFile(path) if self.read_denied(path) => Decision::Deny(read_denied(path)),
            Access::ReadFile(_) => Decision::Allow,
            Access::WriteFile(path) if self.read_denied(path) => Decision::Deny(read_denied(path)),
            Access::WriteFile(_) if matches!(self.mode, Mode::BypassPermissions | Mode::AcceptEdits) => Decision::Allow,
            Access::WriteFile(path) => Decision::Deny(format!(
                "Claude requested permissions to write to {}, but you haven't granted it yet.",
                path.display()
            )),
            Access::Execute(_) if self.mode == Mode::BypassPermissions => Decision::Allow,
            Access::Execute(_) => Decision::Deny("Claude requested permissions to use Bash, but you haven't granted it yet.".into()),
        }
    }

    fn read_denied(&self, path: &Path) -> bool {
        self.read_deny.is_match(path)
    }
}

fn read_denied(path: &Path) -> String {
    format!("Permission to read {} has been denied.", path.display())
}

/// A rule's path pattern as an absolute glob: `//abs`, `~/in-home`, `./` or `/` relative to the
/// project, and a bare name matching at any depth (gitignore style).
fn absolute_pattern(pattern: &str, cwd: &Path, home: &Path) -> String {
    let join = |base: &Path, rest: &str| -> String { PathBuf::from(base).join(rest).display().to_string() };
    if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        join(home, rest)
    } else if let Some(rest) = pattern.strip_prefix("./").or_else(|| pattern.strip_prefix('/')) {
        join(cwd, rest)
    } else if pattern.contains('/') {
        join(cwd, pattern)
    } else {
        join(cwd, &format!("**/{pattern}"))
    }
}
