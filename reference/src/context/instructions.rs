//! Instructions that travel with every request: CLAUDE.md files, unconditional rules and the
//! auto-memory index, discovered from the user's files down the path to cwd, de-duplicated, with
//! `@include`s followed, and rendered as one user-context reminder; rules with `paths:` wait for a
//! matching file to be read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::limits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Project,
    Local,
    AutoMemory,
}

impl Kind {
    /// The `memory_type` InstructionsLoaded hooks are told.
    pub fn memory_type(self) -> &'static str {
        match self {
            Kind::User => "User",
            Kind::Project => "Project",
            Kind::Local => "Local",
            Kind::AutoMemory => "AutoMem",
        }
    }

    /// The type note after a file's path, as 2.1.235 labels it.
    fn note(self) -> &'static str {
        match self {
            Kind::User => " (user's private global instructions for all projects)",
            Kind::Project => " (project instructions, checked into the codebase)",
            Kind::Local => " (user's private project instructions, not checked in)",
            Kind::AutoMemory => " (user's auto-memory, persists across conversations)",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub kind: Kind,
    pub content: String,
}

/// A rule with `paths:`: joins the context once a matching file is read.
#[derive(Debug, Clone)]
pub struct ConditionalRule {
    pub path: PathBuf,
    /// Globs are relative to the directory holding `.claude/rules`.
    pub base: PathBuf,
    pub globs: globset::GlobSet,
    pub body: String,
}

#[derive(Debug, Default)]
pub struct Discovered {
    pub entries: Vec<Entry>,
    pub conditional: Vec<ConditionalRule>,
    /// Pinned memory files, newest first, at most four, each cut like the index.
    pub pinned: Vec<(PathBuf, String)>,
    /// The memory directory's own index, built when there is no MEMORY.md.
    pub auto_index: Option<String>,
}

pub struct Sources<'a> {
    pub home: &'a Path,
    pub cwd: &'a Path,
    pub add_dirs: &'a [PathBuf],
    /// The auto-memory MEMORY.md, when auto-memory is on.
    pub memory_index: Option<PathBuf>,
    pub external_includes_approved: bool,
}

pub fn discover(s: &Sources) -> Discovered {
    let mut d = Walker {
        out: Discovered::default(),
        seen: HashSet::new(),
        cwd: s.cwd.to_owned(),
        home: s.home.to_owned(),
        approved: s.external_includes_approved,
    };
    let user = s.home.join(".claude");
    d.file(&user.join("CLAUDE.md"), Kind::User);
    d.rules(&user, s.cwd, Kind::User);
    let mut chain: Vec<&Path> = s.cwd.ancestors().collect();
    chain.reverse();
    for dir in chain {
        d.directory(dir);
    }
    if std::env::var("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD")
        .is_ok_and(|v| v == "1" || v == "true")
    {
        for dir in s.add_dirs {
            d.directory(dir);
        }
    }
    if let Some(index) = &s.memory_index {
        d.memory(index);
    }
    d.out
}

struct Walker {
    out: Discovered,
    seen: HashSet<PathBuf>,
    cwd: PathBuf,
    home: PathBuf,
    approved: bool,
}

impl Walker {
    fn directory(&mut self, dir: &Path) {
        self.file(&dir.join("CLAUDE.md"), Kind::Project);
        self.file(&dir.join(".claude/CLAUDE.md"), Kind::Project);
        self.rules(&dir.join(".claude"), dir, Kind::Project);
        self.file(&dir.join("CLAUDE.local.md"), Kind::Local);
    }

