//! Fake MCP servers for one run: scripts written, HTTP servers started, the declaring configs
//! written where the scenario places them (`--mcp-config {mcp_config}`, the project's
//! `.mcp.json`, `~/.claude.json`), and afterwards each server's log and any process that
//! outlived the target.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use stubs::cues::{Served, Waiter};
use stubs::mcp::{read_log, HttpMcpServer, LogEntry, McpScript, Place, Transport};

use crate::placeholders::Places;

/// The servers of one run, alive until dropped.
pub struct McpSetup {
    servers: Vec<Running>,
    home: PathBuf,
}

struct Running {
    name: String,
    transport: Transport,
    log: PathBuf,
    _http: Option<HttpMcpServer>,
}

/// What one server saw, after the run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerRecord {
    pub transport: Transport,
    pub entries: Vec<LogEntry>,
    /// Why the server's log is incomplete: it could not be opened, written or read (naming the
    /// log and the error). Every `mcp` check on this server then fails with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_error: Option<String>,
}

impl crate::secrets::Redact for ServerRecord {
    fn redact(&mut self, r: &crate::secrets::Redactor) {
        let Self {
            transport: _,
            entries,
            log_error,
        } = self;
        entries.redact(r);
        log_error.redact(r);
    }
}

impl ServerRecord {
    /// The record of the log at `path`; an unreadable or incomplete log keeps what could be read
    /// (nothing) and says why.
    pub fn read(transport: Transport, path: &Path) -> ServerRecord {
        let (entries, log_error) = match read_log(path) {
            Ok(entries) => (entries, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        ServerRecord {
            transport,
            entries,
            log_error,
        }
    }

    /// The client → server messages in arrival order.
    pub fn received(&self) -> impl Iterator<Item = &LogEntry> {
        self.entries.iter().filter(|e| e.dir == "in")
    }

    /// When `method` arrived: a JSON-RPC method, or an HTTP verb (`GET`, `DELETE`) for the
    /// requests the HTTP server noted.
    pub fn times_of(&self, method: &str) -> Vec<u64> {
        let verb = format!("{method} /");
        let is_verb = method.chars().all(|c| c.is_ascii_uppercase());
        self.entries
            .iter()
            .filter(|e| {
                if is_verb {
                    e.note.as_deref().is_some_and(|n| n.starts_with(&verb))
                } else {
                    e.dir == "in" && e.method() == Some(method)
                }
            })
            .map(|e| e.t_ms)
            .collect()
    }

    pub fn started(&self) -> bool {
        !self.entries.is_empty()
    }

    /// The pids this server ran as (several when the target restarted it).
    pub fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self
            .entries
            .iter()
            .filter(|e| {
                e.note
                    .as_deref()
                    .is_some_and(|n| n.starts_with("start argv="))
            })
            .map(|e| e.pid)
            .collect();
        pids.dedup();
        pids
    }
}

/// Writes scripts and configs and starts the HTTP servers; `base` is the run's private root, and
/// every server announces to and waits on `board`.
pub async fn setup(
    servers: &[McpScript],
    base: &Path,
    places: &Places,
    (cwd, home): (&Path, &Path),
    board: &Served,
) -> Result<McpSetup> {
    let dir = base.join("mcp");
    std::fs::create_dir_all(&dir)?;
    let mut running = Vec::new();
    let mut by_place: BTreeMap<&'static str, serde_json::Map<String, Value>> = BTreeMap::new();
    for script in servers {
        let script_path = dir.join(format!("{}.script.json", file_safe(&script.name)));
        let log = dir.join(format!("{}.log.jsonl", file_safe(&script.name)));
        let expanded: McpScript = places.expand_script(script)?;
        std::fs::write(&script_path, serde_json::to_vec_pretty(&expanded)?)?;
        let (mut entry, http) = match script.transport {
            Transport::Stdio => {
                let mut args = vec![
                    "--script".to_owned(),
                    script_path.display().to_string(),
                    "--log".to_owned(),
                    log.display().to_string(),
                    "--cues".to_owned(),
                    board.socket.display().to_string(),
                ];
                if !expanded.args.is_empty() {
                    args.push("--".into());
                    args.extend(expanded.args.iter().cloned());
                }
                let mut entry = json!({
                    "type": "stdio",
                    "command": fake_mcp_binary()?.display().to_string(),
                    "args": args,
                });
                if !expanded.env.is_empty() {
                    entry["env"] = json!(expanded.env);
                }
                (entry, None)
            }
            Transport::Http => {
                let server =
                    HttpMcpServer::start(expanded.clone(), &log, Waiter::Local(board.cues.clone()))
                        .await?;
                let mut entry = json!({"type": "http", "url": server.url()});
                if !expanded.headers.is_empty() {
                    entry["headers"] = json!(expanded.headers);
                }
                (entry, Some(server))
            }
        };
        if script.always_load {
            entry["alwaysLoad"] = json!(true);
        }
        if let Some(Value::Object(extra)) = &expanded.config {
            for (k, v) in extra {
                entry[k] = v.clone();
            }
        }
        let place = match script.place {
            Place::Flag => "flag",
            Place::Project => "project",
            Place::User => "user",
        };
        by_place
            .entry(place)
            .or_default()
            .insert(script.name.clone(), entry);
        running.push(Running {
            name: script.name.clone(),
            transport: script.transport,
            log,
            _http: http,
        });
    }
    for (place, servers) in by_place {
        let path = match place {
            "flag" => PathBuf::from(&places.mcp_config),
            "project" => cwd.join(".mcp.json"),
            _ => home.join(".claude.json"),
        };
        // A fixture may already hold other keys (project approvals in ~/.claude.json).
        let mut doc: Value = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("fixture {} is not JSON", path.display()))?,
            Err(_) => json!({}),
        };
        doc["mcpServers"] = Value::Object(servers);
        std::fs::write(&path, serde_json::to_vec_pretty(&doc)?)?;
    }
    Ok(McpSetup {
        servers: running,
        home: home.to_owned(),
    })
}

