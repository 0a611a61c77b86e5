//! One language server process and the manager that starts them per file extension.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

/// How long a server gets to answer one request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest message body read from a server. The length is the server's to declare, so an
/// unbounded one (`Content-Length: 99999999999`) would be allocated before a byte of it is read.
pub const MAX_FRAME_BYTES: usize = 64 << 20;

/// One language server a plugin declares (`lspServers`).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `plugin:<plugin>:<server>`.
    pub id: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// File extension (with the dot) → language id.
    pub extensions: BTreeMap<String, String>,
}

pub struct ServerHandle {
    config: ServerConfig,
    child: Child,
    stdin: ChildStdin,
    incoming: mpsc::Receiver<Value>,
    next_id: u64,
    opened: BTreeSet<PathBuf>,
}

#[derive(Default)]
pub struct LspManager {
    configs: Vec<ServerConfig>,
    running: HashMap<String, ServerHandle>,
}

impl LspManager {
    /// A manager of `configs`, none of them started yet.
    pub fn new(configs: Vec<ServerConfig>) -> Self {
        LspManager {
            configs,
            running: HashMap::new(),
        }
    }

    /// Whether any server is registered: the LSP tool is offered from the second request on.
    pub fn has_servers(&self) -> bool {
        !self.configs.is_empty()
    }

    /// The server for `path`'s extension, started and initialized on first use.
    pub fn server_for(
        &mut self,
        path: &Path,
        cwd: &Path,
    ) -> Result<Option<&mut ServerHandle>, String> {
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let Some(config) = self
            .configs
            .iter()
            .find(|c| c.extensions.contains_key(&ext))
            .cloned()
        else {
            return Ok(None);
        };
        if !self.running.contains_key(&config.id) {
            let handle = ServerHandle::start(config.clone(), cwd)?;
            self.running.insert(config.id.clone(), handle);
        }
        Ok(self.running.get_mut(&config.id))
    }

    /// shutdown, then SIGTERM, then the exit notification, for every running server.
    pub fn shutdown(&mut self) {
        for (_, mut s) in self.running.drain() {
            let _ = s.request("shutdown", json!({}));
            // SAFETY: kill(2) on our own child's pid.
            unsafe {
                libc::kill(s.child.id() as i32, libc::SIGTERM);
            }
            let _ = s.notify("exit", Value::Null);
            for _ in 0..50 {
                if matches!(s.child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = s.child.kill();
            let _ = s.child.wait();
        }
    }
}

impl ServerHandle {
    fn start(config: ServerConfig, cwd: &Path) -> Result<Self, String> {
        let mut child = Command::new(&config.command)
            .args(&config.args)
            .envs(&config.env)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("LSP initialization failed: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut reader) {
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        let mut handle = ServerHandle {
            config,
            child,
            stdin,
            incoming: rx,
            next_id: 0,
            opened: BTreeSet::new(),
        };
        let uri = file_uri(cwd);
        let name = cwd
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        handle
            .request(
                "initialize",
                json!({
                    "processId": std::process::id(),
                    "clientInfo": {"name": "Claude Code", "version": crate::CONTRACT_VERSION},
                    "initializationOptions": {},
                    "workspaceFolders": [{"uri": uri, "name": name}],
                    "rootPath": cwd.display().to_string(),
                    "rootUri": uri,
                    "capabilities": {
                        "workspace": {"configuration": false, "workspaceFolders": false},
                        "textDocument": {
                            "synchronization": {"dynamicRegistration": false, "willSave": false, "willSaveWaitUntil": false, "didSave": true},
                            "publishDiagnostics": {"relatedInformation": true, "tagSupport": {"valueSet": [1, 2]}, "versionSupport": false, "codeDescriptionSupport": true, "dataSupport": false},
                            "hover": {"dynamicRegistration": false, "contentFormat": ["markdown", "plaintext"]},
                            "definition": {"dynamicRegistration": false, "linkSupport": true},
                            "references": {"dynamicRegistration": false},
                            "documentSymbol": {"dynamicRegistration": false, "hierarchicalDocumentSymbolSupport": true},
                            "callHierarchy": {"dynamicRegistration": false},
                        },
                        "general": {"positionEncodings": ["utf-16"]},
                    },
                }),
            )
            .map_err(|e| format!("LSP initialization failed: {e}"))?;
        handle
            .notify("initialized", json!({}))
            .map_err(|e| format!("LSP initialization failed: {e}"))?;
        Ok(handle)
    }

    /// Opens `path` with the server once.
    pub fn open(&mut self, path: &Path) -> Result<(), String> {
        if self.opened.contains(path) {
            return Ok(());
        }
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let language = self
            .config
            .extensions
            .get(&ext)
            .cloned()
            .unwrap_or_default();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file_uri(path), "languageId": language, "version": 1, "text": text}}),
        )?;
        self.opened.insert(path.to_owned());
        Ok(())
    }

    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let msg = self
                .incoming
                .recv_timeout(REQUEST_TIMEOUT)
                .map_err(|_| format!("no answer to {method}"))?;
            if msg["id"] == id && msg.get("method").is_none() {
                if let Some(e) = msg.get("error") {
                    return Err(e["message"].as_str().unwrap_or("error").to_owned());
                }
                return Ok(msg["result"].clone());
            }
        }
    }

    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg)
    }

    fn send(&mut self, msg: &Value) -> Result<(), String> {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())
    }
}

impl Drop for LspManager {
    /// The session ends on every path through here: no server outlives it.
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The next message from a server: `Content-Length` framing, `None` at end of input or on any
/// malformed frame (which ends the reader).
pub fn read_frame(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse::<usize>().ok();
            }
        }
    }
    let length = length.filter(|&n| n <= MAX_FRAME_BYTES)?;
    // Grown as bytes arrive: a truncated stream costs what it sent, not what it declared.
    let mut body = Vec::new();
    input.take(length as u64).read_to_end(&mut body).ok()?;
    if body.len() < length {
        return None;
    }
    serde_json::from_slice(&body).ok()
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_content_length_ends_the_reader_without_allocating_it() {
        let input = format!("Content-Length: {}\r\n\r\n{{}}", usize::MAX);
        assert_eq!(read_frame(&mut std::io::Cursor::new(input)), None);
        let over = format!("Content-Length: {}\r\n\r\n{{}}", MAX_FRAME_BYTES + 1);
        assert_eq!(read_frame(&mut std::io::Cursor::new(over)), None);
    }

    #[test]
    fn frames_are_read_in_order_and_a_short_body_ends_the_reader() {
        let input = "Content-Length: 8\r\n\r\n{\"id\":1}content-length:  2 \r\nX: y\r\n\r\n[]Content-Length: 9\r\n\r\n{}";
        let mut input = std::io::Cursor::new(input);
        assert_eq!(read_frame(&mut input), Some(json!({"id": 1})));
        assert_eq!(read_frame(&mut input), Some(json!([])));
        assert_eq!(read_frame(&mut input), None);
    }
}
