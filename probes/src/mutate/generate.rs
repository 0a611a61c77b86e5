//! Which mutations a run and its checks call for: generic ones (every stdout event, every
//! request) and ones the checks name (the text a `contains` wants, a tool an `includes` lists).

use std::collections::BTreeSet;

use serde_json::Value;

use super::mutation::{List, Mutation, Perturb, LISTS, MARK};
use crate::outcome::RunOutcome;
use crate::scenario::{CheckKind, CheckSpec};

/// Every mutation worth trying on `run` for `checks`, broad ones first so that most checks fall
/// early.
pub(super) fn mutations(checks: &[&CheckSpec], run: &RunOutcome) -> Vec<Mutation> {
    use Mutation as M;
    let mut out = vec![M::ExitChanged, M::KilledBySignal];
    let raw = |s: &str| run.places.expand(&stubs::mcp::expand(s));
    let mut wanted = BTreeSet::new();
    let mut unwanted = BTreeSet::new();
    for spec in checks {
        let mut specs = vec![*spec];
        specs.extend(spec.differs.iter().flat_map(|d| d.values()));
        for s in specs {
            wanted.extend(s.contains.iter().map(|t| raw(t)));
            wanted.extend(s.equals.iter().filter_map(Value::as_str).map(raw));
            unwanted.extend(s.not_contains.iter().map(|t| raw(t)));
        }
    }
    wanted.retain(|t: &String| !t.is_empty());
    out.extend(wanted.iter().cloned().map(M::TextRemoved));
    // The mark itself: an exact text (`equals = ""` included) changes.
    out.push(M::TextAdded(MARK.into()));
    out.extend(unwanted.iter().cloned().map(M::TextAdded));
    out.extend(unwanted.iter().cloned().map(M::StdoutAppended));
    out.extend([
        M::StdoutCleared,
        M::StderrCleared,
        M::ResultErrorFlipped,
        M::ResultSubtypeChanged,
    ]);
    let events = crate::wire::stdout_events(&run.stdout);
    out.extend((0..events.len()).map(M::EventRemoved));
    let kinds: BTreeSet<String> = events.iter().map(crate::wire::event_kind).collect();
    for kind in kinds {
        out.push(M::EventKeyAdded(kind.clone()));
        out.push(M::EventKeyRemoved(kind));
    }
    for (i, e) in events.iter().enumerate() {
        if !e["tool_use_result"].is_null() {
            out.extend(PERTURBS.map(|p| M::ToolUseResultPerturbed(i, p)));
        }
    }
    out.extend((0..run.requests.len()).map(M::RequestDropped));
    out.extend((0..run.requests.len()).map(M::ToolResultDropped));
    out.extend([M::ToolResultsErrorFlipped, M::ToolResultsTextAdded]);
    // A call expected to stay unanswered (`absent`, in a check or a difference) is answered.
    let unanswered = |kind: CheckKind| -> BTreeSet<String> {
        checks
            .iter()
            .filter(|s| s.kind == Some(kind))
            .filter(|s| {
                s.absent == Some(true)
                    || s.differs
                        .iter()
                        .flat_map(|d| d.values())
                        .any(|d| d.absent == Some(true))
            })
            .filter_map(|s| s.tool_use_id.clone())
            .collect()
    };
    out.extend(
        unanswered(CheckKind::ToolResult)
            .into_iter()
            .map(M::ToolResultAdded),
    );
    out.extend(
        unanswered(CheckKind::ToolUseResult)
            .into_iter()
            .map(M::ToolUseResultAdded),
    );
    let names = |f: fn(&CheckSpec) -> Option<&Vec<String>>| -> BTreeSet<String> {
        checks
            .iter()
            .flat_map(|s| f(s).into_iter().flatten())
            .cloned()
            .collect()
    };
    let includes = names(|s| s.includes.as_ref());
    let excludes = names(|s| s.excludes.as_ref());
    let order = names(|s| s.order.as_ref());
    let asks_betas = checks.iter().any(|s| s.kind == Some(CheckKind::Betas));
    if asks_betas {
        out.extend(includes.iter().cloned().map(M::BetaRemoved));
        out.extend(excludes.iter().cloned().map(M::BetaAdded));
    }
    for t in includes.iter().chain(&order) {
        out.push(M::ToolRemoved(t.trim_end_matches('*').to_owned()));
        out.push(M::PropertyRemoved(t.clone()));
    }
    for t in &excludes {
        out.push(M::ToolAdded(t.replace('*', "mutant")));
        out.push(M::PropertyAdded(t.clone()));
    }
    out.push(M::ToolsReversed);
    out.extend(PERTURBS.map(M::AllRequestsPerturbed));
    for (i, _) in run.requests.iter().enumerate() {
        out.extend(PERTURBS.map(|p| M::RequestPerturbed(i, p)));
    }
    let agents: BTreeSet<String> = checks.iter().filter_map(|s| s.agent.clone()).collect();
    out.extend(agents.into_iter().map(M::AgentRequestAdded));
    for spec in checks {
        let list = match spec.kind {
            Some(CheckKind::Uploads) => List::Uploads,
            Some(CheckKind::Design) => List::Design,
            Some(CheckKind::Project) => List::Project,
            Some(CheckKind::Oauth) => List::TokenRequests,
            Some(CheckKind::Hooks) => List::Hooks,
            Some(CheckKind::Site) => List::Site,
            Some(CheckKind::Directory) => List::Directory,
            _ => continue,
        };
        let method = match list {
            List::Hooks => spec.event.clone(),
            _ => spec.method.clone(),
        };
        out.push(M::ListAdded(list, method, spec.path.clone()));
    }
    let servers: BTreeSet<String> = checks
        .iter()
        .filter_map(|s| s.server.clone())
        .chain(run.mcp.keys().cloned())
        .collect();
    for s in &servers {
        out.push(M::ServerDialled(s.clone()));
        out.push(M::ServerSilenced(s.clone()));
        out.push(M::SurvivorToggled(s.clone()));
        out.push(M::ServerFirst(s.clone()));
        out.push(M::ServerLater(s.clone()));
        out.push(M::ServerGapsStretched(s.clone()));
        for m in &excludes {
            out.push(M::ServerMethodAdded(s.clone(), m.clone()));
        }
        let n = run.mcp.get(s).map_or(0, |r| r.entries.len());
        for i in 0..n {
            out.push(M::ServerEntryRemoved(s.clone(), i));
            out.push(M::ServerEntryDuplicated(s.clone(), i));
        }
    }
    for list in LISTS {
        let n = list_len(run, list);
        for i in 0..n {
            out.push(M::ListDropped(list, i));
            out.push(M::ListDuplicated(list, i));
            if i + 1 < n {
                out.push(M::ListSwapped(list, i));
            }
        }
    }
    if let Some(state) = &run.project_state {
        out.extend((0..state.docs.len()).map(M::ProjectDocChanged));
        out.extend((0..state.docs.len()).map(M::ProjectDocRemoved));
        out.extend((0..state.uploads.len()).map(M::ProjectUploadRemoved));
        out.extend([M::ProjectSizeChanged, M::ProjectGone]);
    }
    out.extend([M::RssUnknown, M::RssHuge]);
    let transcripts: Vec<&&CheckSpec> = checks
        .iter()
        .filter(|s| s.kind == Some(CheckKind::Transcript))
        .collect();
    if !transcripts.is_empty() {
        let paths: BTreeSet<Option<String>> = transcripts.iter().map(|s| s.path.clone()).collect();
        out.extend(paths.into_iter().map(M::SessionWritten));
        for (f, file) in run.sessions.iter().enumerate() {
            out.push(M::SessionKeysReversed(f));
            out.push(M::SessionStringsChanged(f));
            let n = file.records().len();
            out.extend((0..n).map(|i| M::SessionRecordRemoved(f, i)));
        }
    }
    for spec in checks.iter().filter(|s| s.kind == Some(CheckKind::File)) {
        let rel = spec.path.as_deref().unwrap_or_default();
        let (base, rel) = match rel.strip_prefix("~/") {
            Some(r) => (&run.home, r),
            None => (&run.cwd, rel),
        };
        let found = crate::check::resolve_pattern(base, rel);
        match found.as_slice() {
            [one] => out.extend([
                M::FileChanged(one.clone(), MARK.into()),
                M::FileModeChanged(one.clone()),
                M::FileRemoved(one.clone()),
            ]),
            [] => out.push(M::FileCreated(base.join(rel.replace('*', "mutant")))),
            _ => {}
        }
        if let [one] = found.as_slice() {
            let unwanted = spec.not_contains.iter().map(|t| raw(t));
            out.extend(unwanted.map(|t| M::FileChanged(one.clone(), t)));
        }
    }
    out
}

pub(super) const PERTURBS: [Perturb; 4] = [
    Perturb::Strings,
    Perturb::Numbers,
    Perturb::Bools,
    Perturb::Arrays,
];

fn list_len(run: &RunOutcome, list: List) -> usize {
    match list {
        List::Uploads => run.uploads.len(),
        List::Design => run.design.len(),
        List::Project => run.project.len(),
        List::Site => run.site.len(),
        List::Artifact => run.artifact.len(),
        List::Directory => run.directory.len(),
        List::TokenRequests => run.token_requests.len(),
        List::Hooks => run.hooks.len(),
    }
}
