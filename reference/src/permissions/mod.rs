//! The permission decision for one call: rules first (deny, then ask, then allow), then the
//! session's mode. What is neither allowed nor refused becomes a prompt for whoever answers for
//! the user (the host); with nobody to ask (`-p`), the prompt is refused with the text 2.1.235
//! gives the model then.

pub mod bash;
pub mod prefix;
pub mod rules;
mod sensitive;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

pub use rules::{Destination, Rule, Rules};

use crate::vocab::{Access, Mode, Prompt};

pub enum Decision {
    Allow,
    Refuse(Refusal),
    /// Only the user can decide.
    Ask(Prompt),
}

/// A call refused without asking anyone.
pub struct Refusal {
    pub message: String,
    pub kind: RefusalKind,
    /// The decision's own explanation (a safety check's), for the `permission_denied` event.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// An ordinary tool error in `<tool_use_error>` tags (a Read deny rule), not a denial.
    ToolError,
    /// A rule or the mode refused it: a denial with this `decision_reason_type`.
    Denied(&'static str),
    /// Nobody could be asked (`-p`): a denial the model reads as the user's rejection.
    Unanswered,
}

/// A tool's own permission verdict (2.1.235's `checkPermissions`), taken after the deny and ask
/// rules. Its asks are safety checks: no allow rule and no mode answers them for the user.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCheck {
    Allow,
    Deny {
        message: String,
        reason: String,
    },
    /// A question to the user: its reason and kind, what a host is told, and whether "allow
    /// always" is offered. [`ToolCheck::ask`] makes the common one.
    Question(Box<Prompt>),
}

impl ToolCheck {
    /// The common question: a safety check with this reason (none when `reason` is empty, as
    /// 2.1.235's Workflow review names none), `message` on the card and in a refusal when nobody
    /// can be asked (-p).
    pub fn ask(message: impl Into<String>, reason: impl Into<String>) -> ToolCheck {
        let (message, reason) = (message.into(), reason.into());
        ToolCheck::Question(Box::new(Prompt {
            unanswered: message.clone(),
            reason_type: (!reason.is_empty()).then_some("safetyCheck"),
            reason: (!reason.is_empty()).then_some(reason),
            message: Some(message),
            ..Prompt::default()
        }))
    }
}

/// The text 2.1.235 gives when the mode refuses without asking.
fn dont_ask(tool: &str) -> String {
    format!(
        "Permission to use {tool} has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."
    )
}

/// A sensitive file's question: a safety check a classifier may answer, whose text is also the
/// refusal when nobody can.
fn safety_question(
    message: String,
    suggestions: Vec<Value>,
    blocked_path: Option<PathBuf>,
) -> Prompt {
    Prompt {
        unanswered: message.clone(),
        suggestions: Some(suggestions),
        blocked_path,
        reason: Some(message),
        reason_type: Some("safetyCheck"),
        approvable: true,
        ..Prompt::default()
    }
}

/// 2.1.235's refusal, with nobody to ask, of a command let out of the sandbox that only the
/// mode would have allowed.
const SANDBOX_OVERRIDE: &str = "Run outside of the sandbox";

/// Why 2.1.235 asks about a command no rule allows (`decision_reason`, type `other`).
const NEEDS_APPROVAL: &str = "This command requires approval";

/// The reference's refusal of a command in plan mode (seed 004: plan mode refuses changes until
/// a plan is approved; 2.1.235 asks the user instead).
pub const PLAN_MODE_REFUSAL: &str = "Plan mode is active: nothing may be changed until the user approves a plan. Keep exploring and planning, then call ExitPlanMode.";

/// The refusal of a file write in plan mode: 2.1.235's text where nobody can answer its question.
pub fn plan_mode_write_refusal(path: &Path) -> String {
    format!("Cannot write to {} while in plan mode.", path.display())
}

pub struct Permissions {
    pub mode: Mode,
    /// The mode plan mode was entered from, restored when the user approves the plan.
    pub before_plan: Option<Mode>,
    pub rules: Rules,
    /// Where files may be created or changed without question: cwd, `--add-dir`s and the
    /// directories the user added this session.
    pub dirs: Vec<PathBuf>,
    cwd: PathBuf,
    home: PathBuf,
}

impl Permissions {
    /// The session's permissions; the warnings go to stderr.
    pub fn load(
        mode: Mode,
        cwd: &Path,
        home: &Path,
        allowed: &[String],
        disallowed: &[String],
    ) -> (Self, Vec<String>) {
        let (rules, warnings) = Rules::load(cwd, home, allowed, disallowed);
        let permissions = Permissions {
            mode,
            before_plan: None,
            rules,
            dirs: vec![cwd.to_owned()],
            cwd: cwd.to_owned(),
            home: home.to_owned(),
        };
        (permissions, warnings)
    }

