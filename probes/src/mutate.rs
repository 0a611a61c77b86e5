//! Mutation testing of a scenario's checks against its own run: each check that passed must fail
//! on at least one changed copy of the evidence (a line of stdout gone, a count off by one, a
//! server's message missing, a file changed). A check no mutation can fail would pass whatever
//! the target did, which is the harness passing by accident.
//!
//! The mutations are of the evidence the checks read (`RunOutcome`), never of the checks. Some
//! are generic (every stdout event removed in turn, every request dropped); some are guided by
//! the checks themselves (the text a `contains` wants removed everywhere, the text a
//! `not_contains` forbids added to every text) so a check is shown to read what it names.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};
use stubs::jsonlog::LogEntry;

use crate::check::evaluate;
use crate::mcp::ServerRecord;
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

/// One way to change a run's evidence.
#[derive(Debug, Clone)]
enum Mutation {
    ExitChanged,
    KilledBySignal,
    /// The text a positive expectation wants, changed wherever it occurs in the run's texts.
    TextRemoved(String),
    /// The text a negative expectation forbids, added to every text of the run.
    TextAdded(String),
    StdoutCleared,
    StderrCleared,
    EventRemoved(usize),
    ResultErrorFlipped,
    ResultSubtypeChanged,
    EventKeyAdded(String),
    EventKeyRemoved(String),
    ToolUseResultPerturbed(usize, Perturb),
    RequestDropped(usize),
    RequestPerturbed(usize, Perturb),
    AllRequestsPerturbed(Perturb),
    /// A request of the second loop with this label (a loop that must not have run).
    AgentRequestAdded(String),
    /// Raw text appended to stdout, outside any event (a forbidden text on stdout as text).
    StdoutAppended(String),
    ToolRemoved(String),
    ToolAdded(String),
    ToolsReversed,
    PropertyRemoved(String),
    PropertyAdded(String),
    ToolResultDropped(usize),
    /// Every tool_result's `is_error` flipped.
    ToolResultsErrorFlipped,
    /// A text block added to every tool_result (one whose content is only a picture included).
    ToolResultsTextAdded,
    ServerDialled(String),
    ServerSilenced(String),
    ServerEntryRemoved(String, usize),
    ServerEntryDuplicated(String, usize),
    ServerMethodAdded(String, String),
    ServerFirst(String),
    ServerLater(String),
    ServerGapsStretched(String),
    SurvivorToggled(String),
    ListDropped(List, usize),
    ListDuplicated(List, usize),
    ListSwapped(List, usize),
    /// A blank request added to a mock's list, of the operation (`method`) and endpoint
    /// (`path`) a check filters on: for the checks that nothing arrived.
    ListAdded(List, Option<String>, Option<String>),
    ProjectDocChanged(usize),
    ProjectDocRemoved(usize),
    ProjectUploadRemoved(usize),
    ProjectSizeChanged,
    ProjectGone,
    RssUnknown,
    RssHuge,
    /// The file with this text appended.
    FileChanged(PathBuf, String),
    FileRemoved(PathBuf),
    FileModeChanged(PathBuf),
    FileCreated(PathBuf),
}

/// How a JSON value's leaves are changed.
#[derive(Debug, Clone, Copy)]
enum Perturb {
    Strings,
    Numbers,
    Bools,
    Arrays,
}

/// The recorded lists of the mock backends.
#[derive(Debug, Clone, Copy)]
enum List {
    Uploads,
    Design,
    Project,
    Site,
    Artifact,
    TokenRequests,
}

const LISTS: [List; 6] = [
    List::Uploads,
    List::Design,
    List::Project,
    List::Site,
    List::Artifact,
    List::TokenRequests,
];

/// The marker a mutation writes into a text: no check expects it.
const MARK: &str = "\u{2042}mutant";

