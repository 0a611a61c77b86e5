//! `cargo xtask layers`: the top-level modules of `reference/src` and `probes/src` as layers,
//! read from their `crate::…` and `super::…` paths, and the rule that keeps them layers: no
//! import cycle between two top-level modules. A test below runs the rule on the real tree, as
//! rust-analyzer's tidy tests keep its conventions, so a cycle fails `cargo test`.
//!
//! The reading is textual (comments and literals blanked, then paths followed), which is enough
//! for this workspace's code: every path into another module starts with `crate::` or climbs to
//! the root with `super::`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The crates whose modules must form layers, by their source folder.
pub const CRATES: &[&str] = &["reference/src", "probes/src"];

#[derive(clap::Args)]
pub struct LayersArgs {
    /// A crate's source folder (default: each of reference/src and probes/src).
    #[arg(long)]
    src: Vec<PathBuf>,
}

pub fn run(args: LayersArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dirs: Vec<PathBuf> = if args.src.is_empty() {
        CRATES.iter().map(|c| root.join(c)).collect()
    } else {
        args.src
    };
    let mut ok = true;
    for dir in dirs {
        let graph = Graph::read(&dir)?;
        println!("{}", dir.strip_prefix(&root).unwrap_or(&dir).display());
        let layers = graph.layers();
        for (level, modules) in layers.iter().enumerate().rev() {
            println!("  layer {level}: {}", modules.join(", "));
        }
        let placed: BTreeSet<&String> = layers.iter().flatten().collect();
        let unplaced: Vec<&str> = graph
            .modules
            .iter()
            .filter(|m| !placed.contains(m))
            .map(String::as_str)
            .collect();
        if !unplaced.is_empty() {
            println!("  on or above a cycle: {}", unplaced.join(", "));
        }
        for cycle in graph.cycles() {
            ok = false;
            println!("{}", cycle.describe(&root));
        }
    }
    Ok(ok)
}

/// Where a path into another module was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub file: PathBuf,
    pub line: usize,
}

/// The top-level modules of one crate and which of them name which.
pub struct Graph {
    pub modules: BTreeSet<String>,
    /// `(from, to)` → every place `from` names `to`.
    pub edges: BTreeMap<(String, String), Vec<Site>>,
}

/// A circle of top-level modules, each naming the next; the last names the first.
pub struct Cycle<'a> {
    pub modules: Vec<String>,
    graph: &'a Graph,
}

impl Cycle<'_> {
    /// The circle, then each step with the lines that make it.
    pub fn describe(&self, root: &Path) -> String {
        let mut text = format!(
            "import cycle between top-level modules: {} → {}",
            self.modules.join(" → "),
            self.modules[0]
        );
        for (i, from) in self.modules.iter().enumerate() {
            let to = &self.modules[(i + 1) % self.modules.len()];
            let sites = &self.graph.edges[&(from.clone(), to.clone())];
            let shown: Vec<String> = sites
                .iter()
                .take(4)
                .map(|s| {
                    let file = s.file.strip_prefix(root).unwrap_or(&s.file);
                    format!("{}:{}", file.display(), s.line)
                })
                .collect();
            let more = match sites.len().saturating_sub(shown.len()) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            text.push_str(&format!("\n  {from} → {to}: {}{more}", shown.join(", ")));
        }
        text
    }
}

impl Graph {
    /// Reads every `.rs` file under `src` (a crate's source folder with `lib.rs`).
    pub fn read(src: &Path) -> Result<Graph> {
        let lib = std::fs::read_to_string(src.join("lib.rs"))
            .with_context(|| format!("{}: no lib.rs", src.display()))?;
        let mut files = Vec::new();
        collect_files(src, &mut files)?;
        let modules: BTreeSet<String> = files
            .iter()
            .filter_map(|f| module_path(src, f).into_iter().next())
            .collect();
        let reexports = reexports(&blank(&lib), &modules);
        let mut edges: BTreeMap<(String, String), Vec<Site>> = BTreeMap::new();
        for file in &files {
            let path = module_path(src, file);
            let Some(top) = path.first() else {
                continue; // the crate root (and a binary's main.rs) is no module
            };
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let named = root_names(&blank(&text), &path)
                .into_iter()
                .chain(crate_names(&comments(&text)));
            for (name, line) in named {
                let to = match reexports.get(&name) {
                    Some(module) => module.clone(),
                    None if modules.contains(&name) => name,
                    None => continue, // an item of the crate root itself
                };
                if &to != top {
                    edges.entry((top.clone(), to)).or_default().push(Site {
                        file: file.clone(),
                        line,
                    });
                }
            }
        }
        Ok(Graph { modules, edges })
    }

