//! EnterWorktree and ExitWorktree (seed 004): the session's cwd and the shell's move into a git
//! worktree and back. Name and path are mutually exclusive; outside a repository nothing happens;
//! a worktree with work in it is removed only with `discard_changes: true`, and one that cannot
//! be removed is kept and said so. Result and error texts are 2.1.235's (recorded).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::schema::Issue;
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::permissions::ToolCheck;
use crate::vocab::Mode;
use crate::worktree::{self, repo, Active};

pub struct EnterWorktree;
pub struct ExitWorktree;

const STAYS: &str = "The session is now working in the worktree. Use ExitWorktree to leave mid-session, or exit the session to be prompted.";
const RESUMED: &str = " A worktree with this name already existed and was resumed as-is \u{2014} it may carry an earlier session\u{2019}s commits. Pass a different name if you wanted a fresh worktree.";
const ALREADY_IN: &str = "Already in a worktree session. Pass `path` to switch into another existing worktree, or use ExitWorktree to leave this one before creating a new worktree.";
const NOT_GIT: &str = "Cannot create a worktree: not in a git repository and no WorktreeCreate hooks are configured. Configure WorktreeCreate/WorktreeRemove hooks in settings.json to use worktree isolation with other VCS systems.";
const NO_SESSION: &str = "No-op: there is no active EnterWorktree session to exit. This tool only operates on worktrees created by EnterWorktree in the current session \u{2014} it will not touch worktrees created manually or in a previous session. No filesystem changes were made.";
const BOTH: &str = "Provide at most one of `name` or `path`, not both.";

/// A JavaScript-truthy string field: present and not empty.
fn given<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input[key].as_str().filter(|s| !s.is_empty())
}

