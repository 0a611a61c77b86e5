//! What one run of a scenario left behind, as the harness recorded it: every wire, stream, file
//! place and mock list, already redacted. Produced by `run`, read by the checks, traces, records
//! and reports, and by nothing that starts a process: the layer between driving a target and
//! judging it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use stubs::claude_ai::{
    DesignRequest, ProjectRequest, ProjectState, RecordedTokenRequest, RecordedUpload,
};
use stubs::messages::{RecordedRequest, Split};

use crate::mcp::ServerRecord;
use crate::placeholders::Places;
use crate::scenario::{Channel, Network};
use crate::secrets::{Redact, Redactor};

#[derive(Clone)]
pub struct RunOutcome {
    pub target: String,
    pub split: Split,
    /// How the harness answered for the user.
    pub channel: Channel,
    /// argv as started; the program path is the target's.
    pub command: Vec<String>,
    /// The environment given to the process, secrets redacted.
    pub env: BTreeMap<String, String>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The target's peak resident set size (sampled VmHWM), when it exited by itself.
    pub peak_rss_kib: Option<u64>,
    /// Standard output; on a terminal, everything the terminal received.
    pub stdout: String,
    pub stderr: String,
    /// The lines the harness wrote to the target's stdin (the control protocol), in order.
    pub stdin: Vec<String>,
    /// The terminal's screen each time the harness acted on it, and at the end (`pty`).
    pub screens: Vec<String>,
    /// Everything the target asked the user, and how each was answered.
    pub asked: Vec<Asked>,
    /// Whether the asks matched the scenario's decisions, in order, all used.
    pub decisions_verdict: Result<(), String>,
    /// The reasons of target-only decisions this run used (expected differences).
    pub decision_differences: Vec<String>,
    pub requests: Vec<RecordedRequest>,
    pub exhausted_at: Option<usize>,
    /// Second loops whose script ran out, with the request that found it so.
    pub agents_exhausted: Vec<(String, usize)>,
    pub turns_left: usize,
    /// Each scripted `after` that ran out, naming who waited and for what.
    pub cues_missed: Vec<String>,
    pub duration: Duration,
    pub places: Places,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// What each fake MCP server saw, by its config name.
    pub mcp: BTreeMap<String, ServerRecord>,
    /// Fake MCP server processes still running after the target exited, `(name, pid)`.
    pub mcp_survivors: Vec<(String, u32)>,
    /// The output streams that went past the harness's bound, each with what was dropped.
    pub flooded: Vec<String>,
    /// What the mock claude.ai's upload endpoint received, in arrival order.
    pub uploads: Vec<RecordedUpload>,
    /// What the mock claude.ai's Design endpoints received, in arrival order.
    pub design: Vec<DesignRequest>,
    /// What the mock claude.ai's Projects API received (both transports), in arrival order.
    pub project: Vec<ProjectRequest>,
    /// What the mock claude.ai's artifact routes received, in arrival order.
    pub artifact: Vec<stubs::claude_ai::ArtifactRequest>,
    /// What the mock's directory routes received, in arrival order.
    pub directory: Vec<stubs::claude_ai::DirectoryRequest>,
    /// The attached Project as seeded, and after the run.
    pub project_seeded: Option<ProjectState>,
    pub project_state: Option<ProjectState>,
    /// Where the run's sockets were.
    pub network: Network,
    /// What the `[[site]]` hosts and the domain preflight received, in arrival order.
    pub site: Vec<stubs::site::SiteRequest>,
    /// What the mock's OAuth token endpoint received (no token values).
    pub token_requests: Vec<RecordedTokenRequest>,
    /// Each run of the harness's hook recorder, in the order they started.
    pub hooks: Vec<crate::hooks::HookRun>,
    /// Each start of a scenario with `[[step]]`s, in order (empty for one start); the process
    /// fields above are those of the step named `step`, the last one unless a check looks at
    /// another (`at_step`).
    pub steps: Vec<StepRun>,
    pub step: Option<String>,
    /// The session files in HOME after the last step (`~/.claude/projects/…`).
    pub sessions: Vec<crate::sessions::SessionFile>,
    /// Keeps the run's directories alive until checks have read them.
    /// Shared so a mutated copy (`mutate`) reads the same directories.
    pub(crate) _root: std::sync::Arc<crate::process::interrupt::Root>,
}

