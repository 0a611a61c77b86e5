//! `cargo xtask adopt claude@VERSION`: one reviewed step that makes a run on a new version its
//! baseline. It writes the version's snapshots, widens every expected difference that still holds
//! (`claude@2.1.235` becomes `claude@>=2.1.235, <=2.1.332`), and writes each new difference into
//! its scenario as `differs."claude@VERSION" = { reason = "" }` under a comment with what was
//! seen. The loader refuses an empty reason, so the suite does not load again until a person has
//! said why, and set the expectation, for each one; `git diff` is the review.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::report::{Report, Status};
use probes::version::TargetKey;
use probes::{CheckOutcome, Scenario};
use toml_edit::{DocumentMut, InlineTable, Item, Value};

#[derive(Args)]
pub struct AdoptArgs {
    /// The version to adopt, as `claude@VERSION`.
    target: String,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long)]
    filter: Vec<String>,
    /// Scenarios run at once (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
}

/// One change to a scenario file, addressed by the check's index among its `[[check]]` tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Rename a difference's key to a wider requirement.
    Widen {
        check: usize,
        from: String,
        to: String,
    },
    /// Add an empty difference for a person to complete.
    Stub {
        check: usize,
        key: String,
        seen: String,
    },
}

pub fn run(args: AdoptArgs) -> Result<bool> {
    let Some(version) = args.target.strip_prefix("claude@") else {
        bail!("adopt takes `claude@VERSION`, not `{}`", args.target);
    };
    let version = semver::Version::parse(version).context("not a version")?;
    let root = crate::workspace_root();
    let mut scenarios =
        probes::load_dir(&root.join("scenarios")).map_err(|e| anyhow::anyhow!("{e}"))?;
    if !args.filter.is_empty() {
        scenarios.retain(|s| args.filter.iter().any(|f| s.id.contains(f.as_str())));
    }
    let results = crate::probe::run_one_target(&root, &args.target, &scenarios, args.jobs, true)?;

    let mut edits: BTreeMap<PathBuf, (Vec<Edit>, String)> = BTreeMap::new();
    for report in results.iter().filter(|r| r.status == Status::Fail) {
        let scenario = scenarios
            .iter()
            .find(|s| s.id == report.id)
            .expect("ran from this list");
        for edit in edits_for(scenario, report, &version) {
            edits
                .entry(scenario.path.clone())
                .or_insert_with(|| (Vec::new(), scenario.source.clone()))
                .0
                .push(edit);
        }
    }
    let (mut widened, mut stubs) = (0, Vec::new());
    for (path, (list, source)) in &edits {
        let edited = edit_scenario(source, list)
            .with_context(|| format!("cannot edit {}", path.display()))?;
        std::fs::write(path, edited).with_context(|| format!("cannot write {}", path.display()))?;
        for e in list {
            match e {
                Edit::Widen { from, to, .. } => {
                    widened += 1;
                    println!("widened   {}: `{from}` → `{to}`", path.display());
                }
                Edit::Stub { key, .. } => stubs.push(format!("{}: `{key}`", path.display())),
            }
        }
    }
    for s in &stubs {
        println!("new difference, reason needed: {s}");
    }
    let dir = root.join("snapshots").join(format!("claude@{version}"));
    println!(
        "\nadopted claude@{version}: snapshots in {}, {widened} difference{} widened, {} new to complete",
        dir.display(),
        if widened == 1 { "" } else { "s" },
        stubs.len()
    );
    if !stubs.is_empty() {
        println!(
            "Each `reason = \"\"` stops the suite from loading until it says why the version \
             differs; set the expectation beside it from the comment above it, then review \
             everything with `git diff` and re-run `cargo xtask probe --target claude@{version}`."
        );
    }
    Ok(stubs.is_empty())
}

/// What adopting `version` changes in `scenario` for the failed checks of `report`.
fn edits_for(scenario: &Scenario, report: &Report, version: &semver::Version) -> Vec<Edit> {
    let mut taken = vec![false; scenario.checks.len()];
    let mut out = Vec::new();
    for c in report
        .checks
        .iter()
        .filter(|c| !c.ok && !c.name.starts_with("trace matches"))
    {
        let Some(index) = check_index(scenario, c, &mut taken) else {
            continue;
        };
        out.push(match &c.named_for_other_versions {
            Some(key) => Edit::Widen {
                check: index,
                from: key.clone(),
                to: widened(key, version),
            },
            None => Edit::Stub {
                check: index,
                key: format!("claude@{version}"),
                seen: probes::report::changelog::gist(&c.detail, 3),
            },
        });
    }
    out
}

/// The `[[check]]` a reported outcome came from: by its description, with a channel's `[pty] `
/// label allowed in front; each check is matched once.
fn check_index(scenario: &Scenario, outcome: &CheckOutcome, taken: &mut [bool]) -> Option<usize> {
    let name = outcome.name.as_str();
    let bare = name
        .strip_prefix('[')
        .and_then(|n| n.split_once("] "))
        .map_or(name, |(_, n)| n);
    let i = scenario
        .checks
        .iter()
        .enumerate()
        .position(|(i, c)| !taken[i] && c.get_ref().describe() == bare)?;
    taken[i] = true;
    Some(i)
}