    pub fn decide(&self, tool: &str, access: &Access) -> Decision {
        match access {
            Access::ReadFile(path) if self.rules.read_denied(path) => Decision::Refuse(Refusal {
                message: "File is in a directory that is denied by your permission settings.".into(),
                kind: RefusalKind::ToolError,
                reason: None,
            }),
            Access::ReadFile(_) | Access::Session => Decision::Allow,
            Access::Checked => self.rule_gate(tool).unwrap_or(Decision::Allow),
            Access::WriteFile { path, verb } if self.rules.read_denied(path) => Decision::Refuse(Refusal {
                message: format!("File is covered by a Read deny rule in your permission settings and cannot be {verb}."),
                kind: RefusalKind::ToolError,
                reason: None,
            }),
            Access::WriteFile { path, .. } => self.by_rules(tool, None).unwrap_or_else(|| self.write(tool, path)),
            Access::Execute(command) => {
                // Parsed once: the rules and the mode judge the same segments.
                let segments = bash::segments(command);
                self.by_rules(tool, Some((command, &segments)))
                    .unwrap_or_else(|| self.execute(command, &segments))
            }
            Access::Unsandboxed(command) => {
                let segments = bash::segments(command);
                if let Some(decision) = self.by_rules(tool, Some((command, &segments))) {
                    return decision;
                }
                match self.execute(command, &segments) {
                    Decision::Allow if self.mode != Mode::BypassPermissions => {
                        Decision::Ask(Prompt {
                            unanswered: SANDBOX_OVERRIDE.into(),
                            reason: Some("dangerouslyDisableSandbox".into()),
                            reason_type: Some("sandboxOverride"),
                            ..Prompt::default()
                        })
                    }
                    other => other,
                }
            }
            Access::Fetch(host) => self.fetch(tool, host),
            Access::Mcp(name) => self.by_rules(tool, None).unwrap_or_else(|| match self.mode {
                Mode::BypassPermissions => Decision::Allow,
                Mode::DontAsk => refuse(dont_ask(tool), "mode"),
                _ => Decision::Ask(Prompt {
                    unanswered: format!("Claude requested permissions to use {name}, but you haven't granted it yet."),
                    ..Prompt::default()
                }),
            }),
        }
    }

    /// The decision once a PreToolUse hook answered `allow`: it answers the question a mode
    /// would put, while a deny or an ask rule on the call still speaks (2.1.235 refuses a
    /// command a deny rule names whatever a hook said).
    pub fn hook_allowed(&self, tool: &str, access: &Access) -> Decision {
        let by_rules = match access {
            Access::Execute(command) | Access::Unsandboxed(command) => {
                let segments = bash::segments(command);
                self.by_rules(tool, Some((command, &segments)))
            }
            _ => self.by_rules(tool, None),
        };
        match by_rules {
            Some(Decision::Allow) | None => Decision::Allow,
            Some(other) => other,
        }
    }

    /// What a deny or an ask rule on the whole tool says before the tool's own check runs.
    pub fn rule_gate(&self, tool: &str) -> Option<Decision> {
        match self.by_rules(tool, None) {
            Some(Decision::Allow) | None => None,
            other => other,
        }
    }

    /// A tool's own verdict as the decision: a denial is a safety check's, an ask goes to the
    /// user whatever the mode (don't-ask mode refuses it).
    pub fn from_check(&self, tool: &str, check: ToolCheck) -> Decision {
        match check {
            ToolCheck::Allow => Decision::Allow,
            // A tool's own rule (`Workflow(name)` in a deny list) refuses as a rule does.
            ToolCheck::Deny { message, reason } if reason == "rule" => refuse(message, "rule"),
            ToolCheck::Deny { message, reason } => Decision::Refuse(Refusal {
                message,
                kind: RefusalKind::Denied("safetyCheck"),
                reason: Some(reason),
            }),
            ToolCheck::Question(_) if self.mode == Mode::DontAsk => refuse(dont_ask(tool), "mode"),
            // Nobody to ask (-p): 2.1.235 refuses with the check's own message.
            ToolCheck::Question(prompt) => Decision::Ask(*prompt),
        }
    }

