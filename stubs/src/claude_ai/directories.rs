//! An organization's directories as a remote session's onboarding tools read them (2.1.235's
//! ListConnectors, SearchMcpRegistry, SuggestConnectors, ListPlugins, SearchPlugins, ListSkills,
//! SearchSkills, SuggestSkills): the connectors installed for the organization and the connector
//! registry, the organization's plugins, its skills. They live on the API host under
//! `/api/oauth/organizations/{org}/`; the routes are in `directories_routes`.
//!
//! The answers' envelopes are the ones 2.1.235 parses: `{results}` for the connector routes and
//! both searches (with `opt_in_required` and `message` when connector suggestions are off),
//! `{plugins, has_more}` and `{skills}` for the listings, `{error: {type, message}}` for a
//! failure. The items are the scenario's own objects, passed through as they are. How a search
//! ranks is the server's business; this one keeps an item when any keyword, ignoring case, is in
//! its name or description, in the scenario's order.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::design::Bearer;
use super::projects::Tokens;

/// `[directory]`: what the organization has, and the faults its routes play.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectoryScript {
    /// Connectors installed for the organization (`mcp/connectors/list`).
    #[serde(default)]
    pub installed: Vec<Value>,
    /// The connector registry (`mcp/connectors/search` by keyword, `mcp/connectors/suggest` by
    /// `directoryUuid`).
    #[serde(default)]
    pub registry: Vec<Value>,
    /// The organization's plugins (`plugins/list-plugins`, `plugins/search`).
    #[serde(default)]
    pub plugins: Vec<Value>,
    /// The organization's skills (`skills/list-skills`, `skills/search`).
    #[serde(default)]
    pub skills: Vec<Value>,
    /// Connector suggestions are off for the user: every connector route answers
    /// `opt_in_required` with no results.
    #[serde(default)]
    pub opt_in_required: bool,
    /// This many more enabled plugins after `plugins` (`filler-001`, …), so a listing takes more
    /// than one page of the client's size.
    #[serde(default)]
    pub filler_plugins: usize,
    /// Faults: the `nth` request of a route (every one when absent) answered with `status` and
    /// `body` (a JSON text; an error envelope naming the status when absent).
    #[serde(default, rename = "answer")]
    pub answers: Vec<DirectoryAnswer>,
    /// The account's organization, the one a route must name (set by the harness).
    #[serde(skip)]
    pub organization: Option<String>,
    /// The account's token, to classify bearers (set by the harness).
    #[serde(skip)]
    pub tokens: Tokens,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectoryAnswer {
    pub route: Route,
    /// 1-based, counting that route's requests.
    #[serde(default)]
    pub nth: Option<usize>,
    pub status: u16,
    #[serde(default)]
    pub body: Option<String>,
}

/// A directory route, by what it serves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum Route {
    #[default]
    #[serde(rename = "connectors/list")]
    ConnectorsList,
    #[serde(rename = "connectors/search")]
    ConnectorsSearch,
    #[serde(rename = "connectors/suggest")]
    ConnectorsSuggest,
    #[serde(rename = "plugins/list")]
    PluginsList,
    #[serde(rename = "plugins/search")]
    PluginsSearch,
    #[serde(rename = "skills/list")]
    SkillsList,
    #[serde(rename = "skills/search")]
    SkillsSearch,
}

impl Route {
    /// The route a request takes: its path after the organization, and its method.
    pub fn at(tail: &str, method: &axum::http::Method) -> Option<Route> {
        let post = method == axum::http::Method::POST;
        Some(match (tail, post) {
            ("mcp/connectors/list", true) => Route::ConnectorsList,
            ("mcp/connectors/search", true) => Route::ConnectorsSearch,
            ("mcp/connectors/suggest", true) => Route::ConnectorsSuggest,
            ("plugins/list-plugins", false) => Route::PluginsList,
            ("plugins/search", true) => Route::PluginsSearch,
            ("skills/list-skills", false) => Route::SkillsList,
            ("skills/search", true) => Route::SkillsSearch,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Route::ConnectorsList => "connectors/list",
            Route::ConnectorsSearch => "connectors/search",
            Route::ConnectorsSuggest => "connectors/suggest",
            Route::PluginsList => "plugins/list",
            Route::PluginsSearch => "plugins/search",
            Route::SkillsList => "skills/list",
            Route::SkillsSearch => "skills/search",
        }
    }
}

/// One request to a directory route, as the mock saw it (`Default`: see `DesignRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DirectoryRequest {
    pub route: Route,
    pub http_method: String,
    pub query: Option<String>,
    pub body: Option<Value>,
    /// The path and the `x-organization-uuid` header both named the account's organization.
    pub organization: bool,
    pub bearer: Bearer,
    /// `anthropic-version`, `anthropic-client-platform` and `anthropic-beta` as sent.
    pub anthropic_version: Option<String>,
    pub client_platform: Option<String>,
    pub beta: Option<String>,
    pub status: u16,
    /// When the mock took the request (Unix ms).
    pub at_unix_ms: u64,
}

/// The directories and what they were asked.
pub(super) struct Directories {
    pub script: DirectoryScript,
    pub requests: Vec<DirectoryRequest>,
}