/// `claude@2.1.235` (or any requirement starting there) widened to end at `version`.
fn widened(key: &str, version: &semver::Version) -> String {
    let low = TargetKey::parse(key)
        .ok()
        .and_then(|k| k.low().cloned())
        .unwrap_or_else(|| semver::Version::new(0, 0, 0));
    format!("claude@>={low}, <={version}")
}

/// Applies `edits` to a scenario file's text, keeping its layout and comments.
pub fn edit_scenario(source: &str, edits: &[Edit]) -> Result<String> {
    let mut doc: DocumentMut = source.parse().context("not TOML")?;
    let checks = doc
        .get_mut("check")
        .and_then(Item::as_array_of_tables_mut)
        .context("no [[check]] tables")?;
    for edit in edits {
        let (Edit::Widen { check, .. } | Edit::Stub { check, .. }) = edit;
        let table = checks
            .get_mut(*check)
            .with_context(|| format!("no check #{}", check + 1))?;
        match edit {
            Edit::Widen { from, to, .. } => {
                let differs = table
                    .get_mut("differs")
                    .and_then(Item::as_table_like_mut)
                    .context("the check has no `differs`")?;
                let item = differs
                    .remove(from)
                    .with_context(|| format!("no difference `{from}`"))?;
                differs.insert(to, item);
            }
            Edit::Stub { key, seen, .. } => {
                if !table.contains_key("differs") {
                    let mut differs = toml_edit::Table::new();
                    differs.set_dotted(true);
                    table.insert("differs", Item::Table(differs));
                }
                let differs = table
                    .get_mut("differs")
                    .and_then(Item::as_table_like_mut)
                    .context("`differs` is not a table")?;
                let mut stub = InlineTable::new();
                stub.insert("reason", Value::from(""));
                differs.insert(key, Item::Value(Value::InlineTable(stub)));
                if let Some(mut k) = differs.key_mut(key) {
                    let note = seen.replace('\n', " ");
                    k.leaf_decor_mut().set_prefix(format!(
                        "\n# adopt {key}: seen \"{note}\"\n# say why in `reason` and set what this version does\n"
                    ));
                }
            }
        }
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = r#"id = "x.y"
title = "t"

[[check]]
kind = "stderr"
contains = "cap"
differs."claude@2.1.235" = { reason = "silent", equals = "" }

[[check]]
kind = "exit"
equals = 0

[[check]]
kind = "result"
subtype = "success"

[check.differs."claude@2.1.235"]
reason = "an error"
subtype = "error_during_execution"
"#;

    #[test]
    fn widening_renames_the_key_in_both_toml_forms_and_keeps_the_rest() {
        let to = "claude@>=2.1.235, <=2.1.332".to_owned();
        let out = edit_scenario(
            SCENARIO,
            &[
                Edit::Widen {
                    check: 0,
                    from: "claude@2.1.235".into(),
                    to: to.clone(),
                },
                Edit::Widen {
                    check: 2,
                    from: "claude@2.1.235".into(),
                    to,
                },
            ],
        )
        .unwrap();
        assert!(
            out.contains(
                r#"differs."claude@>=2.1.235, <=2.1.332" = { reason = "silent", equals = "" }"#
            ),
            "{out}"
        );
        assert!(
            out.contains("[check.differs.\"claude@>=2.1.235, <=2.1.332\"]\nreason = \"an error\""),
            "{out}"
        );
        assert!(!out.contains("\"claude@2.1.235\""), "{out}");
        assert!(out.starts_with("id = \"x.y\"\ntitle = \"t\"\n"), "{out}");
    }

    #[test]
    fn a_new_difference_is_a_stub_with_an_empty_reason_that_the_loader_refuses() {
        let out = edit_scenario(
            SCENARIO,
            &[Edit::Stub {
                check: 1,
                key: "claude@2.1.332".into(),
                seen: "expected 0, seen 1".into(),
            }],
        )
        .unwrap();
        assert!(
            out.contains("# adopt claude@2.1.332: seen \"expected 0, seen 1\""),
            "{out}"
        );
        assert!(
            out.contains(r#"differs."claude@2.1.332" = { reason = "" }"#),
            "{out}"
        );
        let check: probes::scenario::CheckSpec =
            toml::from_str(out.split("[[check]]").nth(2).unwrap()).unwrap();
        let (field, e) = check.validate().unwrap_err();
        assert_eq!(field, "differs");
        assert!(e.contains("needs a one-line `reason`"), "{e}");
    }

    #[test]
    fn the_note_keeps_what_was_seen_and_drops_diff_headers() {
        let detail = "--- expected\n+++ seen\n@@ -1 +1 @@\n-MARKER\n\\ No newline at end of file\n+[Tool result missing]\n";
        assert_eq!(
            probes::report::changelog::gist(detail, 3),
            "-MARKER / +[Tool result missing]"
        );
    }

    #[test]
    fn a_key_widens_from_its_own_lower_bound() {
        let v = semver::Version::new(2, 1, 332);
        assert_eq!(widened("claude@2.1.235", &v), "claude@>=2.1.235, <=2.1.332");
        assert_eq!(
            widened("claude@>=2.1.240, <2.1.300", &v),
            "claude@>=2.1.240, <=2.1.332"
        );
    }
}
