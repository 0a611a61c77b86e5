//! Declarative, target-independent checks, and per-target expected differences.
//!
//! A check states what the seed documents. Where a real binary is known to differ, the check
//! carries that target's own expectation under `differs.<target>` with a reason; the report counts
//! those apart from plain passes, and flags an expected difference that stopped happening so the
//! baseline never goes stale.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use stubs::mcp::expand;

use crate::run::RunOutcome;
use crate::wire::{self, Request};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// The process exit status: `equals`.
    Exit,
    /// The final stream-json `result` event: `subtype`, `is_error`, `equals` (its text), `contains`.
    Result,
    /// The number of main-loop Messages requests: `equals`; `matches` is a JSON subset of request
    /// `request`'s body (default 1): a helper's server tool, its `tool_choice`.
    Requests,
    /// The `tools[]` of main-loop request `request`: `includes`, `excludes` (a trailing `*`
    /// matches a prefix), `order`.
    Tools,
    /// The tool_result for `tool_use_id`: `is_error`, `equals`, `contains`, `not_contains`,
    /// `request` (the first request carrying it).
    ToolResult,
    /// What the tool_result for `tool_use_id` brought to the model (`media::around_result`): its
    /// pictures and the blocks after it in its message, summarized without their base64, one per
    /// line, against `equals`/`contains`/`not_contains`.
    Media,
    /// Every tool_use of every assistant turn is answered exactly once, in the next request, in
    /// one user message.
    Pairing,
    /// A file in the run's cwd (`~/` for HOME) afterwards: `equals`, `contains`, `absent`, `mode`
    /// (its permission bits); a `*` in a path segment matches any name there, and the pattern
    /// must name exactly one file.
    File,
    /// The stream-json stdout: `events` (the sequence of `type[/subtype]`), `keys` (the exact
    /// top-level key set of every event of a kind).
    Events,
    /// Standard error: `contains`, `not_contains`, `equals`.
    Stderr,
    /// Standard output as text: `contains`, `not_contains`, `equals`.
    Stdout,
    /// The process as a whole: `max_rss_mib` (peak resident set size). A bound the seed states
    /// as an acceptance criterion, not a benchmark.
    Process,
    /// The `tools[]` entry `tool` of main-loop request `request`: its description against
    /// `equals`/`contains`/`not_contains`, its input schema against `input_schema` (all of it) or
    /// `matches` (a JSON subset: the shape without our own descriptions), its property
    /// names against `includes`/`excludes`.
    ToolDef,
    /// The system prompt of main-loop request `request` (blocks joined): `contains`,
    /// `not_contains`.
    System,
    /// The text blocks of the first user message of request `request` (the context the agent
    /// sends with the prompt, system reminders included), joined: `contains`, `not_contains`.
    UserContext,
    /// What fake MCP server `server` saw: `absent` (never started or dialled), `counts` (client →
    /// server messages by method, `response` for answers), `order` (their exact sequence),
    /// `includes`/`excludes` (methods), `contains`/`not_contains` (its log as text), `method` with
    /// `gaps_ms` (the first waits between consecutive messages of that method; `GET` counts the
    /// HTTP server stream's opens), `starts_ms`,
    /// `released_ms`, `survives`.
    Mcp,
    /// The stream-json `tool_use_result` answering `tool_use_id`: `matches` (a JSON subset, see
    /// `check_json`).
    ToolUseResult,
    /// A rendering of the run's stdout (`render`): `view` = `brief` (the Brief main view) or
    /// `transcript`, against `equals`/`contains`/`not_contains`.
    View,
    /// The mock claude.ai's upload endpoint: `equals` (how many uploads arrived), `matches` (a
    /// JSON subset per upload, order-free).
    Uploads,
    /// What a terminal showed (`pty` runs only): the screens the harness answered, joined, against
    /// `equals`/`contains`/`not_contains`.
    Screen,
    /// The mock claude.ai's Design endpoints (MCP, consent, grants), in arrival order: `equals`
    /// (how many requests), `matches` (a JSON subset of the whole ordered list), `path` (only one
    /// endpoint: `mcp`, `consent`, `grants`), `method` (only the requests whose JSON-RPC method, or
    /// HTTP method on consent/grants, is this).
    Design,
    /// The mock claude.ai's OAuth token endpoint: `equals` (how many token requests), `matches`
    /// (a JSON subset of the ordered list: grant type, scopes asked for, whether the refresh token
    /// was the account's, status).
    Oauth,
    /// The mock claude.ai's Projects API (both transports), in arrival order: `equals` (how many
    /// requests), `matches` (a JSON subset of the whole ordered list), `method` (only requests of
    /// this operation, e.g. `write-doc`).
    Project,
    /// The attached Project after the run: `matches` (a JSON subset of its state: `docs` with
    /// path and content, `uploads`, `knowledge_size`), `unchanged = true` (exactly as the scenario
    /// seeded it).
    ProjectState,
    /// What the `[[site]]` hosts and the domain preflight received, in arrival order: `equals`
    /// (how many requests), `matches` (a JSON subset of the whole ordered list: kind, scheme,
    /// host, method, path, user_agent, accept, status), `method` (only `page` or `preflight`).
    Site,
    /// The mock claude.ai's artifact routes, in arrival order: `equals` (how many requests),
    /// `matches` (a JSON subset of the whole ordered list: op, slug, body, status, applied),
    /// `method` (only requests of this operation: boot, content, deploy, comments, reply).
    Artifact,
}

