//! Scenario files: `scenarios/<area>/<id>.toml`, one documented behaviour each.
//!
//! Parsing is strict (unknown fields are errors) and every error names the file, the line and the
//! field, because a scenario that silently ignores a misspelt check would pass for the wrong reason.
//!
//! The bottom of the harness's flow: what a file declares (its checks, its decisions, its trace
//! differences) is defined here, as data; the modules that run, judge and compare read it.

mod check;
mod cues;
mod decision;
mod sdk_mcp;
mod step;
mod trace_difference;

pub use check::{CheckKind, CheckSpec};
pub use cues::{server_for, turn_for};
pub use decision::{Answer, Channel, Decision};
pub use sdk_mcp::{SdkMcpServer, SdkMcpTool};
pub use step::expand as expand_session_ids;
pub use step::{Kill, Step};
pub use trace_difference::{load_suite, TraceDifference, SUITE_FILE};

impl Scenario {
    /// The scenario as the reference suite runs it: a scripted session is also served a byte at
    /// a time and at random cut points, and must give the same trace (`core.sse-split`, applied
    /// to the whole suite). A scenario with splits or a command line of its own keeps them.
    pub fn with_suite_splits(mut self) -> Scenario {
        if self.argv.is_none() && self.splits.is_empty() && !self.turns.is_empty() {
            self.splits = ["whole", "every-byte", "random:99"]
                .map(String::from)
                .to_vec();
        }
        self
    }
}

/// The suite's list of tool parameters left unexercised on purpose (parameter coverage), beside
/// the scenarios and not one of them.
pub const COVERAGE_FILE: &str = "coverage.toml";

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use stubs::claude_ai::{DesignScript, ProjectScript, UploadAnswer};
use stubs::mcp::McpScript;
use stubs::messages::{AgentScript, Split, Turn};
use toml::Spanned;

/// The model every target is started with unless a scenario says otherwise; Messages requests for
/// any other model are helpers, not the main loop.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// Default wall-clock budget of one run, after which the target is killed by pid.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The row of `conformance-matrix.md`, optionally `/variant`.
    pub id: String,
    pub title: String,
    /// Where the behaviour is documented, e.g. `004_55bd47f71eaffc94.txt:141`.
    #[serde(default)]
    pub seed: Option<String>,
    /// `reference` and/or `claude` (any real binary).
    pub targets: Vec<String>,
    pub prompt: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Replaces the whole default command line (`-p PROMPT --output-format stream-json --verbose
    /// --model M`), for behaviours outside a session such as usage errors or the limits table.
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    /// Start the target under this name (`rg`: its embedded ripgrep).
    #[serde(default)]
    pub argv0: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub model: Option<String>,
    /// Models besides `model` whose Messages requests are the main loop and play `[[turn]]`s
    /// (`--fallback-model`'s, after overload); a request on any other model is a helper.
    #[serde(default)]
    pub main_loop_models: Vec<String>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Fixture files written before the run; `~/` paths land in the run's HOME.
    #[serde(default, rename = "file")]
    pub files: Vec<Fixture>,
    /// Make the run's cwd a git repository with the cwd fixtures committed (`probes::git`).
    #[serde(default)]
    pub git_init: bool,
    /// Fake MCP servers, declared to the target where each says (`place`).
    #[serde(default, rename = "mcp_server")]
    pub mcp_servers: Vec<McpScript>,
    /// Answers of the mock claude.ai's upload endpoint, per file name.
    #[serde(default, rename = "upload")]
    pub uploads: Vec<UploadAnswer>,
    /// Sign in with a fake claude.ai OAuth token instead of the API key (uploads need one), with
    /// nonessential traffic allowed (it carries uploads) but telemetry and error reports off.
    #[serde(default)]
    pub oauth: bool,
    /// `isolated`: inside a private network where the first-party host names reach the mock
    /// claude.ai over TLS (2.1.235's Design and Projects paths call only those hosts).
    #[serde(default)]
    pub network: Network,
    /// What the machine must offer for the run to mean anything; where it does not, the run is
    /// skipped with the reason.
    #[serde(default)]
    pub requires: Vec<Requirement>,
    /// A claude.ai login planted in HOME; requires `network = "isolated"`.
    #[serde(default)]
    pub account: Option<crate::account::Account>,
    /// What the mock claude.ai's Design endpoints play (`/v1/design/…`).
    #[serde(default)]
    pub design: Option<DesignScript>,
    /// The claude.ai Project the session is attached to, served on both Projects transports.
    #[serde(default)]
    pub project: Option<ProjectScript>,
    /// The account's artifacts on the mock claude.ai (published pages, versions, comment
    /// threads) and the faults its artifact routes play.
    #[serde(default)]
    pub artifacts: Option<stubs::claude_ai::ArtifactsScript>,
    /// The organization's connector, plugin and skill directories on the mock (a remote
    /// session's onboarding tools read them) and the faults their routes play.
    #[serde(default)]
    pub directory: Option<stubs::claude_ai::DirectoryScript>,
    /// Web hosts the target may fetch from (`stubs::site`); requires `network = "isolated"`.
    #[serde(default, rename = "site")]
    pub sites: Vec<stubs::site::SiteScript>,
    #[serde(default, rename = "turn")]
    pub turns: Vec<Turn>,
    /// Second agent loops (subagents, workflow agents), each scripted on its own.
    #[serde(default, rename = "agent")]
    pub agents: Vec<AgentScript>,
    /// How the host answers for the user, one run each (`print` when absent: `-p`, nobody asked).
    #[serde(default)]
    pub channels: Vec<Channel>,
    /// Why a `control` scenario does not also run through the Agent SDK (`sdk`): what it does to
    /// the protocol, no program that uses the SDK can do.
    #[serde(default)]
    pub not_through_sdk: Option<String>,
    /// Lines the user sends after the first conversation, each once the agent waits again (a
    /// slash command, another prompt): typed at a terminal (`pty`), or the next user message an
    /// SDK host sends once a `result` arrived (`control`).
    #[serde(default)]
    pub then_type: Vec<String>,
    /// What the user answers, in order, to whatever the target asks.
    #[serde(default, rename = "decision")]
    pub decisions: Vec<Spanned<Decision>>,
    /// Hooks an SDK host registers in its `initialize` request (`control` only), each answered
    /// with its `answer` whenever the target calls it back (`hook_callback`).
    #[serde(default, rename = "sdk_hook")]
    pub sdk_hooks: Vec<SdkHook>,
    /// MCP servers in the SDK host's own process (`control`, `sdk`), named at `initialize`.
    #[serde(default, rename = "sdk_mcp_server")]
    pub sdk_mcp_servers: Vec<SdkMcpServer>,
    /// Agent types the SDK host defines at `initialize` (`agents`, the TypeScript SDK's option of
    /// that name): `{ name = { description, prompt, tools?, model? } }`.
    #[serde(default)]
    pub sdk_agents: Option<serde_json::Map<String, serde_json::Value>>,
    /// The schema the SDK host asks the final answer to match (`initialize`'s `jsonSchema`, the
    /// TypeScript SDK's `outputFormat`).
    #[serde(default)]
    pub sdk_json_schema: Option<serde_json::Map<String, serde_json::Value>>,
    /// Control requests the SDK host sends of its own once `initialize` is out, each a
    /// `request` body (`{ subtype = "interrupt" }`); their answers are on stdout. A string is a
    /// line sent as it is; `after_stdout` holds one back until the target prints a line holding
    /// that text (`{ line = "…", after_stdout = "…" }` for a line as it is). Only the `control`
    /// channel: the SDK sends the subtypes its API has, and none raw.
    #[serde(default)]
    pub control_requests: Vec<serde_json::Value>,
    /// Starts of the target in one HOME and workspace, in order (one start when absent).
    #[serde(default, rename = "step")]
    pub steps: Vec<Step>,
    #[serde(default, rename = "check")]
    pub checks: Vec<Spanned<CheckSpec>>,
    /// Trace differences from the reference this scenario accepts on a real binary, each with a
    /// reason (`probes::parity`).
    #[serde(default, rename = "trace_difference")]
    pub trace_differences: Vec<TraceDifference>,
    /// Serve the script once per split and require identical traces (`core.sse-split`).
    #[serde(default)]
    pub splits: Vec<String>,
    #[serde(skip)]
    pub path: PathBuf,
    #[serde(skip)]
    pub source: String,
}

