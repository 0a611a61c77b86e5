//! The servers' resources, for the resource tools: each server's listing, kept from discovery
//! until a `list_changed` notification or a missing resource invalidates it, and reads by uri.
//! What goes wrong is classified here; the texts the model sees are the tools'
//! (`tools/mcp_resources.rs`).

use std::sync::Arc;

use serde_json::Value;

use super::catalog;
use super::error::McpError;
use super::runtime::{McpRuntime, Server, Status};

/// Why a server named by the model cannot answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// No configured server has that name; every configured name, in order.
    NotFound {
        available: Vec<String>,
    },
    NotConnected(String),
    /// Connected, but it declared no `resources` capability.
    NoResources(String),
}

/// The code the MCP specification gives a missing resource.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

impl McpRuntime {
    /// Whether a connected server declares resources (2.1.235 offers the resource tools then).
    pub fn offers_resources(&self) -> bool {
        self.servers
            .iter()
            .any(|s| s.status() == Status::Connected && declares_resources(s))
    }

    /// Every configured server's name, in configuration order, those still waiting included.
    pub fn server_names(&self) -> Vec<String> {
        self.servers
            .iter()
            .map(|s| s.spec.name.clone())
            .chain(self.pending.iter().cloned())
            .collect()
    }

    /// The servers called `name`; failing an exact match, those whose name normalizes to the
    /// same wire form (as 2.1.235 looks servers up).
    fn named(&self, name: &str) -> Vec<&Arc<Server>> {
        let exact: Vec<_> = self
            .servers
            .iter()
            .filter(|s| s.spec.name == name)
            .collect();
        if !exact.is_empty() {
            return exact;
        }
        let wanted = catalog::normalize(name);
        self.servers
            .iter()
            .filter(|s| catalog::normalize(&s.spec.name) == wanted)
            .collect()
    }

    fn not_found(&self) -> Lookup {
        Lookup::NotFound {
            available: self.server_names(),
        }
    }

    /// The resources of one server or of all, each with its `server`. A server that is not
    /// connected, declares no resources or fails to list contributes none.
    pub async fn list_resources(&self, server: Option<&str>) -> Result<Vec<Value>, Lookup> {
        let servers: Vec<&Arc<Server>> = match server {
            // A server still waiting for approval is known: it lists nothing.
            Some(name)
                if self.named(name).is_empty() && !self.pending.iter().any(|p| p == name) =>
            {
                return Err(self.not_found())
            }
            Some(name) => self.named(name),
            None => self.servers.iter().collect(),
        };
        let mut out = Vec::new();
        for s in servers {
            if s.status() != Status::Connected || !declares_resources(s) {
                continue;
            }
            let cached = s.resources.lock().expect("not poisoned").clone();
            let listed = match cached {
                Some(listed) => listed,
                None => match s
                    .request("resources/list", Value::Null, s.budgets.request)
                    .await
                {
                    Ok(r) => {
                        s.cache_resources(&r);
                        r["resources"].as_array().cloned().unwrap_or_default()
                    }
                    // Isolated: a server that fails to list contributes nothing.
                    Err(_) => Vec::new(),
                },
            };
            out.extend(listed.iter().map(|r| with_server(r, &s.spec.name)));
        }
        Ok(out)
    }

    /// The connected server called `name` that declares resources (2.1.235's checks, in its
    /// order), by its configured name.
    pub fn resource_server(&self, name: &str) -> Result<String, Lookup> {
        self.resource_server_of(name).map(|s| s.spec.name.clone())
    }

    fn resource_server_of(&self, name: &str) -> Result<&Arc<Server>, Lookup> {
        let s = *self.named(name).first().ok_or_else(|| self.not_found())?;
        if s.status() != Status::Connected {
            return Err(Lookup::NotConnected(s.spec.name.clone()));
        }
        if !declares_resources(s) {
            return Err(Lookup::NoResources(s.spec.name.clone()));
        }
        Ok(s)
    }

    /// `resources/read` of `uri` on the server called `server` (a missing resource also drops
    /// that server's listing, so the next list asks again).
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<(String, Result<Value, McpError>), Lookup> {
        let s = self.resource_server_of(server)?;
        let answer = s
            .request(
                "resources/read",
                serde_json::json!({"uri": uri}),
                s.budgets.request,
            )
            .await;
        if let Err(McpError::Rpc { code, .. }) = &answer {
            if *code == RESOURCE_NOT_FOUND || *code == McpError::INVALID_PARAMS {
                *s.resources.lock().expect("not poisoned") = None;
            }
        }
        Ok((s.spec.name.clone(), answer))
    }
}

impl Server {
    /// Keeps a `resources/list` answer for the resource tools.
    pub(super) fn cache_resources(&self, result: &Value) {
        let listed = result["resources"].as_array().cloned().unwrap_or_default();
        *self.resources.lock().expect("not poisoned") = Some(listed);
    }
}

fn declares_resources(s: &Server) -> bool {
    let caps = s.capabilities.lock().expect("not poisoned");
    caps.get("resources").is_some_and(|r| !r.is_null())
}

/// A listed resource as the tool reports it: 2.1.235 parses each entry with the MCP SDK's
/// resource schema (its key order, unknown keys dropped) and adds `server` last.
fn with_server(resource: &Value, server: &str) -> Value {
    let mut out = serde_json::Map::new();
    for key in RESOURCE_KEYS {
        if let Some(v) = resource.get(*key) {
            out.insert((*key).to_owned(), v.clone());
        }
    }
    out.insert("server".into(), Value::String(server.to_owned()));
    Value::Object(out)
}

/// Recorded on 2.1.235 (recon toolsearch14 exp.res-4).
const RESOURCE_KEYS: &[&str] = &[
    "name",
    "title",
    "uri",
    "description",
    "mimeType",
    "size",
    "annotations",
    "_meta",
];