    /// A deny rule refuses, an ask rule asks, an allow rule allows; `None` when no rule speaks.
    /// A command is judged whole and by its segments: a rule on any segment denies or asks, and
    /// a line is allowed when each of its segments is (by a rule, or because it only reads).
    fn by_rules(&self, tool: &str, command: Option<(&str, &[bash::Segment])>) -> Option<Decision> {
        let segments: &[bash::Segment] = command.map_or(&[], |(_, s)| s);
        let texts: Vec<String> = segments.iter().map(bash::Segment::text).collect();
        let command = command.map(|(c, _)| c);
        let hits = |rule: &Rule| -> bool {
            match command {
                Some(c) => rule.matches_command(c) || texts.iter().any(|s| rule.matches_command(s)),
                None => rule.tool == tool && rule.content.is_none(),
            }
        };
        if self.rules.deny.iter().any(hits) {
            let message = match command {
                Some(c) => format!("Permission to use {tool} with command {c} has been denied."),
                None => format!("Permission to use {tool} has been denied."),
            };
            return Some(refuse(message, "rule"));
        }
        if self.rules.ask.iter().any(hits) {
            return Some(Decision::Ask(Prompt {
                unanswered: format!(
                    "Claude requested permissions to use {tool}, but you haven't granted it yet."
                ),
                reason_type: Some("rule"),
                ..Prompt::default()
            }));
        }
        let allowed = match command {
            Some(c) => {
                self.rules.allow.iter().any(|r| r.matches_command(c))
                    || (!segments.is_empty()
                        && segments.iter().zip(&texts).all(|(s, text)| {
                            s.read_only()
                                || self.rules.allow.iter().any(|r| r.matches_command(text))
                        }))
                        && self.rules.allow.iter().any(|r| r.tool == tool)
            }
            None => self
                .rules
                .allow
                .iter()
                .any(|r| r.tool == tool && r.content.is_none()),
        };
        allowed.then_some(Decision::Allow)
    }

    /// A fetch from `host`: a rule on the whole tool or on the domain (`WebFetch(domain:host)`)
    /// decides first, then the mode; the question proposes the domain's rule. Every mode but
    /// bypass and don't-ask asks (recorded on 2.1.235, `core.permission-modes`).
    fn fetch(&self, tool: &str, host: &str) -> Decision {
        let domain = format!("domain:{host}");
        let names = |r: &Rule| r.tool == tool && r.content.as_deref().is_none_or(|c| c == domain);
        if let Some(decision) = self.rule_gate(tool) {
            return decision;
        }
        if self.rules.deny.iter().any(names) {
            return refuse(format!("Permission to use {tool} has been denied."), "rule");
        }
        if self.rules.allow.iter().any(names) && !self.rules.ask.iter().any(names) {
            return Decision::Allow;
        }
        match self.mode {
            Mode::BypassPermissions => Decision::Allow,
            Mode::DontAsk => refuse(dont_ask(tool), "mode"),
            _ => Decision::Ask(Prompt {
                unanswered: format!(
                    "Claude requested permissions to use {tool}, but you haven't granted it yet."
                ),
                // Keys in 2.1.235's order for this suggestion, which differs from Bash's.
                suggestions: Some(vec![
                    json!({"type": "addRules", "destination": "localSettings", "rules": [{"toolName": tool, "ruleContent": domain}], "behavior": "allow"}),
                ]),
                ..Prompt::default()
            }),
        }
    }

    fn write(&self, tool: &str, path: &Path) -> Decision {
        let accepting = match self.mode {
            Mode::BypassPermissions => return Decision::Allow,
            Mode::DontAsk => return refuse(dont_ask(tool), "mode"),
            Mode::Plan => return refuse(plan_mode_write_refusal(path), "mode"),
            Mode::AcceptEdits => true,
            Mode::Default => false,
        };
        // acceptEdits has nothing to propose about the mode; its questions carry an empty list.
        let mut suggestions = if accepting {
            Vec::new()
        } else {
            vec![set_mode_suggestion()]
        };
        if let Some(message) = sensitive::check(path) {
            return Decision::Ask(safety_question(message, suggestions, None));
        }
        let inside = self.dirs.iter().any(|d| path.starts_with(d));
        if inside && accepting {
            return Decision::Allow;
        }
        let (mut reason, mut reason_type) = (None, None);
        if !inside {
            if let Some(dir) = path.parent() {
                suggestions.push(json!({"type": "addDirectories", "directories": [dir.display().to_string()], "destination": "session"}));
            }
            reason = Some("Path is outside allowed working directories".into());
            reason_type = Some("workingDir");
        }
        Decision::Ask(Prompt {
            unanswered: format!(
                "Claude requested permissions to write to {}, but you haven't granted it yet.",
                path.display()
            ),
            suggestions: Some(suggestions),
            reason,
            reason_type,
            ..Prompt::default()
        })
    }