    /// `.claude/rules/**/*.md` in path order (2.1.235 uses directory order, which no one can
    /// predict; path order is the documented deviation).
    fn rules(&mut self, claude_dir: &Path, base: &Path, kind: Kind) {
        let mut files = Vec::new();
        collect_md(&claude_dir.join("rules"), &mut files);
        files.sort();
        for f in files {
            let Some(text) = read_capped(&f) else {
                continue;
            };
            let (front, body) = split_frontmatter(&text);
            match paths_of(front) {
                Some(globs) if !globs.iter().all(|g| g == "**") => {
                    if !self.mark(&f) {
                        continue;
                    }
                    let mut set = globset::GlobSetBuilder::new();
                    for g in &globs {
                        if let Ok(glob) = globset::Glob::new(g) {
                            set.add(glob);
                        }
                    }
                    self.out.conditional.push(ConditionalRule {
                        path: f.clone(),
                        base: base.to_owned(),
                        globs: set.build().unwrap_or_else(|_| globset::GlobSet::empty()),
                        body: body.trim_start_matches('\n').to_owned(),
                    });
                }
                _ => self.file(&f, kind),
            }
        }
    }

    /// Adds `path` (and what it includes) once.
    fn file(&mut self, path: &Path, kind: Kind) {
        self.include(path, kind, 0);
    }

    fn include(&mut self, path: &Path, kind: Kind, depth: usize) {
        if depth >= limits::CTX_INCLUDE_MAX_DEPTH.usize() || !self.mark(path) {
            return;
        }
        let Some(text) = read_capped(path) else {
            return;
        };
        let content = clean(&text);
        let includes = include_targets(&content, path, &self.home);
        if !content.trim().is_empty() {
            // A symlinked rule is shown under its target, as 2.1.235 shows it.
            let shown = if path.is_symlink() && path.components().any(|c| c.as_os_str() == "rules")
            {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
            } else {
                path.to_owned()
            };
            self.out.entries.push(Entry {
                path: shown,
                kind,
                content: content.trim().to_owned(),
            });
        }
        for target in includes {
            let external = !target.starts_with(&self.cwd);
            if external && kind != Kind::User && !self.approved {
                continue;
            }
            self.include(&target, kind, depth + 1);
        }
    }

    fn memory(&mut self, index: &Path) {
        let dir = index.parent().unwrap_or(Path::new("/"));
        if !index.is_file() {
            self.out.auto_index = auto_index(dir);
        }
        if let Some(text) = read_capped(index) {
            let content = truncate_memory(text.trim());
            if !content.is_empty() {
                self.out.entries.push(Entry {
                    path: index.to_owned(),
                    kind: Kind::AutoMemory,
                    content,
                });
            }
        }
        self.out.pinned = pinned(index.parent().unwrap_or(Path::new("/")));
    }

    /// Whether `path` is new (by normalized path, and by target for a symlink).
    fn mark(&mut self, path: &Path) -> bool {
        if !path.is_file() {
            return false;
        }
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        if self.seen.contains(path) || self.seen.contains(&real) {
            return false;
        }
        self.seen.insert(path.to_owned());
        self.seen.insert(real);
        true
    }
}