impl Tool for EnterWorktree {
    fn name(&self) -> &'static str {
        "EnterWorktree"
    }

    fn description(&self) -> &'static str {
        "Moves this session into a git worktree: a new one under .claude/worktrees/ on its own \
         branch (from `name`, or a generated name), or an existing registered worktree (`path`). \
         The working directory of the session and of Bash change to it until ExitWorktree. Use \
         only when the user or the project's instructions ask for a worktree."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "name": {"description": "Name of a new worktree: \"/\"-separated segments of letters, digits, dots, underscores and dashes, at most 64 characters. Generated when absent. Not with `path`.", "type": "string"},
                "path": {"description": "An existing worktree (listed by `git worktree list`) to switch into instead of creating one. Not with `name`.", "type": "string"},
            }),
            &[],
        )
    }

    fn refine(&self, input: &Value) -> Vec<Issue> {
        if let Some(Err(message)) = input["name"].as_str().map(worktree::name::validate) {
            return vec![custom(json!(["name"]), message, true)];
        }
        if given(input, "name").is_some() && given(input, "path").is_some() {
            return vec![custom(json!([]), BOTH.into(), false)];
        }
        Vec::new()
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        (ctx.worktree.is_some() && given(input, "path").is_none()).then(|| ALREADY_IN.into())
    }

    fn access(&self, input: &Value, _ctx: &ToolContext) -> Access {
        match given(input, "path") {
            Some(_) => Access::Checked,
            None => Access::Session,
        }
    }

    /// Entering a worktree outside `.claude/worktrees/` moves write access to a place the model
    /// chose: the user is asked, unless permissions are bypassed (recorded: 2.1.235 asks over the
    /// control protocol, refuses under `-p`, enters with `--dangerously-skip-permissions`).
    fn check_permissions(&self, input: &Value, ctx: &mut ToolContext) -> ToolCheck {
        let target = worktree::resolve(&ctx.shell_cwd, given(input, "path").unwrap_or_default());
        if worktree::is_managed(&ctx.shell_cwd, &target)
            || ctx.permissions.mode == Mode::BypassPermissions
        {
            return ToolCheck::Allow;
        }
        let (shown, sanitized) = for_display(&target.display().to_string());
        let resolves = match std::fs::canonicalize(&target) {
            Ok(real) if real != target => {
                format!(
                    " (resolves to \"{}\")",
                    for_display(&real.display().to_string()).0
                )
            }
            _ => String::new(),
        };
        let note = if sanitized {
            " (path sanitized for display)"
        } else {
            ""
        };
        ToolCheck::ask(
            format!("Enter the worktree at \"{shown}\"{resolves}{note}? This moves the session's working directory and write access there, and loads project configuration (CLAUDE.md, settings) from that location."),
            format!("permission-root relocation to \"{shown}\"{resolves}{note} \u{2014} a model-supplied worktree outside .claude/worktrees/"),
        )
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let here = ctx.shell_cwd.clone();
        let (active, verb, note) = match given(input, "path") {
            Some(path) => {
                let target = worktree::resolve(&here, path);
                let managed_only = ctx.worktree.is_some() || worktree::is_managed(&here, &target);
                let (real, branch) = worktree::check_existing(&here, &target, managed_only)
                    .map_err(ToolError::plain)?;
                let repo = repo::root(&here).unwrap_or_else(|| here.clone());
                let previous = ctx.worktree.clone();
                if let Some(prev) = &previous {
                    if !prev.entered_existing && prev.path != real {
                        repo::release(&prev.repo, &prev.path);
                    }
                }
                let active = Active {
                    path: real,
                    branch,
                    repo,
                    base_commit: None,
                    entered_existing: true,
                    added_dir: None,
                    ..origin(ctx, previous)
                };
                (active, "Entered", "")
            }
            None if ctx.hooks.any("WorktreeCreate") => {
                // The user's hook makes the worktree wherever it likes, git or not.
                let name = input["name"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .map_or_else(worktree::name::random, str::to_owned);
                let path = ctx
                    .hooks
                    .worktree_create(&ctx.hook_session(), &name)
                    .map_err(ToolError::plain)?;
                let active = Active {
                    path,
                    repo: here.clone(),
                    by_hook: true,
                    ..origin(ctx, ctx.worktree.clone())
                };
                (active, "Created", "")
            }
            None => {
                let repo = repo::root(&here).ok_or_else(|| ToolError::plain(NOT_GIT))?;
                let name = input["name"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .map_or_else(worktree::name::random, str::to_owned);
                let made = worktree::create(&repo, &name).map_err(ToolError::plain)?;
                let owner = repo::lock(&repo, &made.path, &name);
                let active = Active {
                    path: made.path,
                    branch: Some(made.branch),
                    repo,
                    base_commit: Some(made.base_commit),
                    entered_existing: !owner,
                    added_dir: None,
                    ..origin(ctx, None)
                };
                if made.resumed {
                    (active, "Resumed", RESUMED)
                } else {
                    (active, "Created", "")
                }
            }
        };
        let path = active.path.clone();
        let on_branch = on_branch(active.branch.as_deref());
        let message = format!(
            "{verb} worktree at {}{on_branch}.{note} {STAYS}",
            path.display()
        );
        let mut structured = Map::new();
        structured.insert("worktreePath".into(), json!(path.display().to_string()));
        if let Some(branch) = &active.branch {
            structured.insert("worktreeBranch".into(), json!(branch));
        }
        structured.insert("message".into(), json!(message));
        move_into(ctx, active);
        Ok(ToolOutput {
            content: message,
            structured: Value::Object(structured),
            is_error: None,
            blocks: None,
        })
    }
}

impl Tool for ExitWorktree {
    fn name(&self) -> &'static str {
        "ExitWorktree"
    }

    fn description(&self) -> &'static str {
        "Leaves the worktree this session entered with EnterWorktree and returns to the directory \
         it came from. `keep` leaves the worktree and its branch on disk; `remove` deletes both, \
         and refuses while there are uncommitted files or new commits unless `discard_changes` is \
         true. Call it only when the user asks to leave the worktree."
    }

    fn input_schema(&self) -> Value {
        super::object_schema(
            json!({
                "action": {"description": "keep: leave the worktree and branch on disk; remove: delete both.", "type": "string", "enum": ["keep", "remove"]},
                "discard_changes": {"description": "Must be true to remove a worktree holding uncommitted files or commits of its own.", "type": "boolean"},
            }),
            &["action"],
        )
    }

    fn validate_input(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let Some(active) = &ctx.worktree else {
            return Some(NO_SESSION.into());
        };
        if input["action"] != "remove" {
            return None;
        }
        let p = active.path.display();
        if active.entered_existing {
            return Some(format!("This session is not the owner of the worktree at {p} \u{2014} it either entered a pre-existing worktree via EnterWorktree({{path}}) or resumed into a checkout whose liveness lock another running Claude Code session still holds \u{2014} so this tool will not remove it. Use action: \"keep\" to return to {}. If no other session is using it, remove it yourself with `git worktree remove`; while a live session's lock is present, git will refuse and name the owner.", active.original_shell_cwd.display()));
        }
        if input["discard_changes"] == true {
            return None;
        }
        let Some((files, commits)) = repo::changes(&active.path, active.base_commit.as_deref())
        else {
            return Some(format!("Could not verify worktree state at {p}. Refusing to remove without explicit confirmation. Re-invoke with discard_changes: true to proceed \u{2014} or use action: \"keep\" to preserve the worktree."));
        };
        if files == 0 && commits == 0 {
            return None;
        }
        let mut work = Vec::new();
        if files > 0 {
            work.push(format!("{files} uncommitted {}", plural(files, "file")));
        }
        if commits > 0 {
            let branch = active.branch.as_deref().unwrap_or("the worktree branch");
            work.push(format!(
                "{commits} {} on {branch}",
                plural(commits, "commit")
            ));
        }
        Some(format!("Worktree has {}. Removing will discard this work permanently. Confirm with the user, then re-invoke with discard_changes: true \u{2014} or use action: \"keep\" to preserve the worktree.", work.join(" and ")))
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let active = ctx
            .worktree
            .take()
            .ok_or_else(|| ToolError::plain("Not in a worktree session"))?;
        let (files, commits) =
            repo::changes(&active.path, active.base_commit.as_deref()).unwrap_or((0, 0));
        let path = active.path.clone();
        let p = path.display().to_string();
        let original = active.original_shell_cwd.display().to_string();
        let on_branch = on_branch(active.branch.as_deref());
        let remove = input["action"] == "remove";
        let mut structured = Map::new();
        structured.insert(
            "action".into(),
            json!(if remove { "remove" } else { "keep" }),
        );
        structured.insert("originalCwd".into(), json!(original));
        structured.insert("worktreePath".into(), json!(p));
        if let Some(branch) = &active.branch {
            structured.insert("worktreeBranch".into(), json!(branch));
        }
        let message = if !remove {
            if !active.entered_existing && !active.by_hook {
                repo::release(&active.repo, &path);
            }
            let back = move_back(ctx, &active);
            format!("Exited worktree. Your work is preserved at {p}{on_branch}. {back}")
        } else {
            let back = move_back(ctx, &active);
            let removed = if active.by_hook {
                // Removing it is the WorktreeRemove hook's to do, as 2.1.235 leaves it.
                ctx.hooks.worktree_remove(&ctx.hook_session(), &path);
                true
            } else {
                repo::remove(&active.repo, &path, active.branch.as_deref())
            };
            let (files, commits) = if removed { (files, commits) } else { (0, 0) };
            structured.insert("discardedFiles".into(), json!(files));
            structured.insert("discardedCommits".into(), json!(commits));
            if removed {
                let mut lost = Vec::new();
                if commits > 0 {
                    lost.push(format!("{commits} {}", plural(commits, "commit")));
                }
                if files > 0 {
                    lost.push(format!("{files} uncommitted {}", plural(files, "file")));
                }
                let lost = if lost.is_empty() {
                    String::new()
                } else {
                    format!(" Discarded {}.", lost.join(" and "))
                };
                format!("Exited and removed worktree at {p}.{lost} {back}")
            } else {
                format!("Exited worktree but could not remove it \u{2014} kept at {p}. {back}")
            }
        };
        structured.insert("message".into(), json!(message));
        Ok(ToolOutput {
            content: message,
            structured: Value::Object(structured),
            is_error: None,
            blocks: None,
        })
    }
}