/// Where a run's sockets live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// The machine's loopback, stubs on ephemeral ports.
    #[default]
    Loopback,
    /// A network namespace of the run's own (`probes::isolation`).
    Isolated,
}

/// A capability of the machine a scenario needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    /// bubblewrap, allowed to make mount and network namespaces (`crate::bubblewrap`): the
    /// sandbox a target puts a Bash command in.
    Bubblewrap,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    pub path: String,
    /// What the path is: a regular `file` (the default), a `dir`, a `fifo`, or a `symlink` to
    /// `target`.
    #[serde(default)]
    pub kind: FixtureKind,
    #[serde(default)]
    pub content: String,
    /// A regular file of this many bytes (sparse, zeros), instead of `content`.
    #[serde(default)]
    pub size: Option<u64>,
    /// A picture generated at run time, instead of `content` (`media::Picture`).
    #[serde(default)]
    pub image: Option<crate::media::Picture>,
    /// Where a `symlink` points (placeholders expanded).
    #[serde(default)]
    pub target: Option<String>,
    /// Unix permission bits, e.g. `0o000` for an unreadable file.
    #[serde(default)]
    pub mode: Option<u32>,
    /// Seconds before the run its modification time is set to, for tools that order by it; a
    /// negative age is in the future (a lock that cannot go stale during the run).
    #[serde(default)]
    pub age_s: Option<i64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixtureKind {
    #[default]
    File,
    Dir,
    Fifo,
    Symlink,
}

#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ScenarioError {
    pub path: PathBuf,
    pub message: String,
}

impl Scenario {
    pub fn model(&self) -> &str {
        self.model.as_deref().unwrap_or(DEFAULT_MODEL)
    }

    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    pub fn applies_to(&self, target_kind: &str) -> bool {
        self.targets.iter().any(|t| t == target_kind)
    }

