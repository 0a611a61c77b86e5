//! Declarative, target-independent checks, evaluated against a run's outcome, and per-target
//! expected differences.
//!
//! A check states what the seed documents. Where a real binary is known to differ, the check
//! carries that target's own expectation under `differs.<target>` with a reason; the report counts
//! those apart from plain passes, and flags an expected difference that stopped happening so the
//! baseline never goes stale. A check is declared with the scenario (`crate::scenario::CheckSpec`);
//! each kind is judged by the module for the evidence it reads, and every one of them reads only
//! the [`RunOutcome`].

mod expect;
mod file;
mod json;
mod mcp;
mod process;
mod requests;
mod stdout;
mod tool_result;
mod transcript;

pub use expect::text_diff;
pub(crate) use file::resolve_pattern;

use crate::outcome::RunOutcome;
use crate::scenario::{CheckKind, CheckSpec};

/// What one check concluded for one run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckOutcome {
    pub name: String,
    pub ok: bool,
    pub detail: String,
    /// Set when the target matched its own documented difference from the seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_difference: Option<String>,
    /// On a failure: the key of a difference named for other versions of this target's family
    /// (`claude@2.1.235`) whose expectation holds here, so the same difference persists in this
    /// version without being named for it (`cargo xtask adopt` widens that key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_for_other_versions: Option<String>,
}

impl CheckOutcome {
    /// An outcome that is not an expected difference.
    pub fn new(name: impl Into<String>, ok: bool, detail: impl Into<String>) -> Self {
        CheckOutcome {
            name: name.into(),
            ok,
            detail: detail.into(),
            expected_difference: None,
            named_for_other_versions: None,
        }
    }
}

/// Evaluates `spec` for a run of `target`, honouring its expected difference.
pub fn evaluate(spec: &CheckSpec, target: &str, run: &RunOutcome) -> CheckOutcome {
    // A check naming a step reads that start's process; every other wire is the run's.
    let run = &*match &spec.step {
        Some(step) => run.at_step(step),
        None => std::borrow::Cow::Borrowed(run),
    };
    let name = spec.describe();
    let seed_verdict = check(spec, run);
    let Some(diff) = spec.difference_for(target) else {
        let ok = seed_verdict.is_ok();
        let mut outcome = CheckOutcome::new(name, ok, seed_verdict.err().unwrap_or_default());
        if !ok {
            outcome.named_for_other_versions = holding_difference_of_family(spec, target, run);
        }
        return outcome;
    };
    let reason = diff.reason.clone().unwrap_or_default();
    match (check(&spec.overlaid(diff), run), seed_verdict) {
        (Ok(()), Err(_)) => CheckOutcome {
            expected_difference: Some(reason),
            ..CheckOutcome::new(name, true, "")
        },
        // Also when the difference still holds: a difference looser than the seed must not
        // hide that the seed's own expectation is met now.
        (_, Ok(())) => CheckOutcome::new(
            name,
            false,
            format!(
                "expected difference no longer observed: {target} now behaves as the seed documents; \
                 remove `differs.\"{target}\"` ({reason})"
            ),
        ),
        (Err(detail), Err(_)) => CheckOutcome::new(
            name,
            false,
            format!("{detail}\n(neither the seed's expectation nor the documented difference holds: {reason})"),
        ),
    }
}

/// The key of a difference named for other versions of `target`'s family whose expectation
/// holds on `run`.
fn holding_difference_of_family(
    spec: &CheckSpec,
    target: &str,
    run: &RunOutcome,
) -> Option<String> {
    let family = crate::version::family(target);
    spec.differs.as_ref()?.iter().find_map(|(key, over)| {
        let same_family = crate::version::TargetKey::parse(key).is_ok_and(|k| k.family() == family);
        (same_family && check(&spec.overlaid(over), run).is_ok()).then(|| key.clone())
    })
}

/// The seed's expectation of `spec` (or a difference laid over it) against the run.
fn check(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let kind = spec.kind.expect("validated at load");
    let requests = match &spec.agent {
        Some(label) => run.agent_requests(label),
        None => run.main_requests(),
    };
    match kind {
        CheckKind::Exit => process::exit(spec, run),
        CheckKind::Process => process::process(spec, run),
        CheckKind::Result => stdout::result(spec, run),
        CheckKind::Events => stdout::events(spec, run),
        CheckKind::Stderr => stdout::text(spec, run, &run.stderr),
        CheckKind::Stdout => stdout::text(spec, run, &run.stdout),
        CheckKind::Screen => stdout::text(spec, run, &run.screens.join("\n")),
        CheckKind::View => stdout::view(spec, run),
        CheckKind::Requests => requests::requests(spec, &requests),
        CheckKind::Tools => requests::tools(spec, &requests),
        CheckKind::Betas => requests::betas(spec, run),
        CheckKind::ToolDef => requests::tool_def(spec, &requests),
        CheckKind::System => requests::system(spec, run, &requests),
        CheckKind::UserContext => requests::user_context(spec, run, &requests),
        CheckKind::ToolResult => tool_result::tool_result(spec, run, &requests),
        CheckKind::Media => tool_result::media(spec, run, &requests),
        CheckKind::Pairing => tool_result::pairing(&requests),
        CheckKind::File => file::file(spec, run),
        CheckKind::Mcp => mcp::mcp(spec, run),
        CheckKind::ToolUseResult => json::tool_use_result(spec, run),
        CheckKind::Uploads => json::uploads(spec, run),
        CheckKind::Design => json::design(spec, run),
        CheckKind::Project => json::project(spec, run),
        CheckKind::ProjectState => json::project_state(spec, run),
        CheckKind::Site => json::site(spec, run),
        CheckKind::Artifact => json::artifact(spec, run),
        CheckKind::Directory => json::directory(spec, run),
        CheckKind::Oauth => json::oauth(spec, run),
        CheckKind::Hooks => json::hooks(spec, run),
        CheckKind::Transcript => transcript::transcript(spec, run),
    }
}
