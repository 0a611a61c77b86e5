//! Where hooks come from: the `hooks` of the managed, the user's, the project's and the local
//! settings, in that order (`disableAllHooks` in any of them turns them all off, the managed
//! file's `allowManagedHooksOnly` all but its own), as `event → [{matcher,
//! hooks: [{type: "command", command, timeout}]}]`; a plugin's `hooks/hooks.json` in the same
//! shape (`from_plugin`); and the SDK host's hook functions (`from_host`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::limits;

#[derive(Debug, Clone)]
pub struct Entry {
    pub event: String,
    matcher: Matcher,
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone)]
pub struct Command {
    /// The shell command, or the SDK host's callback id.
    pub command: String,
    /// Run by the SDK host (`hook_callback`), not by the shell.
    pub callback: bool,
    pub timeout: Duration,
    /// A plugin's hook is told where its plugin lives and where it may keep data
    /// (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`).
    pub plugin: Option<(PathBuf, PathBuf)>,
}

/// Which tool names an entry is for.
#[derive(Debug, Clone)]
enum Matcher {
    /// No matcher, an empty one or `*`.
    All,
    /// Names joined by `|`, each compared whole.
    Names(Vec<String>),
    /// Anything else, a regular expression found anywhere in the name.
    Pattern(regex::Regex),
}

impl Entry {
    pub fn matches(&self, name: &str) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n == name),
            Matcher::Pattern(re) => re.is_match(name),
        }
    }
}

/// The hook functions an SDK host registered at `initialize` (`hooks`: event → `[{matcher,
/// hookCallbackIds, timeout}]`), each called back by its id.
pub fn from_host(hooks: &Value) -> Vec<Entry> {
    walk(hooks, |group| {
        let timeout = timeout(&group["timeout"]);
        group["hookCallbackIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|id| Command {
                command: id.to_owned(),
                callback: true,
                timeout,
                plugin: None,
            })
            .collect()
    })
}

/// Every `event → [{matcher, …}]` group with a usable matcher, its commands as `commands` reads
/// them from the group.
fn walk(hooks: &Value, commands: impl Fn(&Value) -> Vec<Command>) -> Vec<Entry> {
    let mut out = Vec::new();
    for (event, groups) in hooks.as_object().into_iter().flatten() {
        for group in groups.as_array().into_iter().flatten() {
            let Some(matcher) = matcher(group["matcher"].as_str()) else {
                continue;
            };
            out.push(Entry {
                event: event.clone(),
                matcher,
                commands: commands(group),
            });
        }
    }
    out
}

/// A stated timeout in seconds, else the documented default.
fn timeout(stated: &Value) -> Duration {
    stated
        .as_f64()
        .filter(|s| *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(limits::HOOK_COMMAND_TIMEOUT_DEFAULT.duration())
}

fn matcher(text: Option<&str>) -> Option<Matcher> {
    let text = text.unwrap_or_default().trim();
    if text.is_empty() || text == "*" {
        return Some(Matcher::All);
    }
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
    {
        return Some(Matcher::Names(text.split('|').map(str::to_owned).collect()));
    }
    // A pattern that does not compile matches nothing, as a hook the user cannot have meant.
    regex::Regex::new(text).ok().map(Matcher::Pattern)
}

/// Which hooks the settings allow.
pub enum Allowed {
    /// A settings file turns every hook off (`disableAllHooks`).
    None,
    /// The managed settings allow only their own (`allowManagedHooksOnly`): no user, project,
    /// local or plugin hook runs.
    ManagedOnly(Vec<Entry>),
    /// The managed settings' hooks, then the user's, the project's and the local ones; plugins'
    /// may follow.
    All(Vec<Entry>),
}

/// The settings' hooks, the managed file's first.
pub fn load(home: &Path, cwd: &Path) -> Allowed {
    let managed =
        crate::json::read_file(&crate::environment::managed_settings()).unwrap_or(Value::Null);
    let files = crate::environment::settings(home, cwd);
    let off = |f: &Value| f["disableAllHooks"] == Value::Bool(true);
    if off(&managed) || files.iter().any(off) {
        return Allowed::None;
    }
    let mut out = entries(&managed, None);
    if managed["allowManagedHooksOnly"] == Value::Bool(true) {
        return Allowed::ManagedOnly(out);
    }
    out.extend(files.iter().flat_map(|f| entries(f, None)));
    Allowed::All(out)
}

/// A plugin's `hooks/hooks.json` (the settings' shape), its commands told the plugin's root and
/// data folder (`~/.claude/plugins/data/<name>-inline` for a `--plugin-dir` plugin, made on use).
pub fn from_plugin(home: &Path, name: &str, root: &Path) -> Vec<Entry> {
    let Some(file) = crate::json::read_file(&root.join("hooks/hooks.json")) else {
        return Vec::new();
    };
    let id: String = format!("{name}-inline")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let data = home.join(".claude/plugins/data").join(id);
    entries(&file, Some((root.to_owned(), data)))
}

fn entries(settings: &Value, plugin: Option<(PathBuf, PathBuf)>) -> Vec<Entry> {
    walk(&settings["hooks"], |group| {
        group["hooks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h["type"] == "command")
            .filter_map(|h| {
                Some(Command {
                    command: h["command"].as_str()?.to_owned(),
                    callback: false,
                    timeout: timeout(&h["timeout"]),
                    plugin: plugin.clone(),
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(m: Option<&str>) -> Entry {
        Entry {
            event: "PreToolUse".into(),
            matcher: matcher(m).unwrap(),
            commands: Vec::new(),
        }
    }

    #[test]
    fn names_match_whole_patterns_anywhere_and_none_matches_all() {
        assert!(entry(Some("Bash")).matches("Bash"));
        assert!(!entry(Some("Bash")).matches("BashOutput"));
        assert!(entry(Some("Edit|Write")).matches("Write"));
        assert!(entry(Some("Rea.*|Glob")).matches("Read"));
        assert!(entry(Some("mcp__probe__.*")).matches("mcp__probe__echo"));
        assert!(entry(None).matches("Anything"));
        assert!(entry(Some("*")).matches("Anything"));
    }

    #[test]
    fn a_host_registers_functions_by_id_with_its_matcher_and_timeout() {
        let entries = from_host(&serde_json::json!({
            "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5}],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"]}],
        }));
        assert_eq!(entries.len(), 2);
        assert!(entries[0].matches("Bash") && !entries[0].matches("Read"));
        let ids: Vec<&str> = entries[0]
            .commands
            .iter()
            .map(|c| c.command.as_str())
            .collect();
        assert_eq!(ids, ["hook_0", "hook_1"]);
        assert!(entries[0].commands.iter().all(|c| c.callback));
        assert_eq!(entries[0].commands[0].timeout, Duration::from_secs(5));
        assert_eq!(
            entries[1].commands[0].timeout,
            limits::HOOK_COMMAND_TIMEOUT_DEFAULT.duration()
        );
    }
}