    /// The channels to run, in order (the first one carries the checks' splits). A scenario
    /// for an SDK host (`control`) also runs through the official Agent SDK (`sdk`), right
    /// after it, so each host-facing behaviour is checked where SDK users meet it.
    pub fn channels(&self) -> Vec<Channel> {
        if self.channels.is_empty() {
            return vec![Channel::Print];
        }
        let mut channels = self.channels.clone();
        if let Some(at) = channels.iter().position(|c| *c == Channel::Control) {
            if !channels.contains(&Channel::Sdk) && self.not_through_sdk.is_none() {
                channels.insert(at + 1, Channel::Sdk);
            }
        }
        channels
    }

    pub fn decisions(&self) -> Vec<Decision> {
        self.decisions.iter().map(|d| d.get_ref().clone()).collect()
    }

    pub fn splits(&self) -> Result<Vec<Split>, String> {
        self.splits.iter().map(|s| s.parse()).collect()
    }

    /// 1-based line of a byte offset in the source, for error messages.
    pub fn line_of(&self, offset: usize) -> usize {
        line_of(&self.source, offset)
    }

    pub fn parse(path: &Path, source: &str) -> Result<Self, ScenarioError> {
        let err = |message: String| ScenarioError {
            path: path.to_owned(),
            message,
        };
        let mut scenario: Scenario = toml::from_str(source).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!("line {}: ", line_of(source, s.start)))
                .unwrap_or_default();
            err(format!("{line}{}", e.message().trim_end()))
        })?;
        scenario.path = path.to_owned();
        scenario.source = source.to_owned();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let id_tail = scenario.id.replace('/', "__");
        if stem != id_tail {
            return Err(err(format!(
                "line {}: field `id`: `{}` does not match the file name `{stem}.toml`",
                find_line(source, "id"),
                scenario.id
            )));
        }
        // A scenario that runs nowhere, or checks nothing, passes whatever happens.
        if scenario.targets.is_empty() {
            return Err(err(format!(
                "line {}: field `targets`: empty, so the scenario never runs (name `reference`, `claude` or both)",
                find_line(source, "targets")
            )));
        }
        if scenario.checks.is_empty() {
            return Err(err(
                "no `[[check]]`: a scenario must state what it expects (the run's own checks, such as the script being played, are not enough)".into(),
            ));
        }
        let all_turns = scenario
            .turns
            .iter()
            .chain(scenario.agents.iter().flat_map(|a| &a.turns));
        for turn in all_turns {
            let reason = turn.reason.as_deref().is_some_and(|r| !r.trim().is_empty());
            match (&turn.only, &turn.except) {
                (Some(_), Some(_)) => {
                    return Err(err(
                        "a `[[turn]]` takes `only` or `except`, not both".into(),
                    ))
                }
                (Some(key), None) | (None, Some(key)) => {
                    let field = if turn.only.is_some() { "only" } else { "except" };
                    crate::version::TargetKey::parse(key)
                        .map_err(|e| err(format!("a `[[turn]]`'s `{field}`: {e}")))?;
                    if !reason {
                        return Err(err(format!("the `[[turn]]` with `{field} = \"{key}\"` needs a one-line `reason`: a request only some targets make is an expected difference")));
                    }
                }
                (None, None) if turn.reason.is_some() => {
                    return Err(err(
                        "a `[[turn]]`'s `reason` goes with `only` or `except`: it says why some targets are not answered by it".into(),
                    ))
                }
                (None, None) => {}
            }
        }
        for target in &scenario.targets {
            if target != "reference" && target != "claude" {
                return Err(err(format!(
                    "line {}: field `targets`: unknown target kind `{target}` (expected `reference` or `claude`)",
                    find_line(source, "targets")
                )));
            }
        }
        let difference_lines: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "[[trace_difference]]")
            .map(|(i, _)| i + 1)
            .collect();
        for (i, d) in scenario.trace_differences.iter_mut().enumerate() {
            let at = format!(
                "line {}: `[[trace_difference]]`",
                difference_lines.get(i).copied().unwrap_or(1)
            );
            if d.scenarios.is_some() {
                return Err(err(format!(
                    "{at}: `scenarios` belongs in the suite's {}, not in a scenario",
                    SUITE_FILE
                )));
            }
            if !scenario.targets.iter().any(|t| t == "claude") {
                return Err(err(format!("{at}: the scenario does not run on a real binary, so there is no trace to differ")));
            }
            d.prepare(&at).map_err(err)?;
        }
        let mut names: Vec<&str> = Vec::new();
        let headers: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "[[mcp_server]]")
            .map(|(i, _)| i + 1)
            .collect();
        for (i, server) in scenario.mcp_servers.iter().enumerate() {
            if server.name.is_empty() || names.contains(&server.name.as_str()) {
                return Err(err(format!(
                    "line {}: `[[mcp_server]]` needs a `name`, unique in the scenario (`{}`)",
                    headers.get(i).copied().unwrap_or(1),
                    server.name
                )));
            }
            names.push(&server.name);
        }
        for fixture in &scenario.files {
            let wrong = match fixture.kind {
                FixtureKind::Symlink if fixture.target.is_none() => {
                    Some("a `symlink` needs a `target`")
                }
                FixtureKind::Symlink | FixtureKind::Dir | FixtureKind::Fifo
                    if !fixture.content.is_empty() || fixture.size.is_some() =>
                {
                    Some("only a regular `file` has `content` or `size`")
                }
                FixtureKind::File if fixture.target.is_some() => {
                    Some("only a `symlink` has a `target`")
                }
                FixtureKind::File if fixture.size.is_some() && !fixture.content.is_empty() => {
                    Some("a file has `content` or `size`, not both")
                }
                FixtureKind::File
                    if fixture.image.is_some()
                        && (fixture.size.is_some() || !fixture.content.is_empty()) =>
                {
                    Some("an `image` file has no `content` or `size`")
                }
                FixtureKind::Symlink | FixtureKind::Dir | FixtureKind::Fifo
                    if fixture.image.is_some() =>
                {
                    Some("only a regular `file` is an `image`")
                }
                _ => None,
            };
            if let Some(wrong) = wrong {
                return Err(err(format!(
                    "line {}: `[[file]]` `{}`: {wrong}",
                    find_line(source, &format!("\"{}\"", fixture.path)),
                    fixture.path
                )));
            }
        }
        scenario.validate_sites().map_err(err)?;
        scenario.validate_afters().map_err(err)?;
        if let Some(Err(e)) = scenario.artifacts.as_ref().map(|a| a.validate()) {
            return Err(err(format!(
                "line {}: {e}",
                source
                    .lines()
                    .position(|l| l
                        .trim_start()
                        .trim_start_matches('[')
                        .starts_with("artifacts"))
                    .map_or(1, |i| i + 1)
            )));
        }
        if scenario.network != Network::Isolated && !scenario.sites.is_empty() {
            return Err(err(format!(
                "line {}: `[[site]]` needs `network = \"isolated\"`: only there do its host names reach the loopback site",
                source
                    .lines()
                    .position(|l| l.trim() == "[[site]]")
                    .map_or(1, |i| i + 1)
            )));
        }
        if scenario.network != Network::Isolated {
            for (field, set) in [
                ("account", scenario.account.is_some()),
                ("design", scenario.design.is_some()),
                ("project", scenario.project.is_some()),
                ("artifacts", scenario.artifacts.is_some()),
                ("directory", scenario.directory.is_some()),
            ] {
                if set {
                    return Err(err(format!(
                        "line {}: `[{field}]` needs `network = \"isolated\"`: only there do the first-party hosts reach the mock claude.ai",
                        source
                            .lines()
                            .position(|l| l.trim_start().starts_with(&format!("[{field}")))
                            .map_or(1, |i| i + 1),
                    )));
                }
            }
        } else if scenario.account.is_none() && scenario.sites.is_empty() {
            return Err(err(format!(
                "line {}: `network = \"isolated\"` needs an `[account]` (the first-party paths sign in with claude.ai) or a `[[site]]`",
                find_line(source, "network")
            )));
        }
        if let Err(e) = scenario.splits() {
            return Err(err(format!(
                "line {}: field `splits`: {e}",
                find_line(source, "splits")
            )));
        }
        for check in &scenario.checks {
            check.get_ref().validate().map_err(|(field, message)| {
                err(format!(
                    "line {}: check field `{field}`: {message}",
                    line_of(source, check.span().start)
                ))
            })?;
            // A misspelled loop would read no requests at all and pass vacuously.
            if let Some(agent) = &check.get_ref().agent {
                if !scenario.agents.iter().any(|a| a.label() == agent) {
                    return Err(err(format!(
                        "line {}: check field `agent`: no `[[agent]]` is named `{agent}` (known: {})",
                        line_of(source, check.span().start),
                        scenario.agents.iter().map(|a| a.label()).collect::<Vec<_>>().join(", ")
                    )));
                }
            }
            // A misspelled server has no record, which an `absent` check would read as "never
            // started": the name must be one the run can have a log for.
            if let Some(server) = &check.get_ref().server {
                if !scenario.declares_server(server) {
                    return Err(err(format!(
                        "line {}: check field `server`: no `[[mcp_server]]` is named `{server}`, nor a language server of a `{{fake_lsp}}` fixture (known: {})",
                        line_of(source, check.span().start),
                        names.join(", ")
                    )));
                }
            }
        }
        let check_steps: Vec<Option<&str>> = scenario
            .checks
            .iter()
            .map(|c| c.get_ref().step.as_deref())
            .collect();
        step::validate(&scenario.steps, &check_steps)
            .map_err(|message| err(format!("line {}: {message}", find_line(source, "[[step]]"))))?;
        scenario.validate_host().map_err(|(offset, message)| {
            err(format!("line {}: {message}", line_of(source, offset)))
        })?;
        Ok(scenario)
    }

    /// Whether a run of this scenario can have a log for server `name`: a `[[mcp_server]]`, or a
    /// language server a fixture configures with the fake one (`"name": {"command":
    /// "{fake_lsp}"`, the key as it is written in the fixture's JSON).
    fn declares_server(&self, name: &str) -> bool {
        self.mcp_servers.iter().any(|s| s.name == name)
            || (self.source.contains("{fake_lsp}")
                && (self.source.contains(&format!("\"{name}\":"))
                    || self.source.contains(&format!("\\\"{name}\\\":"))))
    }

    /// Each `[[site]]` servable, its host named once and not a first-party host.
    fn validate_sites(&self) -> Result<(), String> {
        let headers: Vec<usize> = self
            .source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "[[site]]")
            .map(|(i, _)| i + 1)
            .collect();
        for (i, site) in self.sites.iter().enumerate() {
            let line = headers.get(i).copied().unwrap_or(1);
            let taken = crate::isolation::FIRST_PARTY_HOSTS.contains(&site.host.as_str())
                || self.sites[..i].iter().any(|s| s.host == site.host);
            let wrong = if taken {
                Err(format!(
                    "`host` `{}` is declared twice or is a first-party host",
                    site.host
                ))
            } else {
                site.validate()
            };
            wrong.map_err(|e| format!("line {line}: `[[site]]`: {e}"))?;
        }
        Ok(())
    }

    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let source = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            path: path.to_owned(),
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(path, &source)
    }
}