/// A zod `custom` issue: a field's refinement lists `message` before `path`, the object's
/// refinement `path` first.
fn custom(path: Value, message: String, field: bool) -> Issue {
    let zod = if field {
        json!({"code": "custom", "message": message, "path": path})
    } else {
        json!({"code": "custom", "path": path, "message": message})
    };
    Issue {
        sentence: None,
        zod,
    }
}

/// Where the session returns to: the first worktree's origin when switching between worktrees.
fn origin(ctx: &ToolContext, previous: Option<Active>) -> Active {
    let (original_cwd, original_shell_cwd) = match previous {
        Some(prev) => (prev.original_cwd, prev.original_shell_cwd),
        None => (ctx.cwd.clone(), ctx.shell_cwd.clone()),
    };
    Active {
        path: PathBuf::new(),
        branch: None,
        repo: PathBuf::new(),
        original_cwd,
        original_shell_cwd,
        base_commit: None,
        entered_existing: false,
        added_dir: None,
        by_hook: false,
    }
}

/// The session and its shell work in the worktree; write access goes with them.
fn move_into(ctx: &mut ToolContext, mut active: Active) {
    if let Some(dir) = ctx.worktree.take().and_then(|prev| prev.added_dir) {
        ctx.permissions.dirs.retain(|d| *d != dir);
    }
    if !ctx
        .permissions
        .dirs
        .iter()
        .any(|d| active.path.starts_with(d))
    {
        ctx.permissions.dirs.push(active.path.clone());
        active.added_dir = Some(active.path.clone());
    }
    ctx.cwd = active.path.clone();
    ctx.shell_cwd = active.path.clone();
    ctx.worktree = Some(active);
}

