//! The behaviour script of one fake MCP server, as a scenario declares it (`[[mcp_server]]`).
//!
//! The same script drives the stdio and the streamable-HTTP server; fields that only one transport
//! can act on (`ignore_shutdown` for stdio, `status` and `forget_session` for HTTP) say so.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpScript {
    // How the target learns of the server (read by the probe, ignored by the server itself).
    /// The server's name in the target's MCP config.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub transport: Transport,
    /// Which config declares it.
    #[serde(default)]
    pub place: Place,
    /// `alwaysLoad` in the config entry (the seed's probe sets it).
    #[serde(default = "yes")]
    pub always_load: bool,
    /// stdio: the config entry's `env`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// stdio: extra command-line arguments after `--`, logged and otherwise ignored (to see
    /// whether a shell expanded them).
    #[serde(default)]
    pub args: Vec<String>,
    /// HTTP: the config entry's `headers`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Extra keys merged into the config entry as is.
    #[serde(default)]
    pub config: Option<Value>,

    // What the server does.
    /// `serverInfo.name` in the initialize result.
    #[serde(default = "default_server_name")]
    pub server_name: String,
    /// `protocolVersion` in the initialize result; by default the client's own.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// `instructions` in the initialize result; `{repeat:N:s}` expands (see [`expand`]).
    #[serde(default)]
    pub instructions: Option<String>,
    /// The initialize result's `capabilities`; by default tools with `listChanged: true`, plus
    /// resources/prompts when the script has any.
    #[serde(default)]
    pub capabilities: Option<Value>,
    /// The tool lists, one per catalog generation: generation 0 until the first
    /// `list_changed_after_call`, then the next.
    #[serde(default, rename = "generation")]
    pub generations: Vec<Generation>,
    /// After the Nth `tools/call` (1-based), move to the next generation and send
    /// `notifications/tools/list_changed` before that call's result.
    #[serde(default)]
    pub list_changed_after_call: Option<usize>,
    /// Hold the result of that call, sent after the notification, until this event (the
    /// client's refetch answered, say): a refresh that lands while the tool round is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed_result_after: Option<crate::cues::After>,
    /// Tools per `tools/list` page; absent = one page.
    #[serde(default)]
    pub page_size: Option<usize>,
    /// Every page answers the same `nextCursor` and the first page again: a cursor that never
    /// advances.
    #[serde(default)]
    pub stuck_cursor: bool,
    /// `resources/list` entries as is, except `text` / `blob` (base64): what `resources/read`
    /// of that uri answers, never listed.
    #[serde(default)]
    pub resources: Vec<Value>,
    #[serde(default)]
    pub prompts: Vec<Value>,
    /// Ask the client for `roots/list` after `notifications/initialized`.
    #[serde(default)]
    pub request_roots: bool,
    /// stdio: keep running after stdin closes and ignore SIGTERM (only SIGKILL ends it).
    #[serde(default)]
    pub ignore_shutdown: bool,
    #[serde(default, rename = "fault")]
    pub faults: Vec<Fault>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    #[default]
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The file `{mcp_config}` names, for `--mcp-config {mcp_config}`.
    #[default]
    Flag,
    /// The project's `.mcp.json`.
    Project,
    /// `mcpServers` in `~/.claude.json`.
    User,
}

fn yes() -> bool {
    true
}

fn default_server_name() -> String {
    "fake-mcp".into()
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    #[serde(default, rename = "tool")]
    pub tools: Vec<ToolSpec>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Sent as is; `{"type": "object"}` when absent.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// `count = N` declares N tools named `<name>_1` … `<name>_N`.
    #[serde(default)]
    pub count: Option<usize>,
    /// The text of a `tools/call` result; by default the arguments as JSON.
    #[serde(default)]
    pub result: Option<String>,
    /// The result carries `isError: true`.
    #[serde(default)]
    pub is_error: bool,
    /// The result's `content` array as is (instead of one text block of `result`).
    #[serde(default)]
    pub content: Option<Value>,
    /// The result's `structuredContent`.
    #[serde(default)]
    pub structured_content: Option<Value>,
    /// The tool's `annotations` in the listing (`readOnlyHint`, …), sent as is.
    #[serde(default)]
    pub annotations: Option<Value>,
}

/// What a server does, instead of answering normally, to the Nth request of a method.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The JSON-RPC method (`initialize`, `tools/list`, `tools/call`, …) or `GET` for the
    /// streamable-HTTP server stream.
    pub method: String,
    /// Which occurrences (1-based); absent = every one.
    #[serde(default)]
    pub calls: Option<Vec<usize>>,
    /// Answer a JSON-RPC error.
    #[serde(default)]
    pub error: Option<RpcError>,
    /// Hold the message until this event of the run has happened (a Messages request arrived,
    /// another server answered): how a scenario orders a race.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<crate::cues::After>,
    /// Wait this long before acting: a slow server, when the time is what the scenario is about.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Never answer.
    #[serde(default)]
    pub never: bool,
    /// stdio: exit the process; HTTP: close the connection without a response.
    #[serde(default)]
    pub drop: bool,
    /// Write this many bytes of non-protocol data without a newline (stdio) or as the body (HTTP).
    #[serde(default)]
    pub flood_bytes: Option<usize>,
    /// HTTP: answer this status with an empty body (for `GET`, 200 is a stream that ends at once).
    #[serde(default)]
    pub status: Option<u16>,
    /// HTTP: a `WWW-Authenticate` header for a 401.
    #[serde(default)]
    pub www_authenticate: Option<String>,
    /// HTTP: forget every session, so this and later requests carrying an old `Mcp-Session-Id`
    /// get 404.
    #[serde(default)]
    pub forget_session: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RpcError {
    pub code: i64,
    #[serde(default = "default_error_message")]
    pub message: String,
}