/// Every `*.toml` under `dir`, sorted by id; the first bad file is an error.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, ScenarioError> {
    let mut paths = Vec::new();
    collect(dir, &mut paths).map_err(|e| ScenarioError {
        path: dir.to_owned(),
        message: e.to_string(),
    })?;
    let mut scenarios = paths
        .iter()
        .map(|p| Scenario::load(p))
        .collect::<Result<Vec<_>, _>>()?;
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    for pair in scenarios.windows(2) {
        if pair[0].id == pair[1].id {
            return Err(ScenarioError {
                path: pair[1].path.clone(),
                message: format!(
                    "duplicate id `{}` (also in {})",
                    pair[1].id,
                    pair[0].path.display()
                ),
            });
        }
    }
    Ok(scenarios)
}

/// One hook function an SDK host registers: the event, the matcher, and what it answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkHook {
    pub event: String,
    pub matcher: Option<String>,
    /// The hook's output as the host returns it (`{}` when absent: no opinion).
    #[serde(default = "empty_object")]
    pub answer: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::json!({})
}

impl Scenario {
    /// Channels, decisions and checks fit together: decisions need someone to answer them, and a
    /// check that reads stream-json says which channel it reads on a run that has a terminal.
    fn validate_host(&self) -> Result<(), (usize, String)> {
        let channels = self.channels();
        let at = |key: &str| self.source.find(key).unwrap_or(0);
        for (i, channel) in self.channels.iter().enumerate() {
            if self.channels[..i].contains(channel) {
                return Err((
                    at("channels"),
                    format!("field `channels`: `{channel}` is listed twice"),
                ));
            }
        }
        if self.argv.is_some() && channels != [Channel::Print] {
            return Err((
                at("channels"),
                "field `channels`: a scenario with its own `argv` runs as it is, with no host"
                    .into(),
            ));
        }
        for decision in &self.decisions {
            decision
                .get_ref()
                .validate()
                .map_err(|m| (decision.span().start, format!("decision: {m}")))?;
        }
        if !self.then_type.is_empty()
            && !channels
                .iter()
                .any(|c| matches!(c, Channel::Pty | Channel::Control | Channel::Sdk))
        {
            return Err((
                at("then_type"),
                "field `then_type`: only a terminal user or an SDK host sends follow-up lines; add `channels = [\"pty\"]` or `[\"control\"]`".into(),
            ));
        }
        if self.not_through_sdk.is_some() && !channels.contains(&Channel::Control) {
            return Err((at("not_through_sdk"), "`not_through_sdk` goes with `channels` that have `control`: only those also run through the SDK".into()));
        }
        if !self.control_requests.is_empty()
            && (!channels.contains(&Channel::Control) || channels.contains(&Channel::Sdk))
        {
            return Err((at("control_requests"), "`control_requests` needs `channels` with `control` and `not_through_sdk`: the SDK sends no raw control requests".into()));
        }
        // An SDK host answers on either channel that has one.
        let sdk_host = channels
            .iter()
            .any(|c| matches!(c, Channel::Control | Channel::Sdk));
        if !self.sdk_mcp_servers.is_empty() && !sdk_host {
            return Err((at("sdk_mcp_server"), "`[[sdk_mcp_server]]` needs `channels` with `control` or `sdk`: only an SDK host has in-process servers".into()));
        }
        if self.sdk_agents.is_some() && !sdk_host {
            return Err((at("sdk_agents"), "`sdk_agents` needs `channels` with `control` or `sdk`: only an SDK host defines agents at initialize".into()));
        }
        if self.sdk_json_schema.is_some() && !sdk_host {
            return Err((at("sdk_json_schema"), "`sdk_json_schema` needs `channels` with `control` or `sdk`: only an SDK host gives a schema at initialize".into()));
        }
        if !self.sdk_hooks.is_empty() && !sdk_host {
            return Err((at("sdk_hook"), "`[[sdk_hook]]` needs `channels` with `control` or `sdk`: only an SDK host registers hook callbacks".into()));
        }
        if !self.decisions.is_empty() && channels == [Channel::Print] {
            return Err((self.decisions[0].span().start, "`[[decision]]` needs `channels` with `control` or `pty`: under `-p` nobody answers".into()));
        }
        for check in &self.checks {
            let spec = check.get_ref();
            if let Some(channel) = spec.channel {
                if !channels.contains(&channel) {
                    return Err((check.span().start, format!("check field `channel`: `{channel}` is not one of the scenario's channels {channels:?}")));
                }
            }
            if spec.kind == Some(CheckKind::Screen) && !channels.contains(&Channel::Pty) {
                return Err((
                    check.span().start,
                    "check of kind `screen` reads a terminal: the scenario's `channels` need `pty`"
                        .into(),
                ));
            }
            let reads_stream = spec.reads_stream_json();
            let on = spec.channel.map_or(channels.clone(), |c| vec![c]);
            if reads_stream && on.iter().any(|c| !c.has_stream_json()) {
                return Err((check.span().start, format!(
                    "check of kind `{}` reads stream-json, which a `pty` run does not print; add `channel = \"control\"` (or `print`)",
                    spec.kind_name()
                )));
            }
        }
        Ok(())
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml")
            && path
                .file_name()
                .is_none_or(|n| n != SUITE_FILE && n != COVERAGE_FILE)
        {
            out.push(path);
        }
    }
    Ok(())
}

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].matches('\n').count() + 1
}

