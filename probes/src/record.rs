//! The probe record: everything one run showed, like the seeds' `mcp-refresh.json`, written to
//! `target/probes/<target>/<id>.json`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use stubs::messages::RecordedRequest;

use crate::check::CheckOutcome;
use crate::outcome::RunOutcome;

#[derive(Serialize)]
pub struct ProbeRecord<'a> {
    pub id: &'a str,
    pub target: &'a str,
    pub split: String,
    pub channel: crate::scenario::Channel,
    pub command: &'a [String],
    pub env: &'a std::collections::BTreeMap<String, String>,
    pub cwd: &'a Path,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub peak_rss_kib: Option<u64>,
    pub duration_ms: u64,
    pub stdout: &'a str,
    pub stderr: &'a str,
    /// What the harness wrote to stdin (control protocol lines).
    pub stdin: &'a [String],
    /// The terminal screens the harness acted on, and the last one.
    pub screens: &'a [String],
    /// What the target asked and how each was answered.
    pub asked: &'a [crate::outcome::Asked],
    pub requests: &'a [RecordedRequest],
    /// Each fake MCP server's log (timestamps in ms since the Unix epoch).
    pub mcp: &'a std::collections::BTreeMap<String, crate::mcp::ServerRecord>,
    pub mcp_survivors: &'a [(String, u32)],
    /// Uploads the mock claude.ai received (file bytes as size and SHA-256).
    pub uploads: &'a [stubs::claude_ai::RecordedUpload],
    /// Requests the mock claude.ai's Design endpoints received.
    pub design: &'a [stubs::claude_ai::DesignRequest],
    /// Requests the mock's OAuth token endpoint received.
    pub token_requests: &'a [stubs::claude_ai::RecordedTokenRequest],
    /// Requests the mock's Projects API received, and the Project as seeded and afterwards.
    pub project: &'a [stubs::claude_ai::ProjectRequest],
    pub project_seeded: Option<&'a stubs::claude_ai::ProjectState>,
    /// Requests the mock's artifact routes received (page bytes as size and SHA-256).
    pub artifact: &'a [stubs::claude_ai::ArtifactRequest],
    /// Requests the mock's directory routes received.
    pub directory: &'a [stubs::claude_ai::DirectoryRequest],
    pub project_state: Option<&'a stubs::claude_ai::ProjectState>,
    /// Requests the `[[site]]` hosts and the domain preflight received.
    pub site: &'a [stubs::site::SiteRequest],
    /// Each run of the harness's hook recorder.
    pub hooks: &'a [crate::hooks::HookRun],
    /// Each start of a scenario with `[[step]]`s (the fields above are the last one's).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub steps: &'a [crate::outcome::StepRun],
    /// The session files the run left in HOME (transcripts, sub-agents' sidechains).
    pub sessions: &'a [crate::sessions::SessionFile],
    pub checks: &'a [CheckOutcome],
}

/// Writes the record under `dir/<target>/<id>.json` and returns the path.
pub fn write(
    dir: &Path,
    id: &str,
    run: &RunOutcome,
    checks: &[CheckOutcome],
) -> std::io::Result<PathBuf> {
    let record = ProbeRecord {
        id,
        target: &run.target,
        split: run.split.to_string(),
        channel: run.channel,
        command: &run.command,
        env: &run.env,
        cwd: &run.cwd,
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        peak_rss_kib: run.peak_rss_kib,
        duration_ms: run.duration.as_millis() as u64,
        stdout: &run.stdout,
        stderr: &run.stderr,
        stdin: &run.stdin,
        screens: &run.screens,
        asked: &run.asked,
        requests: &run.requests,
        mcp: &run.mcp,
        mcp_survivors: &run.mcp_survivors,
        uploads: &run.uploads,
        design: &run.design,
        token_requests: &run.token_requests,
        project: &run.project,
        project_seeded: run.project_seeded.as_ref(),
        artifact: &run.artifact,
        directory: &run.directory,
        project_state: run.project_state.as_ref(),
        site: &run.site,
        hooks: &run.hooks,
        steps: &run.steps,
        sessions: &run.sessions,
        checks,
    };
    let path = dir
        .join(run.target.replace(['/', ':'], "_"))
        .join(format!("{}.json", id.replace('/', "__")));
    std::fs::create_dir_all(path.parent().expect("has a parent"))?;
    // The planted login's tokens are fakes, but a record is no place for a token either way.
    let text = crate::account::redact(&serde_json::to_string_pretty(&record)?);
    crate::atomic::write(&path, text)?;
    Ok(path)
}