/// Puts every passing check of `checks` (those whose outcome `passed` says passed) to mutations of
/// `run`, stopping as soon as each has failed once.
pub fn survey(checks: &[&CheckSpec], target: &str, run: &RunOutcome) -> Survey {
    survey_with(checks, target, run, mutations(checks, run))
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
struct Mutant {
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
mod part {
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
    /// Every text of the run (`each_text`).
    pub const TEXTS: u16 = STDOUT | STDERR | SCREENS | REQUESTS | MCP | PROJECT_STATE;
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
        | CheckKind::Artifact => LISTS,
        CheckKind::ProjectState => PROJECT_STATE,
    }
}

impl Mutation {
    /// What this mutation changes of a run.
    fn touches(&self) -> u16 {
        use part::*;
        use Mutation as M;
        match self {
            M::ExitChanged | M::KilledBySignal => EXIT,
            M::TextRemoved(_) | M::TextAdded(_) => TEXTS,
            M::StdoutCleared
            | M::EventRemoved(_)
            | M::ResultErrorFlipped
            | M::ResultSubtypeChanged
            | M::EventKeyAdded(_)
            | M::EventKeyRemoved(_)
            | M::ToolUseResultPerturbed(..)
            | M::StdoutAppended(_) => STDOUT,
            M::StderrCleared => STDERR,
            M::RequestDropped(_)
            | M::RequestPerturbed(..)
            | M::AllRequestsPerturbed(_)
            | M::AgentRequestAdded(_)
            | M::ToolRemoved(_)
            | M::ToolAdded(_)
            | M::ToolsReversed
            | M::PropertyRemoved(_)
            | M::PropertyAdded(_)
            | M::ToolResultDropped(_)
            | M::ToolResultsErrorFlipped
            | M::ToolResultsTextAdded => REQUESTS,
            M::ServerDialled(_)
            | M::ServerSilenced(_)
            | M::ServerEntryRemoved(..)
            | M::ServerEntryDuplicated(..)
            | M::ServerMethodAdded(..)
            | M::ServerFirst(_)
            | M::ServerLater(_)
            | M::ServerGapsStretched(_)
            | M::SurvivorToggled(_) => MCP,
            M::ListDropped(..) | M::ListDuplicated(..) | M::ListSwapped(..) | M::ListAdded(..) => {
                LISTS
            }
            M::ProjectDocChanged(_)
            | M::ProjectDocRemoved(_)
            | M::ProjectUploadRemoved(_)
            | M::ProjectSizeChanged
            | M::ProjectGone => PROJECT_STATE,
            M::RssUnknown | M::RssHuge => RSS,
            M::FileChanged(..) | M::FileRemoved(_) | M::FileModeChanged(_) | M::FileCreated(_) => {
                FILES
            }
        }
    }
}

fn describe(m: &Mutation) -> String {
    match m {
        Mutation::ExitChanged => "exit status changed".into(),
        Mutation::KilledBySignal => "process killed by a signal".into(),
        Mutation::TextRemoved(t) => format!("{t:?} changed wherever it occurs"),
        Mutation::TextAdded(t) => format!("{t:?} added to every text"),
        Mutation::StdoutCleared => "stdout empty".into(),
        Mutation::StderrCleared => "stderr empty".into(),
        Mutation::EventRemoved(i) => format!("stdout event {} removed", i + 1),
        Mutation::ResultErrorFlipped => "result is_error flipped".into(),
        Mutation::ResultSubtypeChanged => "result subtype changed".into(),
        Mutation::EventKeyAdded(k) => format!("last `{k}` event gained a key"),
        Mutation::EventKeyRemoved(k) => format!("last `{k}` event lost a key"),
        Mutation::ToolUseResultPerturbed(i, p) => {
            format!("tool_use_result of stdout event {}: {p:?} changed", i + 1)
        }
        Mutation::RequestDropped(i) => format!("request {} dropped", i + 1),
        Mutation::RequestPerturbed(i, p) => format!("request {}: {p:?} changed", i + 1),
        Mutation::AllRequestsPerturbed(p) => format!("every request: {p:?} changed"),
        Mutation::AgentRequestAdded(a) => format!("a request of agent `{a}` added"),
        Mutation::StdoutAppended(t) => format!("{t:?} appended to stdout"),
        Mutation::ToolRemoved(t) => format!("tool `{t}` removed from every tools[]"),
        Mutation::ToolAdded(t) => format!("tool `{t}` added to every tools[]"),
        Mutation::ToolsReversed => "every tools[] reversed".into(),
        Mutation::PropertyRemoved(p) => format!("property `{p}` removed from every tool"),
        Mutation::PropertyAdded(p) => format!("property `{p}` added to every tool"),
        Mutation::ToolResultDropped(i) => format!("request {}: a tool_result dropped", i + 1),
        Mutation::ToolResultsErrorFlipped => "every tool_result's is_error flipped".into(),
        Mutation::ToolResultsTextAdded => "a text block added to every tool_result".into(),
        Mutation::ServerDialled(s) => format!("server `{s}` started and initialized"),
        Mutation::ServerSilenced(s) => format!("server `{s}` logged nothing"),
        Mutation::ServerEntryRemoved(s, i) => format!("server `{s}`: log entry {} removed", i + 1),
        Mutation::ServerEntryDuplicated(s, i) => {
            format!("server `{s}`: log entry {} duplicated", i + 1)
        }
        Mutation::ServerMethodAdded(s, m) => format!("server `{s}` received `{m}`"),
        Mutation::ServerFirst(s) => format!("server `{s}` moved to the first server's start"),
        Mutation::ServerLater(s) => format!("server `{s}`'s log 10 s later"),
        Mutation::ServerGapsStretched(s) => format!("server `{s}`'s gaps doubled plus 1 s"),
        Mutation::SurvivorToggled(s) => format!("server `{s}` outlived the target or not"),
        Mutation::ListDropped(l, i) => format!("{l:?} {} dropped", i + 1),
        Mutation::ListDuplicated(l, i) => format!("{l:?} {} duplicated", i + 1),
        Mutation::ListSwapped(l, i) => format!("{l:?} {} and {} swapped", i + 1, i + 2),
        Mutation::ListAdded(l, m, p) => format!("a {l:?} request added ({m:?} {p:?})"),
        Mutation::ProjectDocChanged(i) => format!("Project doc {} changed", i + 1),
        Mutation::ProjectDocRemoved(i) => format!("Project doc {} removed", i + 1),
        Mutation::ProjectUploadRemoved(i) => format!("Project upload {} removed", i + 1),
        Mutation::ProjectSizeChanged => "Project knowledge size changed".into(),
        Mutation::ProjectGone => "no Project state".into(),
        Mutation::RssUnknown => "peak RSS unknown".into(),
        Mutation::RssHuge => "peak RSS 64 GiB".into(),
        Mutation::FileChanged(p, t) => format!("{t:?} appended to {}", p.display()),
        Mutation::FileRemoved(p) => format!("{} removed", p.display()),
        Mutation::FileModeChanged(p) => format!("{} mode changed", p.display()),
        Mutation::FileCreated(p) => format!("{} created", p.display()),
    }
}

/// Every mutation worth trying on `run` for `checks`, broad ones first so that most checks fall
/// early.
fn mutations(checks: &[&CheckSpec], run: &RunOutcome) -> Vec<Mutation> {
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
            _ => continue,
        };
        out.push(M::ListAdded(list, spec.method.clone(), spec.path.clone()));
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

const PERTURBS: [Perturb; 4] = [
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
        List::TokenRequests => run.token_requests.len(),
    }
}

