//! The ways a run's evidence is changed, what each changes, and how a survey names it.

use std::path::PathBuf;

use super::part;

/// One way to change a run's evidence.
#[derive(Debug, Clone)]
pub(super) enum Mutation {
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
    /// A stream-json user event answering this tool_use id (a call that must not have run).
    ToolUseResultAdded(String),
    ToolRemoved(String),
    ToolAdded(String),
    /// A name taken out of every request's `anthropic-beta` header.
    BetaRemoved(String),
    /// A name added to every request's `anthropic-beta` header.
    BetaAdded(String),
    ToolsReversed,
    PropertyRemoved(String),
    PropertyAdded(String),
    ToolResultDropped(usize),
    /// Every tool_result's `is_error` flipped.
    ToolResultsErrorFlipped,
    /// A text block added to every tool_result (one whose content is only a picture included).
    ToolResultsTextAdded,
    /// A main-loop request carrying a tool_result for this tool_use id (a call that must not
    /// have been answered).
    ToolResultAdded(String),
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
    /// Session file `.0`'s record `.1` removed.
    SessionRecordRemoved(usize, usize),
    /// Every record of session file `.0` with its keys in reverse order.
    SessionKeysReversed(usize),
    /// Every string of every record of session file `.0` changed.
    SessionStringsChanged(usize),
    /// A file of one record written for every session id of the run: its main transcript, or
    /// this path in its folder (a `*` read as a name).
    SessionWritten(Option<String>),
}

/// How a JSON value's leaves are changed.
#[derive(Debug, Clone, Copy)]
pub(super) enum Perturb {
    Strings,
    Numbers,
    Bools,
    Arrays,
}

/// The recorded lists of the mock backends.
#[derive(Debug, Clone, Copy)]
pub(super) enum List {
    Uploads,
    Design,
    Project,
    Site,
    Artifact,
    Directory,
    TokenRequests,
    Hooks,
}

pub(super) const LISTS: [List; 8] = [
    List::Uploads,
    List::Design,
    List::Project,
    List::Site,
    List::Artifact,
    List::Directory,
    List::TokenRequests,
    List::Hooks,
];

/// The marker a mutation writes into a text: no check expects it.
pub(super) const MARK: &str = "\u{2042}mutant";

impl Mutation {
    /// What this mutation changes of a run.
    pub(super) fn touches(&self) -> u16 {
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
            | M::ToolUseResultAdded(_)
            | M::StdoutAppended(_) => STDOUT,
            M::StderrCleared => STDERR,
            M::RequestDropped(_)
            | M::RequestPerturbed(..)
            | M::AllRequestsPerturbed(_)
            | M::AgentRequestAdded(_)
            | M::ToolRemoved(_)
            | M::ToolAdded(_)
            | M::BetaRemoved(_)
            | M::BetaAdded(_)
            | M::ToolsReversed
            | M::PropertyRemoved(_)
            | M::PropertyAdded(_)
            | M::ToolResultDropped(_)
            | M::ToolResultsErrorFlipped
            | M::ToolResultsTextAdded
            | M::ToolResultAdded(_) => REQUESTS,
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
            M::SessionRecordRemoved(..)
            | M::SessionKeysReversed(_)
            | M::SessionStringsChanged(_)
            | M::SessionWritten(_) => SESSIONS,
        }
    }
}

pub(super) fn describe(m: &Mutation) -> String {
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
        Mutation::ToolResultAdded(id) => format!("a request with a tool_result for `{id}` added"),
        Mutation::StdoutAppended(t) => format!("{t:?} appended to stdout"),
        Mutation::ToolUseResultAdded(id) => format!("a user event answering `{id}` on stdout"),
        Mutation::ToolRemoved(t) => format!("tool `{t}` removed from every tools[]"),
        Mutation::ToolAdded(t) => format!("tool `{t}` added to every tools[]"),
        Mutation::BetaRemoved(b) => format!("beta `{b}` removed from every request"),
        Mutation::BetaAdded(b) => format!("beta `{b}` added to every request"),
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
        Mutation::SessionRecordRemoved(f, i) => {
            format!("session file {}: record {} removed", f + 1, i + 1)
        }
        Mutation::SessionKeysReversed(f) => format!("session file {}: keys reversed", f + 1),
        Mutation::SessionStringsChanged(f) => format!("session file {}: strings changed", f + 1),
        Mutation::SessionWritten(None) => "a transcript written for every session".into(),
        Mutation::SessionWritten(Some(p)) => format!("`{p}` written for every session"),
    }
}
