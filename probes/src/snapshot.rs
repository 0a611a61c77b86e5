//! Trace snapshots in insta's file format, `snapshots/<target>/<id>.snap`, so `cargo insta review`
//! can accept the `.snap.new` files this writes and the reference test suite can assert the same
//! files through insta itself.

use std::path::{Path, PathBuf};

/// The file name insta uses for a snapshot named `id` without a module prefix.
pub fn file_name(id: &str) -> String {
    format!("{}.snap", id.replace('/', "__"))
}

pub fn path(root: &Path, target_dir: &str, id: &str) -> PathBuf {
    root.join(target_dir).join(file_name(id))
}

/// The snapshot body: everything after insta's `---` metadata header.
pub fn read(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let body = match text.strip_prefix("---\n") {
        Some(rest) => rest
            .split_once("\n---\n")
            .map(|(_, body)| body)
            .unwrap_or(rest),
        None => &text,
    };
    Some(body.trim_end().to_owned())
}

pub fn render(id: &str, body: &str) -> String {
    format!("---\nsource: probes/src/snapshot.rs\ndescription: normalized trace of {id}\nexpression: trace\n---\n{}\n", body.trim_end())
}

pub enum Verdict {
    Same,
    /// No snapshot yet; the new one was written beside it as `.snap.new`.
    New(PathBuf),
    /// Differs; the diff, with the new trace written as `.snap.new`.
    Changed(String, PathBuf),
}

/// Compares `body` with the stored snapshot; on any difference writes `.snap.new` (or, with
/// `accept`, the snapshot itself). A `.snap.new` left by an earlier run is removed once the stored
/// snapshot holds this trace, so no pending review outlives what it proposed.
pub fn compare(path: &Path, id: &str, body: &str, accept: bool) -> std::io::Result<Verdict> {
    let pending = path.with_extension("snap.new");
    let stored = read(path);
    if stored.as_deref() == Some(body.trim_end()) {
        remove_if_present(&pending)?;
        return Ok(Verdict::Same);
    }
    std::fs::create_dir_all(path.parent().expect("has a parent"))?;
    let target = if accept {
        remove_if_present(&pending)?;
        path.to_owned()
    } else {
        pending
    };
    crate::atomic::write(&target, render(id, body))?;
    Ok(match stored {
        None => Verdict::New(target),
        Some(old) => Verdict::Changed(
            crate::check::text_diff(&format!("{old}\n"), &format!("{}\n", body.trim_end())),
            target,
        ),
    })
}

/// Whether `target`'s traces have snapshots under `dir` to compare with. The reference and the
/// contract version always do; a version never adopted has none, and "no snapshot yet" on every
/// scenario would bury what actually changed (`accept` writes them).
pub fn has_baseline(dir: &Path, target: &crate::Target, accept: bool) -> bool {
    accept || target.name == "reference" || dir.join(target.dir_name()).is_dir()
}

/// The check "trace matches snapshot" for one run, with the diff and where the new trace went.
pub fn check(
    dir: &Path,
    target: &crate::Target,
    id: &str,
    trace: &str,
    accept: bool,
) -> crate::CheckOutcome {
    let path = path(dir, &target.dir_name(), id);
    let (ok, detail) = match compare(&path, id, trace, accept) {
        Ok(Verdict::Same) => (true, String::new()),
        Ok(Verdict::New(p)) if accept => (true, format!("new snapshot written: {}", p.display())),
        Ok(Verdict::New(p)) => (
            false,
            format!(
                "no snapshot yet; review {} (cargo insta review, or --accept)",
                p.display()
            ),
        ),
        Ok(Verdict::Changed(_, p)) if accept => {
            (true, format!("snapshot updated: {}", p.display()))
        }
        Ok(Verdict::Changed(diff, p)) => (
            false,
            format!(
                "trace differs from {}:\n{diff}new trace: {}",
                path.display(),
                p.display()
            ),
        ),
        Err(e) => (
            false,
            format!("cannot compare with {}: {e}", path.display()),
        ),
    };
    crate::CheckOutcome::new(SNAPSHOT_CHECK, ok, detail)
}

pub const SNAPSHOT_CHECK: &str = "trace matches snapshot";

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_and_read_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "reference", "core.x/variant");
        assert!(p.ends_with("reference/core.x__variant.snap"));
        assert!(matches!(
            compare(&p, "core.x", "a\nb\n", false).unwrap(),
            Verdict::New(_)
        ));
        assert!(!p.exists(), "without accept only .snap.new is written");
        assert!(matches!(
            compare(&p, "core.x", "a\nb\n", true).unwrap(),
            Verdict::New(_)
        ));
        assert_eq!(read(&p).unwrap(), "a\nb");
        assert!(matches!(
            compare(&p, "core.x", "a\nb", false).unwrap(),
            Verdict::Same
        ));
        match compare(&p, "core.x", "a\nc", false).unwrap() {
            Verdict::Changed(diff, new) => {
                assert!(diff.contains("-b") && diff.contains("+c"), "{diff}");
                assert!(new.to_string_lossy().ends_with(".snap.new"));
            }
            _ => panic!("expected a change"),
        }
        let pending = p.with_extension("snap.new");
        assert!(pending.exists());
        assert!(matches!(
            compare(&p, "core.x", "a\nb", false).unwrap(),
            Verdict::Same
        ));
        assert!(
            !pending.exists(),
            "a pending trace equal to the stored one is cleared"
        );
        compare(&p, "core.x", "a\nc", false).unwrap();
        compare(&p, "core.x", "a\nc", true).unwrap();
        assert!(!pending.exists(), "accepting clears the pending trace");
        assert_eq!(read(&p).unwrap(), "a\nc");
    }
}