fn collect_md(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_md(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// A regular file within the 4 MiB cap; anything else is skipped.
fn read_capped(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > limits::CTX_INSTRUCTIONS_MAX_FILE.get() {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

fn split_frontmatter(text: &str) -> (&str, &str) {
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---") {
            let after = &rest[end + 4..];
            return (&rest[..end], after.strip_prefix('\n').unwrap_or(after));
        }
    }
    ("", text)
}

/// `paths:` as a list (`- "a"`), inline (`["a", "b"]`) or one string.
fn paths_of(front: &str) -> Option<Vec<String>> {
    let mut lines = front.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("paths:") else {
            continue;
        };
        let unquote = |s: &str| s.trim().trim_matches(|c| c == '"' || c == '\'').to_owned();
        let rest = rest.trim();
        if rest.starts_with('[') {
            return Some(
                rest.trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(unquote)
                    .filter(|s| !s.is_empty())
                    .collect(),
            );
        }
        if !rest.is_empty() {
            return Some(vec![unquote(rest)]);
        }
        let items: Vec<String> = lines
            .by_ref()
            .take_while(|l| l.trim_start().starts_with('-'))
            .map(|l| unquote(l.trim_start().trim_start_matches('-')))
            .collect();
        return Some(items);
    }
    None
}

/// Frontmatter and HTML comments (outside code fences) removed.
fn clean(text: &str) -> String {
    let (_, body) = split_frontmatter(text);
    let mut out = Vec::new();
    let mut fenced = false;
    let mut in_comment = false;
    for line in body.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced {
            if in_comment {
                if line.contains("-->") {
                    in_comment = false;
                }
                continue;
            }
            let t = line.trim();
            if t.starts_with("<!--") {
                in_comment = !t.contains("-->");
                continue;
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// `@path` references (at the start of a line or after whitespace, outside code), resolved
/// against the including file's directory; `#fragments` dropped, non-text files skipped.
fn include_targets(content: &str, from: &Path, home: &Path) -> Vec<PathBuf> {
    let dir = from.parent().unwrap_or(Path::new("/"));
    let mut out = Vec::new();
    let mut fenced = false;
    for line in content.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        let mut prev = ' ';
        for (i, c) in line.char_indices() {
            if c == '`' {
                in_code = !in_code;
            } else if c == '@' && !in_code && prev.is_whitespace() {
                let token: String = line[i + 1..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .collect();
                let token = token.split('#').next().unwrap_or_default();
                if token.is_empty() {
                    continue;
                }
                let target = if let Some(rest) = token.strip_prefix("~/") {
                    home.join(rest)
                } else if token.starts_with('/') {
                    PathBuf::from(token)
                } else {
                    dir.join(token.strip_prefix("./").unwrap_or(token))
                };
                let text_like = target.extension().is_none_or(|e| {
                    ![
                        "png", "jpg", "jpeg", "gif", "webp", "pdf", "zip", "gz", "bin", "exe",
                    ]
                    .contains(&e.to_string_lossy().to_lowercase().as_str())
                });
                if text_like {
                    out.push(normalize(&target));
                }
            }
            prev = c;
        }
    }
    out
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Topic files marked `pinned: true` in their frontmatter: the newest four, each within the
/// index's line and unit budgets.
fn pinned(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found: Vec<(std::time::SystemTime, PathBuf, String)> = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "MEMORY.md")
            || p.extension().is_none_or(|x| x != "md")
        {
            continue;
        }
        let Some(text) = read_capped(&p) else {
            continue;
        };
        let (front, body) = split_frontmatter(&text);
        let is_pinned = front.lines().any(|l| {
            l.split_once(':')
                .is_some_and(|(k, v)| k.trim() == "pinned" && v.trim() == "true")
        });
        if is_pinned {
            let mtime = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            found.push((mtime, p, body.trim().to_owned()));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found
        .into_iter()
        .take(limits::MEMORY_PINNED_MAX_FILES.usize())
        .map(|(_, p, body)| {
            let cut = cut_to(&body, limits::MEMORY_PINNED_MAX_LINES.usize(), limits::MEMORY_PINNED_MAX_UTF16_UNITS.usize());
            let body = match cut {
                Some((kept, what)) => format!("{kept}\n\n> WARNING: this memory file is {what}. Only part of it was loaded. Keep each memory file focused on one topic."),
                None => body,
            };
            (p, body)
        })
        .collect()
}

/// Without a MEMORY.md, an index of the memory directory itself, within the scan budgets: 8
/// levels, 5,000 entries, Markdown files up to 1 MiB, read 16 at a time, the 200 most recent,
/// each described by its first 30 lines / 65,536 bytes; the whole cut like MEMORY.md.
fn auto_index(dir: &Path) -> Option<String> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    let mut entries = 0usize;
    let mut stack = vec![(dir.to_owned(), 0usize)];
    'walk: while let Some((d, depth)) = stack.pop() {
        let mut children: Vec<_> = std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        children.sort();
        for p in children {
            entries += 1;
            if entries > limits::MEMORY_SCAN_MAX_ENTRIES.usize() {
                break 'walk;
            }
            if p.is_dir() {
                if depth + 1 < limits::MEMORY_SCAN_MAX_DEPTH.usize() {
                    stack.push((p, depth + 1));
                }
                continue;
            }
            let Ok(meta) = p.metadata() else { continue };
            if p.extension().is_some_and(|x| x == "md")
                && meta.len() <= limits::MEMORY_SCAN_MAX_FILE.get()
            {
                files.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), p));
            }
        }
    }
    if files.is_empty() {
        return None;
    }
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    files.truncate(limits::MEMORY_SCAN_RECENT_ENTRIES.usize());
    let mut lines = vec![String::new(); files.len()];
    for (chunk, out) in files
        .chunks(limits::MEMORY_SCAN_READ_CONCURRENCY.usize())
        .zip(lines.chunks_mut(limits::MEMORY_SCAN_READ_CONCURRENCY.usize()))
    {
        std::thread::scope(|scope| {
            for ((_, path), slot) in chunk.iter().zip(out.iter_mut()) {
                scope.spawn(move || {
                    let rel = path.strip_prefix(dir).unwrap_or(path).display().to_string();
                    *slot = format!("- {rel}: {}", describe(path));
                });
            }
        });
    }
    let listing = truncate_memory(&lines.join("\n"));
    Some(format!(
        "<auto-memory-index>\nMemory files under `{}` (paths below are relative to it):\n{listing}\n</auto-memory-index>",
        dir.display()
    ))
}

