//! Path rules behind the two ways a write can skip a question: the targets an operation names
//! (`write_files`, `delete_files`, `create_support_js`), which of them always need a per-batch
//! approval (rejected characters, reserved `CLAUDE.md` / `.claude` paths, segments that do not
//! normalize), whether a batch or a plan fits on an approval card (≤ 20 paths of ≤ 80 units within
//! ~2,000 chars), and approved plan tokens (exact paths, one project, at most 15 minutes).

use std::collections::HashSet;

use serde_json::Value;

use super::catalog::utf16_len;
use super::state::{ApprovedPlan, Inner};
use crate::limits;

/// A path separator-normalized: `\` → `/`, empty and `.` segments dropped.
pub fn normalize(path: &str) -> String {
    path.replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// Characters no reviewable path may contain (controls, URL and list punctuation, invisible and
/// look-alike characters).
pub fn rejected_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '#' | '?' | ',' | ':' | '[' | ']'
        | '\u{AD}' | '\u{61C}' | '\u{200B}'..='\u{200F}' | '\u{2026}' | '\u{2028}' | '\u{2029}'
        | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{FF0C}' | '\u{FF1A}'
        | '\u{FF3B}' | '\u{FF3D}')
}

pub fn has_rejected(s: &str) -> bool {
    s.chars().any(rejected_char)
}

/// `CLAUDE.md` or `.claude`, or anything under them.
pub fn reserved(path: &str) -> bool {
    let t = normalize(path).to_lowercase();
    t == "claude.md" || t.starts_with("claude.md/") || t == ".claude" || t.starts_with(".claude/")
}

/// Why `path` always needs a per-batch approval, or `None`.
pub fn always_ask(path: &str) -> Option<String> {
    if has_rejected(path) {
        return Some(format!("rejected character in path: {path}"));
    }
    if reserved(path) {
        return Some(format!("reserved path: {path}"));
    }
    let lower = normalize(path).to_lowercase();
    let reserved_segment = lower.split('/').any(|seg| {
        let n = seg
            .trim_end_matches(|c: char| c.is_whitespace() || c == '.')
            .trim_start();
        n == "claude.md" || n == ".claude" || tilde_digit(n)
    });
    if reserved_segment {
        return Some(format!("reserved segment: {path}"));
    }
    let t = normalize(path);
    let dotdot = |seg: &str| {
        let s = seg.trim_start();
        s.strip_prefix("..")
            .is_some_and(|rest| rest.chars().all(|c| c.is_whitespace() || c == '.'))
    };
    if t.is_empty() || t.split('/').any(dotdot) || t.contains('\0') {
        return Some(format!("path does not normalize: {path}"));
    }
    None
}

/// A `~` followed by a digit (a Windows short name).
fn tilde_digit(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(2).any(|w| w[0] == b'~' && w[1].is_ascii_digit())
}

/// Which approved set a target is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    Writes,
    Deletes,
}

/// The targets an operation names: `None` when it is not plan-gated or they cannot be listed.
fn targets(op: &str, args: &Value) -> Option<Option<(Vec<String>, Set)>> {
    let strings = |v: &Value, field: Option<&str>| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|e| match field {
                None => e.as_str().map(str::to_owned),
                Some(f) => e.get(f).and_then(Value::as_str).map(str::to_owned),
            })
            .collect()
    };
    Some(match op {
        "write_files" => {
            if !args["files"].is_array() {
                None
            } else {
                strings(&args["files"], Some("path")).map(|t| (t, Set::Writes))
            }
        }
        "delete_files" => {
            let (paths, files) = (args.get("paths"), args.get("files"));
            if paths.is_some() && files.is_some() {
                None
            } else if paths.is_some_and(Value::is_array) {
                strings(&args["paths"], None).map(|t| (t, Set::Deletes))
            } else if files.is_some_and(Value::is_array) {
                strings(&args["files"], Some("path")).map(|t| (t, Set::Deletes))
            } else {
                None
            }
        }
        "create_support_js" => match args.get("path") {
            None | Some(Value::Null) => Some((vec!["support.js".into()], Set::Writes)),
            Some(Value::String(s)) if s.is_empty() => {
                Some((vec!["support.js".into()], Set::Writes))
            }
            Some(Value::String(s)) => Some((vec![s.clone()], Set::Writes)),
            Some(_) => None,
        },
        _ => return None,
    })
}

/// The outcome of looking at a batch's targets (2.1.235's `Zqr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    pub pass: bool,
    pub reason: String,
    pub targets: Option<Vec<String>>,
    pub set: Option<Set>,
}

