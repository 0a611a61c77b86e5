//! Artifacts (seed 004 §Artifact): HTML or Markdown pages published to claude.ai, a remote side
//! effect no file rewind undoes. `auth` is the subscription-login gate with its distinct
//! refusals, `api` the service's routes, `text` URLs, titles and the comment rendering,
//! `publish` the publish with its guards, `contract` the capability contract a publish declares
//! against, `list` the account's listing, `assets` each artifact's asset store. The tool is
//! `tools/artifact.rs`; the live version is
//! read through WebFetch of the artifact's URL ([`read_live`]), as 2.1.235 does, and only a
//! session that has read the live version (or published it itself) may publish over it.

pub mod api;
pub mod assets;
pub mod auth;
pub mod contract;
pub mod input;
pub mod list;
pub mod publish;
pub mod text;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::environment::switched_on;

pub const TOOL_NAME: &str = "Artifact";

/// What this session knows of artifacts: the version it last saw of each, and what it published.
#[derive(Debug, Default, Clone)]
pub struct Session {
    /// Slug → the live version this session read or published.
    pub seen: HashMap<String, String>,
    /// Published file → its slug, so a republish of the same file updates the same artifact.
    pub published: HashMap<PathBuf, String>,
    /// Artifacts the user let this session upload assets to: further uploads do not ask.
    pub uploads_approved: std::collections::HashSet<String>,
    /// Slug → the capabilities this session last declared for it: a republish that leaves the
    /// field out keeps them (the service carries them forward) and reports them.
    pub capabilities: HashMap<String, Value>,
}

/// Whether the tool is offered. 2.1.235 withholds it from `-p` sessions unless
/// `CLAUDE_CODE_ARTIFACT` is set (its `Rip` gate; recon artifact14 exp.art-1), and
/// `CLAUDE_CODE_DISABLE_ARTIFACT` withdraws it.
pub fn offered() -> bool {
    switched_on("CLAUDE_CODE_ARTIFACT") && !switched_on("CLAUDE_CODE_DISABLE_ARTIFACT")
}

/// Whether a terminal session offers the tool without `CLAUDE_CODE_ARTIFACT`: 2.1.235's gates
/// (bundle `Rip`, `Dip`, `VZo`; recorded: the pty runs of design.* carry Artifact, the print runs
/// and the loopback pty runs do not) need the first-party provider, nonessential traffic
/// allowed, the switch not turned off, and a claude.ai login (not an API key) whose plan, when
/// known, is one of the paid ones, under a policy that allows it.
pub fn offered_at_terminal(home: &Path, api_key: bool) -> bool {
    let off = |name: &str| {
        std::env::var(name).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
    };
    if switched_on("CLAUDE_CODE_DISABLE_ARTIFACT")
        || off("CLAUDE_CODE_ARTIFACT")
        || api_key
        || !crate::environment::provider::first_party()
        || crate::environment::essential_traffic_only()
    {
        return false;
    }
    let Some(login) = crate::account::login::login(home) else {
        return false;
    };
    let paid = login
        .subscription
        .as_deref()
        .is_none_or(|plan| matches!(plan, "team" | "enterprise" | "pro" | "max"));
    paid && crate::account::policy::allows(home, "allow_cobalt_plinth")
}

/// The comment actions (2.1.235: `CLAUDE_CODE_ARTIFACT_COMMENTS`, else a feature flag).
pub fn comments_offered() -> bool {
    switched_on("CLAUDE_CODE_ARTIFACT_COMMENTS")
}

/// The asset actions: on unless `CLAUDE_CODE_ARTIFACT_ASSETS` turns them off (2.1.235's `w9a`).
pub fn assets_offered() -> bool {
    !std::env::var("CLAUDE_CODE_ARTIFACT_ASSETS").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// WebFetch of an artifact URL while the tool is offered: the live version read with the login
/// (boot, then the frame host), marked as seen. `None` when the URL is no artifact's.
pub fn read_live(
    url: &str,
    home: &Path,
    session: &mut Session,
    runtime: &tokio::runtime::Handle,
) -> Option<Result<(String, Value), String>> {
    if !offered() {
        return None;
    }
    let https = url.replacen("http://", "https://", 1);
    let slug = text::parse_url(&https)?;
    let started = std::time::Instant::now();
    Some(
        (|| {
            let token = auth::token(home)?;
            let api = api::Api::new(token);
            let boot = runtime.block_on(api.boot(&slug))?;
            let html = runtime.block_on(api.content(&slug, &boot))?;
            session.seen.insert(slug.clone(), boot.ver.clone());
            let title: String = boot.title.chars().take(200).collect();
            let title = if title.is_empty() {
                String::new()
            } else {
                format!(" \"{title}\"")
            };
            let result = format!(
                "[Artifact {slug}{title} \u{2014} owned by you, private; raw HTML follows]\n{html}"
            );
            let structured = json!({
                "bytes": html.len(),
                "code": 200,
                "codeText": "OK",
                "result": result,
                "durationMs": started.elapsed().as_millis() as u64,
                "url": url,
                "artifactRead": {"slug": slug, "ver": boot.ver},
            });
            Ok((result, structured))
        })()
        .map_err(|e: String| format!("Artifact {slug}: {e}")),
    )
}
