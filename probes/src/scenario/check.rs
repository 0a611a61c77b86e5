//! One `[[check]]` of a scenario as declared: its kind, the expectations each kind takes, and the
//! per-target differences laid over them (`differs.<target>`). Validated at load, so a check that
//! names a field its kind does not read, or one that cannot fail, never reaches a run;
//! the check layer evaluates it against a run's outcome.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::Channel;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// The process exit status: `equals`.
    Exit,
    /// The final stream-json `result` event: `subtype`, `is_error`, `equals` (its text), `contains`.
    Result,
    /// The number of main-loop Messages requests: `equals`; `matches` is a JSON subset of request
    /// `request`'s body (default 1): a helper's server tool, its `tool_choice`; `contains` /
    /// `not_contains` look in the text its messages carry (texts, tool inputs, results).
    Requests,
    /// The `tools[]` of main-loop request `request`: `includes`, `excludes` (a trailing `*`
    /// matches a prefix), `order`.
    Tools,
    /// The `anthropic-beta` header of main-loop request `request` (default 1): `includes`,
    /// `excludes`, by beta name.
    Betas,
    /// The tool_result for `tool_use_id`: `is_error`, `equals`, `contains`, `not_contains`,
    /// `request` (the first request carrying it); `absent = true`: no request carries one.
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
    /// JSON subset per upload, order-free), `path` (only the uploads of this file name).
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
    /// The mock's connector, plugin and skill directory routes (`[directory]`), in arrival order:
    /// `equals` (how many requests), `matches` (a JSON subset of the whole ordered list: route,
    /// http_method, query, body, organization, bearer, anthropic_version, client_platform, beta,
    /// status), `method` (only requests of this route, e.g. `plugins/list`).
    Directory,
    /// The harness's hook recorder (`{hook_recorder}` as a hook command), its runs in start
    /// order: `equals` (how many), `matches` (a JSON subset of the whole ordered list: event,
    /// label, exit, env names, stdin), `event` (only runs of this hook event), `label` (only runs
    /// with this label), `unordered = true` (`matches` in any order).
    Hooks,
    /// A session file the run left in HOME (`crate::sessions`), its records with ids, the
    /// parentUuid chain and timestamps normalized (`#N` is the file's N-th record): the main
    /// transcript of step `step`'s session (the last step's when absent), or with `path` a file in
    /// that session's folder (`subagents/agent-*.jsonl`). `absent = true` (no such file),
    /// `types` (only records of these types), `equals` (how many), `matches` (a JSON subset of the
    /// ordered list), `keys` (the exact key order of every record of a type; `user/tool_result`
    /// for a user record carrying a tool's result),
    /// `contains`/`not_contains` (the normalized records as text, one a line).
    Transcript,
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
    /// `hooks`: only the recorder's runs for this event (`PreToolUse`).
    pub event: Option<String>,
    /// `hooks`: only the recorder's runs given this `--label` (hooks of one event run at once,
    /// so their order is not a fact; a label counts each apart).
    pub label: Option<String>,
    /// The mock backends' lists (`hooks`, `artifact`, `project`, `design`, `site`, `oauth`,
    /// `directory`): `matches` names items in any order, each entry a distinct item (what a
    /// target sends or fires at once, without waiting for one before the next).
    pub unordered: Option<bool>,
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
    pub channel: Option<Channel>,
    /// `file`: the file's permission bits, four octal digits (`0600`).
    pub mode: Option<String>,
    /// `project_state`: the Project holds exactly what the scenario seeded.
    pub unchanged: Option<bool>,
    /// The `[[step]]` whose process or session the check reads (the last step's when absent).
    pub step: Option<String>,
    /// `transcript`: only records whose `type` is one of these.
    pub types: Option<Vec<String>>,
    /// Why a target differs; required inside `differs.<target>`.
    pub reason: Option<String>,
    /// Per-target expectations that replace fields of this check: `differs."claude@2.1.235"`.
    pub differs: Option<BTreeMap<String, CheckSpec>>,
}

