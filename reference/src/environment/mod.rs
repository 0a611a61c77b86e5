//! What the process environment says, read the way 2.1.235 reads it: the boolean switches, the
//! inference provider, whether the session is first-party, feature flags from the on-disk cache,
//! and where the CLI's own files are. Beside `vocab` at the bottom: it imports no other module of
//! the crate, so every layer reads a switch the same way.

mod paths;
pub mod provider;
pub mod sources;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use paths::{
    config_dir, cwd_slug, global_config, managed_settings, project_dir, session_file,
    sidechain_file,
};

/// What 2.1.235 puts in the environment of every process it starts (hooks, Bash commands):
/// that they run under Claude Code, for which session, from which process and entrypoint.
pub fn child_vars(session_id: &str, entrypoint: &str) -> Vec<(&'static str, String)> {
    vec![
        ("CLAUDECODE", "1".into()),
        ("CLAUDE_CODE_CHILD_SESSION", "1".into()),
        ("CLAUDE_CODE_ENTRYPOINT", entrypoint.into()),
        ("CLAUDE_CODE_SESSION_ID", session_id.into()),
        ("CLAUDE_PID", std::process::id().to_string()),
    ]
}

/// An environment switch as the real CLI reads one: `1`, `true`, `yes`, `on`.
pub fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// The other side of a three-way switch: `0`, `false`, `no`, `off` (set, but saying no).
pub fn falsy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "0" | "false" | "no" | "off"
    )
}

/// The variable `name` is set to a [`truthy`] value.
pub fn switched_on(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| truthy(&v))
}

/// A remote session (`CLAUDE_CODE_REMOTE`).
pub fn remote() -> bool {
    switched_on("CLAUDE_CODE_REMOTE")
}

/// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` set to anything non-empty (even `0`, as 2.1.235
/// tests the variable).
pub fn essential_traffic_only() -> bool {
    std::env::var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").is_ok_and(|v| !v.is_empty())
}

/// None of the third-party provider switches is on ([`provider::none_switched_on`]).
pub fn first_party() -> bool {
    provider::none_switched_on()
}

/// The model API is Anthropic's own host (or a first-party base URL is assumed).
pub fn first_party_base_url() -> bool {
    if std::env::var_os("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL").is_some() {
        return true;
    }
    match std::env::var("ANTHROPIC_BASE_URL") {
        Ok(url) if !url.is_empty() => reqwest::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(|h| h == "api.anthropic.com"))
            .unwrap_or(false),
        _ => true,
    }
}

/// The user's, the project's and the local settings files, in that order: a later one wins.
pub fn settings_files(home: &Path, cwd: &Path) -> [PathBuf; 3] {
    [
        home.join(".claude/settings.json"),
        cwd.join(".claude/settings.json"),
        cwd.join(".claude/settings.local.json"),
    ]
}

/// The settings files that exist and parse, in [`settings_files`] order, of the sources read
/// (`--setting-sources`), then `--settings`: a later one wins.
pub fn settings(home: &Path, cwd: &Path) -> Vec<Value> {
    settings_by_source(home, cwd)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// Where a settings object came from: some keys are honoured only from the user's own files
/// or the command line, never from the project's (2.1.235's schema says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    User,
    Project,
    Local,
    Flag,
}

impl Source {
    /// The project's shared or local file: what anyone who writes the repository controls.
    pub fn is_project(self) -> bool {
        matches!(self, Source::Project | Source::Local)
    }
}

/// [`settings`], each with its source.
pub fn settings_by_source(home: &Path, cwd: &Path) -> Vec<(Source, Value)> {
    let kinds = [Source::User, Source::Project, Source::Local];
    read_settings_files(home, cwd)
        .into_iter()
        .zip(kinds)
        .filter_map(|(p, kind)| Some((kind, crate::json::read_file(&p?)?)))
        .chain(sources::flag().cloned().map(|v| (Source::Flag, v)))
        .collect()
}

/// The settings' `env`, merged (a later source wins), set on this process at start-up so that
/// everything it runs inherits it, as 2.1.235 does (recorded: sdk.invocation/settings, a Bash
/// command sees them). Call before any thread starts.
pub fn apply_settings_env(home: &Path, cwd: &Path) {
    for settings in settings(home, cwd) {
        let Some(env) = settings["env"].as_object() else {
            continue;
        };
        for (name, value) in env {
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            if !name.is_empty() && !name.contains(['=', '\0']) && !value.contains('\0') {
                std::env::set_var(name, value);
            }
        }
    }
}

/// [`settings_files`] with those of a source that is not read (`--setting-sources`) left out.
pub fn read_settings_files(home: &Path, cwd: &Path) -> [Option<PathBuf>; 3] {
    let files = settings_files(home, cwd);
    std::array::from_fn(|i| sources::reads(i).then(|| files[i].clone()))
}

/// A key of the settings, the later file winning (local over project over user), as 2.1.235
/// merges them.
pub fn setting(home: &Path, cwd: &Path, key: &str) -> Option<Value> {
    settings(home, cwd)
        .into_iter()
        .rev()
        .find_map(|v| v.get(key).cloned())
}

/// A feature flag from the on-disk GrowthBook cache (`~/.claude.json` `cachedGrowthBookFeatures`),
/// which 2.1.235 reads with telemetry off only when `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1`.
pub fn feature_on(home: &Path, flag: &str) -> bool {
    if std::env::var("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF").as_deref() != Ok("1") {
        return false;
    }
    std::fs::read_to_string(global_config(home))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v["cachedGrowthBookFeatures"][flag] == Value::Bool(true))
}