/// Where a scenario's fake language servers log (`--log {home}/.lsp/<name>.log.jsonl`): their
/// records join the MCP servers' under that name.
pub const LSP_LOG_DIR: &str = ".lsp";

impl McpSetup {
    pub fn records(&self) -> BTreeMap<String, ServerRecord> {
        let mut out: BTreeMap<String, ServerRecord> = self
            .servers
            .iter()
            .map(|s| (s.name.clone(), ServerRecord::read(s.transport, &s.log)))
            .collect();
        for entry in std::fs::read_dir(self.home.join(LSP_LOG_DIR))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            // A language server that could not open its log left only the failure record.
            let name = path.file_name().and_then(|n| n.to_str()).and_then(|n| {
                n.strip_suffix(".log.jsonl")
                    .or_else(|| n.strip_suffix(".log.jsonl.error"))
            });
            if let Some(name) = name {
                let log = path.with_file_name(format!("{name}.log.jsonl"));
                out.insert(name.to_owned(), ServerRecord::read(Transport::Stdio, &log));
            }
        }
        out
    }

    /// stdio servers still alive `grace` after the target exited, as `(name, pid)`.
    pub async fn survivors(&self, grace: Duration) -> Vec<(String, u32)> {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let alive: Vec<(String, u32)> = self
                .records()
                .into_iter()
                .flat_map(|(name, r)| r.pids().into_iter().map(move |p| (name.clone(), p)))
                .filter(|(_, pid)| alive(*pid))
                .collect();
            if alive.is_empty() || tokio::time::Instant::now() >= deadline {
                return alive;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Ends, by pid, every server process the target left behind.
    pub fn kill(&self, survivors: &[(String, u32)]) {
        for (_, pid) in survivors {
            // SAFETY: kill(2) on a pid this run's fake server logged as its own.
            unsafe {
                libc::kill(*pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// Running and not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `fake-mcp` binary, built by cargo once per process (cargo decides whether it is stale),
/// or `$CONFORMANCE_FAKE_MCP` when set.
pub fn fake_mcp_binary() -> Result<PathBuf> {
    static PATH: BuiltOnce = OnceLock::new();
    built_once(&PATH, "fake-mcp", "CONFORMANCE_FAKE_MCP")
}

/// The `fake-lsp` binary, like [`fake_mcp_binary`] (`$CONFORMANCE_FAKE_LSP` overrides).
pub fn fake_lsp_binary() -> Result<PathBuf> {
    static PATH: BuiltOnce = OnceLock::new();
    built_once(&PATH, "fake-lsp", "CONFORMANCE_FAKE_LSP")
}

/// A stub binary's path (or the build error), found once per process.
type BuiltOnce = OnceLock<std::result::Result<PathBuf, String>>;

fn built_once(cell: &BuiltOnce, bin: &str, env_override: &str) -> Result<PathBuf> {
    cell.get_or_init(|| build_stub_binary(bin, env_override).map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

fn build_stub_binary(bin: &str, env_override: &str) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(env_override) {
        return Ok(PathBuf::from(p));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stubs/Cargo.toml");
    let output = crate::cargo::command()
        .args([
            "build",
            "--quiet",
            "--message-format=json",
            "--bin",
            bin,
            "--manifest-path",
        ])
        .arg(&manifest)
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run cargo to build {bin}"))?;
    if !output.status.success() {
        bail!("cargo build of {bin} failed ({})", output.status);
    }
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] == "compiler-artifact" && msg["target"]["name"] == bin {
            if let Some(exe) = msg["executable"].as_str() {
                return Ok(PathBuf::from(exe));
            }
        }
    }
    bail!("cargo built {bin} but named no executable")
}

/// A server's log as text lines (`in …`, `out …`, `note …`), run paths redacted.
pub fn render_log(record: &ServerRecord, places: &Places) -> String {
    let mut out = String::new();
    for e in &record.entries {
        let line = match &e.note {
            Some(note) => format!("note {note}"),
            None => format!("{} {}", e.dir, e.msg),
        };
        out.push_str(&places.redact(&line));
        out.push('\n');
    }
    out
}

/// Each server whose log could not be opened, written or read, with why (the log's path and the
/// error): a run with any of these has incomplete evidence, whatever its checks say.
pub fn log_failures(records: &BTreeMap<String, ServerRecord>) -> Vec<String> {
    records
        .iter()
        .filter_map(|(name, r)| {
            r.log_error
                .as_ref()
                .map(|e| format!("the log of server `{name}` is incomplete: {e}"))
        })
        .collect()
}

/// The record of server `name`, `None` when it has none; an error when its log is incomplete: a
/// log that could not be written says nothing about what the server received, so neither a
/// positive nor a negative (`absent`) check may conclude anything from it.
pub fn evidence<'a>(
    name: &str,
    records: &'a BTreeMap<String, ServerRecord>,
) -> Result<Option<&'a ServerRecord>, String> {
    match records.get(name) {
        Some(ServerRecord {
            log_error: Some(e), ..
        }) => Err(format!(
            "the log of server `{name}` is incomplete, so nothing can be concluded from it: {e}"
        )),
        found => Ok(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_that_could_not_be_written_fails_the_checks_on_its_server() {
        let home = tempfile::tempdir().unwrap();
        let lsp = home.path().join(LSP_LOG_DIR);
        std::fs::create_dir_all(&lsp).unwrap();
        // An MCP server whose log path is a directory: it cannot open it, and a language server
        // in the same state leaves nothing but the failure record.
        let mcp_log = home.path().join("docs.log.jsonl");
        std::fs::create_dir(&mcp_log).unwrap();
        let lsp_log = lsp.join("pyright.log.jsonl");
        std::fs::create_dir(&lsp_log).unwrap();
        for log in [&mcp_log, &lsp_log] {
            assert!(stubs::mcp::McpLog::create(log).is_err());
            std::fs::remove_dir(log).unwrap();
        }
        let setup = McpSetup {
            servers: vec![Running {
                name: "docs".into(),
                transport: Transport::Stdio,
                log: mcp_log.clone(),
                _http: None,
            }],
            home: home.path().to_owned(),
        };
        let records = setup.records();
        for (name, log) in [("docs", &mcp_log), ("pyright", &lsp_log)] {
            let err = evidence(name, &records).expect_err(name);
            assert!(err.contains(&format!("server `{name}`")), "{err}");
            assert!(err.contains(&log.display().to_string()), "{err}");
            assert!(err.contains("cannot open log"), "{err}");
        }
        let failures = log_failures(&records);
        assert_eq!(failures.len(), 2, "{failures:?}");
        // A healthy or absent log is evidence as before.
        let mut healthy = BTreeMap::new();
        healthy.insert(
            "quiet".to_owned(),
            ServerRecord::read(Transport::Stdio, &home.path().join("quiet.log.jsonl")),
        );
        assert!(evidence("quiet", &healthy).unwrap().is_some());
        assert!(evidence("undeclared", &healthy).unwrap().is_none());
        assert!(log_failures(&healthy).is_empty());
    }

    #[test]
    fn stub_binaries_build_and_are_found() {
        for path in [super::fake_mcp_binary(), super::fake_lsp_binary()] {
            let path = path.unwrap();
            assert!(path.is_file(), "{}", path.display());
        }
    }
}