pub fn gate(op: &str, args: &Value) -> Gate {
    let ask = |reason: String, targets: Option<Vec<String>>| Gate {
        pass: false,
        reason,
        targets,
        set: None,
    };
    let Some(found) = targets(op, args).filter(|_| args.is_object()) else {
        return ask("not a plan-gated operation".into(), None);
    };
    let Some((targets, set)) = found else {
        return ask("target paths unenumerable".into(), None);
    };
    if targets.is_empty() {
        return ask("no target paths".into(), Some(targets));
    }
    let max = limits::DESIGN_PLAN_MAX_TARGETS.usize();
    if targets.len() > max {
        return ask(format!("more than {max} target paths"), Some(targets));
    }
    for t in &targets {
        if let Some(reason) = always_ask(t) {
            return ask(reason, Some(targets.clone()));
        }
    }
    Gate {
        pass: true,
        reason: String::new(),
        targets: Some(targets),
        set: Some(set),
    }
}

fn json_len(s: &str) -> usize {
    utf16_len(&serde_json::to_string(s).unwrap_or_default())
}

// The approval cards' layout: fixed frame, per-list and per-path overheads, and the preview
// width each path gets (1,800 chars shared, minus 95, between 0 and 200).
const PLAN_FRAME: usize = 240;
const PLAN_LIST_FRAME: usize = 32;
const BATCH_FRAME: usize = 272;
const BATCH_PATH_FRAME: usize = 44;
const PREVIEW_SHARE: usize = 1_800;
const PREVIEW_OFFSET: i64 = 95;
const PREVIEW_MAX: i64 = 200;

/// How many chars of preview each of `entries` listed entries gets on a card (its arguments line
/// too): a shared budget less each entry's framing, between 0 and the cap.
pub fn preview_width(entries: usize) -> usize {
    ((PREVIEW_SHARE / entries.max(1)) as i64 - PREVIEW_OFFSET).clamp(0, PREVIEW_MAX) as usize
}

/// Whether a tokenless batch fits on the durable-grant card whole (2.1.235's `s8a`).
pub fn batch_fits(targets: Option<&[String]>) -> bool {
    let Some(t) = targets else { return false };
    if t.is_empty() || t.len() > limits::DESIGN_PLAN_MAX_WRITES.usize() {
        return false;
    }
    if t.iter()
        .any(|p| json_len(p) > limits::DESIGN_PLAN_PATH_MAX.usize() || has_rejected(p))
    {
        return false;
    }
    let preview = preview_width(t.len());
    let per = BATCH_PATH_FRAME + if preview > 0 { preview + 3 } else { 0 };
    let total = BATCH_FRAME
        + t.iter().map(|p| utf16_len(p) + per).sum::<usize>()
        + 2 * t.len().saturating_sub(1);
    total <= limits::DESIGN_PLAN_RENDER_BUDGET.usize()
}

/// Whether a plan's paths can be shown whole on its card (2.1.235's `jnS`).
pub fn plan_fits(writes: &[String], deletes: &[String]) -> bool {
    if writes.len() > limits::DESIGN_PLAN_MAX_WRITES.usize()
        || deletes.len() > limits::DESIGN_PLAN_MAX_DELETES.usize()
    {
        return false;
    }
    if writes
        .iter()
        .chain(deletes)
        .any(|p| utf16_len(p) > limits::DESIGN_PLAN_PATH_MAX.usize() || has_rejected(p))
    {
        return false;
    }
    let list = |l: &[String]| {
        if l.is_empty() {
            0
        } else {
            PLAN_LIST_FRAME + l.iter().map(|p| utf16_len(p)).sum::<usize>() + 2 * (l.len() - 1)
        }
    };
    PLAN_FRAME + list(writes) + list(deletes) <= limits::DESIGN_PLAN_RENDER_BUDGET.usize()
}

/// A project id that can be shown safely.
fn showable_project(id: &str) -> bool {
    !id.is_empty() && json_len(id) <= limits::DESIGN_PLAN_PATH_MAX.usize() && !has_rejected(id)
}

