//! Named workflows (`Workflow({name})`): the bundled ones, then the user's
//! (`~/.claude/workflows/*.js`) and the projects' (`.claude/workflows/*.js` in cwd and each
//! directory above it; the closest wins), each under its script's `meta.name`. A file whose
//! header does not pass is not a workflow. 2.1.235 bundles one, `deep-research`; ours has the
//! same name and purpose, in our own script.

use std::path::{Path, PathBuf};

use super::script;

#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub name: String,
    pub script: String,
    pub bundled: bool,
}

const DEEP_RESEARCH: &str = r#"export const meta = {
  name: 'deep-research',
  description: 'Research a question from several angles on the web and answer it with sources.',
  whenToUse: 'When the user wants a researched, sourced answer to a specific question. Pass the question as args.',
  phases: [{ title: 'Plan' }, { title: 'Search' }, { title: 'Write' }],
}

const question = typeof args === 'string' ? args.trim() : ''
if (!question) {
  return { error: "No research question given. Pass it as args: Workflow({name: 'deep-research', args: '<question>'})" }
}

phase('Plan')
const plan = await agent(`Write three to five web search queries that together answer the question below, one per line, nothing else.\n\n${question}`, { label: 'plan' })
const queries = String(plan || '').split('\n').map(q => q.trim()).filter(Boolean).slice(0, 5)
log(`${queries.length} search angles`)

phase('Search')
const notes = await pipeline(queries, q => agent(`Search the web for: ${q}\nRead the best sources (WebSearch, then WebFetch). Return the facts that bear on "${question}", each with the URL it came from.`, { label: `search: ${q}`, phase: 'Search' }))

phase('Write')
return await agent(`Answer this question from the notes below, citing the URLs; say where the notes disagree or fall short.\n\nQuestion: ${question}\n\n${notes.filter(Boolean).join('\n\n---\n\n')}`, { label: 'write' })
"#;

fn bundled() -> Vec<Named> {
    vec![Named {
        name: "deep-research".into(),
        script: DEEP_RESEARCH.into(),
        bundled: true,
    }]
}

/// Every named workflow this session can run, in the order the not-found error lists them.
pub fn all(home: &Path, cwd: &Path) -> Vec<Named> {
    let mut found: Vec<Named> = Vec::new();
    let mut dirs = vec![home.join(".claude/workflows")];
    // Farthest first, so a closer project's workflow replaces a farther one of the same name.
    let mut projects: Vec<PathBuf> = cwd
        .ancestors()
        .map(|d| d.join(".claude/workflows"))
        .filter(|d| *d != dirs[0])
        .collect();
    projects.reverse();
    dirs.extend(projects);
    for dir in dirs {
        for named in in_dir(&dir) {
            found.retain(|f| f.name != named.name);
            found.push(named);
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out: Vec<Named> = bundled()
        .into_iter()
        .filter(|b| !found.iter().any(|f| f.name == b.name))
        .collect();
    out.extend(found);
    out
}

pub fn find(home: &Path, cwd: &Path, name: &str) -> Option<Named> {
    all(home, cwd).into_iter().find(|n| n.name == name)
}

/// 2.1.235's error for a name no workflow has.
pub fn not_found(home: &Path, cwd: &Path, name: &str) -> String {
    let names: Vec<String> = all(home, cwd).into_iter().map(|n| n.name).collect();
    let available = if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    };
    format!("Workflow \"{name}\" not found. Available: {available}")
}

/// A nested `workflow(name)` or `workflow({scriptPath})` inside a run: the child's name and body,
/// or the error its call throws (2.1.235's texts).
pub fn nested(
    home: &Path,
    cwd: &Path,
    request: &serde_json::Value,
) -> Result<(String, String), String> {
    if let Some(name) = request["name"].as_str() {
        let Some(found) = find(home, cwd, name) else {
            let names: Vec<String> = all(home, cwd).into_iter().map(|n| n.name).collect();
            let available = if names.is_empty() {
                "(none)".to_owned()
            } else {
                names.join(", ")
            };
            return Err(format!(
                "workflow('{name}'): no workflow with that name. Available: {available}"
            ));
        };
        let parsed =
            script::parse(&found.script).map_err(|e| format!("workflow('{name}'): {e}"))?;
        return Ok((found.name, parsed.body));
    }
    let path = request["scriptPath"].as_str().unwrap_or_default();
    let failed = |e: String| format!("workflow({{scriptPath: '{path}'}}): {e}");
    let text = read_script(&cwd.join(path)).map_err(failed)?;
    let parsed = script::parse(&text).map_err(failed)?;
    Ok((parsed.meta.name, parsed.body))
}

/// A script file as 2.1.235 reads one: the size cap first, then the text.
pub fn read_script(path: &Path) -> Result<String, String> {
    let max = crate::limits::WORKFLOW_SCRIPT_MAX_CHARS.get();
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > max => Err(format!(
            "Workflow script file {} exceeds {max} bytes",
            path.display()
        )),
        Ok(_) => std::fs::read(path)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .map_err(|e| {
                format!(
                    "Failed to read workflow script file {}: {e}",
                    path.display()
                )
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "Workflow script file not found: {}",
            path.display()
        )),
        Err(e) => Err(format!(
            "Failed to read workflow script file {}: {e}",
            path.display()
        )),
    }
}

