//! The trace differences a scenario (`[[trace_difference]]`) or the suite
//! (`scenarios/trace-differences.toml`) names: which lines of a target's trace may differ from the
//! reference's, for which targets, and why. Declared here with the scenarios; the parity
//! comparison applies them.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;

/// The suite-wide named differences, beside the scenario files (and not one of them).
pub const SUITE_FILE: &str = "trace-differences.toml";

/// A trace difference a scenario or the suite accepts for one target.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDifference {
    /// The targets it holds for: `claude@2.1.235`, a range such as `claude@>=2.1.235, <2.1.300`,
    /// or `claude` for any real binary (`version::TargetKey`).
    pub target: String,
    /// A regular expression over trace lines: what it matches is erased from both traces before
    /// they are compared (a line left blank is dropped), so it accepts exactly what it names.
    pub lines: String,
    /// Why the targets differ here; a difference without one is refused.
    pub reason: String,
    /// The reference has not built this yet: the lines are named, but the scenario still counts
    /// as differing, not as a drop-in.
    #[serde(default)]
    pub pending: bool,
    /// Suite file only: the scenario ids (a regular expression) it applies to; all when absent.
    #[serde(default)]
    pub scenarios: Option<String>,
    #[serde(skip)]
    key: Option<crate::version::TargetKey>,
    #[serde(skip)]
    pattern: Option<Regex>,
    #[serde(skip)]
    scope: Option<Regex>,
}

impl TraceDifference {
    /// Compiles the patterns; `where_` names the file and entry in an error.
    pub fn prepare(&mut self, where_: &str) -> Result<(), String> {
        if self.reason.trim().is_empty() {
            return Err(format!(
                "{where_}: `reason` is empty; say why the targets differ"
            ));
        }
        if self.lines.is_empty() {
            return Err(format!(
                "{where_}: `lines` is empty and would match every line"
            ));
        }
        self.key = Some(
            crate::version::TargetKey::parse(&self.target)
                .map_err(|e| format!("{where_}: `target`: {e}"))?,
        );
        self.pattern = Some(
            Regex::new(&self.lines)
                .map_err(|e| format!("{where_}: `lines` is not a regular expression: {e}"))?,
        );
        self.scope =
            match &self.scenarios {
                Some(s) => Some(Regex::new(s).map_err(|e| {
                    format!("{where_}: `scenarios` is not a regular expression: {e}")
                })?),
                None => None,
            };
        Ok(())
    }

    pub(crate) fn holds_for(&self, target: &str) -> bool {
        self.key.as_ref().is_some_and(|k| k.matches(target))
    }

    pub(crate) fn applies_to(&self, id: &str) -> bool {
        self.scope.as_ref().is_none_or(|s| s.is_match(id))
    }

    /// `line` with what the pattern matches erased.
    pub(crate) fn erase(&self, line: &str) -> String {
        match &self.pattern {
            Some(p) => p.replace_all(line, "").into_owned(),
            None => line.to_owned(),
        }
    }

    pub(crate) fn matches(&self, line: &str) -> bool {
        self.pattern.as_ref().is_some_and(|p| p.is_match(line))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    #[serde(default, rename = "difference")]
    differences: Vec<TraceDifference>,
}

/// The suite's named differences from `dir/trace-differences.toml` (none when there is no file).
pub fn load_suite(dir: &Path) -> Result<Vec<TraceDifference>, String> {
    let path = dir.join(SUITE_FILE);
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let mut file: SuiteFile =
        toml::from_str(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    for (i, d) in file.differences.iter_mut().enumerate() {
        d.prepare(&format!("{} [[difference]] #{}", path.display(), i + 1))?;
    }
    Ok(file.differences)
}