impl Redact for RunOutcome {
    /// Every text of the run with the secrets named. Destructured whole, so a field added later
    /// does not compile until it is listed here.
    fn redact(&mut self, r: &Redactor) {
        let RunOutcome {
            target,
            split: _,
            channel: _,
            command,
            env,
            exit_code: _,
            timed_out: _,
            peak_rss_kib: _,
            stdout,
            stderr,
            stdin,
            screens,
            asked,
            decisions_verdict,
            decision_differences,
            requests,
            exhausted_at: _,
            agents_exhausted,
            turns_left: _,
            cues_missed,
            duration: _,
            // The run's own temp paths.
            places: _,
            cwd: _,
            home: _,
            mcp,
            mcp_survivors,
            // Byte counts and stream names only.
            flooded: _,
            uploads,
            design,
            project,
            artifact,
            directory,
            project_seeded,
            project_state,
            network: _,
            site,
            token_requests,
            hooks,
            steps,
            step: _,
            sessions,
            _root: _,
        } = self;
        target.redact(r);
        command.redact(r);
        env.redact(r);
        stdout.redact(r);
        stderr.redact(r);
        stdin.redact(r);
        screens.redact(r);
        asked.redact(r);
        decisions_verdict.redact(r);
        decision_differences.redact(r);
        requests.redact(r);
        agents_exhausted.redact(r);
        cues_missed.redact(r);
        mcp.redact(r);
        mcp_survivors.redact(r);
        uploads.redact(r);
        design.redact(r);
        project.redact(r);
        artifact.redact(r);
        directory.redact(r);
        project_seeded.redact(r);
        project_state.redact(r);
        site.redact(r);
        token_requests.redact(r);
        hooks.redact(r);
        steps.redact(r);
        sessions.redact(r);
    }
}

impl RunOutcome {
    /// The request bodies of the scripted second loop `label`, in its order.
    pub fn agent_requests(&self, label: &str) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| matches!(&r.kind, stubs::messages::RequestKind::Agent { agent, .. } if agent == label))
            .map(|r| &r.body)
            .collect()
    }

    /// Main-loop request bodies, in order.
    pub fn main_requests(&self) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| r.main_index().is_some())
            .map(|r| &r.body)
            .collect()
    }
}

/// One start of the target in a scenario of several (`[[step]]`): its process as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct StepRun {
    pub name: String,
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub stdin: Vec<String>,
}

impl StepRun {
    /// The session id the step reported: the first stdout event that carries one; at a
    /// terminal, which prints no events, the id its command line gave (`--session-id`, or the
    /// session `--resume` went on with).
    pub fn session_id(&self) -> Option<String> {
        reported_session(&self.stdout).or_else(|| {
            let args = &self.command;
            ["--session-id", "--resume"].iter().find_map(|flag| {
                let at = args.iter().position(|a| a == flag)?;
                args.get(at + 1).cloned()
            })
        })
    }
}

/// The session id a process reported: its first stdout event that carries one.
fn reported_session(stdout: &str) -> Option<String> {
    crate::wire::stdout_events(stdout)
        .iter()
        .find_map(|e| e["session_id"].as_str().map(str::to_owned))
}

impl Redact for StepRun {
    fn redact(&mut self, r: &Redactor) {
        let StepRun {
            name: _,
            command,
            exit_code: _,
            timed_out: _,
            stdout,
            stderr,
            stdin,
        } = self;
        command.redact(r);
        stdout.redact(r);
        stderr.redact(r);
        stdin.redact(r);
    }
}