/// `run` with `m` applied, or `None` when `m` changes nothing here.
fn apply(m: &Mutation, run: &RunOutcome) -> Option<Mutant> {
    use Mutation as M;
    let mut r = run.clone();
    let mut file = None;
    match m {
        M::ExitChanged => r.exit_code = Some(r.exit_code.map_or(0, |c| c + 1)),
        M::KilledBySignal => r.exit_code = None,
        M::TextRemoved(t) => {
            // The mark after its first character: the text is gone, its neighbours stay.
            let first = t.chars().next()?;
            let changed = format!("{first}{MARK}{}", &t[first.len_utf8()..]);
            let mut any = false;
            each_text(&mut r, &mut |s| {
                if s.contains(t.as_str()) {
                    *s = s.replace(t.as_str(), &changed);
                    any = true;
                }
            });
            any.then_some(())?;
        }
        M::TextAdded(t) => {
            each_text(&mut r, &mut |s| s.push_str(t));
            for record in r.mcp.values_mut() {
                let t_ms = record.entries.last().map_or(0, |e| e.t_ms);
                record.entries.push(note(t_ms, t));
            }
        }
        M::StdoutCleared => (!r.stdout.is_empty()).then(|| r.stdout.clear())?,
        M::StderrCleared => (!r.stderr.is_empty()).then(|| r.stderr.clear())?,
        M::EventRemoved(i) => edit_events(&mut r, |events| {
            events.remove(*i);
        })
        .then_some(())?,
        M::ResultErrorFlipped | M::ResultSubtypeChanged => edit_events(&mut r, |events| {
            if let Some(result) = events.iter_mut().rev().find(|e| e["type"] == "result") {
                if matches!(m, M::ResultErrorFlipped) {
                    let flipped = !result["is_error"].as_bool().unwrap_or(false);
                    result["is_error"] = json!(flipped);
                } else {
                    result["subtype"] = json!(MARK);
                }
            }
        })
        .then_some(())?,
        M::EventKeyAdded(kind) | M::EventKeyRemoved(kind) => edit_events(&mut r, |events| {
            let last = events
                .iter_mut()
                .rev()
                .find(|e| crate::wire::event_kind(e) == *kind);
            if let Some(Value::Object(o)) = last {
                if matches!(m, M::EventKeyAdded(_)) {
                    o.insert(MARK.into(), json!(true));
                } else if let Some(k) = o.keys().rfind(|k| *k != "type" && *k != "subtype") {
                    let k = k.clone();
                    o.remove(&k);
                }
            }
        })
        .then_some(())?,
        M::ToolUseResultPerturbed(i, p) => edit_events(&mut r, |events| {
            perturb(&mut events[*i]["tool_use_result"], *p, None);
        })
        .then_some(())?,
        M::RequestDropped(i) => {
            r.requests.remove(*i);
        }
        M::RequestPerturbed(i, p) => perturb(&mut r.requests[*i].body, *p, None),
        M::AllRequestsPerturbed(p) => {
            for req in &mut r.requests {
                perturb(&mut req.body, *p, None);
            }
        }
        M::AgentRequestAdded(agent) => r.requests.push(stubs::messages::RecordedRequest {
            at_ms: 0,
            at_unix_ms: 0,
            method: "POST".into(),
            path: "/v1/messages".into(),
            headers: Default::default(),
            body: json!({"messages": [{"role": "user", "content": MARK}]}),
            kind: stubs::messages::RequestKind::Agent {
                agent: agent.clone(),
                n: 1,
            },
            status: 200,
        }),
        M::StdoutAppended(t) => r.stdout.push_str(&format!("{t}\n")),
        M::ToolResultDropped(i) => {
            let messages = r.requests[*i].body["messages"].as_array_mut()?;
            let message = messages.iter_mut().rev().find(|m| {
                m["content"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
            })?;
            let content = message["content"].as_array_mut()?;
            let at = content.iter().position(|b| b["type"] == "tool_result")?;
            content.remove(at);
        }
        M::ToolResultsErrorFlipped | M::ToolResultsTextAdded => {
            for req in &mut r.requests {
                for message in req.body["messages"].as_array_mut().into_iter().flatten() {
                    for block in message["content"].as_array_mut().into_iter().flatten() {
                        if block["type"] != "tool_result" {
                            continue;
                        }
                        if matches!(m, M::ToolResultsErrorFlipped) {
                            let flipped = !crate::wire::is_error(block);
                            block["is_error"] = json!(flipped);
                        } else {
                            let text = json!({"type": "text", "text": MARK});
                            match &mut block["content"] {
                                Value::Array(content) => content.push(text),
                                Value::String(content) => content.push_str(MARK),
                                other => *other = json!([text]),
                            }
                        }
                    }
                }
            }
        }
        M::ToolRemoved(_) | M::ToolAdded(_) | M::ToolsReversed => {
            for req in &mut r.requests {
                let Some(tools) = req.body["tools"].as_array_mut() else {
                    continue;
                };
                match m {
                    M::ToolRemoved(name) => tools.retain(|t| {
                        !t["name"]
                            .as_str()
                            .is_some_and(|n| n.starts_with(name.as_str()))
                    }),
                    M::ToolAdded(name) => tools.push(json!({"name": name, "input_schema": {}})),
                    _ => tools.reverse(),
                }
            }
        }
        M::PropertyRemoved(p) | M::PropertyAdded(p) => {
            for req in &mut r.requests {
                for tool in req.body["tools"].as_array_mut().into_iter().flatten() {
                    if let Some(props) = tool["input_schema"]["properties"].as_object_mut() {
                        if matches!(m, M::PropertyAdded(_)) {
                            props.insert(p.clone(), json!({"type": "string"}));
                        } else {
                            props.remove(p);
                        }
                    }
                }
            }
        }
        M::ServerDialled(s) => {
            let record = r.mcp.entry(s.clone()).or_insert_with(|| ServerRecord {
                transport: Default::default(),
                entries: Vec::new(),
                log_error: None,
            });
            let t_ms = record.entries.last().map_or(0, |e| e.t_ms);
            record.entries.push(note(t_ms, "start argv=[mutant]"));
            record.entries.push(LogEntry {
                t_ms,
                pid: 0,
                dir: "in".into(),
                msg: json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
                note: None,
            });
        }
        M::ServerSilenced(s) => r.mcp.get_mut(s)?.entries.clear(),
        M::ServerEntryRemoved(s, i) => {
            r.mcp.get_mut(s)?.entries.remove(*i);
        }
        M::ServerEntryDuplicated(s, i) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let e = entries[*i].clone();
            entries.insert(*i, e);
        }
        M::ServerMethodAdded(s, method) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let t_ms = entries.last().map_or(0, |e| e.t_ms);
            entries.push(LogEntry {
                t_ms,
                pid: 0,
                dir: "in".into(),
                msg: json!({"jsonrpc": "2.0", "method": method}),
                note: Some(format!("{method} /"))
                    .filter(|_| method.chars().all(|c| c.is_ascii_uppercase())),
            });
        }
        M::ServerFirst(s) => {
            let first_in = |rec: &ServerRecord| rec.received().next().map(|e| e.t_ms);
            let earliest = r.mcp.values().filter_map(first_in).min()?;
            let record = r.mcp.get_mut(s)?;
            let mine = first_in(record)?;
            (mine > earliest).then_some(())?;
            let back = mine - earliest;
            for e in &mut record.entries {
                e.t_ms = e.t_ms.saturating_sub(back);
            }
        }
        M::ServerLater(s) => {
            for e in &mut r.mcp.get_mut(s)?.entries {
                e.t_ms += 10_000;
            }
        }
        M::ServerGapsStretched(s) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let t0 = entries.first()?.t_ms;
            for (k, e) in entries.iter_mut().enumerate() {
                e.t_ms = t0 + 2 * e.t_ms.saturating_sub(t0) + 1000 * k as u64;
            }
        }
        M::SurvivorToggled(s) => {
            if r.mcp_survivors.iter().any(|(n, _)| n == s) {
                r.mcp_survivors.retain(|(n, _)| n != s);
            } else {
                r.mcp_survivors.push((s.clone(), 0));
            }
        }
        M::ListDropped(l, i) | M::ListDuplicated(l, i) | M::ListSwapped(l, i) => {
            fn edit<T: Clone>(v: &mut Vec<T>, m: &Mutation, i: usize) {
                match m {
                    Mutation::ListDropped(..) => {
                        v.remove(i);
                    }
                    Mutation::ListDuplicated(..) => v.insert(i, v[i].clone()),
                    _ => v.swap(i, i + 1),
                }
            }
            match l {
                List::Uploads => edit(&mut r.uploads, m, *i),
                List::Design => edit(&mut r.design, m, *i),
                List::Project => edit(&mut r.project, m, *i),
                List::Site => edit(&mut r.site, m, *i),
                List::Artifact => edit(&mut r.artifact, m, *i),
                List::TokenRequests => edit(&mut r.token_requests, m, *i),
            }
        }
        M::ListAdded(list, method, path) => match list {
            List::Uploads => r.uploads.push(Default::default()),
            List::TokenRequests => r.token_requests.push(Default::default()),
            List::Design => {
                use stubs::claude_ai::DesignEndpoint as E;
                let endpoint = match path.as_deref() {
                    Some("consent") => E::Consent,
                    Some("grants") => E::Grants,
                    Some("sync") => E::Sync,
                    _ => E::Mcp,
                };
                r.design.push(stubs::claude_ai::DesignRequest {
                    endpoint,
                    rpc: method.clone(),
                    http_method: method.clone().unwrap_or_else(|| "POST".into()),
                    ..Default::default()
                });
            }
            List::Project => r.project.push(stubs::claude_ai::ProjectRequest {
                op: method
                    .as_ref()
                    .and_then(|m| serde_json::from_value(json!(m)).ok()),
                ..Default::default()
            }),
            List::Site | List::Artifact => return None,
        },
        M::ProjectDocChanged(i) => r.project_state.as_mut()?.docs[*i].content.push_str(MARK),
        M::ProjectDocRemoved(i) => {
            r.project_state.as_mut()?.docs.remove(*i);
        }
        M::ProjectUploadRemoved(i) => {
            r.project_state.as_mut()?.uploads.remove(*i);
        }
        M::ProjectSizeChanged => r.project_state.as_mut()?.knowledge_size += 1,
        M::ProjectGone => r.project_state = None,
        M::RssUnknown => r.peak_rss_kib = None,
        M::RssHuge => r.peak_rss_kib = Some(64 << 20),
        M::FileChanged(p, _) | M::FileRemoved(p) | M::FileModeChanged(p) => {
            use std::os::unix::fs::PermissionsExt;
            let bytes = std::fs::read(p).ok()?;
            let perms = std::fs::metadata(p).ok()?.permissions();
            file = Some((p.clone(), Some((bytes.clone(), perms.clone()))));
            let done = match m {
                M::FileChanged(_, text) => {
                    let mut changed = bytes;
                    changed.extend_from_slice(text.as_bytes());
                    std::fs::write(p, changed)
                }
                M::FileRemoved(_) => std::fs::remove_file(p),
                _ => std::fs::set_permissions(
                    p,
                    std::fs::Permissions::from_mode(perms.mode() ^ 0o077),
                ),
            };
            if done.is_err() {
                Mutant { run: r, file }.restore();
                return None;
            }
        }
        M::FileCreated(p) => {
            std::fs::create_dir_all(p.parent()?).ok()?;
            std::fs::write(p, MARK).ok()?;
            file = Some((p.clone(), None));
        }
    }
    Some(Mutant { run: r, file })
}

