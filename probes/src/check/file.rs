//! A file the run left in its cwd or HOME.

use super::expect::{expected_seen, text_expectations};
use crate::outcome::RunOutcome;
use crate::scenario::CheckSpec;

/// `file`: present or `absent`, its `mode`, its content against the text expectations.
pub(super) fn file(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let rel = spec.path.as_deref().unwrap_or_default();
    let (base, rel_in) = match rel.strip_prefix("~/") {
        Some(home_rel) => (&run.home, home_rel),
        None => (&run.cwd, rel),
    };
    let found = resolve_pattern(base, rel_in);
    if spec.absent == Some(true) {
        return match found.as_slice() {
            [] => Ok(()),
            _ => Err(format!("`{rel}` exists but should not")),
        };
    }
    let path = match found.as_slice() {
        [one] => one.clone(),
        [] => base.join(rel_in),
        many => {
            return Err(format!(
                "`{rel}` names {} files, not one:\n{}",
                many.len(),
                many.iter()
                    .map(|p| format!("  {}", run.places.redact(&p.display().to_string())))
                    .collect::<Vec<_>>()
                    .join("\n")
            ))
        }
    };
    if let Some(want) = &spec.mode {
        use std::os::unix::fs::PermissionsExt;
        let seen = std::fs::metadata(&path)
            .map_err(|e| format!("`{rel}` cannot be read: {e}"))?
            .permissions()
            .mode()
            & 0o7777;
        if format!("{seen:04o}") != *want {
            return Err(format!(
                "`{rel}`: mode {}",
                expected_seen(want, format!("{seen:04o}"))
            ));
        }
    }
    if spec.contains.is_none() && spec.not_contains.is_none() && spec.equals.is_none() {
        return if path.exists() {
            Ok(())
        } else {
            Err(format!("`{rel}` does not exist"))
        };
    }
    let content =
        std::fs::read_to_string(&path).map_err(|e| format!("`{rel}` cannot be read: {e}"))?;
    // The run's own paths read as `{cwd}`, `{home}`, `{cwd_slug}`, as in every other check.
    text_expectations(spec, &run.places.redact(&content))
}

/// The paths under `base` that `rel` names, a `*` in a segment matching any name there (the
/// session's own folder, whose name is a fresh id); without a `*`, the one path.
pub(crate) fn resolve_pattern(base: &std::path::Path, rel: &str) -> Vec<std::path::PathBuf> {
    let mut found = vec![base.to_path_buf()];
    for segment in rel.split('/').filter(|s| !s.is_empty()) {
        if !segment.contains('*') {
            found = found.into_iter().map(|p| p.join(segment)).collect();
            continue;
        }
        let Ok(glob) = globset::Glob::new(segment) else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
        found = found
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| matcher.is_match(n)))
            .collect();
        found.sort();
    }
    found.retain(|p| p.exists() || p.symlink_metadata().is_ok());
    found
}