fn find_line(source: &str, key: &str) -> usize {
    source
        .lines()
        .position(|l| l.trim_start().starts_with(key) && l.contains('='))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with a check appended (every scenario needs one), so a test states only what it is
    /// about; line numbers in `src` stay as they are.
    fn parse(src: &str) -> Result<Scenario, String> {
        parse_exactly(&format!("{src}\n[[check]]\nkind = \"exit\"\nequals = 0\n"))
    }

    fn parse_exactly(src: &str) -> Result<Scenario, String> {
        Scenario::parse(Path::new("scenarios/core/core.x.toml"), src).map_err(|e| e.to_string())
    }

    #[test]
    fn a_scenario_that_runs_nowhere_or_checks_nothing_is_refused() {
        let e = parse_exactly(HEAD).unwrap_err();
        assert!(e.contains("no `[[check]]`"), "{e}");
        let e = parse(&HEAD.replace("[\"reference\"]", "[]")).unwrap_err();
        assert!(e.contains("line 3: field `targets`: empty"), "{e}");
    }

    #[test]
    fn a_turn_for_some_targets_only_names_them_and_says_why() {
        let turn = |extra: &str| parse(&format!("{HEAD}[[turn]]\ntext = \"S\"\n{extra}"));
        let ok = turn("only = \"claude@>=2.1.332\"\nreason = \"it summarizes\"\n").unwrap();
        assert_eq!(ok.turns[0].only.as_deref(), Some("claude@>=2.1.332"));
        let e = turn("only = \"claude@>=2.1.332\"\n").unwrap_err();
        assert!(e.contains("needs a one-line `reason`"), "{e}");
        let e = turn("only = \"claude@nonsense\"\nreason = \"r\"\n").unwrap_err();
        assert!(e.contains("`only`"), "{e}");
        let e = turn("reason = \"r\"\n").unwrap_err();
        assert!(e.contains("goes with `only` or `except`"), "{e}");
        let e = turn("only = \"claude\"\nexcept = \"claude\"\nreason = \"r\"\n").unwrap_err();
        assert!(e.contains("not both"), "{e}");
        turn("except = \"claude@>=2.1.332\"\nreason = \"it stops first\"\n").unwrap();
    }

    const HEAD: &str =
        "id = \"core.x\"\ntitle = \"t\"\ntargets = [\"reference\"]\nprompt = \"p\"\n";

    #[test]
    fn an_sdk_host_scenario_also_runs_through_the_agent_sdk_unless_it_says_why_not() {
        let with = |extra: &str| parse(&format!("{HEAD}{extra}"));
        let both = with("channels = [\"control\", \"pty\"]\n").unwrap();
        assert_eq!(
            both.channels(),
            [Channel::Control, Channel::Sdk, Channel::Pty]
        );
        assert_eq!(with("").unwrap().channels(), [Channel::Print]);
        let kept = with("channels = [\"control\"]\nnot_through_sdk = \"closes stdin\"\n");
        assert_eq!(kept.unwrap().channels(), [Channel::Control]);
        let e = with("channels = [\"pty\"]\nnot_through_sdk = \"x\"\n").unwrap_err();
        assert!(
            e.contains("`not_through_sdk` goes with `channels` that have `control`"),
            "{e}"
        );
    }

    #[test]
    fn an_mcp_check_names_a_server_the_run_can_have_a_log_for() {
        let server = "[[mcp_server]]\nname = \"docs\"\n";
        let absent =
            |name: &str| format!("[[check]]\nkind = \"mcp\"\nserver = \"{name}\"\nabsent = true\n");
        parse(&format!("{HEAD}{server}{}", absent("docs"))).unwrap();
        // A misspelling would pass as "never started".
        let e = parse(&format!("{HEAD}{server}{}", absent("dcos"))).unwrap_err();
        assert!(
            e.contains("line 7: check field `server`: no `[[mcp_server]]` is named `dcos`"),
            "{e}"
        );
        assert!(e.contains("(known: docs)"), "{e}");
        // A language server of a fake-LSP fixture is named by its key in the fixture.
        let lsp = "[[file]]\npath = \".lsp.json\"\ncontent = '''{\"probe-ls\": {\"command\": \"{fake_lsp}\"}}'''\n";
        parse(&format!("{HEAD}{lsp}{}", absent("probe-ls"))).unwrap();
        assert!(parse(&format!("{HEAD}{lsp}{}", absent("probe-lsx"))).is_err());
    }

    #[test]
    fn an_after_names_a_server_and_a_loop_the_scenario_has() {
        let server = "[[mcp_server]]\nname = \"docs\"\n";
        let agent = "[[agent]]\nmatch = \"CHILD\"\n";
        let with = |decl: &str, after: &str| {
            parse(&format!(
                "{HEAD}{decl}[[turn]]\nafter = {after}\ntext = \"t\"\n"
            ))
        };
        let both = format!("{server}{agent}");
        with(&both, r#"{ mcp = "docs", answered = "tools/list" }"#).unwrap();
        for (decl, after, says) in [
            (
                server,
                r#"{ mcp = "dcos", answered = "tools/list" }"#,
                "line 8: `[[turn]]` 1: `after.mcp`: no `[[mcp_server]]` is named `dcos`",
            ),
            (
                agent,
                r#"{ request = 1, agent = "CHLD" }"#,
                "`after.agent`: no `[[agent]]` is named `CHLD`",
            ),
            // The spec's own rules are refused where toml points.
            ("", r#"{ request = 1, stdout = "x" }"#, "names one event"),
            (
                "",
                r#"{ stdout = "x", only = "nobody", reason = "r" }"#,
                "`after.only`",
            ),
        ] {
            let e = with(decl, after).unwrap_err();
            assert!(e.contains(says), "{after}: {e}");
        }
    }

    #[test]
    fn a_trace_difference_needs_a_reason_a_real_target_and_no_scope() {
        let both = HEAD.replace("[\"reference\"]", "[\"reference\", \"claude\"]");
        let ok = format!("{both}[[trace_difference]]\ntarget = \"claude@2.1.235\"\nlines = \"^  Agent\\\\(\"\nreason = \"the seed lists cwd\"\n");
        assert_eq!(parse(&ok).unwrap().trace_differences.len(), 1);
        let no_reason = ok.replace("the seed lists cwd", "");
        let e = parse(&no_reason).unwrap_err();
        assert!(
            e.contains("line 5: `[[trace_difference]]`: `reason` is empty"),
            "{e}"
        );
        let reference_only = format!(
            "{HEAD}[[trace_difference]]\ntarget = \"claude\"\nlines = \"x\"\nreason = \"r\"\n"
        );
        assert!(parse(&reference_only)
            .unwrap_err()
            .contains("does not run on a real binary"));
        let scoped = ok.replace("reason =", "scenarios = \"x\"\nreason =");
        assert!(parse(&scoped)
            .unwrap_err()
            .contains("belongs in the suite's trace-differences.toml"));
    }

    #[test]
    fn an_image_fixture_is_a_plain_file_without_content() {
        let ok = format!("{HEAD}[[file]]\npath = \"a.png\"\nimage = {{ width = 3, height = 2, fill = \"noise\" }}\n");
        assert_eq!(
            parse(&ok).unwrap().files[0].image.as_ref().unwrap().width,
            3
        );
        let both = format!("{HEAD}[[file]]\npath = \"a.png\"\ncontent = \"x\"\nimage = {{ width = 3, height = 2 }}\n");
        let e = parse(&both).unwrap_err();
        assert!(
            e.contains("`a.png`: an `image` file has no `content`"),
            "{e}"
        );
        let fill = format!("{HEAD}[[file]]\npath = \"a.png\"\nimage = {{ width = 3, height = 2, fill = \"plaid\" }}\n");
        assert!(parse(&fill).unwrap_err().contains("plaid"));
    }

    #[test]
    fn requirements_are_named_and_an_unknown_one_is_an_error() {
        let check = "[[check]]\nkind = \"exit\"\nequals = 0\n";
        let ok = parse(&format!("{HEAD}requires = [\"bubblewrap\"]\n{check}")).unwrap();
        assert_eq!(ok.requires, [Requirement::Bubblewrap]);
        assert!(parse(&format!("{HEAD}{check}"))
            .unwrap()
            .requires
            .is_empty());
        let e = parse(&format!("{HEAD}requires = [\"docker\"]\n{check}")).unwrap_err();
        assert!(e.to_string().contains("docker"), "{e}");
    }

    #[test]
    fn a_site_needs_the_isolated_network_and_a_servable_declaration() {
        let site = "[[site]]\nhost = \"docs.example.test\"\n[[site.page]]\npath = \"/a\"\n";
        let ok = format!("{HEAD}network = \"isolated\"\n{site}");
        assert_eq!(parse(&ok).unwrap().sites[0].host, "docs.example.test");
        let e = parse(&format!("{HEAD}{site}")).unwrap_err();
        assert!(
            e.contains("line 5: `[[site]]` needs `network = \"isolated\"`"),
            "{e}"
        );
        let twice = format!("{HEAD}network = \"isolated\"\n{site}{site}");
        let e = parse(&twice).unwrap_err();
        assert!(
            e.contains("line 10: `[[site]]`: `host` `docs.example.test` is declared twice"),
            "{e}"
        );
        let bad = format!("{HEAD}network = \"isolated\"\n[[site]]\nhost = \"a.test\"\n[[site.page]]\npath = \"/r\"\nstatus = 302\n");
        let e = parse(&bad).unwrap_err();
        assert!(e.contains("page `/r`: a `location` goes with a 3xx"), "{e}");
        let first_party = format!("{HEAD}network = \"isolated\"\n[[site]]\nhost = \"claude.ai\"\n");
        assert!(parse(&first_party)
            .unwrap_err()
            .contains("first-party host"));
    }

    #[test]
    fn a_minimal_scenario_parses() {
        let s = parse_exactly(&format!(
            "{HEAD}[[turn]]\ntext = \"hi\"\n[[check]]\nkind = \"exit\"\nequals = 0\n"
        ))
        .unwrap();
        assert_eq!(s.turns.len(), 1);
        assert_eq!(s.checks.len(), 1);
        assert_eq!(s.model(), DEFAULT_MODEL);
    }

    #[test]
    fn unknown_field_names_file_line_and_field() {
        let e = parse(&format!("{HEAD}[[check]]\nkind = \"exit\"\nequal = 0\n")).unwrap_err();
        assert!(e.starts_with("scenarios/core/core.x.toml: line 7:"), "{e}");
        assert!(e.contains("equal"), "{e}");
    }

    #[test]
    fn a_check_missing_its_expectation_names_the_line_and_field() {
        let e = parse(&format!(
            "{HEAD}\n[[check]]\nkind = \"tool_result\"\nis_error = true\n"
        ))
        .unwrap_err();
        assert!(e.contains("line 6: check field `tool_use_id`"), "{e}");
    }

    #[test]
    fn id_must_match_file_name() {
        let e = Scenario::parse(Path::new("scenarios/core/other.toml"), HEAD)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1: field `id`"), "{e}");
    }

    #[test]
    fn a_repeated_mcp_server_name_names_its_own_line() {
        let e = parse(&format!(
            "{HEAD}[[mcp_server]]\nname = \"a\"\n\n[[mcp_server]]\nname = \"a\"\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("line 8: `[[mcp_server]]` needs a `name`, unique"),
            "{e}"
        );
    }

    #[test]
    fn first_party_fixtures_need_the_isolated_network_and_a_login() {
        let e = parse(&format!("{HEAD}\n[account]\nflags = {{ f = true }}\n")).unwrap_err();
        assert!(
            e.contains("line 6: `[account]` needs `network = \"isolated\"`"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}\n[design]\nconsent = true\n")).unwrap_err();
        assert!(
            e.contains("`[design]` needs `network = \"isolated\"`"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}network = \"isolated\"\n")).unwrap_err();
        assert!(
            e.contains("line 5: `network = \"isolated\"` needs an `[account]`"),
            "{e}"
        );
        let e = parse(&format!(
            "{HEAD}network = \"isolated\"\n[account]\n[design]\nconsnet = true\n"
        ))
        .unwrap_err();
        assert!(e.contains("consnet"), "{e}");
        assert!(parse(&format!(
            "{HEAD}network = \"isolated\"\n[account]\n[design]\nconsent = true\n"
        ))
        .is_ok());
    }

    #[test]
    fn only_a_terminal_user_types_follow_up_lines() {
        let e = parse(&format!("{HEAD}then_type = [\"/design revoke\"]\n")).unwrap_err();
        assert!(
            e.contains("field `then_type`: only a terminal user or an SDK host"),
            "{e}"
        );
        assert!(parse(&format!(
            "{HEAD}channels = [\"pty\"]\nthen_type = [\"/design revoke\"]\n"
        ))
        .is_ok());
    }

    #[test]
    fn decisions_need_someone_to_answer_them() {
        let e = parse(&format!(
            "{HEAD}\n[[decision]]\ntool = \"Bash\"\nanswer = \"allow\"\n"
        ))
        .unwrap_err();
        assert!(e.contains("line 6: `[[decision]]` needs `channels`"), "{e}");
        let e = parse(&format!(
            "{HEAD}channels = [\"control\"]\n[[decision]]\ntool = \"Bash\"\nanswer = \"choose\"\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("decision: `answer = \"choose\"` needs `choose"),
            "{e}"
        );
    }

    #[test]
    fn a_stream_json_check_on_a_terminal_run_must_say_its_channel() {
        let src = format!("{HEAD}channels = [\"control\", \"pty\"]\n[[check]]\nkind = \"result\"\nsubtype = \"success\"\n");
        let e = parse(&src).unwrap_err();
        assert!(
            e.contains("line 6: check of kind `result` reads stream-json"),
            "{e}"
        );
        assert!(parse(&src.replace(
            "kind = \"result\"",
            "kind = \"result\"\nchannel = \"control\""
        ))
        .is_ok());
        let e = parse(&format!(
            "{HEAD}[[check]]\nkind = \"screen\"\ncontains = \"x\"\n"
        ))
        .unwrap_err();
        assert!(e.contains("`screen` reads a terminal"), "{e}");
        let e = parse(&format!("{HEAD}channels = [\"pty\", \"pty\"]\n")).unwrap_err();
        assert!(e.contains("`pty` is listed twice"), "{e}");
    }

    #[test]
    fn bad_target_and_split_are_named() {
        let e = parse(&HEAD.replace("[\"reference\"]", "[\"refrence\"]")).unwrap_err();
        assert!(
            e.contains("line 3: field `targets`: unknown target kind `refrence`"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}splits = [\"halves\"]\n")).unwrap_err();
        assert!(e.contains("field `splits`: unknown split `halves`"), "{e}");
    }
}