/// Registers an approved plan (2.1.235's `g0f`); any earlier plan of the project is dropped
/// first. The expiry is the server's or now + 15 minutes, whichever is sooner.
pub fn register(
    state: &mut Inner,
    token: &str,
    project: &str,
    writes: &[String],
    deletes: &[String],
    server_expires_ms: Option<f64>,
    now: u64,
) -> bool {
    if token.is_empty() {
        return false;
    }
    state.forget_plans_for(project);
    if !showable_project(project) || !plan_fits(writes, deletes) {
        return false;
    }
    let ttl_end = now + limits::DESIGN_PLAN_TOKEN_TTL.get();
    let expires_at = match server_expires_ms {
        Some(ms) if !ms.is_finite() => return false,
        Some(ms) if ms <= now as f64 => return false,
        Some(ms) => (ms as u64).min(ttl_end),
        None => ttl_end,
    };
    state.approved_plans.insert(
        token.to_owned(),
        ApprovedPlan {
            project_id: project.to_owned(),
            writes: writes.iter().map(|p| normalize(p)).collect::<HashSet<_>>(),
            deletes: deletes.iter().map(|p| normalize(p)).collect::<HashSet<_>>(),
            expires_at,
        },
    );
    true
}

/// Whether an approved plan covers this call (2.1.235's `b0f`): `Ok(())` allows, `Err` says why
/// it asks. An expired plan is dropped.
pub fn covered(state: &mut Inner, op: &str, args: &Value, now: u64) -> Result<(), String> {
    if !matches!(op, "write_files" | "delete_files" | "create_support_js") || !args.is_object() {
        return Err("not a plan-gated operation".into());
    }
    let (Some(token), Some(project)) = (args["plan_token"].as_str(), args["project_id"].as_str())
    else {
        return Err("missing plan_token or project_id".into());
    };
    let Some(plan) = state.approved_plans.get(token).cloned() else {
        return Err("plan_token not approved in this process".into());
    };
    if now >= plan.expires_at {
        state.approved_plans.remove(token);
        return Err("approved plan expired".into());
    }
    if plan.project_id != project {
        return Err("plan_token is for a different project".into());
    }
    let g = gate(op, args);
    if !g.pass {
        return Err(g.reason);
    }
    let set = if g.set == Some(Set::Writes) {
        &plan.writes
    } else {
        &plan.deletes
    };
    for t in g.targets.unwrap_or_default() {
        if !set.contains(&normalize(&t)) {
            return Err(format!("path not in approved plan: {t}"));
        }
    }
    Ok(())
}