fn in_dir(dir: &Path) -> Vec<Named> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "js") && p.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let parsed = script::parse(&text).ok()?;
            Some(Named {
                name: parsed.meta.name,
                script: text,
                bundled: false,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workflow(dir: &Path, file: &str, name: &str, marker: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let text =
            format!("export const meta = {{ name: '{name}', description: '{marker}' }}\nreturn 1");
        std::fs::write(dir.join(file), text).unwrap();
    }

    #[test]
    fn the_bundled_one_comes_first_then_the_found_ones_by_name() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        assert_eq!(
            not_found(home.path(), cwd.path(), "x"),
            "Workflow \"x\" not found. Available: deep-research"
        );
        workflow(&cwd.path().join(".claude/workflows"), "b.js", "mine", "p");
        workflow(&home.path().join(".claude/workflows"), "a.js", "alpha", "u");
        std::fs::write(cwd.path().join(".claude/workflows/bad.js"), "no header").unwrap();
        assert_eq!(
            not_found(home.path(), cwd.path(), "nope"),
            "Workflow \"nope\" not found. Available: deep-research, alpha, mine"
        );
        assert!(
            find(home.path(), cwd.path(), "deep-research")
                .unwrap()
                .bundled
        );
    }

    #[test]
    fn a_nested_workflow_resolves_by_name_or_path_with_2_1_235s_errors() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        workflow(&cwd.path().join(".claude/workflows"), "c.js", "child", "d");
        let (name, body) = nested(
            home.path(),
            cwd.path(),
            &serde_json::json!({"name": "child"}),
        )
        .unwrap();
        assert_eq!((name.as_str(), body.as_str()), ("child", "return 1"));
        let missing =
            nested(home.path(), cwd.path(), &serde_json::json!({"name": "x"})).unwrap_err();
        assert_eq!(
            missing,
            "workflow('x'): no workflow with that name. Available: deep-research, child"
        );
        let no_file = nested(
            home.path(),
            cwd.path(),
            &serde_json::json!({"scriptPath": "gone.js"}),
        )
        .unwrap_err();
        assert!(
            no_file
                .starts_with("workflow({scriptPath: 'gone.js'}): Workflow script file not found: "),
            "{no_file}"
        );
    }

    #[test]
    fn the_bundled_script_passes_its_own_checks() {
        let parsed = script::parse(DEEP_RESEARCH).unwrap();
        assert_eq!(parsed.meta.name, "deep-research");
        assert!(!script::uses_clock(&parsed.body));
    }

    #[test]
    fn the_closest_project_wins_and_may_replace_the_bundled_one() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let inner = root.path().join("sub");
        workflow(&root.path().join(".claude/workflows"), "x.js", "dup", "far");
        workflow(&inner.join(".claude/workflows"), "y.js", "dup", "near");
        workflow(
            &inner.join(".claude/workflows"),
            "z.js",
            "deep-research",
            "mine",
        );
        let dup = find(home.path(), &inner, "dup").unwrap();
        assert!(dup.script.contains("near"));
        let all = all(home.path(), &inner);
        assert_eq!(
            all.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
            ["deep-research", "dup"]
        );
        assert!(!all[0].bundled);
    }
}