/// One `[[check]]` table. Which fields apply depends on `kind`; `validate` says which are missing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    pub kind: Option<CheckKind>,
    /// A label for reports; a description is derived when absent.
    pub name: Option<String>,
    /// Read this scripted second loop's requests (its `[[agent]]` name or match) instead of the
    /// main loop's: `requests`, `tools`, `tool_result`, `tool_def`, `system`, `user_context`.
    pub agent: Option<String>,
    pub request: Option<usize>,
    pub tool_use_id: Option<String>,
    pub path: Option<String>,
    pub equals: Option<Value>,
    pub contains: Option<String>,
    pub not_contains: Option<String>,
    pub is_error: Option<bool>,
    pub subtype: Option<String>,
    pub absent: Option<bool>,
    pub includes: Option<Vec<String>>,
    pub excludes: Option<Vec<String>>,
    pub order: Option<Vec<String>>,
    pub events: Option<Vec<String>>,
    pub keys: Option<BTreeMap<String, Vec<String>>>,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub input_schema: Option<Value>,
    pub counts: Option<BTreeMap<String, i64>>,
    pub method: Option<String>,
    pub gaps_ms: Option<Vec<u64>>,
    /// `[lo, hi]`: the server's first message arrives lo..hi ms after the first message any
    /// server of the run received (connection batches).
    pub starts_ms: Option<Vec<u64>>,
    /// `[lo, hi]`: the client let go of the server (stdin closed or a signal) lo..hi ms after the
    /// server's first message.
    pub released_ms: Option<Vec<u64>>,
    /// Whether the server's process was still running after the target exited. Stating it
    /// replaces the builtin "no MCP server process outlived the target" check for this server.
    pub survives: Option<bool>,
    pub max_rss_mib: Option<u64>,
    /// A JSON subset the value must have (`tool_use_result`, `uploads`).
    pub matches: Option<Value>,
    /// `brief` or `transcript` (`view`).
    pub view: Option<String>,
    /// The channel whose run the check reads (default: every channel the scenario runs).
    pub channel: Option<crate::host::Channel>,
    /// `file`: the file's permission bits, four octal digits (`0600`).
    pub mode: Option<String>,
    /// `project_state`: the Project holds exactly what the scenario seeded.
    pub unchanged: Option<bool>,
    /// Why a target differs; required inside `differs.<target>`.
    pub reason: Option<String>,
    /// Per-target expectations that replace fields of this check: `differs."claude@2.1.235"`.
    pub differs: Option<BTreeMap<String, CheckSpec>>,
}

/// The paths under `base` that `rel` names, a `*` in a segment matching any name there (the
/// session's own folder, whose name is a fresh id); without a `*`, the one path.
pub(crate) fn resolve_pattern(base: &std::path::Path, rel: &str) -> Vec<std::path::PathBuf> {
    let mut found = vec![base.to_path_buf()];
    for segment in rel.split('/').filter(|s| !s.is_empty()) {
        if !segment.contains('*') {
            found = found.into_iter().map(|p| p.join(segment)).collect();
            continue;
        }
        let Ok(glob) = globset::Glob::new(segment) else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
        found = found
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| matcher.is_match(n)))
            .collect();
        found.sort();
    }
    found.retain(|p| p.exists() || p.symlink_metadata().is_ok());
    found
}

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