    fn targets<'a>(&'a self, from: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.edges
            .keys()
            .filter(move |(f, _)| f == from)
            .map(|(_, t)| t.as_str())
    }

    /// The circles to break: in each group of modules that reach each other (a strongly
    /// connected component of more than one), every pair that names each other, then the shortest
    /// circle through each module no circle so far passes.
    pub fn cycles(&self) -> Vec<Cycle<'_>> {
        let mut cycles = Vec::new();
        let mut seen = BTreeSet::new();
        for start in &self.modules {
            if seen.contains(start) {
                continue;
            }
            let component: BTreeSet<&str> = self
                .modules
                .iter()
                .map(String::as_str)
                .filter(|m| self.reaches(start, m) && self.reaches(m, start))
                .collect();
            seen.extend(component.iter().map(|m| m.to_string()));
            if component.len() < 2 {
                continue;
            }
            let mut covered = BTreeSet::new();
            for (from, to) in self.edges.keys() {
                let inside = component.contains(from.as_str()) && component.contains(to.as_str());
                if inside && from < to && self.edges.contains_key(&(to.clone(), from.clone())) {
                    covered.extend([from.as_str(), to.as_str()]);
                    cycles.push(Cycle {
                        modules: vec![from.clone(), to.clone()],
                        graph: self,
                    });
                }
            }
            for m in &component {
                if covered.contains(m) {
                    continue;
                }
                if let Some(modules) = self.shortest_circle(m, &component) {
                    covered.extend(component.iter().filter(|c| modules.iter().any(|x| x == *c)));
                    cycles.push(Cycle {
                        modules,
                        graph: self,
                    });
                }
            }
        }
        cycles
    }

    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut stack = vec![from];
        let mut visited = BTreeSet::new();
        while let Some(m) = stack.pop() {
            if m == to {
                return true;
            }
            if visited.insert(m) {
                stack.extend(self.targets(m));
            }
        }
        false
    }

    /// Breadth first from `start` back to it, inside `component`.
    fn shortest_circle(&self, start: &str, component: &BTreeSet<&str>) -> Option<Vec<String>> {
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(m) = queue.pop_front() {
            for next in self.targets(m).filter(|t| component.contains(t)) {
                if next == start {
                    let mut circle = vec![m.to_owned()];
                    let mut at = m;
                    while at != start {
                        at = parent[at];
                        circle.push(at.to_owned());
                    }
                    circle.reverse();
                    return Some(circle);
                }
                if next != start && !parent.contains_key(next) {
                    parent.insert(next, m);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// The modules by layer: a module sits one above the highest module it names; layer 0 names
    /// none. Modules on a cycle are left out (there is no layer for them).
    pub fn layers(&self) -> Vec<Vec<String>> {
        let mut level: BTreeMap<&str, usize> = BTreeMap::new();
        let mut pending: Vec<&str> = self.modules.iter().map(String::as_str).collect();
        loop {
            let before = pending.len();
            pending.retain(|m| {
                let below: Option<Vec<usize>> =
                    self.targets(m).map(|t| level.get(t).copied()).collect();
                match below {
                    Some(below) => {
                        level.insert(m, below.iter().max().map_or(0, |l| l + 1));
                        false
                    }
                    None => true,
                }
            });
            if pending.is_empty() || pending.len() == before {
                break;
            }
        }
        let mut layers = vec![Vec::new(); level.values().max().map_or(0, |l| l + 1)];
        for (m, l) in level {
            layers[l].push(m.to_owned());
        }
        layers
    }
}

fn collect_files(dir: &Path, into: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect_files(&path, into)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
    Ok(())
}

/// The module a file is, as names from the crate root: `tools/mod.rs` and `tools.rs` are
/// `["tools"]`, `lib.rs` and `main.rs` the root `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut path: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if path.len() == 1 && matches!(path[0].as_str(), "lib" | "main") {
        path.clear();
    }
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    path
}

/// The root's `pub use module::{Name, …}` lines: which module a name at `crate::Name` is from.
fn reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        if !modules.contains(module.trim()) {
            continue;
        }
        for item in items
            .trim_matches(|c| c == '{' || c == '}' || char::is_whitespace(c))
            .split(',')
        {
            let name = item.rsplit(" as ").next().unwrap_or(item);
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    names
}

/// The source with comments, strings and character literals replaced by spaces (lines kept), so
/// that only code is read.
fn blank(src: &str) -> String {
    split(src).0
}

/// The comments alone, everything else replaced by spaces (lines kept): a doc link
/// (``[`X`](crate::m::X)``) or a path a comment names is a dependency too, for rustdoc and for a
/// reader.
fn comments(src: &str) -> String {
    split(src).1
}

/// The code and the comments of `src`, each with the other (and literals) blanked.
fn split(src: &str) -> (String, String) {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut commented = Vec::new();
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            wipe(&mut out, i, end);
            commented.push((i, end));
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            commented.push((i, j));
            i = j;
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#") || rest.starts_with(b"br"))
            && (i == 0 || !ident(b[i - 1]))
            && raw_string_end(b, i).is_some()
        {
            let end = raw_string_end(b, i).unwrap_or(b.len());
            wipe(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            wipe(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime or a label.
            let end = if rest.get(1) == Some(&b'\\') {
                rest.iter()
                    .skip(2)
                    .position(|&c| c == b'\'')
                    .map(|p| i + p + 3)
            } else {
                let len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + len) == Some(&b'\'')).then_some(i + len + 2)
            };
            match end {
                Some(end) => {
                    wipe(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    let mut notes: Vec<u8> = b
        .iter()
        .map(|&c| if c == b'\n' { c } else { b' ' })
        .collect();
    for (from, to) in commented {
        notes[from..to].copy_from_slice(&b[from..to]);
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&notes).into_owned(),
    )
}

/// The end of a raw string starting at `i` (`r"…"`, `r#"…"#`, `br"…"`), if one starts there.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + if b[i] == b'b' { 2 } else { 1 };
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = j + 1;
    b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|p| body + p + close.len())
}

/// Every name at the crate root that the code reaches, with its line: the first segment after
/// `crate::` (each of a `crate::{a, b::c}` group), and after a `super::` chain that climbs to the
/// root from `file_module` (inline `mod x { … }` blocks count as a level).
fn root_names(code: &str, file_module: &[String]) -> Vec<(String, usize)> {
    let tokens = tokenize(code);
    let mut names = Vec::new();
    // The inline modules open at each brace depth.
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let (tok, line) = (&tokens[i].0, tokens[i].1);
        match tok.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|(d, _)| *d > depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.0 == "{") => {
                inline.push((depth + 1, tokens[i + 1].0.clone()));
            }
            "crate" | "super" if tokens.get(i + 1).is_some_and(|t| t.0 == "::") => {
                let preceded = i > 0 && matches!(tokens[i - 1].0.as_str(), "::" | "$");
                let mut j = i;
                let at_root = if tok == "crate" {
                    j += 2;
                    !preceded
                } else {
                    let mut level = file_module.len() + inline.len();
                    while tokens.get(j).is_some_and(|t| t.0 == "super")
                        && tokens.get(j + 1).is_some_and(|t| t.0 == "::")
                    {
                        level = level.saturating_sub(1);
                        j += 2;
                    }
                    !preceded && level == 0
                };
                if at_root {
                    names.extend(first_segments(&tokens, j).into_iter().map(|n| (n, line)));
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The names at the crate root that comments name with a `crate::` path, with their lines.
fn crate_names(comments: &str) -> Vec<(String, usize)> {
    let tokens = tokenize(comments);
    tokens
        .windows(3)
        .filter(|w| w[0].0 == "crate" && w[1].0 == "::" && is_ident(&w[2].0))
        .map(|w| (w[2].0.clone(), w[0].1))
        .collect()
}

/// The first segment of the path at `j`, or of each item of a `{…}` group there.
fn first_segments(tokens: &[(String, usize)], j: usize) -> Vec<String> {
    let Some((tok, _)) = tokens.get(j) else {
        return Vec::new();
    };
    if tok != "{" {
        return is_ident(tok).then(|| tok.clone()).into_iter().collect();
    }
    let mut names = Vec::new();
    let (mut depth, mut item_start) = (0, true);
    for (tok, _) in &tokens[j..] {
        match tok.as_str() {
            "{" => {
                depth += 1;
                if depth == 1 {
                    item_start = true;
                    continue;
                }
            }
            "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "," if depth == 1 => {
                item_start = true;
                continue;
            }
            _ => {}
        }
        if item_start && depth == 1 && is_ident(tok) && tok != "self" {
            names.push(tok.clone());
        }
        item_start = false;
    }
    names
}

fn is_ident(tok: &str) -> bool {
    tok.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::`, and single punctuation characters, each with its line.
fn tokenize(code: &str) -> Vec<(String, usize)> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            tokens.push((code[i..end].to_owned(), line));
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            tokens.push(("::".to_owned(), line));
        } else if !c.is_whitespace() {
            tokens.push((c.to_string(), line));
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule on the real tree: every crate's top-level modules form layers.
    #[test]
    fn no_import_cycle_between_top_level_modules() {
        let root = crate::workspace_root();
        let mut found = Vec::new();
        for src in CRATES {
            let graph = Graph::read(&root.join(src)).unwrap();
            assert!(graph.modules.len() > 5, "{src}: modules not found");
            found.extend(graph.cycles().iter().map(|c| c.describe(&root)));
        }
        assert!(
            found.is_empty(),
            "a module imports only from layers below it; what must call upward goes through a \
             trait the lower layer owns (ARCHITECTURE.md, invariants):\n{}",
            found.join("\n")
        );
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_cycle_is_named_with_both_modules_and_the_lines() {
        let dir = tree(&[
            (
                "lib.rs",
                "pub mod tools;\npub mod host;\npub use host::Reply;\n",
            ),
            ("tools/mod.rs", "//! Tools.\n\nuse crate::Reply;\n"),
            ("host/mod.rs", "pub struct Reply;\n"),
            (
                "host/terminal.rs",
                "fn f() {\n    let _ = crate::tools::run();\n}\n",
            ),
        ]);
        let graph = Graph::read(dir.path()).unwrap();
        let cycles = graph.cycles();
        assert_eq!(cycles.len(), 1);
        let text = cycles[0].describe(dir.path());
        assert!(text.contains("host → tools → host"), "{text}");
        assert!(text.contains("host → tools: host/terminal.rs:2"), "{text}");
        assert!(text.contains("tools → host: tools/mod.rs:3"), "{text}");
    }

    #[test]
    fn a_trait_owned_below_breaks_the_cycle_and_layers_follow() {
        // The same two modules, the host now implementing a trait the tools own.
        let dir = tree(&[
            ("lib.rs", "pub mod tools;\npub mod host;\npub mod vocab;\n"),
            ("vocab.rs", "pub struct Reply;\n"),
            ("tools/mod.rs", "use crate::vocab::Reply;\npub trait Asker { fn ask(&self) -> Reply; }\n"),
            ("host/mod.rs", "impl crate::tools::Asker for Terminal { fn ask(&self) -> crate::vocab::Reply { todo!() } }\n"),
        ]);
        let graph = Graph::read(dir.path()).unwrap();
        assert!(graph.cycles().is_empty());
        assert_eq!(
            graph.layers(),
            vec![
                vec!["vocab".to_owned()],
                vec!["tools".into()],
                vec!["host".into()]
            ]
        );
    }

    #[test]
    fn strings_and_inner_modules_are_not_paths_out() {
        let dir = tree(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("b.rs", "pub fn f() {}\n"),
            (
                "a/mod.rs",
                "const S: &str = \"crate::b::f\";\nconst R: &str = r#\"crate::b\"#;\nfn g<'a>(c: char) -> bool { c == '{' }\nmod tests {\n    use super::super::g;\n}\n",
            ),
            ("a/inner.rs", "use super::g;\n"),
        ]);
        let graph = Graph::read(dir.path()).unwrap();
        assert!(graph.edges.is_empty(), "{:?}", graph.edges);
        // A super chain that climbs to the root does count.
        std::fs::write(dir.path().join("a/inner.rs"), "use super::super::b::f;\n").unwrap();
        let graph = Graph::read(dir.path()).unwrap();
        let sites = &graph.edges[&("a".to_owned(), "b".to_owned())];
        assert_eq!(sites[0].line, 1);
    }

    #[test]
    fn a_comment_naming_a_module_by_its_crate_path_is_a_dependency() {
        let dir = tree(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub use b::Thing;\n"),
            ("b.rs", "pub struct Thing;\n"),
            (
                "a.rs",
                "//! Reads [`Thing`](crate::Thing).\n\n/* see crate::b */\nfn f() {}\n",
            ),
        ]);
        let graph = Graph::read(dir.path()).unwrap();
        let sites = &graph.edges[&("a".to_owned(), "b".to_owned())];
        assert_eq!(sites.iter().map(|s| s.line).collect::<Vec<_>>(), [1, 3]);
    }
}