impl RunOutcome {
    /// The run as step `name` saw it: its process fields in place of the last step's. Borrowed
    /// when they are already there (a run of one start, or a view made by this).
    pub fn at_step(&self, name: &str) -> std::borrow::Cow<'_, RunOutcome> {
        use std::borrow::Cow;
        if self.step.as_deref() == Some(name) {
            return Cow::Borrowed(self);
        }
        let Some(step) = self.steps.iter().find(|s| s.name == name) else {
            return Cow::Borrowed(self);
        };
        let mut view = self.clone();
        view.step = Some(name.to_owned());
        view.command = step.command.clone();
        view.exit_code = step.exit_code;
        view.timed_out = step.timed_out;
        view.stdout = step.stdout.clone();
        view.stderr = step.stderr.clone();
        view.stdin = step.stdin.clone();
        Cow::Owned(view)
    }

    /// The session id of step `name` (of the process fields' step when `None`), and the step
    /// name each known session id belongs to.
    pub fn session_id(&self, name: Option<&str>) -> Option<String> {
        match name {
            Some(n) => self.steps.iter().find(|s| s.name == n)?.session_id(),
            None => reported_session(&self.stdout),
        }
    }

    /// Each step's session id with the step's name, for normalizing ids in session files.
    pub fn session_names(&self) -> Vec<(String, String)> {
        let mut names: Vec<(String, String)> = self
            .steps
            .iter()
            .filter_map(|s| Some((s.session_id()?, s.name.clone())))
            .collect();
        if names.is_empty() {
            if let Some(id) = self.session_id(None) {
                names.push((id, "run".into()));
            }
        }
        names
    }
}

/// One thing the target asked, and what the harness did about it.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    /// The tool as the target named it (a terminal card's title maps to a tool).
    pub tool: String,
    /// What was shown: the card on a terminal, the request's input over the control protocol.
    pub text: String,
    /// The 1-based decision that answered it, if one matched.
    pub decision: Option<usize>,
    /// What the harness did: the answer, or why it did not answer.
    pub outcome: String,
}

impl Redact for Asked {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            tool,
            text,
            decision: _,
            outcome,
        } = self;
        tool.redact(r);
        text.redact(r);
        outcome.redact(r);
    }
}

#[cfg(test)]
impl RunOutcome {
    /// A run of nothing in a fresh directory (`cwd` and `home` inside it), for tests that build
    /// the evidence by hand.
    pub(crate) fn blank() -> RunOutcome {
        let root = crate::process::interrupt::Root::new(tempfile::tempdir().expect("a temp dir"));
        let base = root.path().to_owned();
        let (cwd, home) = (base.join("work"), base.join("home"));
        std::fs::create_dir_all(&cwd).expect("cwd");
        std::fs::create_dir_all(&home).expect("home");
        RunOutcome {
            target: "reference".into(),
            split: Split::Whole,
            channel: Channel::Print,
            command: Vec::new(),
            env: BTreeMap::new(),
            exit_code: Some(0),
            timed_out: false,
            peak_rss_kib: Some(1024),
            stdout: String::new(),
            stderr: String::new(),
            stdin: Vec::new(),
            screens: Vec::new(),
            asked: Vec::new(),
            decisions_verdict: Ok(()),
            decision_differences: Vec::new(),
            requests: Vec::new(),
            exhausted_at: None,
            agents_exhausted: Vec::new(),
            turns_left: 0,
            cues_missed: Vec::new(),
            duration: Duration::ZERO,
            places: Places {
                cwd: cwd.display().to_string(),
                home: home.display().to_string(),
                mcp_config: base.join("mcp.json").display().to_string(),
                fake_lsp: String::new(),
                hook_recorder: String::new(),
            },
            cwd,
            home,
            mcp: BTreeMap::new(),
            mcp_survivors: Vec::new(),
            flooded: Vec::new(),
            uploads: Vec::new(),
            design: Vec::new(),
            project: Vec::new(),
            artifact: Vec::new(),
            directory: Vec::new(),
            project_seeded: None,
            project_state: None,
            network: Network::Loopback,
            site: Vec::new(),
            token_requests: Vec::new(),
            hooks: Vec::new(),
            steps: Vec::new(),
            step: None,
            sessions: Vec::new(),
            _root: std::sync::Arc::new(root),
        }
    }
}