fn note(t_ms: u64, text: &str) -> LogEntry {
    LogEntry {
        t_ms,
        pid: 0,
        dir: "note".into(),
        msg: Value::Null,
        note: Some(text.to_owned()),
    }
}

/// Rewrites stdout's stream-json events (a terminal's stdout is left alone).
/// `false`, and nothing changed, when stdout is not stream-json.
fn edit_events(r: &mut RunOutcome, f: impl FnOnce(&mut Vec<Value>)) -> bool {
    let mut events = crate::wire::stdout_events(&r.stdout);
    if events.iter().any(|e| !e.is_object()) {
        return false;
    }
    f(&mut events);
    r.stdout = events.iter().map(|e| format!("{e}\n")).collect();
    true
}

/// Keys whose string values are texts a check reads (prose, results, prompts), not names.
const TEXT_KEYS: &[&str] = &[
    "text",
    "content",
    "result",
    "description",
    "system",
    "message",
    "error",
    "stdout",
    "stderr",
    "prompt",
];

/// Calls `f` on every text of the run: stderr, the screens, stdout (each text of its events, or
/// the terminal's bytes), request bodies, server logs, the Project's docs.
fn each_text(r: &mut RunOutcome, f: &mut dyn FnMut(&mut String)) {
    f(&mut r.stderr);
    r.screens.iter_mut().for_each(&mut *f);
    let in_events = edit_events(r, |events| {
        events.iter_mut().for_each(|e| texts_in(e, None, &mut *f));
    });
    if !in_events {
        f(&mut r.stdout);
    }
    for req in &mut r.requests {
        texts_in(&mut req.body, None, f);
    }
    for record in r.mcp.values_mut() {
        for e in &mut record.entries {
            texts_in(&mut e.msg, None, f);
            if let Some(n) = &mut e.note {
                f(n);
            }
        }
    }
    for doc in r.project_state.iter_mut().flat_map(|s| s.docs.iter_mut()) {
        f(&mut doc.content);
    }
}