/// The plan token and expiry (ms) in a `finalize_plan` result (its first text block).
pub fn token_in(content: &[Value]) -> Option<(String, Option<f64>)> {
    let text = content
        .iter()
        .find(|b| b["type"] == "text" && b["text"].is_string())?;
    let v: Value = serde_json::from_str(text["text"].as_str()?).ok()?;
    let token = v["plan_token"]
        .as_str()
        .filter(|t| !t.is_empty())?
        .to_owned();
    let expires = v["expires_at"]
        .as_f64()
        .map(|s| s * 1000.0)
        .filter(|ms| ms.is_finite());
    Some((token, expires))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(n: usize, len: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:0>len$}")).collect()
    }

    #[test]
    fn normalization_and_reserved_paths() {
        assert_eq!(normalize("./a\\b//c/."), "a/b/c");
        assert!(reserved("./CLAUDE.md"));
        assert!(reserved(".claude/settings.json"));
        assert_eq!(
            always_ask("docs/.Claude /x").unwrap(),
            "reserved segment: docs/.Claude /x"
        );
        assert_eq!(
            always_ask("PROGRA~1/x").unwrap(),
            "reserved segment: PROGRA~1/x"
        );
        assert_eq!(
            always_ask("a/../b").unwrap(),
            "path does not normalize: a/../b"
        );
        assert_eq!(
            always_ask("a#b").unwrap(),
            "rejected character in path: a#b"
        );
        assert_eq!(always_ask("CLAUDE.md").unwrap(), "reserved path: CLAUDE.md");
        assert_eq!(always_ask("src/index.html"), None);
    }

    #[test]
    fn gate_reasons() {
        assert_eq!(
            gate("write_files", &json!({"files": []})).reason,
            "no target paths"
        );
        assert_eq!(
            gate("write_files", &json!({"files": [{"data": "x"}]})).reason,
            "target paths unenumerable"
        );
        assert_eq!(
            gate("delete_files", &json!({"paths": ["a"], "files": []})).reason,
            "target paths unenumerable"
        );
        assert_eq!(
            gate("read_file", &json!({})).reason,
            "not a plan-gated operation"
        );
        let max = limits::DESIGN_PLAN_MAX_TARGETS.usize();
        let many: Vec<Value> = (0..=max)
            .map(|i| json!({"path": format!("f{i}")}))
            .collect();
        assert_eq!(
            gate("write_files", &json!({ "files": many })).reason,
            format!("more than {max} target paths")
        );
        let g = gate("create_support_js", &json!({}));
        assert!(g.pass);
        assert_eq!(g.targets.unwrap(), vec!["support.js"]);
    }

    #[test]
    fn plan_registration_thresholds() {
        let max = limits::DESIGN_PLAN_MAX_WRITES.usize();
        assert!(plan_fits(&paths(max, 5), &[]));
        assert!(!plan_fits(&paths(max + 1, 5), &[]));
        assert!(!plan_fits(
            &[],
            &paths(limits::DESIGN_PLAN_MAX_DELETES.usize() + 1, 5)
        ));
        let len = limits::DESIGN_PLAN_PATH_MAX.usize();
        assert!(plan_fits(&paths(1, len), &[]));
        assert!(!plan_fits(&paths(1, len + 1), &[]));
        assert!(plan_fits(&paths(max, len), &[]));
        // Twenty writes and twenty deletes of 80 break the ~2,000-char card budget.
        assert!(!plan_fits(&paths(max, len), &paths(max, len)));
    }

    #[test]
    fn batch_card_budget() {
        let max = limits::DESIGN_PLAN_MAX_WRITES.usize();
        assert!(batch_fits(Some(&paths(max, 10))));
        assert!(!batch_fits(Some(&paths(max + 1, 10))));
        assert!(!batch_fits(Some(&[])));
        assert!(!batch_fits(None));
        // The quoted length counts: 78 units quote to 80.
        let len = limits::DESIGN_PLAN_PATH_MAX.usize();
        assert!(batch_fits(Some(&paths(1, len - 2))));
        assert!(!batch_fits(Some(&paths(1, len - 1))));
    }

    #[test]
    fn ttl_is_the_sooner_of_server_and_fifteen_minutes() {
        let ttl = limits::DESIGN_PLAN_TOKEN_TTL.get();
        let now = 1_000_000;
        let mut s = Inner::default();
        assert!(register(
            &mut s,
            "t1",
            "p",
            &["a".into()],
            &[],
            Some((now + ttl + 5) as f64),
            now
        ));
        assert_eq!(s.approved_plans["t1"].expires_at, now + ttl);
        assert!(register(
            &mut s,
            "t2",
            "p",
            &["a".into()],
            &[],
            Some((now + 10) as f64),
            now
        ));
        assert_eq!(s.approved_plans["t2"].expires_at, now + 10);
        assert!(
            !s.approved_plans.contains_key("t1"),
            "a new plan drops the project's older ones"
        );
        assert!(!register(
            &mut s,
            "t3",
            "p",
            &["a".into()],
            &[],
            Some(now as f64),
            now
        ));
        assert!(register(&mut s, "t4", "q", &["a".into()], &[], None, now));
        assert_eq!(s.approved_plans["t4"].expires_at, now + ttl);
    }

    #[test]
    fn covered_needs_the_exact_paths_project_and_time() {
        let now = 5;
        let mut s = Inner::default();
        register(
            &mut s,
            "tok",
            "p",
            &["./a.html".into()],
            &["old.css".into()],
            None,
            now,
        );
        let w = |path: &str, project: &str| json!({"project_id": project, "plan_token": "tok", "files": [{"path": path}]});
        assert_eq!(
            covered(&mut s, "write_files", &w("a.html", "p"), now),
            Ok(())
        );
        assert_eq!(
            covered(&mut s, "write_files", &w("b.html", "p"), now).unwrap_err(),
            "path not in approved plan: b.html"
        );
        assert_eq!(
            covered(&mut s, "write_files", &w("a.html", "q"), now).unwrap_err(),
            "plan_token is for a different project"
        );
        assert_eq!(
            covered(
                &mut s,
                "delete_files",
                &json!({"project_id": "p", "plan_token": "tok", "paths": ["old.css"]}),
                now
            ),
            Ok(())
        );
        let later = now + limits::DESIGN_PLAN_TOKEN_TTL.get();
        assert_eq!(
            covered(&mut s, "write_files", &w("a.html", "p"), later).unwrap_err(),
            "approved plan expired"
        );
        assert_eq!(
            covered(&mut s, "write_files", &w("a.html", "p"), now).unwrap_err(),
            "plan_token not approved in this process"
        );
    }

    #[test]
    fn plan_token_from_result() {
        let c = vec![json!({"type": "text", "text": "{\"plan_token\":\"t\",\"expires_at\":12}"})];
        assert_eq!(token_in(&c), Some(("t".into(), Some(12_000.0))));
        assert_eq!(token_in(&[json!({"type": "text", "text": "nope"})]), None);
    }
}
