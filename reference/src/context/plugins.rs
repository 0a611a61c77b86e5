//! `--plugin-dir DIR`: a plugin's manifest (`.claude-plugin/plugin.json`), its skills
//! (`skills/<name>/SKILL.md`) and its language servers (`lspServers` inline, as a path, or
//! `.lsp.json`), as 2.1.235 reads them.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::json;
use crate::lsp::ServerConfig;

#[derive(Debug, Clone)]
pub struct Plugin {
    pub name: String,
    pub dir: PathBuf,
    /// The manifest's `version`, when it states one.
    pub version: Option<String>,
    pub lsp_servers: Vec<ServerConfig>,
}

/// Loads each plugin directory; a broken one is reported and skipped.
pub fn load(dirs: &[PathBuf]) -> (Vec<Plugin>, Vec<String>) {
    let mut plugins = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        match load_one(dir) {
            Ok(p) => plugins.push(p),
            Err(e) => errors.push(format!("Plugin at {}: {e}", dir.display())),
        }
    }
    (plugins, errors)
}

fn load_one(dir: &Path) -> Result<Plugin, String> {
    let manifest_path = dir.join(".claude-plugin/plugin.json");
    let manifest: Value = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("plugin.json: {e}")))?;
    let name = manifest["name"]
        .as_str()
        .ok_or("plugin.json has no name")?
        .to_owned();
    let mut servers = Vec::new();
    let declared = match &manifest["lspServers"] {
        Value::Null => json::read_file(&dir.join(".lsp.json"))
            .into_iter()
            .collect(),
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    for item in declared {
        let map = match item {
            Value::String(rel) => json::read_file(&dir.join(rel)).unwrap_or(Value::Null),
            other => other,
        };
        for (server, cfg) in map.as_object().into_iter().flatten() {
            servers.push(ServerConfig {
                id: format!("plugin:{name}:{server}"),
                command: cfg["command"].as_str().unwrap_or_default().to_owned(),
                args: json::strings(&cfg["args"]),
                env: json::string_map(&cfg["env"]),
                extensions: json::string_map(&cfg["extensionToLanguage"]),
            });
        }
    }
    Ok(Plugin {
        version: manifest["version"].as_str().map(str::to_owned),
        name,
        dir: dir.to_owned(),
        lsp_servers: servers,
    })
}

/// A plugin as init's `plugins` lists it: `--plugin-dir` plugins come from the `inline` source.
pub fn init_entry(plugin: &Plugin) -> Value {
    let mut entry = serde_json::json!({
        "name": plugin.name, "path": plugin.dir.display().to_string(),
        "source": format!("{}@inline", plugin.name),
    });
    if let Some(version) = &plugin.version {
        entry["version"] = serde_json::json!(version);
    }
    entry
}
