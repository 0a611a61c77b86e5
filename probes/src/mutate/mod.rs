//! Mutation testing of a scenario's checks against its own run: each check that passed must fail
//! on at least one changed copy of the evidence (a line of stdout gone, a count off by one, a
//! server's message missing, a file changed). A check no mutation can fail would pass whatever
//! the target did, which is the harness passing by accident.
//!
//! The mutations are of the evidence the checks read (`RunOutcome`), never of the checks. Some
//! are generic (every stdout event removed in turn, every request dropped); some are guided by
//! the checks themselves (the text a `contains` wants removed everywhere, the text a
//! `not_contains` forbids added to every text) so a check is shown to read what it names.

mod apply;
mod generate;
mod mutation;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use apply::apply;
use generate::mutations;
use mutation::{describe, Mutation};

use crate::check::evaluate;
use crate::outcome::RunOutcome;
use crate::scenario::{CheckKind, CheckSpec};

/// What the mutations of one run showed about its passing checks.
#[derive(Debug, Default)]
pub struct Survey {
    /// Checks that passed on the run and were put to the mutations.
    pub checked: usize,
    /// How many mutated copies were evaluated.
    pub mutants: usize,
    /// Each check that some mutation failed: its name, the first such mutation, and the diff the
    /// check gave for it.
    pub killed: Vec<(String, String, String)>,
    /// Checks no mutation failed.
    pub survivors: Vec<String>,
    /// Checks that failed on a mutation without saying why (an empty detail).
    pub mute: Vec<String>,
}

/// Puts every passing check of `checks` (those whose outcome `passed` says passed) to mutations of
/// `run`, stopping as soon as each has failed once.
pub fn survey(checks: &[&CheckSpec], target: &str, run: &RunOutcome) -> Survey {
    // A check naming a step reads that start's process: its mutations are of that start.
    let mut steps: Vec<Option<&str>> = checks.iter().map(|c| c.step.as_deref()).collect();
    steps.sort_unstable();
    steps.dedup();
    let mut whole = Survey::default();
    for step in steps {
        let group: Vec<&CheckSpec> = checks
            .iter()
            .copied()
            .filter(|c| c.step.as_deref() == step)
            .collect();
        let view = match step {
            Some(name) => run.at_step(name),
            None => std::borrow::Cow::Borrowed(run),
        };
        let part = survey_with(&group, target, &view, mutations(&group, &view));
        whole.checked += part.checked;
        whole.mutants += part.mutants;
        whole.killed.extend(part.killed);
        whole.survivors.extend(part.survivors);
        whole.mute.extend(part.mute);
    }
    whole
}

fn survey_with(
    checks: &[&CheckSpec],
    target: &str,
    run: &RunOutcome,
    mutations: Vec<Mutation>,
) -> Survey {
    let mut alive: Vec<&CheckSpec> = checks.to_vec();
    let mut survey = Survey {
        checked: alive.len(),
        ..Survey::default()
    };
    for mutation in mutations {
        if alive.is_empty() {
            break;
        }
        // A check is put only to the mutations of what it reads: the others cannot change its
        // verdict, and evaluating them is most of a survey's time.
        let touched = mutation.touches();
        if !alive.iter().any(|spec| reads(spec) & touched != 0) {
            continue;
        }
        let Some(mutant) = apply(&mutation, run) else {
            continue;
        };
        survey.mutants += 1;
        alive.retain(|spec| {
            if reads(spec) & touched == 0 {
                return true;
            }
            let outcome = evaluate(spec, target, &mutant.run);
            if outcome.ok {
                return true;
            }
            if outcome.detail.trim().is_empty() {
                survey.mute.push(outcome.name);
            } else {
                survey
                    .killed
                    .push((outcome.name, describe(&mutation), outcome.detail));
            }
            false
        });
        mutant.restore();
    }
    survey.survivors = alive.iter().map(|s| s.describe()).collect();
    survey
}

/// A file a mutation changed, and what it held before (`None`: it did not exist).
type Changed = (PathBuf, Option<(Vec<u8>, std::fs::Permissions)>);

/// A mutated copy of a run, and the file it changed on disk (put back by `restore`).
pub(crate) struct Mutant {
    run: RunOutcome,
    file: Option<Changed>,
}

impl Mutant {
    fn restore(self) {
        let Some((path, before)) = self.file else {
            return;
        };
        match before {
            Some((bytes, perms)) => {
                let _ = std::fs::write(&path, bytes);
                let _ = std::fs::set_permissions(&path, perms);
            }
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

/// The parts of a run's evidence, as bits: what a mutation changes, what a check reads.
pub(crate) mod part {
    pub const EXIT: u16 = 1;
    pub const STDOUT: u16 = 1 << 1;
    pub const STDERR: u16 = 1 << 2;
    pub const SCREENS: u16 = 1 << 3;
    pub const REQUESTS: u16 = 1 << 4;
    pub const MCP: u16 = 1 << 5;
    pub const LISTS: u16 = 1 << 6;
    pub const PROJECT_STATE: u16 = 1 << 7;
    pub const RSS: u16 = 1 << 8;
    pub const FILES: u16 = 1 << 9;
    pub const SESSIONS: u16 = 1 << 10;
    /// Every text of the run (`each_text`).
    pub const TEXTS: u16 = STDOUT | STDERR | SCREENS | REQUESTS | MCP | PROJECT_STATE | SESSIONS;
}

/// What `spec` reads of a run.
fn reads(spec: &CheckSpec) -> u16 {
    use part::*;
    match spec.kind.expect("validated at load") {
        CheckKind::Exit => EXIT,
        CheckKind::Result
        | CheckKind::Events
        | CheckKind::ToolUseResult
        | CheckKind::View
        | CheckKind::Stdout => STDOUT,
        CheckKind::Stderr => STDERR,
        CheckKind::Screen => SCREENS,
        CheckKind::Requests
        | CheckKind::Tools
        | CheckKind::Betas
        | CheckKind::ToolResult
        | CheckKind::Media
        | CheckKind::Pairing
        | CheckKind::ToolDef
        | CheckKind::System
        | CheckKind::UserContext => REQUESTS,
        CheckKind::File => FILES,
        CheckKind::Process => RSS,
        CheckKind::Mcp => MCP,
        CheckKind::Uploads
        | CheckKind::Design
        | CheckKind::Oauth
        | CheckKind::Project
        | CheckKind::Site
        | CheckKind::Artifact
        | CheckKind::Directory
        | CheckKind::Hooks => LISTS,
        CheckKind::ProjectState => PROJECT_STATE,
        // The session id it looks for comes from stdout.
        CheckKind::Transcript => SESSIONS | STDOUT,
    }
}