/// A memory file's description: its frontmatter `description`, else its first heading or line,
/// from the head of the file only.
fn describe(path: &Path) -> String {
    use std::io::Read as _;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f
            .take(limits::MEMORY_SCAN_HEAD_BYTES.get())
            .read_to_end(&mut head);
    }
    let head = String::from_utf8_lossy(&head);
    let head: Vec<&str> = head
        .lines()
        .take(limits::MEMORY_SCAN_HEAD_LINES.usize())
        .collect();
    let text = head.join("\n");
    let (front, body) = split_frontmatter(&text);
    front
        .lines()
        .find_map(|l| {
            l.strip_prefix("description:")
                .map(|v| v.trim().trim_matches('"').to_owned())
        })
        .or_else(|| {
            body.lines()
                .map(|l| l.trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// `text` within `max_lines` lines and `max_units` UTF-16 units, and what it was over; None when
/// it fits.
fn cut_to(text: &str, max_lines: usize, max_units: usize) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let units = |s: &str| s.encode_utf16().count();
    let total_units = units(text);
    let over_lines = lines.len() > max_lines;
    let over_units = total_units > max_units;
    if !over_lines && !over_units {
        return None;
    }
    let mut kept = lines[..lines.len().min(max_lines)].join("\n");
    if units(&kept) > max_units {
        let mut count = 0;
        let mut cut = 0;
        for (i, c) in kept.char_indices() {
            count += c.len_utf16();
            if count > max_units {
                break;
            }
            if c == '\n' {
                cut = i;
            }
        }
        kept.truncate(cut);
    }
    let size = kilobytes(total_units);
    let what = match (over_lines, over_units) {
        (true, false) => format!("{} lines (limit: {max_lines})", lines.len()),
        (false, true) => format!(
            "{size} (limit: {}) — index entries are too long",
            kilobytes(max_units)
        ),
        _ => format!("{} lines and {size}", lines.len()),
    };
    Some((kept, what))
}

/// MEMORY.md within 200 lines and 25,000 UTF-16 units, with the warning 2.1.235 appends.
pub fn truncate_memory(text: &str) -> String {
    match cut_to(text, limits::MEMORY_INDEX_MAX_LINES.usize(), limits::MEMORY_INDEX_MAX_UTF16_UNITS.usize()) {
        None => text.to_owned(),
        Some((kept, what)) => format!(
            "{kept}\n\n> WARNING: MEMORY.md is {what}. Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files."
        ),
    }
}

fn kilobytes(n: usize) -> String {
    if n < 1024 {
        return format!("{n} bytes");
    }
    let s = format!("{:.1}", n as f64 / 1024.0);
    format!("{}KB", s.strip_suffix(".0").unwrap_or(&s))
}

/// The user-context reminder of the first message: the entries under their paths and types, and
/// today's date. The framing sentences are ours; the layout is 2.1.235's.
pub fn user_context(
    entries: &[Entry],
    auto_index: Option<&str>,
    pinned: &[(PathBuf, String)],
    attached_project: Option<&str>,
    date: &str,
) -> String {
    let mut s = String::from(
        "<system-reminder>\nContext for this session, from the user's and the project's files:\n",
    );
    if !entries.is_empty() {
        s.push_str("# claudeMd\nFollow these instructions from the user and the project; they take precedence over your defaults.\n\n");
        let parts: Vec<String> = entries
            .iter()
            .map(|e| {
                format!(
                    "Contents of {}{}:\n\n{}",
                    e.path.display(),
                    e.kind.note(),
                    e.content
                )
            })
            .collect();
        s.push_str(&parts.join("\n\n"));
        s.push('\n');
    }
    if let Some(index) = auto_index {
        s.push_str(index);
        s.push('\n');
    }
    if !pinned.is_empty() {
        s.push_str("# Pinned memories (apply to every conversation)\n");
        for (path, body) in pinned {
            s.push_str(&format!(
                "<pinned-memory path=\"{}\">\n{body}\n</pinned-memory>\n",
                path.display()
            ));
        }
    }
    if let Some(block) = attached_project {
        s.push_str(&format!("# attachedProject\n{block}\n"));
    }
    s.push_str(&format!("# currentDate\nToday's date is {date}.\n\nUse this context only where it bears on the task.\n</system-reminder>\n\n"));
    s
}

/// Rules a read of `file` activates, as reminders to append to that tool result (each once).
pub fn activate(rules: &mut Vec<ConditionalRule>, file: &Path) -> Vec<String> {
    let mut out = Vec::new();
    rules.retain(|r| {
        let Ok(rel) = file.strip_prefix(&r.base) else {
            return true;
        };
        if r.globs.is_match(rel) {
            out.push(format!(
                "<system-reminder>\nContents of {}:\n\n{}\n</system-reminder>",
                r.path.display(),
                r.body
            ));
            false
        } else {
            true
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_warnings_name_what_was_over() {
        let lines: String = (0..250).map(|i| format!("- entry {i}\n")).collect();
        let t = truncate_memory(lines.trim());
        assert!(t.ends_with("> WARNING: MEMORY.md is 250 lines (limit: 200). Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files."));
        assert_eq!(t.lines().filter(|l| l.starts_with("- entry")).count(), 200);
        let wide: String = (0..100).map(|_| format!("{}\n", "x".repeat(301))).collect();
        let t = truncate_memory(wide.trim());
        assert!(
            t.contains("is 29.5KB (limit: 24.4KB) — index entries are too long."),
            "{}",
            &t[t.len() - 200..]
        );
        assert_eq!(truncate_memory("short"), "short");
    }

    #[test]
    fn paths_frontmatter_forms() {
        assert_eq!(
            paths_of("paths:\n  - \"src/api/**\"\n  - lib/**"),
            Some(vec!["src/api/**".into(), "lib/**".into()])
        );
        assert_eq!(
            paths_of("paths: [\"a/**\", 'b']"),
            Some(vec!["a/**".into(), "b".into()])
        );
        assert_eq!(paths_of("paths: \"**/*.ts\""), Some(vec!["**/*.ts".into()]));
        assert_eq!(paths_of("description: x"), None);
    }
}
