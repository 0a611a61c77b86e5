//! What the fake language server answers: its capabilities and a result per request method
//! (`{file}` in a result expands to the URI of the last opened document).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LspScript {
    /// The initialize result's `capabilities`; all nine LSP tool operations by default.
    #[serde(default)]
    pub capabilities: Option<Value>,
    /// Results by method (`textDocument/definition`, …); a method absent here answers null.
    #[serde(default)]
    pub results: BTreeMap<String, Value>,
}

impl LspScript {
    pub fn capabilities(&self) -> Value {
        self.capabilities.clone().unwrap_or_else(|| {
            json!({
                "textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true,
                "hoverProvider": true, "documentSymbolProvider": true, "workspaceSymbolProvider": true,
                "implementationProvider": true, "callHierarchyProvider": true,
            })
        })
    }
}