impl CheckSpec {
    /// Names the first missing or misplaced field, for the scenario loader's error.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let Some(kind) = self.kind else {
            return Err(("kind", "missing: one of exit, result, requests, tools, betas, tool_result, media, pairing, file, events, stderr, stdout, mcp, tool_def, system, user_context, process, tool_use_result, uploads, view, screen, design, oauth, project, project_state, site, artifact, directory, hooks, transcript".into()));
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
                    || (self.equals.is_none()
                        && (self.matches.is_some()
                            || self.contains.is_some()
                            || self.not_contains.is_some())),
                "equals",
                "an integer (how many requests), `matches` (a JSON subset of request `request`'s body), or `contains`/`not_contains` (the text its messages carry)",
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
            CheckKind::Betas => need(
                self.includes.is_some() || self.excludes.is_some(),
                "includes",
                "at least one of includes, excludes (beta names)",
            )?,
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
                need(
                    self.matches.is_some() || self.absent == Some(true),
                    "matches",
                    "a JSON subset, or `absent = true`",
                )?
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
            | CheckKind::Artifact
            | CheckKind::Directory
            | CheckKind::Hooks => need(
                self.matches.is_some() || self.equals.as_ref().is_some_and(Value::is_u64),
                "equals",
                "a count (`equals`) or `matches`",
            )?,
            CheckKind::Transcript => need(
                self.absent == Some(true)
                    || self.matches.is_some()
                    || self.keys.is_some()
                    || self.contains.is_some()
                    || self.not_contains.is_some()
                    || self.equals.as_ref().is_some_and(Value::is_u64),
                "matches",
                "one of absent, equals (a count), matches, keys, contains, not_contains",
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
        // A list `matches` is the whole list (exact length) except where it is order-free.
        let order_free = kind == CheckKind::Uploads || self.unordered == Some(true);
        refuse_vacuous(self, order_free)?;
        if let Some(differs) = &self.differs {
            crate::version::refuse_overlaps(differs.keys().map(String::as_str))
                .map_err(|e| ("differs", e))?;
        }
        for (target, spec) in self.differs.iter().flatten() {
            if spec.reason.as_deref().unwrap_or("").trim().is_empty() {
                return Err(("differs", format!("`{target}` needs a one-line `reason`")));
            }
            let order_free = order_free || spec.unordered == Some(true);
            refuse_vacuous(spec, order_free).map_err(|(field, why)| {
                ("differs", format!("`{target}`: field `{field}`: {why}"))
            })?;
            if spec.kind.is_some()
                || spec.differs.is_some()
                || spec.channel.is_some()
                || spec.step.is_some()
            {
                return Err((
                    "differs",
                    format!(
                        "`{target}` may override expectations only, not kind, channel, step or differs"
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
    pub fn overlaid(&self, over: &CheckSpec) -> CheckSpec {
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
            event,
            label,
            unordered,
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
            step,
            types,
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
    pub fn applies_to(&self, channel: Channel) -> bool {
        let on_screen = self.kind != Some(CheckKind::Screen) || channel == Channel::Pty;
        on_screen && self.channel.is_none_or(|c| c == channel)
    }

    pub fn difference_for(&self, target: &str) -> Option<&CheckSpec> {
        // Keys were refused at load when two could apply to one target, so the first match is
        // the only one.
        self.differs
            .as_ref()?
            .iter()
            .find_map(|(key, spec)| crate::version::names(key, target).then_some(spec))
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
        if let Some(s) = &self.step {
            parts.push(format!("step `{s}`"));
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
        CheckKind::Betas => "betas",
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
        CheckKind::Hooks => "hooks",
        CheckKind::Artifact => "artifact",
        CheckKind::Directory => "directory",
        CheckKind::Oauth => "oauth",
        CheckKind::Transcript => "transcript",
    }
}

/// Expectations that hold (or fail) whatever the run did: every text contains "", and an empty
/// JSON subset matches anything: an empty object always, an empty list where `matches` is
/// order-free (each entry finds some item). Where a list is matched whole, `[]` says "none".
fn refuse_vacuous(spec: &CheckSpec, order_free: bool) -> Result<(), (&'static str, String)> {
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
        Value::Array(a) => order_free && a.is_empty(),
        _ => false,
    };
    if spec.matches.as_ref().is_some_and(empty) {
        return Err(("matches", "empty: an empty subset matches anything".into()));
    }
    Ok(())
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
        assert!(
            spec("kind = \"requests\"\nrequest = 2\ncontains = \"kept\"\n")
                .validate()
                .is_ok()
        );
        let (field, why) = spec("kind = \"requests\"\n").validate().unwrap_err();
        assert_eq!(field, "equals");
        assert!(why.contains("matches") && why.contains("contains"), "{why}");
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
            ("kind = \"hooks\"\nunordered = true\nmatches = []\n", "matches"),
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
            "kind = \"site\"\nmatches = []\n",
            "kind = \"pairing\"\n",
        ] {
            assert!(spec(src).validate().is_ok(), "{src}");
        }
    }
}