/// What a request was after: its route, the organization in its path, its query and body.
pub(super) struct Ask<'a> {
    pub route: Route,
    pub path_org: &'a str,
    pub header_org: Option<&'a str>,
    pub query: &'a [(String, String)],
    pub body: &'a Value,
}

impl Directories {
    pub fn new(script: DirectoryScript) -> Self {
        Directories {
            script,
            requests: Vec::new(),
        }
    }

    /// The answer to `ask`: a scripted fault, a 404 for another organization, else the route's.
    pub fn answer(&self, ask: &Ask) -> (u16, Value) {
        let nth = self
            .requests
            .iter()
            .filter(|r| r.route == ask.route)
            .count()
            + 1;
        if let Some(a) = self
            .script
            .answers
            .iter()
            .find(|a| a.route == ask.route && a.nth.is_none_or(|n| n == nth))
        {
            let body = match &a.body {
                Some(text) => serde_json::from_str(text).unwrap_or(Value::String(text.clone())),
                None => error(a.status, "scripted failure"),
            };
            return (a.status, body);
        }
        if Some(ask.path_org) != self.script.organization.as_deref() {
            return (404, error(404, "organization not found"));
        }
        let s = &self.script;
        let keywords = words(&ask.body["keywords"]);
        match ask.route {
            Route::ConnectorsList if s.opt_in_required => (200, opted_out()),
            Route::ConnectorsSearch if s.opt_in_required => (200, opted_out()),
            Route::ConnectorsSuggest if s.opt_in_required => (200, opted_out()),
            Route::ConnectorsList => (200, json!({"results": s.installed})),
            Route::ConnectorsSearch => (200, json!({"results": matching(&s.registry, &keywords)})),
            Route::ConnectorsSuggest => {
                let uuids = words(&ask.body["uuids"]);
                let found: Vec<&Value> = s
                    .registry
                    .iter()
                    .filter(|c| {
                        c["directoryUuid"]
                            .as_str()
                            .is_some_and(|u| uuids.iter().any(|w| w == u))
                    })
                    .collect();
                (200, json!({"results": found}))
            }
            Route::PluginsList => (200, self.plugin_page(ask.query)),
            Route::PluginsSearch => (200, json!({"results": matching(&s.plugins, &keywords)})),
            Route::SkillsList => (200, json!({"skills": s.skills})),
            Route::SkillsSearch => (200, json!({"results": matching(&s.skills, &keywords)})),
        }
    }

    /// One page of list-plugins: `limit` from `offset`, `has_more` when plugins follow it.
    /// `enabled_only` leaves out the disabled ones.
    fn plugin_page(&self, query: &[(String, String)]) -> Value {
        let param = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let number = |k: &str, default: usize| {
            param(k)
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(default)
        };
        let enabled_only = param("enabled_only") == Some("true");
        let filler = (1..=self.script.filler_plugins)
            .map(|n| json!({"id": format!("plg-filler-{n:03}"), "name": format!("filler-{n:03}")}));
        let plugins: Vec<Value> = self
            .script
            .plugins
            .iter()
            .cloned()
            .chain(filler)
            .filter(|p| !enabled_only || p["enabled"] != false)
            .collect();
        let (limit, offset) = (number("limit", 100), number("offset", 0));
        let page: Vec<&Value> = plugins.iter().skip(offset).take(limit).collect();
        json!({"plugins": page, "has_more": offset + page.len() < plugins.len()})
    }

    pub fn record(&mut self, ask: &Ask, headers: Headers, status: u16) {
        let org = self.script.organization.as_deref();
        self.requests.push(DirectoryRequest {
            route: ask.route,
            http_method: headers.method,
            query: (!ask.query.is_empty()).then(|| {
                ask.query
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("&")
            }),
            body: (!ask.body.is_null()).then(|| ask.body.clone()),
            organization: Some(ask.path_org) == org && ask.header_org == org,
            bearer: self.script.tokens.classify(headers.bearer.as_deref()),
            anthropic_version: headers.anthropic_version,
            client_platform: headers.client_platform,
            beta: headers.beta,
            status,
            at_unix_ms: crate::jsonlog::now_ms(),
        });
    }
}

/// The headers a record keeps (the bearer only to classify it).
pub(super) struct Headers {
    pub method: String,
    pub bearer: Option<String>,
    pub anthropic_version: Option<String>,
    pub client_platform: Option<String>,
    pub beta: Option<String>,
}

fn words(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn matching<'a>(items: &'a [Value], keywords: &[String]) -> Vec<&'a Value> {
    let has = |item: &Value, field: &str, kw: &str| {
        item[field]
            .as_str()
            .is_some_and(|s| s.to_lowercase().contains(&kw.to_lowercase()))
    };
    items
        .iter()
        .filter(|item| {
            keywords
                .iter()
                .any(|k| has(item, "name", k) || has(item, "description", k))
        })
        .collect()
}

fn opted_out() -> Value {
    json!({"results": [], "opt_in_required": true})
}

fn error(status: u16, message: &str) -> Value {
    let kind = match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

#[cfg(test)]
#[path = "directories_tests.rs"]
mod tests;