/// Back where the session came from (or, when that directory is gone, the nearest that is not);
/// the sentence saying where.
fn move_back(ctx: &mut ToolContext, active: &Active) -> String {
    if let Some(dir) = &active.added_dir {
        ctx.permissions.dirs.retain(|d| d != dir);
    }
    let original = &active.original_shell_cwd;
    if original.is_dir() {
        ctx.cwd = active.original_cwd.clone();
        ctx.shell_cwd = original.clone();
        return format!("Session is now back in {}.", original.display());
    }
    let fallback: PathBuf = [active.path.as_path(), ctx.home.as_path(), Path::new("/")]
        .into_iter()
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("/"))
        .to_owned();
    ctx.cwd = fallback.clone();
    ctx.shell_cwd = fallback.clone();
    let moved = format!(
        "The original directory {} no longer exists, so the session is now in {}.",
        original.display(),
        fallback.display()
    );
    if fallback == active.path {
        moved
    } else {
        format!("{moved} Consider restarting Claude from an existing directory.")
    }
}

fn on_branch(branch: Option<&str>) -> String {
    branch.map_or_else(String::new, |b| format!(" on branch {b}"))
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// A path as the permission card shows it: control characters and quotes replaced, so a name
/// cannot forge the card's text; and whether anything was replaced.
fn for_display(path: &str) -> (String, bool) {
    let quote = |c: char| {
        matches!(
            c,
            '"' | '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{2033}' | '\u{2036}' | '\u{FF02}'
        )
    };
    let shown: String = path
        .chars()
        .map(|c| {
            if c.is_control() || quote(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    let changed = shown != path;
    (shown, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_issues_come_before_the_mutual_exclusion() {
        let issues = EnterWorktree.refine(&json!({"name": "../x", "path": "y"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].zod["path"], json!(["name"]));
        let keys: Vec<&String> = issues[0].zod.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["code", "message", "path"]);
        let both = EnterWorktree.refine(&json!({"name": "x", "path": "y"}));
        assert_eq!(
            both[0].zod,
            json!({"code": "custom", "path": [], "message": BOTH})
        );
        let keys: Vec<&String> = both[0].zod.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["code", "path", "message"]);
    }

    #[test]
    fn an_empty_field_does_not_count_as_given() {
        assert!(EnterWorktree
            .refine(&json!({"name": "ok", "path": ""}))
            .is_empty());
        // An empty name is still a name, and an invalid one.
        let issues = EnterWorktree.refine(&json!({"name": "", "path": "x"}));
        assert!(issues[0].zod["message"]
            .as_str()
            .unwrap()
            .contains("non-empty"));
    }

    #[test]
    fn display_paths_cannot_forge_the_card() {
        assert_eq!(for_display("/a/b"), ("/a/b".into(), false));
        assert_eq!(for_display("/a\"b\n"), ("/a\u{FFFD}b\u{FFFD}".into(), true));
    }
}
