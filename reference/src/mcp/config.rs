//! Where MCP servers come from and which may be tried: `--mcp-config` (alone under
//! `--strict-mcp-config`), user and local scope in `~/.claude.json`, the project's `.mcp.json`
//! (only once approved),
//! then managed policy (deny first; no allowlist = no filter; an empty allowlist denies all).
//! Nothing here spawns or dials: the output is three lists of candidates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::transport::{HostChannel, HttpSpec, SdkSpec, StdioSpec};

#[derive(Debug, Clone)]
pub enum ServerKind {
    Stdio(StdioSpec),
    Http(HttpSpec),
    /// An SDK host's in-process server.
    Sdk(SdkSpec),
}

#[derive(Debug, Clone)]
pub struct ServerSpec {
    pub name: String,
    pub kind: ServerKind,
    pub always_load: bool,
    /// Where it was declared, as the host's `mcp_status` names it: `user`, `project`,
    /// `dynamic` (`--mcp-config`), `local`, `sdk`.
    pub scope: &'static str,
    /// Its configuration as `mcp_status` shows it (recorded on 2.1.235: a stdio server's
    /// `type`, `command`, `args`, without its `env`; an HTTP server's `type`, `url`, `headers`).
    pub shown: Value,
    /// Listed in this project's `disabledMcpServers` (`~/.claude.json`): not connected until the
    /// host turns it on.
    pub disabled: bool,
}

impl ServerSpec {
    pub fn is_local(&self) -> bool {
        matches!(self.kind, ServerKind::Stdio(_) | ServerKind::Sdk(_))
    }
}

impl Candidates {
    /// Reaches the SDK servers through the host's channel, the configured ones and those the
    /// host named at `initialize` (recorded: either alone declares the server).
    pub fn with_host(mut self, channel: Arc<dyn HostChannel>, named: &[String]) -> Self {
        for name in named {
            if !self.connect.iter().any(|s| &s.name == name) {
                self.connect.push(ServerSpec {
                    name: name.clone(),
                    kind: ServerKind::Sdk(SdkSpec::default()),
                    always_load: false,
                    scope: "sdk",
                    shown: serde_json::json!({"type": "sdk", "name": name}),
                    disabled: false,
                });
            }
        }
        for spec in &mut self.connect {
            if let ServerKind::Sdk(sdk) = &mut spec.kind {
                sdk.channel = Some(channel.clone());
            }
        }
        self
    }
}

/// The outcome of configuration: who may connect, who waits for approval, who is blocked.
#[derive(Debug, Default)]
pub struct Candidates {
    pub connect: Vec<ServerSpec>,
    /// Project servers nobody approved: never spawned, shown as pending.
    pub pending: Vec<String>,
    /// Excluded by managed policy: never dialled.
    pub blocked: Vec<String>,
    /// Config errors, one line each, for stderr.
    pub errors: Vec<String>,
}

pub struct Sources<'a> {
    pub mcp_config: &'a [String],
    pub strict: bool,
    pub cwd: &'a Path,
    pub home: &'a Path,
    /// The managed settings file (the reference reads `CLAUDE_REFERENCE_MANAGED_SETTINGS` in
    /// tests; the real binary's fixed system path otherwise).
    pub managed: PathBuf,
    /// Variables the agent sets for every stdio server (under the config's own `env`).
    pub child_env: BTreeMap<String, String>,
}