fn texts_in(v: &mut Value, key: Option<&str>, f: &mut dyn FnMut(&mut String)) {
    match v {
        Value::String(s) if key.is_some_and(|k| TEXT_KEYS.contains(&k)) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|i| texts_in(i, key, f)),
        Value::Object(o) => o.iter_mut().for_each(|(k, v)| texts_in(v, Some(k), f)),
        _ => {}
    }
}

/// Keys that name or link rather than say: changing them would hide a value from its check (a
/// tool_result no longer found by its id) instead of changing it.
const ID_KEYS: &[&str] = &["id", "tool_use_id", "type", "role"];

fn perturb(v: &mut Value, how: Perturb, key: Option<&str>) {
    match (v, how) {
        (Value::String(s), Perturb::Strings) if !key.is_some_and(|k| ID_KEYS.contains(&k)) => {
            s.push_str(MARK)
        }
        (Value::Number(n), Perturb::Numbers) => {
            *n = match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => (u + 1).into(),
                (_, Some(i), _) => (i + 1).into(),
                (_, _, Some(f)) => serde_json::Number::from_f64(f + 1.0).unwrap_or(0.into()),
                _ => return,
            }
        }
        (Value::Bool(b), Perturb::Bools) => *b = !*b,
        (Value::Array(items), how) => {
            if matches!(how, Perturb::Arrays) {
                items.pop();
            }
            items.iter_mut().for_each(|i| perturb(i, how, key));
        }
        (Value::Object(o), how) => o.iter_mut().for_each(|(k, v)| perturb(v, how, Some(k))),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stubs::messages::{RecordedRequest, RequestKind};

    fn spec(toml_src: &str) -> CheckSpec {
        toml::from_str(toml_src).unwrap()
    }

    fn request(n: usize, body: Value) -> RecordedRequest {
        RecordedRequest {
            at_ms: 0,
            at_unix_ms: 0,
            method: "POST".into(),
            path: "/v1/messages".into(),
            headers: Default::default(),
            body,
            kind: RequestKind::Main(n),
            status: 200,
        }
    }

    /// One run with evidence for every check kind the table below states.
    fn run() -> RunOutcome {
        let mut run = RunOutcome::blank();
        let events = [
            json!({"type": "system", "subtype": "init", "session_id": "s"}),
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "Reading it"}]}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello world"}]}, "tool_use_result": {"bytes": 12, "path": "a.txt", "ok": true}}),
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "All done"}),
        ];
        run.stdout = events.iter().map(|e| format!("{e}\n")).collect();
        run.stderr = "warming up\n".into();
        let tools = json!([
            {"name": "Read", "description": "Reads a file", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}},
            {"name": "Bash", "description": "Runs a command", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
        ]);
        let ask = json!({"role": "user", "content": [{"type": "text", "text": "<context>cwd</context>"}, {"type": "text", "text": "read a.txt"}]});
        let uses = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]});
        let answers = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello world"}]});
        run.requests = vec![
            request(
                1,
                json!({"model": "m", "system": "You are a test.", "tools": tools, "messages": [ask]}),
            ),
            request(
                2,
                json!({"model": "m", "system": "You are a test.", "tools": tools, "messages": [ask, uses, answers]}),
            ),
        ];
        let entry = |t_ms, dir: &str, msg: Value| LogEntry {
            t_ms,
            pid: 7,
            dir: dir.into(),
            msg,
            note: None,
        };
        let mut log = vec![note(1000, "start argv=[]")];
        log.push(entry(1000, "in", json!({"id": 0, "method": "initialize"})));
        log.push(entry(1010, "out", json!({"id": 0, "result": {}})));
        log.push(entry(1020, "in", json!({"method": "tools/list"})));
        log.push(entry(1600, "in", json!({"method": "tools/list"})));
        log.push(note(1700, "stdin EOF"));
        run.mcp.insert(
            "docs".into(),
            ServerRecord {
                transport: Default::default(),
                entries: log,
                log_error: None,
            },
        );
        run.uploads.push(stubs::claude_ai::RecordedUpload {
            filename: Some("a.png".into()),
            size: 70,
            status: 200,
            ..Default::default()
        });
        std::fs::write(run.cwd.join("notes.md"), "# Notes\nkept\n").unwrap();
        run
    }

    /// Every kind of check, each passing on `run()`: the mutations must fail every one, each
    /// with a diff that says what it saw.
    const CHECKS: &[&str] = &[
        "kind = \"exit\"\nequals = 0",
        "kind = \"result\"\nsubtype = \"success\"\nis_error = false\ncontains = \"done\"",
        "kind = \"requests\"\nequals = 2",
        "kind = \"requests\"\nrequest = 2\nmatches = { model = \"m\" }",
        "kind = \"requests\"\nagent = \"helper\"\nequals = 0",
        "kind = \"tools\"\nincludes = [\"Read\"]\nexcludes = [\"Write\"]",
        "kind = \"tools\"\norder = [\"Read\", \"Bash\"]",
        "kind = \"tool_result\"\ntool_use_id = \"toolu_1\"\nis_error = false\nequals = \"hello world\"",
        "kind = \"tool_result\"\ntool_use_id = \"toolu_1\"\nnot_contains = \"secret\"",
        "kind = \"pairing\"",
        "kind = \"file\"\npath = \"notes.md\"\ncontains = \"kept\"",
        "kind = \"file\"\npath = \"gone.md\"\nabsent = true",
        "kind = \"events\"\nevents = [\"system/init\", \"assistant\", \"user\", \"result/success\"]",
        "kind = \"events\"\nkeys = { \"result/success\" = [\"type\", \"subtype\", \"is_error\", \"result\"] }",
        "kind = \"stderr\"\nequals = \"warming up\\n\"",
        "kind = \"stdout\"\nnot_contains = \"panicked\"",
        "kind = \"process\"\nmax_rss_mib = 512",
        "kind = \"tool_def\"\ntool = \"Read\"\nincludes = [\"file_path\"]\nmatches = { required = [\"file_path\"] }",
        "kind = \"system\"\ncontains = \"a test\"",
        "kind = \"user_context\"\ncontains = \"<context>\"",
        "kind = \"mcp\"\nserver = \"docs\"\ncounts = { initialize = 1, \"tools/list\" = 2 }",
        "kind = \"mcp\"\nserver = \"docs\"\norder = [\"initialize\", \"tools/list\", \"tools/list\"]",
        "kind = \"mcp\"\nserver = \"docs\"\nexcludes = [\"tools/call\"]",
        "kind = \"mcp\"\nserver = \"docs\"\nmethod = \"tools/list\"\ngaps_ms = [500]",
        "kind = \"mcp\"\nserver = \"docs\"\nreleased_ms = [600, 800]",
        "kind = \"mcp\"\nserver = \"docs\"\nsurvives = false",
        "kind = \"mcp\"\nserver = \"search\"\nabsent = true",
        "kind = \"tool_use_result\"\ntool_use_id = \"toolu_1\"\nmatches = { bytes = 12, ok = true }",
        "kind = \"view\"\nview = \"transcript\"\ncontains = \"Reading it\"",
        "kind = \"uploads\"\nequals = 1\nmatches = [{ filename = \"a.png\", size = 70 }]",
        "kind = \"design\"\nequals = 0",
        "kind = \"oauth\"\nequals = 0",
        "kind = \"project\"\nmethod = \"write-doc\"\nequals = 0",
    ];

    #[test]
    fn every_kind_of_check_fails_on_some_mutation_with_a_diff() {
        let run = run();
        let specs: Vec<CheckSpec> = CHECKS.iter().map(|s| spec(s)).collect();
        for spec in &specs {
            let outcome = evaluate(spec, "reference", &run);
            assert!(outcome.ok, "{}: {}", outcome.name, outcome.detail);
        }
        let refs: Vec<&CheckSpec> = specs.iter().collect();
        let survey = survey(&refs, "reference", &run);
        assert_eq!(survey.survivors, Vec::<String>::new());
        assert_eq!(survey.mute, Vec::<String>::new());
        assert_eq!(survey.killed.len(), CHECKS.len());
        for (name, mutation, detail) in &survey.killed {
            assert!(!detail.trim().is_empty(), "{name} on {mutation}");
        }
        // The file the mutations changed on disk is as it was.
        assert_eq!(
            std::fs::read_to_string(run.cwd.join("notes.md")).unwrap(),
            "# Notes\nkept\n"
        );
        assert!(!run.cwd.join("gone.md").exists());
    }

    #[test]
    fn a_check_no_mutation_fails_is_reported_by_name() {
        let run = run();
        let exit = spec("name = \"exits cleanly\"\nkind = \"exit\"\nequals = 0");
        let survey = survey_with(&[&exit], "reference", &run, vec![Mutation::RssHuge]);
        assert_eq!(survey.survivors, ["exits cleanly"]);
        // The RSS mutation does not touch what an exit check reads, so it is not even tried.
        assert_eq!((survey.checked, survey.mutants), (1, 0));
        let survey = survey_with(&[&exit], "reference", &run, vec![Mutation::ExitChanged]);
        assert!(survey.survivors.is_empty());
        assert_eq!(survey.killed[0].1, "exit status changed");
        assert_eq!(survey.killed[0].2, "expected 0, seen 1");
    }

    #[test]
    fn text_removal_breaks_the_text_wherever_it_sits() {
        let run = run();
        let Some(mutant) = apply(&Mutation::TextRemoved("hello world".into()), &run) else {
            panic!("the text is in the run");
        };
        assert!(!mutant.run.requests[1]
            .body
            .to_string()
            .contains("hello world"));
        assert!(apply(&Mutation::TextRemoved("absent text".into()), &run).is_none());
    }
}
