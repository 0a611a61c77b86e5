//! LSP: nine code-intelligence operations through a plugin's language server. Input positions are
//! 1-based as editors show them and go to the server 0-based; a file type without a server is a
//! plain answer, not an error.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits;
use crate::lsp::format::{location, locations, shown_path, symbol_kind};

pub struct Lsp;

const OPERATIONS: [&str; 9] = [
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "prepareCallHierarchy",
    "incomingCalls",
    "outgoingCalls",
];

impl Tool for Lsp {
    fn name(&self) -> &'static str {
        "LSP"
    }

    fn description(&self) -> &'static str {
        "Asks the language server for a file's type about code: definitions, references, hover text, \
         document or workspace symbols, implementations and call hierarchy. Lines and characters are \
         1-based, as editors show them."
    }

    fn input_schema(&self) -> Value {
        let max = 9_007_199_254_740_991_u64;
        object_schema(
            json!({
                "operation": {"description": "The operation to perform.", "type": "string", "enum": OPERATIONS},
                "filePath": {"description": "Absolute or relative path of the file.", "type": "string"},
                "line": {"description": "1-based line.", "type": "integer", "exclusiveMinimum": 0, "maximum": max},
                "character": {"description": "1-based character.", "type": "integer", "exclusiveMinimum": 0, "maximum": max},
                "query": {"description": "The symbol to look for (workspaceSymbol).", "type": "string"},
            }),
            &["operation", "filePath", "line", "character"],
        )
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::ReadFile(ctx.resolve(input["filePath"].as_str().unwrap_or_default()))
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        debug_assert_eq!(OPERATIONS.len() as u64, limits::LSP_OPERATIONS.get());
        let given = input["filePath"].as_str().unwrap_or_default();
        let path = ctx.resolve(given);
        if !path.is_file() {
            return Err(ToolError::wrapped(format!("File does not exist: {given}")));
        }
        let op = input["operation"].as_str().unwrap_or_default();
        let shown_file = shown_path(&crate::lsp::format_uri(&path), &ctx.cwd);
        let plain = |text: String, extra: Value| {
            let mut structured = json!({"operation": op, "result": text, "filePath": shown_file});
            if let Value::Object(m) = extra {
                for (k, v) in m {
                    structured[k] = v;
                }
            }
            ToolOutput {
                content: text,
                structured,
                is_error: None,
                blocks: None,
            }
        };
        let cwd = ctx.cwd.clone();
        let Some(server) = ctx.lsp.server_for(&path, &cwd).map_err(ToolError::plain)? else {
            let ext = path
                .extension()
                .map(|e| format!(".{}", e.to_string_lossy()))
                .unwrap_or_default();
            return Ok(plain(
                format!("No LSP server available for file type: {ext}"),
                Value::Null,
            ));
        };
        server.open(&path).map_err(ToolError::plain)?;
        // 1-based in, 0-based to the protocol.
        let base = limits::LSP_POSITION_BASE_OFFSET.get();
        let line = input["line"].as_u64().unwrap_or(1).saturating_sub(base);
        let character = input["character"]
            .as_u64()
            .unwrap_or(1)
            .saturating_sub(base);
        let doc = json!({"uri": crate::lsp::format_uri(&path)});
        let at = json!({"textDocument": doc, "position": {"line": line, "character": character}});
        let ignored = gitignore(&cwd);
        let keep = |uri: &str| {
            let p = uri.strip_prefix("file://").unwrap_or(uri);
            !ignored.matched_path_or_any_parents(p, false).is_ignore()
        };
        let req = |server: &mut crate::lsp::ServerHandle, m: &str, p: Value| {
            server.request(m, p).map_err(ToolError::plain)
        };
        let (text, extra) = match op {
            "goToDefinition" | "goToImplementation" => {
                let method = if op == "goToDefinition" {
                    "textDocument/definition"
                } else {
                    "textDocument/implementation"
                };
                let found: Vec<_> = locations(&req(server, method, at)?)
                    .iter()
                    .filter_map(location)
                    .filter(|l| keep(&l.0))
                    .collect();
                let lines: Vec<String> = found
                    .iter()
                    .map(|(u, l, c)| format!("{}:{}:{}", shown_path(u, &cwd), l + 1, c + 1))
                    .collect();
                let text = match lines.as_slice() {
                    [] => "No definition found".to_owned(),
                    [one] => format!("Defined in {one}"),
                    many => format!("Found {} definitions:\n{}", many.len(), many.join("\n")),
                };
                (text, counts(&found))
            }
            "findReferences" => {
                let mut params = at.clone();
                params["context"] = json!({"includeDeclaration": true});
                let found: Vec<_> = locations(&req(server, "textDocument/references", params)?)
                    .iter()
                    .filter_map(location)
                    .filter(|l| keep(&l.0))
                    .collect();
                let mut by_file: Vec<(String, Vec<String>)> = Vec::new();
                for (u, l, c) in &found {
                    let f = shown_path(u, &cwd);
                    let entry = format!("  Line {}:{}", l + 1, c + 1);
                    match by_file.iter_mut().find(|(name, _)| *name == f) {
                        Some((_, v)) => v.push(entry),
                        None => by_file.push((f, vec![entry])),
                    }
                }
                let body: Vec<String> = by_file
                    .iter()
                    .map(|(f, v)| format!("{f}:\n{}", v.join("\n")))
                    .collect();
                let text = if found.is_empty() {
                    "No references found".to_owned()
                } else {
                    format!(
                        "Found {} {} across {} {}:\n\n{}",
                        found.len(),
                        if found.len() == 1 {
                            "reference"
                        } else {
                            "references"
                        },
                        by_file.len(),
                        if by_file.len() == 1 { "file" } else { "files" },
                        body.join("\n\n")
                    )
                };
                (text, counts(&found))
            }
            "hover" => {
                let r = req(server, "textDocument/hover", at)?;
                let contents = match &r["contents"] {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => o
                        .get("value")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    _ => String::new(),
                };
                let (l, c) = (
                    r["range"]["start"]["line"].as_u64().unwrap_or(line),
                    r["range"]["start"]["character"]
                        .as_u64()
                        .unwrap_or(character),
                );
                (
                    format!("Hover info at {}:{}:\n\n{contents}", l + 1, c + 1),
                    Value::Null,
                )
            }
            "documentSymbol" => {
                let r = req(
                    server,
                    "textDocument/documentSymbol",
                    json!({"textDocument": doc}),
                )?;
                let mut out = Vec::new();
                let mut n = 0;
                symbols(&r, 0, &mut out, &mut n);
                (
                    format!("Document symbols:\n{}", out.join("\n")),
                    json!({"resultCount": n}),
                )
            }
            "workspaceSymbol" => {
                let r = req(
                    server,
                    "workspace/symbol",
                    json!({"query": input["query"].as_str().unwrap_or_default()}),
                )?;
                let items = locations(&r);
                let mut by_file: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for s in &items {
                    let Some((u, l, _)) = location(&s["location"]) else {
                        continue;
                    };
                    by_file
                        .entry(shown_path(&u, &cwd))
                        .or_default()
                        .push(format!(
                            "  {} ({}) - Line {}",
                            s["name"].as_str().unwrap_or_default(),
                            symbol_kind(s["kind"].as_u64().unwrap_or(0)),
                            l + 1
                        ));
                }
                let n: usize = by_file.values().map(Vec::len).sum();
                let body: Vec<String> = by_file
                    .iter()
                    .map(|(f, v)| format!("{f}:\n{}", v.join("\n")))
                    .collect();
                (
                    format!(
                        "Found {n} {} in workspace:\n\n{}",
                        if n == 1 { "symbol" } else { "symbols" },
                        body.join("\n\n")
                    ),
                    Value::Null,
                )
            }
            "prepareCallHierarchy" | "incomingCalls" | "outgoingCalls" => {
                let items = locations(&req(server, "textDocument/prepareCallHierarchy", at)?);
                let Some(item) = items.first().cloned() else {
                    return Ok(plain(
                        "No call hierarchy item found at this position".into(),
                        Value::Null,
                    ));
                };
                if op == "prepareCallHierarchy" {
                    let l = item["selectionRange"]["start"]["line"]
                        .as_u64()
                        .or(item["range"]["start"]["line"].as_u64())
                        .unwrap_or(0);
                    (
                        format!(
                            "Call hierarchy item: {} ({}) - {}:{}",
                            item["name"].as_str().unwrap_or_default(),
                            symbol_kind(item["kind"].as_u64().unwrap_or(0)),
                            shown_path(item["uri"].as_str().unwrap_or_default(), &cwd),
                            l + 1
                        ),
                        Value::Null,
                    )
                } else {
                    let incoming = op == "incomingCalls";
                    let method = if incoming {
                        "callHierarchy/incomingCalls"
                    } else {
                        "callHierarchy/outgoingCalls"
                    };
                    let calls = locations(&req(server, method, json!({"item": item}))?);
                    let key = if incoming { "from" } else { "to" };
                    let mut by_file: Vec<(String, Vec<String>)> = Vec::new();
                    for call in &calls {
                        let it = &call[key];
                        let ranges: Vec<String> = call["fromRanges"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|r| {
                                format!(
                                    "{}:{}",
                                    r["start"]["line"].as_u64().unwrap_or(0) + 1,
                                    r["start"]["character"].as_u64().unwrap_or(0) + 1
                                )
                            })
                            .collect();
                        let f = shown_path(it["uri"].as_str().unwrap_or_default(), &cwd);
                        let entry = format!(
                            "  {} ({}) - Line {} [{}: {}]",
                            it["name"].as_str().unwrap_or_default(),
                            symbol_kind(it["kind"].as_u64().unwrap_or(0)),
                            it["selectionRange"]["start"]["line"]
                                .as_u64()
                                .or(it["range"]["start"]["line"].as_u64())
                                .unwrap_or(0)
                                + 1,
                            if incoming { "calls at" } else { "called from" },
                            ranges.join(", ")
                        );
                        match by_file.iter_mut().find(|(n, _)| *n == f) {
                            Some((_, v)) => v.push(entry),
                            None => by_file.push((f, vec![entry])),
                        }
                    }
                    let noun = if incoming { "incoming" } else { "outgoing" };
                    let body: Vec<String> = by_file
                        .iter()
                        .map(|(f, v)| format!("{f}:\n{}", v.join("\n")))
                        .collect();
                    (
                        format!(
                            "Found {} {noun} {}:\n\n{}",
                            calls.len(),
                            if calls.len() == 1 { "call" } else { "calls" },
                            body.join("\n\n")
                        ),
                        Value::Null,
                    )
                }
            }
            other => {
                return Err(ToolError::wrapped(format!(
                    "Unknown LSP operation: {other}"
                )))
            }
        };
        Ok(plain(text, extra))
    }
}

fn counts(found: &[(String, u64, u64)]) -> Value {
    let files: std::collections::BTreeSet<&str> = found.iter().map(|f| f.0.as_str()).collect();
    json!({"resultCount": found.len(), "fileCount": files.len()})
}

fn symbols(v: &Value, depth: usize, out: &mut Vec<String>, n: &mut usize) {
    for s in locations(v) {
        let line = s["selectionRange"]["start"]["line"]
            .as_u64()
            .or(s["range"]["start"]["line"].as_u64())
            .or(s["location"]["range"]["start"]["line"].as_u64())
            .unwrap_or(0);
        out.push(format!(
            "{}{} ({}) - Line {}",
            "  ".repeat(depth),
            s["name"].as_str().unwrap_or_default(),
            symbol_kind(s["kind"].as_u64().unwrap_or(0)),
            line + 1
        ));
        *n += 1;
        if let Some(children) = s.get("children") {
            symbols(children, depth + 1, out, n);
        }
    }
}

fn gitignore(cwd: &Path) -> ignore::gitignore::Gitignore {
    let mut b = ignore::gitignore::GitignoreBuilder::new(cwd);
    let _ = b.add(cwd.join(".gitignore"));
    b.build()
        .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty())
}
