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
    /// As the real binary lists them (it also accepts `default`, unlisted).
    pub const CHOICES: &'static [&'static str] = &[
        "acceptEdits",
        "auto",
        "bypassPermissions",
        "manual",
        "dontAsk",
        "plan",
    ];

    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "default" | "manual" | "auto" => Mode::Default,
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
    /// Refused by the mode: the model is told permission was not granted; a `permission_denied`
    /// event and a `permission_denials` entry record it.
    Ask(String),
    /// Refused by a deny rule: an ordinary tool error, no denial event.
    Rule(String),
}

pub struct Permissions {
    pub mode: Mode,
    read_deny: GlobSet,
}

impl Permissions {
    /// Reads deny rules from the user's and the project's settings files.
    pub fn load(mode: Mode, cwd: &Path, home: &Path) -> Self {
        let files = [
            home.join(".claude/settings.json"),
            cwd.join(".claude/settings.json"),
            cwd.join(".claude/settings.local.json"),
        ];
        let mut builder = GlobSetBuilder::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(settings) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            // A leading `/` is relative to the settings file's own root.
            let root = if file.starts_with(cwd) {
                cwd.to_owned()
            } else {
                home.join(".claude")
            };
            for rule in settings["permissions"]["deny"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if let Some(pattern) = rule.strip_prefix("Read(").and_then(|r| r.strip_suffix(')'))
                {
                    if let Ok(glob) = Glob::new(&absolute_pattern(pattern, &root, home)) {
                        builder.add(glob);
                    }
                }
            }
        }
        Permissions {
            mode,
            read_deny: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    pub fn decide(&self, access: &Access) -> Decision {
        match access {
            Access::ReadFile(path) if self.read_denied(path) => {
                Decision::Rule("File is in a directory that is denied by your permission settings.".into())
            }
            Access::ReadFile(_) => Decision::Allow,
            Access::WriteFile { path, verb } if self.read_denied(path) => Decision::Rule(format!(
                "File is covered by a Read deny rule in your permission settings and cannot be {verb}."
            )),
            Access::WriteFile { .. } if matches!(self.mode, Mode::BypassPermissions | Mode::AcceptEdits) => Decision::Allow,
            Access::WriteFile { path, .. } => Decision::Ask(format!(
                "Claude requested permissions to write to {}, but you haven't granted it yet.",
                path.display()
            )),
            Access::Execute(_) if matches!(self.mode, Mode::BypassPermissions | Mode::AcceptEdits) => Decision::Allow,
            Access::Execute(_) => Decision::Ask("Claude requested permissions to use Bash, but you haven't granted it yet.".into()),
            Access::Session => Decision::Allow,
            Access::Mcp(_) if self.mode == Mode::BypassPermissions => Decision::Allow,
            Access::Mcp(name) => Decision::Ask(format!("Claude requested permissions to use {name}, but you haven't granted it yet.")),
        }
    }

    fn read_denied(&self, path: &Path) -> bool {
        self.read_deny.is_match(path)
    }
}

/// A rule's path pattern as an absolute glob, with the forms the real 2.1.235 matches: `//abs`,
/// `~/in-home`, `/x` under the settings root only, and otherwise gitignore style (`./x`, `x` and
/// `**/x` all match `x` at any depth below the project).
fn absolute_pattern(pattern: &str, root: &Path, home: &Path) -> String {
    let join = |base: &Path, rest: &str| -> String {
        PathBuf::from(base).join(rest).display().to_string()
    };
    if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        join(home, rest)
    } else if let Some(rest) = pattern.strip_prefix('/') {
        join(root, rest)
    } else {
        let rest = pattern.strip_prefix("./").unwrap_or(pattern);
        let rest = rest.strip_prefix("**/").unwrap_or(rest);
        join(root, &format!("**/{rest}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denies(rule: &str, path: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(
            cwd.join(".claude/settings.json"),
            format!(r#"{{"permissions":{{"deny":["{rule}"]}}}}"#),
        )
        .unwrap();
        let p = Permissions::load(Mode::BypassPermissions, &cwd, dir.path());
        matches!(
            p.decide(&Access::ReadFile(cwd.join(path))),
            Decision::Rule(_)
        )
    }

    #[test]
    fn rule_forms_match_as_recorded() {
        for rule in [
            "Read(./secret.txt)",
            "Read(secret.txt)",
            "Read(**/secret.txt)",
        ] {
            assert!(denies(rule, "secret.txt"), "{rule}");
            assert!(denies(rule, "sub/secret.txt"), "{rule} at depth");
        }
        assert!(denies("Read(/secret.txt)", "secret.txt"));
        assert!(!denies("Read(/secret.txt)", "sub/secret.txt"));
        assert!(!denies("Read(secret.txt)", "public.txt"));
    }
}