    fn execute(&self, command: &str, segments: &[bash::Segment]) -> Decision {
        let read_only = !segments.is_empty() && segments.iter().all(bash::Segment::read_only);
        let written = segments.iter().find_map(|s| {
            // `..` resolved by name, as 2.1.235 names the path (recorded: sandbox.escape).
            s.written_path()
                .map(|(name, path)| (name.to_owned(), crate::worktree::resolve(&self.cwd, path)))
        });
        let rule = json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": prefix::suggested_rule(command)}], "behavior": "allow", "destination": "localSettings"});
        if matches!(self.mode, Mode::Default | Mode::AcceptEdits) {
            let sensitive = written
                .as_ref()
                .and_then(|(_, path)| Some((path, sensitive::check(path)?)));
            if let Some((path, message)) = sensitive {
                let dir = path.parent().unwrap_or(&self.cwd).display().to_string();
                let suggestions = vec![
                    rule,
                    json!({"type": "addDirectories", "directories": [dir], "destination": "session"}),
                ];
                return Decision::Ask(safety_question(message, suggestions, Some(path.clone())));
            }
        }
        match self.mode {
            Mode::BypassPermissions | Mode::AcceptEdits => Decision::Allow,
            _ if read_only => Decision::Allow,
            Mode::DontAsk => refuse(dont_ask("Bash"), "mode"),
            Mode::Plan => refuse(PLAN_MODE_REFUSAL.into(), "mode"),
            Mode::Default => {
                let mut suggestions = vec![rule];
                // A command no rule speaks for: 2.1.235's own reason, which is also its refusal.
                let (mut reason, mut reason_type) = (None, None);
                let unanswered = match &written {
                    Some((name, path)) => {
                        let dir = path.parent().unwrap_or(&self.cwd).display().to_string();
                        suggestions.push(json!({"type": "addDirectories", "directories": [dir], "destination": "session"}));
                        suggestions.push(set_mode_suggestion());
                        format!(
                            "{name} in '{}' was blocked. For security, Claude Code may only create or modify files in the allowed working directories for this session: '{}'.",
                            path.display(),
                            self.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join("', '")
                        )
                    }
                    None => {
                        reason = Some(NEEDS_APPROVAL.to_owned());
                        reason_type = Some("other");
                        NEEDS_APPROVAL.to_owned()
                    }
                };
                Decision::Ask(Prompt {
                    unanswered,
                    suggestions: Some(suggestions),
                    blocked_path: written.map(|(_, p)| p),
                    reason,
                    reason_type,
                    ..Prompt::default()
                })
            }
        }
    }

    /// Applies one update the user accepted ("allow always"): rules kept where it says, a mode,
    /// a directory. Returns the new mode when the mode changed.
    pub fn keep(&mut self, update: &Value) -> std::io::Result<Option<Mode>> {
        match update["type"].as_str() {
            Some("addRules") if update["behavior"] == "allow" => {
                let rules: Vec<Rule> = update["rules"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| {
                        Some(Rule {
                            tool: r["toolName"].as_str()?.to_owned(),
                            content: r["ruleContent"].as_str().map(str::to_owned),
                        })
                    })
                    .collect();
                let destination = update["destination"]
                    .as_str()
                    .and_then(Destination::parse)
                    .unwrap_or(Destination::Session);
                rules::persist(destination, &rules, &self.cwd, &self.home)?;
                self.rules.allow.extend(rules);
                Ok(None)
            }
            Some("setMode") => Ok(update["mode"]
                .as_str()
                .and_then(Mode::parse)
                .inspect(|m| self.mode = *m)),
            Some("addDirectories") => {
                self.dirs.extend(
                    update["directories"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(PathBuf::from),
                );
                Ok(None)
            }
            _ => Ok(None),
        }
    }
}

fn refuse(message: String, reason_type: &'static str) -> Decision {
    Decision::Refuse(Refusal {
        message,
        kind: RefusalKind::Denied(reason_type),
        reason: None,
    })
}

fn set_mode_suggestion() -> Value {
    json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permissions(settings: &str) -> (tempfile::TempDir, Permissions) {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(cwd.join(".claude/settings.local.json"), settings).unwrap();
        let (p, _) = Permissions::load(Mode::Default, &cwd, dir.path(), &[], &[]);
        (dir, p)
    }

    fn verdict(p: &Permissions, command: &str) -> &'static str {
        match p.decide("Bash", &Access::Execute(command.into())) {
            Decision::Allow => "allow",
            Decision::Ask(_) => "ask",
            Decision::Refuse(_) => "refuse",
        }
    }