fn default_error_message() -> String {
    "scripted error".into()
}

impl Fault {
    pub fn applies(&self, method: &str, occurrence: usize) -> bool {
        self.method == method
            && self
                .calls
                .as_ref()
                .is_none_or(|calls| calls.contains(&occurrence))
    }
}

impl McpScript {
    /// The tools of generation `g` (the last one when `g` runs past the end), `count` expanded.
    pub fn tools(&self, g: usize) -> Vec<Value> {
        let Some(generation) = self.generations.get(g).or(self.generations.last()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for spec in &generation.tools {
            match spec.count {
                Some(n) => {
                    for i in 1..=n {
                        out.push(spec.definition(&format!("{}_{i}", spec.name)));
                    }
                }
                None => out.push(spec.definition(&spec.name)),
            }
        }
        out
    }

    pub fn tool_spec(&self, g: usize, name: &str) -> Option<&ToolSpec> {
        let generation = self.generations.get(g).or(self.generations.last())?;
        generation.tools.iter().find(|t| match t.count {
            Some(_) => name
                .strip_prefix(&t.name)
                .and_then(|rest| rest.strip_prefix('_'))
                .is_some_and(|n| n.parse::<usize>().is_ok()),
            None => t.name == name,
        })
    }

    /// The `resources/list` entries: the declared ones without their contents.
    pub fn listed_resources(&self) -> Vec<Value> {
        self.resources
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if let Some(map) = r.as_object_mut() {
                    map.remove("text");
                    map.remove("blob");
                }
                r
            })
            .collect()
    }

    /// The `resources/read` result for `uri`, `None` for a uri the server does not have.
    pub fn read_resource(&self, uri: &str) -> Option<Value> {
        let r = self.resources.iter().find(|r| r["uri"] == uri)?;
        let mut content = json!({"uri": uri});
        if let Some(m) = r.get("mimeType") {
            content["mimeType"] = m.clone();
        }
        match (r.get("blob"), r.get("text")) {
            (Some(blob), _) => content["blob"] = json!(expand(blob.as_str().unwrap_or_default())),
            (None, Some(text)) => {
                content["text"] = json!(expand(text.as_str().unwrap_or_default()))
            }
            (None, None) => content["text"] = json!(""),
        }
        Some(json!({"contents": [content]}))
    }

    pub fn capabilities(&self) -> Value {
        if let Some(c) = &self.capabilities {
            return c.clone();
        }
        let mut c = json!({"tools": {"listChanged": true}});
        if !self.resources.is_empty() {
            c["resources"] = json!({"listChanged": true});
        }
        if !self.prompts.is_empty() {
            c["prompts"] = json!({"listChanged": true});
        }
        c
    }
}

impl ToolSpec {
    fn definition(&self, name: &str) -> Value {
        let mut tool = json!({"name": name});
        if let Some(d) = &self.description {
            tool["description"] = json!(expand(d));
        }
        tool["inputSchema"] = self
            .input_schema
            .clone()
            .unwrap_or_else(|| json!({"type": "object"}));
        if let Some(annotations) = &self.annotations {
            tool["annotations"] = annotations.clone();
        }
        tool
    }
}

/// Expands `{repeat:N:s}` to `s` repeated N times, so a scenario can state a 3,000-char
/// description without carrying it.
pub fn expand(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("{repeat:") {
        out.push_str(&rest[..start]);
        let tail = &rest[start + "{repeat:".len()..];
        let parsed = tail.split_once(':').and_then(|(n, after)| {
            let end = after.find('}')?;
            Some((n.parse::<usize>().ok()?, &after[..end], &after[end + 1..]))
        });
        match parsed {
            Some((n, unit, after)) => {
                out.push_str(&unit.repeat(n));
                rest = after;
            }
            None => {
                out.push_str("{repeat:");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_expands_and_leaves_other_braces() {
        assert_eq!(expand("a{repeat:3:xy}b{cwd}"), "axyxyxyb{cwd}");
        assert_eq!(expand("{repeat:x:y}"), "{repeat:x:y}");
    }

    #[test]
    fn counted_tools_expand_and_resolve() {
        let script: McpScript = serde_json::from_value(json!({
            "generation": [{"tool": [{"name": "t", "count": 3, "result": "R"}]}]
        }))
        .unwrap();
        let names: Vec<_> = script.tools(0).iter().map(|t| t["name"].clone()).collect();
        assert_eq!(names, [json!("t_1"), json!("t_2"), json!("t_3")]);
        assert_eq!(
            script.tool_spec(0, "t_2").unwrap().result.as_deref(),
            Some("R")
        );
        assert!(script.tool_spec(0, "t_x").is_none());
    }
}