pub fn load(sources: &Sources) -> Candidates {
    let mut out = Candidates::default();
    // In declaration order (user, project, --mcp-config, then local scope, the order 2.1.235
    // lists them in init; each file in its own order), a later source replacing an earlier one
    // of the same name in place. Local scope comes last but outranks user scope only.
    let mut declared: Vec<(String, Value, &'static str)> = Vec::new();
    let mut outranks_local: Vec<String> = Vec::new();
    let mut local_servers = Vec::new();
    let mut declare = |name: String, v: Value, scope: &'static str| match declared
        .iter_mut()
        .find(|(n, ..)| *n == name)
    {
        Some(slot) => (slot.1, slot.2) = (v, scope),
        None => declared.push((name, v, scope)),
    };
    if !sources.strict {
        let user = read_json(&sources.home.join(".claude.json"));
        for (name, v) in servers_of(&user) {
            declare(name, v, "user");
        }
        // Local scope: this project's own entry in ~/.claude.json.
        local_servers = servers_of(&user["projects"][sources.cwd.display().to_string()]);
        let project = read_json(&sources.cwd.join(".mcp.json"));
        let approval = Approval::load(sources.cwd, sources.home, &user);
        for (name, v) in servers_of(&project) {
            if approval.approves(&name) {
                outranks_local.push(name.clone());
                declare(name, v, "project");
            } else {
                out.pending.push(name);
            }
        }
    }
    for arg in sources.mcp_config {
        let doc = if arg.trim_start().starts_with('{') {
            serde_json::from_str(arg).map_err(|e| format!("--mcp-config: invalid JSON: {e}"))
        } else {
            std::fs::read_to_string(arg)
                .map_err(|e| format!("--mcp-config {arg}: {e}"))
                .and_then(|t| {
                    serde_json::from_str(&t)
                        .map_err(|e| format!("--mcp-config {arg}: invalid JSON: {e}"))
                })
        };
        match doc {
            Ok(doc) => {
                for (name, v) in servers_of(&doc) {
                    outranks_local.push(name.clone());
                    declare(name, v, "dynamic");
                }
            }
            Err(e) => out.errors.push(e),
        }
    }
    for (name, v) in local_servers {
        if !outranks_local.contains(&name) {
            declare(name, v, "local");
        }
    }
    let [user_settings, ..] = crate::environment::read_settings_files(sources.home, sources.cwd);
    let policy = Policy::load(
        &std::iter::once(sources.managed.clone())
            .chain(user_settings)
            .collect::<Vec<_>>(),
    );
    let disabled = disabled_servers(sources.home, sources.cwd);
    for (name, entry, scope) in declared {
        match parse_entry(&name, &entry, sources.cwd, &sources.child_env) {
            Ok(spec) if policy.allows(&spec) => out.connect.push(ServerSpec {
                scope,
                disabled: disabled.contains(&name),
                ..spec
            }),
            Ok(_) => out.blocked.push(name),
            Err(e) => out.errors.push(e),
        }
    }
    match out.blocked.as_slice() {
        [] => {}
        [one] => out.errors.push(format!(
            "Warning: MCP server blocked by enterprise policy: {one}"
        )),
        many => out.errors.push(format!(
            "Warning: MCP servers blocked by enterprise policy: {}",
            many.join(", ")
        )),
    }
    out
}

fn read_json(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

fn servers_of(doc: &Value) -> Vec<(String, Value)> {
    doc["mcpServers"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn parse_entry(
    name: &str,
    v: &Value,
    cwd: &Path,
    child_env: &BTreeMap<String, String>,
) -> Result<ServerSpec, String> {
    let strings = |key: &str| -> BTreeMap<String, String> {
        v[key]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), expand_env(v.as_str()?))))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut shown = serde_json::Map::new();
    for key in ["type", "command", "args", "url", "headers"] {
        if let Some(value) = v.get(key) {
            shown.insert(key.to_owned(), value.clone());
        }
    }
    if v.get("type").is_none() {
        shown.insert("type".to_owned(), "stdio".into());
    }
    let kind = match v["type"].as_str() {
        None | Some("stdio") => {
            let command = v["command"]
                .as_str()
                .ok_or_else(|| format!("MCP server \"{name}\": `command` is missing"))?;
            ServerKind::Stdio(StdioSpec {
                command: expand_env(command),
                args: v["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(expand_env)
                    .collect(),
                env: child_env
                    .clone()
                    .into_iter()
                    .chain(strings("env"))
                    .collect(),
                cwd: cwd.to_owned(),
            })
        }
        Some("http") => ServerKind::Http(HttpSpec {
            url: expand_env(
                v["url"]
                    .as_str()
                    .ok_or_else(|| format!("MCP server \"{name}\": `url` is missing"))?,
            ),
            headers: strings("headers"),
        }),
        Some("sdk") => ServerKind::Sdk(SdkSpec::default()),
        Some(other) => {
            return Err(format!(
                "MCP server \"{name}\": transport `{other}` is not supported by the reference"
            ))
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        kind,
        always_load: v["alwaysLoad"].as_bool().unwrap_or(false),
        scope: "dynamic",
        shown: Value::Object(shown),
        disabled: false,
    })
}

/// The servers this project turned off (`projects[cwd].disabledMcpServers` in `~/.claude.json`).
fn disabled_servers(home: &Path, cwd: &Path) -> Vec<String> {
    let user = read_json(&crate::environment::global_config(home));
    crate::json::strings(&user["projects"][cwd.display().to_string()]["disabledMcpServers"])
}

/// Turns a server off or on for this project from now on: its name joins or leaves the
/// project's `disabledMcpServers` in `~/.claude.json` (the list is written even when it ends
/// empty, as 2.1.235 leaves it). The rest of the file is kept as it was.
pub fn persist_disabled(
    home: &Path,
    cwd: &Path,
    name: &str,
    disabled: bool,
) -> std::io::Result<()> {
    let path = crate::environment::global_config(home);
    let mut doc = match read_json(&path) {
        Value::Object(map) => Value::Object(map),
        _ => Value::Object(serde_json::Map::new()),
    };
    let project = &mut doc["projects"][cwd.display().to_string()];
    let mut list = crate::json::strings(&project["disabledMcpServers"]);
    list.retain(|n| n != name);
    if disabled {
        list.push(name.to_owned());
    }
    project["disabledMcpServers"] = list.into();
    let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
    std::fs::write(path, text)
}

/// `${VAR}` and `${VAR:-default}` from the agent's environment; an unset variable expands empty.
fn expand_env(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &rest[start + 2..start + end];
        let (var, default) = inner.split_once(":-").unwrap_or((inner, ""));
        out.push_str(&std::env::var(var).unwrap_or_else(|_| default.to_owned()));
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

/// Project `.mcp.json` approval: `enableAllProjectMcpServers`, or the server in
/// `enabledMcpjsonServers` (and not in `disabledMcpjsonServers`), from the settings files or the
/// project's entry in `~/.claude.json`.
struct Approval {
    all: bool,
    enabled: Vec<String>,
    disabled: Vec<String>,
}

impl Approval {
    fn load(cwd: &Path, home: &Path, user: &Value) -> Self {
        let mut a = Approval {
            all: false,
            enabled: Vec::new(),
            disabled: Vec::new(),
        };
        let project_entry = user["projects"][cwd.display().to_string()].clone();
        let [user_settings, project, local] = crate::environment::read_settings_files(home, cwd)
            .map(|file| match file {
                Some(file) => read_json(&file),
                None => Value::Null,
            });
        let docs = [user_settings, project, local, project_entry];
        for doc in docs {
            a.all |= doc["enableAllProjectMcpServers"].as_bool().unwrap_or(false);
            let names = |key: &str| crate::json::strings(&doc[key]);
            a.enabled.extend(names("enabledMcpjsonServers"));
            a.disabled.extend(names("disabledMcpjsonServers"));
        }
        a
    }

    fn approves(&self, name: &str) -> bool {
        !self.disabled.iter().any(|n| n == name)
            && (self.all || self.enabled.iter().any(|n| n == name))
    }
}

/// `deniedMcpServers` / `allowedMcpServers` from managed settings and the user's settings,
/// matched by name, full command line or URL (`*` wildcards).
struct Policy {
    denied: Vec<Value>,
    allowed: Option<Vec<Value>>,
}

impl Policy {
    fn load(files: &[PathBuf]) -> Self {
        let mut policy = Policy {
            denied: Vec::new(),
            allowed: None,
        };
        for file in files {
            let doc = read_json(file);
            policy.denied.extend(
                doc["deniedMcpServers"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            );
            if let Some(list) = doc["allowedMcpServers"].as_array() {
                policy
                    .allowed
                    .get_or_insert_with(Vec::new)
                    .extend(list.iter().cloned());
            }
        }
        policy
    }

    fn allows(&self, spec: &ServerSpec) -> bool {
        if self.denied.iter().any(|rule| matches(rule, spec)) {
            return false;
        }
        let Some(list) = &self.allowed else {
            return true;
        };
        // Once the allowlist names commands, a local server must match one of them: its name
        // alone does not admit it (as 2.1.235 enforces).
        let commands = list.iter().any(|r| r.get("serverCommand").is_some());
        list.iter()
            .filter(|r| !(commands && spec.is_local() && r.get("serverName").is_some()))
            .any(|rule| matches(rule, spec))
    }
}

fn matches(rule: &Value, spec: &ServerSpec) -> bool {
    if let Some(name) = rule["serverName"].as_str() {
        return name == spec.name;
    }
    if let Some(command) = rule["serverCommand"].as_array() {
        let ServerKind::Stdio(s) = &spec.kind else {
            return false;
        };
        let line: Vec<&str> = std::iter::once(s.command.as_str())
            .chain(s.args.iter().map(String::as_str))
            .collect();
        return command
            .iter()
            .map(|c| c.as_str().unwrap_or_default())
            .eq(line);
    }
    if let Some(pattern) = rule["serverUrl"].as_str() {
        let ServerKind::Http(h) = &spec.kind else {
            return false;
        };
        return wildcard(pattern, &h.url);
    }
    false
}

fn wildcard(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let mut rest = s;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str, url: Option<&str>) -> ServerSpec {
        ServerSpec {
            name: name.into(),
            kind: match url {
                Some(u) => ServerKind::Http(HttpSpec {
                    url: u.into(),
                    headers: BTreeMap::new(),
                }),
                None => ServerKind::Stdio(StdioSpec {
                    command: "node".into(),
                    args: vec!["s.js".into()],
                    env: BTreeMap::new(),
                    cwd: PathBuf::from("/"),
                }),
            },
            always_load: false,
            scope: "dynamic",
            shown: Value::Null,
            disabled: false,
        }
    }

    #[test]
    fn sources_are_listed_user_project_flag_then_local() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let stdio = json!({"type": "stdio", "command": "true"});
        let user = json!({
            "mcpServers": {"usered": stdio},
            "projects": {cwd.path().display().to_string(): {
                "enableAllProjectMcpServers": true,
                "mcpServers": {"localed": stdio, "shared": {"type": "stdio", "command": "local"}},
            }},
        });
        std::fs::write(home.path().join(".claude.json"), user.to_string()).unwrap();
        let project = json!({"mcpServers": {"projected": stdio}});
        std::fs::write(cwd.path().join(".mcp.json"), project.to_string()).unwrap();
        let flag = json!({"mcpServers": {"flagged": stdio, "shared": stdio}}).to_string();
        let got = load(&Sources {
            mcp_config: &[flag],
            strict: false,
            cwd: cwd.path(),
            home: home.path(),
            managed: home.path().join("no-managed-settings.json"),
            child_env: BTreeMap::new(),
        });
        let names: Vec<&str> = got.connect.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["usered", "projected", "flagged", "shared", "localed"]
        );
        // Listed last, local scope still gives way to --mcp-config for a shared name.
        let ServerKind::Stdio(shared) = &got.connect[3].kind else {
            panic!("stdio")
        };
        assert_eq!(shared.command, "true");
        let scopes: Vec<&str> = got.connect.iter().map(|s| s.scope).collect();
        assert_eq!(scopes, ["user", "project", "dynamic", "dynamic", "local"]);
        assert_eq!(
            got.connect[0].shown,
            json!({"type": "stdio", "command": "true"})
        );
    }

    #[test]
    fn a_server_turned_off_stays_off_for_the_project_and_the_file_keeps_the_rest() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let config = home.path().join(".claude.json");
        std::fs::write(&config, r#"{"zeta": 1, "alpha": {"kept": true}}"#).unwrap();
        persist_disabled(home.path(), cwd.path(), "one", true).unwrap();
        persist_disabled(home.path(), cwd.path(), "two", true).unwrap();
        assert_eq!(disabled_servers(home.path(), cwd.path()), ["one", "two"]);
        persist_disabled(home.path(), cwd.path(), "one", false).unwrap();
        persist_disabled(home.path(), cwd.path(), "two", false).unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.starts_with("{\n  \"zeta\": 1,\n  \"alpha\""), "{text}");
        assert!(text.contains("\"disabledMcpServers\": []"), "{text}");
        let flag = json!({"mcpServers": {"one": {"command": "true"}}}).to_string();
        persist_disabled(home.path(), cwd.path(), "one", true).unwrap();
        let got = load(&Sources {
            mcp_config: &[flag],
            strict: true,
            cwd: cwd.path(),
            home: home.path(),
            managed: home.path().join("no-managed-settings.json"),
            child_env: BTreeMap::new(),
        });
        assert!(got.connect[0].disabled);
    }

    #[test]
    fn deny_wins_and_allowlists_filter_only_when_present() {
        let p = |denied: Value, allowed: Option<Value>| Policy {
            denied: denied.as_array().cloned().unwrap(),
            allowed: allowed.and_then(|a| a.as_array().cloned()),
        };
        let a = spec("a", None);
        let web = spec("web", Some("https://mcp.example.com/v1"));
        assert!(p(json!([]), None).allows(&a), "no allowlist = no filter");
        assert!(
            !p(json!([]), Some(json!([]))).allows(&a),
            "empty allowlist denies all"
        );
        let both = p(
            json!([{"serverName": "a"}]),
            Some(json!([{"serverName": "a"}])),
        );
        assert!(!both.allows(&a), "deny wins over allow");
        let cmd = p(json!([{"serverCommand": ["node", "s.js"]}]), None);
        assert!(!cmd.allows(&a));
        let url = p(
            json!([]),
            Some(json!([{"serverUrl": "https://*.example.com/*"}])),
        );
        assert!(url.allows(&web));
        assert!(!url.allows(&a));
        let by_cmd = p(
            json!([]),
            Some(json!([{"serverName": "a"}, {"serverCommand": ["other"]}])),
        );
        assert!(
            !by_cmd.allows(&a),
            "with command entries, a name does not admit a local server"
        );
    }

    #[test]
    fn env_expansion_with_defaults() {
        std::env::set_var("REF_MCP_TEST_VAR", "x");
        assert_eq!(
            expand_env("a${REF_MCP_TEST_VAR}b${NOPE_NOT_SET:-d}"),
            "axbd"
        );
    }
}
