//! Permission rules: `Tool` or `Tool(content)` in the `allow`, `ask` and `deny` lists of the
//! settings files and the command line. Deny beats ask beats allow. An allow rule in the
//! project's shared settings counts only once the workspace is trusted: 2.1.235 ignores it
//! otherwise and says so on stderr (deny and ask rules from the same file still apply).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::{json, Value};

/// Where "allow always" keeps a rule, as the control protocol names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// `<cwd>/.claude/settings.local.json`
    Local,
    /// `<cwd>/.claude/settings.json`
    Project,
    /// `~/.claude/settings.json`
    User,
    /// This session only.
    Session,
}

impl Destination {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "localSettings" => Destination::Local,
            "projectSettings" => Destination::Project,
            "userSettings" => Destination::User,
            "session" | "cliArg" => Destination::Session,
            _ => return None,
        })
    }

    fn file(self, cwd: &Path, home: &Path) -> Option<PathBuf> {
        let [user, project, local] = crate::environment::settings_files(home, cwd);
        match self {
            Destination::Local => Some(local),
            Destination::Project => Some(project),
            Destination::User => Some(user),
            Destination::Session => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub tool: String,
    pub content: Option<String>,
}

impl Rule {
    /// `Bash(touch made.txt)` → tool `Bash`, content `touch made.txt`; `Edit` → no content.
    pub fn parse(text: &str) -> Option<Rule> {
        let text = text.trim();
        match text.split_once('(') {
            Some((tool, rest)) => Some(Rule {
                tool: tool.trim().to_owned(),
                content: Some(rest.strip_suffix(')')?.to_owned()),
            }),
            None if !text.is_empty() => Some(Rule {
                tool: text.to_owned(),
                content: None,
            }),
            None => None,
        }
    }

    pub fn text(&self) -> String {
        match &self.content {
            Some(c) => format!("{}({c})", self.tool),
            None => self.tool.clone(),
        }
    }

    /// Whether a Bash command (or one of its segments) is what this rule names: the exact
    /// command, or `prefix:*` / `prefix *` for a command that starts with that word sequence.
    pub fn matches_command(&self, command: &str) -> bool {
        if self.tool != "Bash" {
            return false;
        }
        let Some(content) = &self.content else {
            return true;
        };
        let command = command.trim();
        match content
            .strip_suffix(":*")
            .or_else(|| content.strip_suffix(" *"))
        {
            Some(prefix) => {
                command == prefix
                    || command
                        .strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with(' '))
            }
            // A `*` elsewhere stands for any text (2.1.235 denies `touch allow-vs-deny.txt` by
            // `Bash(touch allow-vs-deny*)`).
            None if content.contains('*') => wildcard(content, command),
            None => command == content,
        }
    }
}