    fn fetch(p: &Permissions, host: &str) -> Decision {
        p.decide("WebFetch", &Access::Fetch(host.into()))
    }

    #[test]
    fn a_fetch_asks_proposing_its_domain_and_a_domain_rule_answers_only_for_that_domain() {
        let (_d, mut p) =
            permissions(r#"{"permissions": {"allow": ["WebFetch(domain:docs.example.test)"]}}"#);
        assert!(matches!(fetch(&p, "docs.example.test"), Decision::Allow));
        let Decision::Ask(prompt) = fetch(&p, "other.example.test") else {
            panic!("another domain asks");
        };
        assert_eq!(
            prompt.suggestions.unwrap()[0]["rules"][0]["ruleContent"],
            "domain:other.example.test"
        );
        p.mode = Mode::BypassPermissions;
        assert!(matches!(fetch(&p, "other.example.test"), Decision::Allow));
        p.mode = Mode::DontAsk;
        assert!(matches!(
            fetch(&p, "other.example.test"),
            Decision::Refuse(_)
        ));
        let (_d, p) =
            permissions(r#"{"permissions": {"deny": ["WebFetch(domain:docs.example.test)"]}}"#);
        assert!(matches!(
            fetch(&p, "docs.example.test"),
            Decision::Refuse(_)
        ));
    }

    #[test]
    fn default_mode_allows_reads_and_asks_for_the_rest() {
        let (_d, p) = permissions("{}");
        assert_eq!(verdict(&p, "ls"), "allow");
        assert_eq!(verdict(&p, "cat notes.txt"), "allow");
        assert_eq!(verdict(&p, "cat notes.txt && touch made.txt"), "ask");
        assert_eq!(verdict(&p, "npm test"), "ask");
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let (_d, p) = permissions(
            r#"{"permissions":{"allow":["Bash(touch made.txt)"],"deny":["Bash(touch:*)"]}}"#,
        );
        assert_eq!(verdict(&p, "touch made.txt"), "refuse");
        assert_eq!(
            verdict(&p, "ls && touch made.txt"),
            "refuse",
            "a denied segment denies the line"
        );
        let (_d, p) = permissions(
            r#"{"permissions":{"allow":["Bash(touch made.txt)"],"ask":["Bash(touch made.txt)"]}}"#,
        );
        assert_eq!(verdict(&p, "touch made.txt"), "ask");
        let (_d, p) = permissions(r#"{"permissions":{"allow":["Bash(touch made.txt)"]}}"#);
        assert_eq!(verdict(&p, "touch made.txt"), "allow");
        assert_eq!(
            verdict(&p, "ls && touch made.txt"),
            "allow",
            "each segment allowed"
        );
        assert_eq!(verdict(&p, "touch other.txt"), "ask");
    }

    #[test]
    fn a_blocked_write_names_its_path_in_the_prompt() {
        let (_d, p) = permissions("{}");
        let Decision::Ask(prompt) = p.decide("Bash", &Access::Execute("touch made.txt".into()))
        else {
            panic!("asks")
        };
        assert!(prompt.blocked_path.unwrap().ends_with("work/made.txt"));
        assert_eq!(prompt.suggestions.as_ref().map(Vec::len), Some(3));
        assert!(
            prompt.unanswered.starts_with("touch in '"),
            "{}",
            prompt.unanswered
        );
    }

    #[test]
    fn kept_rules_apply_at_once_and_land_in_the_local_settings() {
        let (dir, mut p) = permissions("{}");
        let Decision::Ask(prompt) = p.decide("Bash", &Access::Execute("touch made.txt".into()))
        else {
            panic!("asks")
        };
        p.keep(&prompt.suggestions.unwrap()[0]).unwrap();
        assert_eq!(verdict(&p, "touch made.txt"), "allow");
        let written =
            std::fs::read_to_string(dir.path().join("work/.claude/settings.local.json")).unwrap();
        assert!(written.contains("\"Bash(touch made.txt)\""), "{written}");
    }

    #[test]
    fn plan_mode_refuses_changes_and_allows_reads() {
        let (_d, mut p) = permissions("{}");
        p.mode = Mode::Plan;
        assert_eq!(verdict(&p, "ls"), "allow");
        assert_eq!(verdict(&p, "touch made.txt"), "refuse");
    }
}
