//! Skills: discovered from the user's, the project's and plugins' `skills/<name>/SKILL.md`, listed
//! to the model by name and description within the listing budget, their body loaded only when
//! the Skill tool launches one.

use std::path::{Path, PathBuf};

use super::plugins::Plugin;
use crate::limits;

#[derive(Debug, Clone)]
pub struct Skill {
    /// The directory name (`plugin:dir` for a plugin's), which the listing shows.
    pub name: String,
    /// The frontmatter `name`, which the Skill tool also resolves.
    pub alias: Option<String>,
    pub description: String,
    pub when_to_use: Option<String>,
    pub body: String,
    pub dir: PathBuf,
    pub model_invocable: bool,
}

/// User skills, then project skills, then plugin skills; each source in name order.
pub fn discover(home: &Path, cwd: &Path, plugins: &[Plugin]) -> Vec<Skill> {
    let mut out = from_dir(&home.join(".claude/skills"), None);
    out.extend(from_dir(&cwd.join(".claude/skills"), None));
    for p in plugins {
        out.extend(from_dir(&p.dir.join("skills"), Some(&p.name)));
    }
    out
}

fn from_dir(dir: &Path, plugin: Option<&str>) -> Vec<Skill> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("SKILL.md").is_file())
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|d| {
            let text = std::fs::read_to_string(d.join("SKILL.md")).ok()?;
            let dir_name = d.file_name()?.to_string_lossy().into_owned();
            let (front, body) = split_frontmatter(&text);
            let field = |k: &str| {
                front.lines().find_map(|l| {
                    let (key, v) = l.split_once(':')?;
                    (key.trim() == k).then(|| v.trim().trim_matches('"').to_owned())
                })
            };
            let description = field("description").unwrap_or_else(|| {
                body.lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            });
            Some(Skill {
                name: match plugin {
                    Some(p) => format!("{p}:{dir_name}"),
                    None => dir_name,
                },
                alias: field("name"),
                description,
                when_to_use: field("when_to_use"),
                body: body.to_owned(),
                model_invocable: field("disable-model-invocation").as_deref() != Some("true"),
                dir: d,
            })
        })
        .collect()
}

fn split_frontmatter(text: &str) -> (&str, &str) {
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---\n") {
            return (&rest[..end], &rest[end + 5..]);
        }
    }
    ("", text)
}

/// The listing reminder for the first user message, or None without skills to list: the
/// user's skills within the budget, then the built-in lines (`builtins::listing_lines`).
pub fn listing(skills: &[Skill], budget: usize, builtin: &[String]) -> Option<String> {
    let listed: Vec<&Skill> = skills.iter().filter(|s| s.model_invocable).collect();
    if listed.is_empty() && builtin.is_empty() {
        return None;
    }
    let max = limits::SKILL_LISTING_DESCRIPTION_MAX.usize();
    let full: Vec<String> = listed
        .iter()
        .map(|s| {
            let mut d = s.description.clone();
            if let Some(w) = &s.when_to_use {
                d = format!("{d} - {w}");
            }
            if d.chars().count() > max {
                d = d.chars().take(max - 1).collect::<String>() + "…";
            }
            format!("- {}: {d}", s.name)
        })
        .collect();
    let size = |lines: &[String]| {
        lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
    };
    let mut lines = full.clone();
    if size(&full) > budget {
        // Over budget: every entry starts name-only, then descriptions come back greedily in
        // order while they fit (a miss does not stop the fill).
        lines = listed.iter().map(|s| format!("- {}", s.name)).collect();
        let mut remaining = budget.saturating_sub(size(&lines));
        for (i, f) in full.iter().enumerate() {
            let extra = f.chars().count() - lines[i].chars().count();
            if extra <= remaining {
                remaining -= extra;
                lines[i] = f.clone();
            }
        }
    }
    lines.extend(builtin.iter().cloned());
    Some(format!(
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n{}\n</system-reminder>",
        lines.join("\n")
    ))
}

/// The listing budget: 1% of the context window in chars, or `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
pub fn budget() -> usize {
    std::env::var("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(limits::SKILL_LISTING_BUDGET_AT_200K.usize())
}

/// Where a skill came from as 2.1.235 names it (`userSettings:tidy`, recorded: compact.restore);
/// a project's skill `projectSettings:NAME`; any other (plugin, built-in) by its name alone, not
/// recorded.
pub fn origin(skill: &Skill, home: &Path, cwd: &Path) -> String {
    if skill.dir.starts_with(home.join(".claude/skills")) {
        format!("userSettings:{}", skill.name)
    } else if skill.dir.starts_with(cwd.join(".claude/skills")) {
        format!("projectSettings:{}", skill.name)
    } else {
        skill.name.clone()
    }
}

/// The block a launched skill adds after its tool_result.
pub fn body_block(skill: &Skill, args: Option<&str>) -> String {
    let mut body = skill.body.clone();
    if let Some(a) = args.filter(|a| !a.is_empty()) {
        if body.contains("$ARGUMENTS") {
            body = body.replace("$ARGUMENTS", a);
        } else {
            body.push_str(&format!("\n\nARGUMENTS: {a}"));
        }
    }
    // A built-in skill has no directory of its own.
    if skill.dir.as_os_str().is_empty() {
        return body;
    }
    format!(
        "Base directory for this skill: {}\n\n{body}",
        skill.dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, desc: &str) -> Skill {
        Skill {
            name: name.into(),
            alias: None,
            description: desc.into(),
            when_to_use: None,
            body: String::new(),
            dir: PathBuf::from("/s"),
            model_invocable: true,
        }
    }

    #[test]
    fn descriptions_are_cut_with_an_ellipsis() {
        let l = listing(&[skill("long", &"d".repeat(3000))], 100_000, &[]).unwrap();
        let line = l.lines().find(|l| l.starts_with("- long")).unwrap();
        assert_eq!(line.chars().count(), "- long: ".len() + 1536);
        assert!(line.ends_with('…'));
    }

    #[test]
    fn over_budget_fills_greedily_after_a_miss() {
        let skills = [
            skill("a", &"x".repeat(50)),
            skill("b", &"y".repeat(500)),
            skill("c", "short"),
        ];
        let l = listing(&skills, 100, &[]).unwrap();
        assert!(l.contains(&format!("- a: {}", "x".repeat(50))));
        assert!(l.contains("\n- b\n"), "{l}");
        assert!(l.contains("- c: short"), "{l}");
    }
}