/// Whether `text` is `pattern` with each `*` standing for any run of characters.
fn wildcard(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// The rules of a session, by list.
#[derive(Debug, Default)]
pub struct Rules {
    pub allow: Vec<Rule>,
    pub ask: Vec<Rule>,
    pub deny: Vec<Rule>,
    /// `Read(path)` deny rules as absolute globs (Edit and Write inherit them).
    pub read_deny: Option<GlobSet>,
}

/// What loading the rules had to say (stderr lines).
pub type Warnings = Vec<String>;

impl Rules {
    /// The rules of the user's, the project's and the local settings files, then the command
    /// line's `--allowedTools` / `--disallowedTools`.
    pub fn load(
        cwd: &Path,
        home: &Path,
        allowed: &[String],
        disallowed: &[String],
    ) -> (Rules, Warnings) {
        let trusted = trusted(cwd, home);
        let mut rules = Rules::default();
        let mut warnings = Vec::new();
        let mut read_deny = GlobSetBuilder::new();
        // Each file's relative paths are read from its own root; `--settings` last, from cwd.
        let roots = [home.join(".claude"), cwd.to_owned(), cwd.to_owned()];
        let files = crate::environment::read_settings_files(home, cwd)
            .into_iter()
            .map(|file| file.as_deref().and_then(crate::json::read_file));
        let sources: Vec<(Option<Value>, PathBuf)> = files
            .zip(roots)
            .chain(std::iter::once((
                crate::environment::sources::flag().cloned(),
                cwd.to_owned(),
            )))
            .collect();
        for (i, (settings, root)) in sources.iter().enumerate() {
            let Some(settings) = settings else {
                continue;
            };
            let list = |name: &str| crate::json::strings(&settings["permissions"][name]);
            let allow = list("allow");
            if i == 1 && !trusted && !allow.is_empty() {
                let n = allow.len();
                warnings.push(format!(
                    "Ignoring {n} permissions.allow {} from .claude/settings.json: this workspace has not been trusted. Run Claude Code interactively here once and accept the trust dialog, or set projects[\"{}\"].hasTrustDialogAccepted: true in {}.",
                    if n == 1 { "entry" } else { "entries" },
                    cwd.display(),
                    home.join(".claude.json").display()
                ));
            } else {
                rules
                    .allow
                    .extend(allow.iter().filter_map(|r| Rule::parse(r)));
            }
            rules
                .ask
                .extend(list("ask").iter().filter_map(|r| Rule::parse(r)));
            for text in list("deny") {
                let Some(rule) = Rule::parse(&text) else {
                    continue;
                };
                if let (true, Some(pattern)) = (rule.tool == "Read", &rule.content) {
                    if let Ok(glob) = Glob::new(&absolute_pattern(pattern, root, home)) {
                        read_deny.add(glob);
                    }
                }
                rules.deny.push(rule);
            }
        }
        rules
            .allow
            .extend(allowed.iter().filter_map(|r| Rule::parse(r)));
        rules
            .deny
            .extend(disallowed.iter().filter_map(|r| Rule::parse(r)));
        rules.read_deny = read_deny.build().ok();
        (rules, warnings)
    }

    pub fn read_denied(&self, path: &Path) -> bool {
        self.read_deny.as_ref().is_some_and(|g| g.is_match(path))
    }
}

/// Whether the user accepted the trust dialog for `cwd` (`~/.claude.json`).
fn trusted(cwd: &Path, home: &Path) -> bool {
    crate::json::read_file(&home.join(".claude.json")).is_some_and(|state| {
        state["projects"][cwd.display().to_string().as_str()]["hasTrustDialogAccepted"] == true
    })
}

/// Adds `rules` to the allow list of `destination`'s settings file (created when missing,
/// other settings kept), as "allow always" does. Written as 2.1.235 writes it: two-space JSON and
/// a final newline.
pub fn persist(
    destination: Destination,
    rules: &[Rule],
    cwd: &Path,
    home: &Path,
) -> std::io::Result<()> {
    let Some(file) = destination.file(cwd, home) else {
        return Ok(());
    };
    let mut settings = crate::json::read_file(&file).unwrap_or_else(|| json!({}));
    if !settings["permissions"].is_object() {
        settings["permissions"] = json!({});
    }
    if !settings["permissions"]["allow"].is_array() {
        settings["permissions"]["allow"] = json!([]);
    }
    let allow = settings["permissions"]["allow"]
        .as_array_mut()
        .expect("made an array above");
    for rule in rules {
        let text = Value::String(rule.text());
        if !allow.contains(&text) {
            allow.push(text);
        }
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = serde_json::to_string_pretty(&settings)?;
    text.push('\n');
    std::fs::write(&file, text)
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

    #[test]
    fn command_rules_match_exactly_or_by_prefix() {
        let exact = Rule::parse("Bash(touch made.txt)").unwrap();
        assert!(exact.matches_command("touch made.txt"));
        assert!(!exact.matches_command("touch made.txt2"));
        let prefix = Rule::parse("Bash(touch:*)").unwrap();
        assert!(prefix.matches_command("touch made.txt"));
        assert!(prefix.matches_command("touch"));
        assert!(!prefix.matches_command("touchy x"));
        assert!(Rule::parse("Bash").unwrap().matches_command("anything"));
        assert!(!Rule::parse("Edit").unwrap().matches_command("ls"));
    }

    #[test]
    fn a_star_inside_a_command_rule_stands_for_any_text() {
        let rule = Rule::parse("Bash(touch allow-vs-deny*)").unwrap();
        assert!(rule.matches_command("touch allow-vs-deny.txt"));
        assert!(rule.matches_command("touch allow-vs-deny"));
        assert!(!rule.matches_command("touch other.txt"));
        let middle = Rule::parse("Bash(git * main)").unwrap();
        assert!(middle.matches_command("git push origin main"));
        assert!(!middle.matches_command("git push origin main2"));
        assert!(!middle.matches_command("gitx push main"));
    }

    #[test]
    fn persisted_rules_keep_other_settings_and_are_not_repeated() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("w");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(cwd.join(".claude/settings.local.json"), r#"{"model":"x"}"#).unwrap();
        let rule = Rule::parse("Bash(touch made.txt)").unwrap();
        persist(
            Destination::Local,
            std::slice::from_ref(&rule),
            &cwd,
            dir.path(),
        )
        .unwrap();
        persist(Destination::Local, &[rule], &cwd, dir.path()).unwrap();
        let text = std::fs::read_to_string(cwd.join(".claude/settings.local.json")).unwrap();
        assert_eq!(
            text,
            "{\n  \"model\": \"x\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(touch made.txt)\"\n    ]\n  }\n}\n"
        );
    }

    #[test]
    fn read_rule_forms_match_as_recorded() {
        let denies = |rule: &str, path: &str| {
            let dir = tempfile::tempdir().unwrap();
            let cwd = dir.path().join("work");
            std::fs::create_dir_all(cwd.join(".claude")).unwrap();
            std::fs::write(
                cwd.join(".claude/settings.json"),
                format!(r#"{{"permissions":{{"deny":["{rule}"]}}}}"#),
            )
            .unwrap();
            let (rules, _) = Rules::load(&cwd, dir.path(), &[], &[]);
            rules.read_denied(&cwd.join(path))
        };
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

    #[test]
    fn project_allow_rules_wait_for_trust() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(
            cwd.join(".claude/settings.json"),
            r#"{"permissions":{"allow":["Bash(touch made.txt)"],"deny":["Bash(rm:*)"]}}"#,
        )
        .unwrap();
        let (rules, warnings) = Rules::load(&cwd, dir.path(), &[], &[]);
        assert!(rules.allow.is_empty());
        assert_eq!(rules.deny.len(), 1, "deny rules apply untrusted");
        assert!(warnings[0]
            .starts_with("Ignoring 1 permissions.allow entry from .claude/settings.json"));
        std::fs::write(
            dir.path().join(".claude.json"),
            format!(
                r#"{{"projects":{{"{}":{{"hasTrustDialogAccepted":true}}}}}}"#,
                cwd.display()
            ),
        )
        .unwrap();
        let (rules, warnings) = Rules::load(&cwd, dir.path(), &[], &[]);
        assert_eq!(rules.allow.len(), 1);
        assert!(warnings.is_empty());
    }
}