impl CheckSpec {
    /// Names the first missing or misplaced field, for the scenario loader's error.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let Some(kind) = self.kind else {
            return Err(("kind", "missing: one of exit, result, requests, tools, tool_result, media, pairing, file, events, stderr, stdout, mcp, tool_def, system, user_context, process, tool_use_result, uploads, view, screen, design, oauth, project, project_state, site, artifact".into()));
        };
        let need = |ok: bool, field: &'static str, what: &str| {
            if ok {
                Ok(())
            } else {
                Err((
                    field,
                    format!("required by kind `{}`: {what}", kind_name(kind)),
                ))
            }
        };
        let reads_requests = matches!(
            kind,
            CheckKind::Requests
                | CheckKind::Tools
                | CheckKind::ToolResult
                | CheckKind::Media
                | CheckKind::ToolDef
                | CheckKind::System
                | CheckKind::UserContext
        );
        if self.agent.is_some() && !reads_requests {
            return Err((
                "agent",
                format!("kind `{}` does not read a loop's requests", kind_name(kind)),
            ));
        }
        match kind {
            CheckKind::Exit => need(
                self.equals.as_ref().is_some_and(Value::is_i64),
                "equals",
                "an integer",
            )?,
            CheckKind::Requests => need(
                self.equals.as_ref().is_some_and(Value::is_i64)
                    || (self.equals.is_none() && self.matches.is_some()),
                "equals",
                "an integer (how many requests), or `matches` (a JSON subset of request `request`'s body)",
            )?,
            CheckKind::Tools => {
                need(
                    self.request.is_some(),
                    "request",
                    "the 1-based main-loop request",
                )?;
                need(
                    self.includes.is_some() || self.excludes.is_some() || self.order.is_some(),
                    "includes",
                    "at least one of includes, excludes, order",
                )?
            }
            CheckKind::ToolResult => need(
                self.tool_use_id.is_some(),
                "tool_use_id",
                "the tool_use id it answers",
            )?,
            CheckKind::Media => {
                need(
                    self.tool_use_id.is_some(),
                    "tool_use_id",
                    "the tool_use id it answers",
                )?;
                need(
                    self.equals.is_some() || self.contains.is_some() || self.not_contains.is_some(),
                    "contains",
                    "at least one of equals, contains, not_contains",
                )?
            }
            CheckKind::File => {
                need(
                    self.path.is_some(),
                    "path",
                    "a path relative to the run's cwd",
                )?;
                need(
                    self.mode.as_deref().is_none_or(|m| {
                        m.len() == 4 && m.bytes().all(|b| (b'0'..=b'7').contains(&b))
                    }),
                    "mode",
                    "four octal digits, e.g. \"0600\"",
                )?
            }
            CheckKind::Events => need(
                self.events.is_some() || self.keys.is_some(),
                "events",
                "events or keys",
            )?,
            CheckKind::ToolDef => {
                need(
                    self.request.is_some(),
                    "request",
                    "the 1-based main-loop request",
                )?;
                need(self.tool.is_some(), "tool", "the tools[] name")?
            }
            CheckKind::Process => {
                need(self.max_rss_mib.is_some(), "max_rss_mib", "a bound in MiB")?
            }
            CheckKind::System | CheckKind::UserContext => need(
                self.request.is_some(),
                "request",
                "the 1-based main-loop request",
            )?,
            CheckKind::Mcp => {
                need(self.server.is_some(), "server", "the `[[mcp_server]]` name")?;
                need(
                    self.gaps_ms.is_none() || self.method.is_some(),
                    "method",
                    "the method whose gaps `gaps_ms` states",
                )?;
                for (field, window) in [
                    ("starts_ms", &self.starts_ms),
                    ("released_ms", &self.released_ms),
                ] {
                    need(
                        window.as_ref().is_none_or(|w| w.len() == 2 && w[0] <= w[1]),
                        field,
                        "a window [lo, hi] in ms",
                    )?;
                }
            }
            CheckKind::ToolUseResult => {
                need(
                    self.tool_use_id.is_some(),
                    "tool_use_id",
                    "the tool_use id it answers",
                )?;
                need(self.matches.is_some(), "matches", "a JSON subset")?
            }
            CheckKind::View => need(
                matches!(self.view.as_deref(), Some("brief" | "transcript")),
                "view",
                "`brief` or `transcript`",
            )?,
            CheckKind::Uploads => need(
                self.matches.is_some() || self.equals.as_ref().is_some_and(Value::is_u64),
                "equals",
                "a count (`equals`) or `matches`",
            )?,
            CheckKind::ProjectState => need(
                self.matches.is_some() || self.unchanged == Some(true),
                "matches",
                "`matches` or `unchanged = true`",
            )?,
            CheckKind::Design
            | CheckKind::Oauth
            | CheckKind::Project
            | CheckKind::Site
            | CheckKind::Artifact => need(
                self.matches.is_some() || self.equals.as_ref().is_some_and(Value::is_u64),
                "equals",
                "a count (`equals`) or `matches`",
            )?,
            CheckKind::Screen => need(
                self.contains.is_some() || self.not_contains.is_some() || self.equals.is_some(),
                "contains",
                "a text expectation",
            )?,
            CheckKind::Result => need(
                self.subtype.is_some() || self.is_error.is_some() || self.has_text_expectation(),
                "contains",
                "at least one of subtype, is_error, equals, contains, not_contains",
            )?,
            CheckKind::Stderr | CheckKind::Stdout => need(
                self.has_text_expectation(),
                "contains",
                "at least one of equals, contains, not_contains",
            )?,
            // Fails unless some tool_use was sent and paired: it needs no field.
            CheckKind::Pairing => {}
        }
        refuse_vacuous(self)?;
        if let Some(differs) = &self.differs {
            crate::version::refuse_overlaps(differs.keys().map(String::as_str))
                .map_err(|e| ("differs", e))?;
        }
        for (target, spec) in self.differs.iter().flatten() {
            if spec.reason.as_deref().unwrap_or("").trim().is_empty() {
                return Err(("differs", format!("`{target}` needs a one-line `reason`")));
            }
            refuse_vacuous(spec).map_err(|(field, why)| {
                ("differs", format!("`{target}`: field `{field}`: {why}"))
            })?;
            if spec.kind.is_some() || spec.differs.is_some() || spec.channel.is_some() {
                return Err((
                    "differs",
                    format!(
                        "`{target}` may override expectations only, not kind, channel or differs"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn has_text_expectation(&self) -> bool {
        self.equals.is_some() || self.contains.is_some() || self.not_contains.is_some()
    }

    /// This check with `over`'s fields laid on top. Fields that state one expectation together
    /// are replaced together: a difference that names any of `equals`/`contains`/`not_contains`
    /// (or of `includes`/`excludes`/`order`) replaces that whole group, so "stderr is empty" does
    /// not inherit the seed's `contains`.
    fn overlaid(&self, over: &CheckSpec) -> CheckSpec {
        macro_rules! pick {
            ($($f:ident),*) => { CheckSpec { $($f: over.$f.clone().or_else(|| self.$f.clone()),)* differs: None } };
        }
        let mut out = pick!(
            kind,
            name,
            agent,
            request,
            tool_use_id,
            path,
            equals,
            contains,
            not_contains,
            is_error,
            subtype,
            absent,
            includes,
            excludes,
            order,
            events,
            keys,
            server,
            tool,
            input_schema,
            counts,
            method,
            gaps_ms,
            starts_ms,
            released_ms,
            survives,
            max_rss_mib,
            matches,
            view,
            channel,
            mode,
            unchanged,
            reason
        );
        if over.equals.is_some() || over.contains.is_some() || over.not_contains.is_some() {
            out.equals = over.equals.clone();
            out.contains = over.contains.clone();
            out.not_contains = over.not_contains.clone();
        }
        if over.includes.is_some() || over.excludes.is_some() || over.order.is_some() {
            out.includes = over.includes.clone();
            out.excludes = over.excludes.clone();
            out.order = over.order.clone();
        }
        out
    }

    pub fn kind_name(&self) -> &'static str {
        self.kind.map(kind_name).unwrap_or("?")
    }

    /// Kinds that read the stream-json events on stdout, which a terminal run does not have.
    pub fn reads_stream_json(&self) -> bool {
        matches!(
            self.kind,
            Some(
                CheckKind::Result
                    | CheckKind::Events
                    | CheckKind::ToolUseResult
                    | CheckKind::View
                    | CheckKind::Stdout
            )
        )
    }

    /// Whether the check applies to a run on `channel` (a screen exists only on a terminal).
    pub fn applies_to(&self, channel: crate::host::Channel) -> bool {
        let on_screen =
            self.kind != Some(CheckKind::Screen) || channel == crate::host::Channel::Pty;
        on_screen && self.channel.is_none_or(|c| c == channel)
    }

    /// The key of a difference named for other versions of `target`'s family whose expectation
    /// holds on `run`.
    fn holding_difference_of_family(&self, target: &str, run: &RunOutcome) -> Option<String> {
        let family = crate::target::Target::family(target);
        self.differs.as_ref()?.iter().find_map(|(key, over)| {
            let same_family =
                crate::version::TargetKey::parse(key).is_ok_and(|k| k.family() == family);
            (same_family && check(&self.overlaid(over), run).is_ok()).then(|| key.clone())
        })
    }

    fn difference_for(&self, target: &str) -> Option<&CheckSpec> {
        // Keys were refused at load when two could apply to one target, so the first match is
        // the only one.
        self.differs.as_ref()?.iter().find_map(|(key, spec)| {
            crate::version::TargetKey::parse(key)
                .is_ok_and(|k| k.matches(target))
                .then_some(spec)
        })
    }

    pub fn describe(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let kind = self.kind.map(kind_name).unwrap_or("?");
        let mut parts = vec![kind.to_owned()];
        if let Some(a) = &self.agent {
            parts.push(format!("agent `{a}`"));
        }
        if let Some(r) = self.request {
            parts.push(format!("request {r}"));
        }
        if let Some(id) = &self.tool_use_id {
            parts.push(id.clone());
        }
        if let Some(p) = &self.path {
            parts.push(p.clone());
        }
        if let Some(t) = &self.tool {
            parts.push(t.clone());
        }
        if let Some(s) = &self.server {
            parts.push(s.clone());
        }
        if let Some(v) = &self.view {
            parts.push(v.clone());
        }
        parts.join(" ")
    }
}

fn kind_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Exit => "exit",
        CheckKind::Result => "result",
        CheckKind::Requests => "requests",
        CheckKind::Tools => "tools",
        CheckKind::ToolResult => "tool_result",
        CheckKind::Media => "media",
        CheckKind::Pairing => "pairing",
        CheckKind::File => "file",
        CheckKind::Events => "events",
        CheckKind::Stderr => "stderr",
        CheckKind::Stdout => "stdout",
        CheckKind::Mcp => "mcp",
        CheckKind::ToolDef => "tool_def",
        CheckKind::System => "system",
        CheckKind::UserContext => "user_context",
        CheckKind::Process => "process",
        CheckKind::ToolUseResult => "tool_use_result",
        CheckKind::Uploads => "uploads",
        CheckKind::View => "view",
        CheckKind::Screen => "screen",
        CheckKind::Design => "design",
        CheckKind::Project => "project",
        CheckKind::ProjectState => "project_state",
        CheckKind::Site => "site",
        CheckKind::Artifact => "artifact",
        CheckKind::Oauth => "oauth",
    }
}

/// Expectations that hold (or fail) whatever the run did: every text contains "", and an empty
/// JSON subset matches anything.
fn refuse_vacuous(spec: &CheckSpec) -> Result<(), (&'static str, String)> {
    if spec.contains.as_deref() == Some("") {
        return Err(("contains", "empty: every text contains it".into()));
    }
    if spec.not_contains.as_deref() == Some("") {
        return Err((
            "not_contains",
            "empty: every text contains it, so this always fails".into(),
        ));
    }
    let empty = |v: &Value| match v {
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    if spec.matches.as_ref().is_some_and(empty) {
        return Err(("matches", "empty: an empty subset matches anything".into()));
    }
    Ok(())
}

/// Evaluates `spec` for a run of `target`, honouring its expected difference.
pub fn evaluate(spec: &CheckSpec, target: &str, run: &RunOutcome) -> CheckOutcome {
    let name = spec.describe();
    let seed_verdict = check(spec, run);
    let Some(diff) = spec.difference_for(target) else {
        let ok = seed_verdict.is_ok();
        let mut outcome = CheckOutcome::new(name, ok, seed_verdict.err().unwrap_or_default());
        if !ok {
            outcome.named_for_other_versions = spec.holding_difference_of_family(target, run);
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

fn check(spec: &CheckSpec, run: &RunOutcome) -> Result<(), String> {
    let kind = spec.kind.expect("validated at load");
    let requests = match &spec.agent {
        Some(label) => run.agent_requests(label),
        None => run.main_requests(),
    };
    match kind {
        CheckKind::Exit => {
            let want = spec
                .equals
                .as_ref()
                .and_then(Value::as_i64)
                .unwrap_or_default();
            match run.exit_code {
                Some(code) if i64::from(code) == want => Ok(()),
                Some(code) => Err(expected_seen(want, code)),
                None if run.timed_out => Err(expected_seen(want, "killed after the timeout")),
                None => Err(expected_seen(want, "killed by a signal")),
            }
        }
        CheckKind::Requests => {
            if let Some(want) = &spec.matches {
                let n = spec.request.unwrap_or(1);
                let body = requests.get(n.wrapping_sub(1)).ok_or_else(|| {
                    format!("request {n} was never sent ({} sent)", requests.len())
                })?;
                crate::check_json::subset(want, body, &format!("request {n}"))?;
            }
            let Some(want) = spec.equals.as_ref().and_then(Value::as_i64) else {
                return Ok(());
            };
            if requests.len() as i64 == want {
                Ok(())
            } else {
                Err(expected_seen(want, requests.len()))
            }
        }
        CheckKind::Result => {
            let events = wire::stdout_events(&run.stdout);
            let result = wire::result_event(&events).ok_or("no `result` event on stdout")?;
            if let Some(subtype) = &spec.subtype {
                field_eq(
                    "subtype",
                    subtype.as_str(),
                    result["subtype"].as_str().unwrap_or("<none>"),
                )?;
            }
            if let Some(is_error) = spec.is_error {
                // Absent is not false: a result event without the field is itself a finding.
                let seen = result["is_error"]
                    .as_bool()
                    .ok_or("the `result` event has no boolean `is_error`")?;
                field_eq("is_error", is_error, seen)?;
            }
            text_expectations(spec, result["result"].as_str().unwrap_or(""))
        }
        CheckKind::Tools => {
            let n = spec.request.unwrap_or(1);
            let request = requests
                .get(n.wrapping_sub(1))
                .ok_or_else(|| format!("request {n} was never sent ({} sent)", requests.len()))?;
            let names = Request(request).tool_names();
            // A trailing `*` matches by prefix (`mcp__server__*`).
            let has = |pattern: &str| match pattern.strip_suffix('*') {
                Some(prefix) => names.iter().any(|n| n.starts_with(prefix)),
                None => names.contains(&pattern),
            };
            membership(
                spec,
                has,
                |want| format!("request {n} tools[] lacks `{want}`\n  seen: {names:?}"),
                |unwanted| format!("request {n} tools[] carries `{unwanted}`\n  seen: {names:?}"),
            )?;
            if let Some(order) = &spec.order {
                if names != order.iter().map(String::as_str).collect::<Vec<_>>() {
                    return Err(list_diff(order, &names));
                }
            }
            Ok(())
        }
        CheckKind::ToolResult => {
            let id = spec.tool_use_id.as_deref().unwrap_or_default();
            let found = requests.iter().enumerate().find_map(|(i, body)| {
                Request(body)
                    .tool_results()
                    .into_iter()
                    .find(|(_, b)| b["tool_use_id"] == id)
                    .map(|(_, b)| (i + 1, b))
            });
            let (n, block) = found.ok_or_else(|| {
                format!(
                    "no tool_result for `{id}` in any of {} requests",
                    requests.len()
                )
            })?;
            if let Some(want) = spec.request {
                field_eq("first request carrying it", want, n)?;
            }
            if let Some(is_error) = spec.is_error {
                field_eq("is_error", is_error, wire::is_error(block)).map_err(|e| {
                    format!(
                        "{e}\n  content: {}",
                        run.places.redact(&wire::tool_result_own_text(block))
                    )
                })?;
            }
            text_expectations(spec, &run.places.redact(&wire::tool_result_own_text(block)))
        }
        CheckKind::Media => {
            let id = spec.tool_use_id.as_deref().unwrap_or_default();
            let seen = requests.iter().find_map(|body| {
                Request(body)
                    .messages()
                    .iter()
                    .find_map(|message| crate::media::around_result(&wire::blocks(message), id))
            });
            let seen = seen.ok_or_else(|| {
                format!(
                    "no tool_result for `{id}` in any of {} requests",
                    requests.len()
                )
            })?;
            text_expectations(spec, &run.places.redact(&seen))
        }
        CheckKind::Pairing => pairing(&requests),
        CheckKind::File => {
            let rel = spec.path.as_deref().unwrap_or_default();
            let (base, rel_in) = match rel.strip_prefix("~/") {
                Some(home_rel) => (&run.home, home_rel),
                None => (&run.cwd, rel),
            };
            let found = resolve_pattern(base, rel_in);
            if spec.absent == Some(true) {
                return match found.as_slice() {
                    [] => Ok(()),
                    _ => Err(format!("`{rel}` exists but should not")),
                };
            }
            let path = match found.as_slice() {
                [one] => one.clone(),
                [] => base.join(rel_in),
                many => {
                    return Err(format!(
                        "`{rel}` names {} files, not one:\n{}",
                        many.len(),
                        many.iter()
                            .map(|p| format!("  {}", run.places.redact(&p.display().to_string())))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ))
                }
            };
            if let Some(want) = &spec.mode {
                use std::os::unix::fs::PermissionsExt;
                let seen = std::fs::metadata(&path)
                    .map_err(|e| format!("`{rel}` cannot be read: {e}"))?
                    .permissions()
                    .mode()
                    & 0o7777;
                if format!("{seen:04o}") != *want {
                    return Err(format!(
                        "`{rel}`: mode {}",
                        expected_seen(want, format!("{seen:04o}"))
                    ));
                }
            }
            if spec.contains.is_none() && spec.not_contains.is_none() && spec.equals.is_none() {
                return if path.exists() {
                    Ok(())
                } else {
                    Err(format!("`{rel}` does not exist"))
                };
            }
            let content = std::fs::read_to_string(&path)
                .map_err(|e| format!("`{rel}` cannot be read: {e}"))?;
            text_expectations(spec, &content)
        }
        CheckKind::Events => {
            let events = wire::stdout_events(&run.stdout);
            if let Some(want) = &spec.events {
                let seen: Vec<String> = events.iter().map(wire::event_kind).collect();
                if &seen != want {
                    return Err(list_diff(
                        want,
                        &seen.iter().map(String::as_str).collect::<Vec<_>>(),
                    ));
                }
            }
            for (kind, want_keys) in spec.keys.iter().flatten() {
                let mut want: Vec<&str> = want_keys.iter().map(String::as_str).collect();
                want.sort_unstable();
                // Every event of the kind: a later one that gained or lost a key is a change too.
                let of_kind: Vec<(usize, &Value)> = events
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| &wire::event_kind(e) == kind)
                    .collect();
                if of_kind.is_empty() {
                    return Err(format!("no `{kind}` event"));
                }
                for (i, event) in of_kind {
                    let mut seen: Vec<&str> = event
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    seen.sort_unstable();
                    if seen != want {
                        let missing: Vec<_> = want.iter().filter(|k| !seen.contains(k)).collect();
                        let extra: Vec<_> = seen.iter().filter(|k| !want.contains(k)).collect();
                        return Err(format!(
                            "`{kind}` keys differ (event {} of stdout)\n  missing: {missing:?}\n  unexpected: {extra:?}",
                            i + 1
                        ));
                    }
                }
            }
            Ok(())
        }
        CheckKind::Stderr => text_expectations(spec, &run.places.redact(&run.stderr)),
        CheckKind::Stdout => text_expectations(spec, &run.places.redact(&run.stdout)),
        CheckKind::Screen => text_expectations(spec, &run.places.redact(&run.screens.join("\n"))),
        CheckKind::Mcp => crate::mcp::check(spec, run),
        CheckKind::ToolUseResult => crate::check_json::tool_use_result(spec, run),
        CheckKind::Uploads => crate::check_json::uploads(spec, run),
        CheckKind::Design => crate::check_json::design(spec, run),
        CheckKind::Project => crate::check_json::project(spec, run),
        CheckKind::ProjectState => crate::check_json::project_state(spec, run),
        CheckKind::Site => crate::check_json::site(spec, run),
        CheckKind::Artifact => crate::check_json::artifact(spec, run),
        CheckKind::Oauth => crate::check_json::oauth(spec, run),
        CheckKind::View => {
            let text = match spec.view.as_deref() {
                Some("brief") => crate::render::brief_view(&run.stdout),
                _ => crate::render::transcript(&run.stdout),
            };
            text_expectations(spec, &run.places.redact(&text))
        }
        CheckKind::Process => {
            let bound = spec.max_rss_mib.unwrap_or_default();
            let rss = run
                .peak_rss_kib
                .ok_or("no peak RSS: the process did not exit by itself")?;
            if rss > bound * 1024 {
                return Err(format!(
                    "peak RSS {} MiB, above the bound of {bound} MiB",
                    rss / 1024
                ));
            }
            Ok(())
        }
        CheckKind::ToolDef | CheckKind::System | CheckKind::UserContext => {
            let n = spec.request.unwrap_or(1);
            let request =
                Request(requests.get(n.wrapping_sub(1)).ok_or_else(|| {
                    format!("request {n} was never sent ({} sent)", requests.len())
                })?);
            if kind == CheckKind::System {
                return text_expectations(spec, &run.places.redact(&request.system_text()));
            }
            if kind == CheckKind::UserContext {
                let first = request.messages().first().cloned().unwrap_or_default();
                let text: Vec<&str> = wire::blocks(&first)
                    .into_iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect();
                return text_expectations(spec, &run.places.redact(&text.join("\n")));
            }
            let name = spec.tool.as_deref().unwrap_or_default();
            let tool = request.tool(name).ok_or_else(|| {
                format!(
                    "request {n} tools[] has no `{name}`\n  seen: {:?}",
                    request.tool_names()
                )
            })?;
            let props: Vec<&str> = tool["input_schema"]["properties"]
                .as_object()
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            membership(
                spec,
                |p| props.contains(&p),
                |want| format!("`{name}` has no property `{want}`\n  properties: {props:?}"),
                |unwanted| format!("`{name}` has a property `{unwanted}`\n  properties: {props:?}"),
            )?;
            if let Some(want) = &spec.input_schema {
                if &tool["input_schema"] != want {
                    return Err(text_diff(
                        &serde_json::to_string_pretty(want).unwrap_or_default(),
                        &serde_json::to_string_pretty(&tool["input_schema"]).unwrap_or_default(),
                    ));
                }
            }
            if let Some(want) = &spec.matches {
                crate::check_json::subset(want, &tool["input_schema"], "input_schema")?;
            }
            text_expectations(spec, tool["description"].as_str().unwrap_or_default())
        }
    }
}

/// `includes` (each must be there) and `excludes` (none may be), as `has` finds them; the first
/// failure is described by `missing` or `present`.
pub(crate) fn membership(
    spec: &CheckSpec,
    has: impl Fn(&str) -> bool,
    missing: impl Fn(&str) -> String,
    present: impl Fn(&str) -> String,
) -> Result<(), String> {
    if let Some(want) = spec.includes.iter().flatten().find(|w| !has(w)) {
        return Err(missing(want));
    }
    if let Some(unwanted) = spec.excludes.iter().flatten().find(|u| has(u)) {
        return Err(present(unwanted));
    }
    Ok(())
}

/// Every assistant tool_use in request k+1's history is answered, exactly once each, in the user
/// message right after it, and that message answers nothing else.
fn pairing(requests: &[&Value]) -> Result<(), String> {
    let mut pairs = 0;
    for (i, body) in requests.iter().enumerate() {
        let messages = Request(body).messages();
        for (m, message) in messages.iter().enumerate() {
            if message["role"] != "assistant" {
                continue;
            }
            let uses: Vec<&str> = wire::blocks(message)
                .into_iter()
                .filter(|b| b["type"] == "tool_use")
                .filter_map(|b| b["id"].as_str())
                .collect();
            if uses.is_empty() {
                continue;
            }
            let next = messages.get(m + 1).ok_or_else(|| {
                format!("request {}: tool_use {uses:?} is the last message, with no tool_result after it", i + 1)
            })?;
            let answered: Vec<&str> = wire::blocks(next)
                .into_iter()
                .filter(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect();
            let mut sorted_uses = uses.clone();
            sorted_uses.sort_unstable();
            let mut sorted_answered = answered.clone();
            sorted_answered.sort_unstable();
            if next["role"] != "user" || sorted_uses != sorted_answered {
                return Err(format!(
                    "request {}, message {}: tool_use ids {uses:?} answered in the next message by {answered:?}",
                    i + 1,
                    m + 1
                ));
            }
            pairs += uses.len();
        }
    }
    if pairs == 0 {
        return Err("no tool_use was sent in any request, so pairing was never exercised".into());
    }
    Ok(())
}

/// `equals`, `contains`, `not_contains` against a text; `{repeat:N:s}` in them expands, so a
/// check can state a 2,048-char cut without carrying it.
pub(crate) fn text_expectations(spec: &CheckSpec, seen: &str) -> Result<(), String> {
    if let Some(want) = &spec.equals {
        let want = want
            .as_str()
            .map(expand)
            .unwrap_or_else(|| want.to_string());
        if want != seen {
            return Err(text_diff(&want, seen));
        }
    }
    if let Some(want) = spec.contains.as_deref().map(expand) {
        if !seen.contains(want.as_str()) {
            return Err(format!(
                "expected to contain: {}\n             seen: {}",
                clip(&want),
                clip(seen)
            ));
        }
    }
    if let Some(unwanted) = spec.not_contains.as_deref().map(expand) {
        if seen.contains(unwanted.as_str()) {
            return Err(format!(
                "expected not to contain: {}\n                   seen: {}",
                clip(&unwanted),
                clip(seen)
            ));
        }
    }
    Ok(())
}

fn field_eq<T: PartialEq + std::fmt::Debug>(field: &str, want: T, seen: T) -> Result<(), String> {
    if want == seen {
        Ok(())
    } else {
        Err(format!(
            "{field}: {}",
            expected_seen(format!("{want:?}"), format!("{seen:?}"))
        ))
    }
}

pub(crate) fn expected_seen(want: impl std::fmt::Display, seen: impl std::fmt::Display) -> String {
    format!("expected {want}, seen {seen}")
}

fn clip(s: &str) -> String {
    const MAX: usize = 400;
    if s.len() <= MAX {
        return format!("{s:?}");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}… ({} bytes in all)", &s[..end], s.len())
}

/// A unified diff, expected (`-`) against seen (`+`).
pub fn text_diff(want: &str, seen: &str) -> String {
    let diff = similar::TextDiff::from_lines(want, seen);
    let body = diff
        .unified_diff()
        .context_radius(3)
        .header("expected", "seen")
        .to_string();
    if body.trim().is_empty() {
        format!("texts differ only in line endings\n  expected: {want:?}\n  seen: {seen:?}")
    } else {
        body
    }
}

pub(crate) fn list_diff(want: &[impl AsRef<str>], seen: &[&str]) -> String {
    let want = want
        .iter()
        .map(|s| format!("{}\n", s.as_ref()))
        .collect::<String>();
    let seen = seen.iter().map(|s| format!("{s}\n")).collect::<String>();
    text_diff(&want, &seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_src: &str) -> CheckSpec {
        toml::from_str(toml_src).unwrap()
    }

    #[test]
    fn a_difference_replaces_a_whole_expectation_group() {
        let base = spec(
            "kind = \"stderr\"\ncontains = \"cap\"\ndiffers.claude = { reason = \"r\", equals = \"\" }\n",
        );
        let over = base.overlaid(base.difference_for("claude@2.1.235").unwrap());
        assert_eq!(over.equals, Some(Value::String(String::new())));
        assert_eq!(over.contains, None, "the seed's contains is not inherited");
        assert_eq!(over.kind, Some(CheckKind::Stderr), "other fields are");
    }

    #[test]
    fn a_difference_is_keyed_by_a_version_requirement_and_overlaps_are_refused() {
        let ranged = spec(
            "kind = \"stderr\"\ncontains = \"cap\"\ndiffers.\"claude@>=2.1.235, <2.1.300\" = { reason = \"r\", equals = \"\" }\n",
        );
        assert!(ranged.validate().is_ok());
        assert!(ranged.difference_for("claude@2.1.299").is_some());
        assert!(ranged.difference_for("claude@2.1.300").is_none());
        let overlapping = spec(
            "kind = \"stderr\"\ncontains = \"cap\"\ndiffers.claude = { reason = \"r\", equals = \"\" }\ndiffers.\"claude@2.1.235\" = { reason = \"s\", equals = \"x\" }\n",
        );
        let (field, e) = overlapping.validate().unwrap_err();
        assert_eq!(field, "differs");
        assert!(e.contains("`claude` and `claude@2.1.235` overlap"), "{e}");
    }

    #[test]
    fn a_requests_check_takes_a_count_or_a_body_subset() {
        assert!(spec("kind = \"requests\"\nequals = 1\n").validate().is_ok());
        assert!(
            spec("kind = \"requests\"\nrequest = 1\nmatches = { stream = true }\n")
                .validate()
                .is_ok()
        );
        let (field, why) = spec("kind = \"requests\"\n").validate().unwrap_err();
        assert_eq!(field, "equals");
        assert!(why.contains("matches"), "{why}");
        assert!(spec("kind = \"requests\"\nequals = \"1\"\n")
            .validate()
            .is_err());
    }

    #[test]
    fn checks_that_cannot_fail_are_refused_at_load() {
        for (src, field) in [
            ("kind = \"stdout\"\n", "contains"),
            ("kind = \"stderr\"\n", "contains"),
            ("kind = \"result\"\n", "contains"),
            ("kind = \"stdout\"\ncontains = \"\"\n", "contains"),
            ("kind = \"stdout\"\nnot_contains = \"\"\n", "not_contains"),
            ("kind = \"uploads\"\nmatches = []\n", "matches"),
            ("kind = \"tool_use_result\"\ntool_use_id = \"t\"\nmatches = {}\n", "matches"),
            (
                "kind = \"stderr\"\ncontains = \"x\"\ndiffers.claude = { reason = \"r\", contains = \"\" }\n",
                "differs",
            ),
        ] {
            let refused = spec(src).validate().unwrap_err();
            assert_eq!(refused.0, field, "{src}: {refused:?}");
        }
        // What they must not catch: an empty `equals` (stderr is empty) and a nested empty list.
        for src in [
            "kind = \"stderr\"\nequals = \"\"\n",
            "kind = \"result\"\nis_error = false\n",
            "kind = \"uploads\"\nmatches = [{ files = [] }]\n",
            "kind = \"pairing\"\n",
        ] {
            assert!(spec(src).validate().is_ok(), "{src}");
        }
    }

    #[test]
    fn text_expectations_expand_repeats() {
        let s = spec(
            "kind = \"stdout\"\ncontains = \"{repeat:3:ab}\"\nnot_contains = \"{repeat:4:ab}\"\n",
        );
        assert!(text_expectations(&s, "xababab").is_ok());
        assert!(text_expectations(&s, "abababab").is_err());
        assert!(text_expectations(&s, "abab").is_err());
    }
}
