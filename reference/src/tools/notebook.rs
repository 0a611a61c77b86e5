//! Jupyter notebooks: how Read shows one (cells in tags, code outputs after their cell), and
//! NotebookEdit, which replaces, inserts or deletes a cell and writes the notebook back the way
//! 2.1.235 does (one-space indent, no final newline; an edited cell's source as one string).

use std::path::Path;

use serde_json::{json, Value};

use super::{object_schema, write_gate, Access, Tool, ToolContext, ToolError, ToolOutput};

/// The Read text of a notebook.
pub fn render(nb: &Value) -> String {
    let cells = nb["cells"].as_array().map_or(&[][..], Vec::as_slice);
    let mut parts = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let id = cell_id(cell, i);
        let kind = cell["cell_type"].as_str().unwrap_or("code");
        let tag = if kind == "code" {
            String::new()
        } else {
            format!("<cell_type>{kind}</cell_type>")
        };
        let mut part = format!("<cell id=\"{id}\">{tag}{}</cell id=\"{id}\">", source(cell));
        for out in cell["outputs"].as_array().into_iter().flatten() {
            let text = match out["text"].clone() {
                Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect::<String>(),
                Value::String(s) => s,
                _ => out["data"]["text/plain"]
                    .as_array()
                    .map(|l| l.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default(),
            };
            part.push_str(&format!("\n\n{text}"));
        }
        parts.push(part);
    }
    parts.join("\n")
}

/// The stream-json result of reading a notebook.
pub fn structured(path: &str, nb: &Value) -> Value {
    let cells: Vec<Value> = nb["cells"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let mut v =
                json!({"cellType": c["cell_type"], "source": source(c), "cell_id": cell_id(c, i)});
            if c["cell_type"] == "code" {
                v["execution_count"] = c["execution_count"].clone();
                v["language"] = json!(language(nb));
                if let Some(outs) = c["outputs"].as_array().filter(|o| !o.is_empty()) {
                    v["outputs"] = json!(outs);
                }
            }
            v
        })
        .collect();
    json!({"type": "notebook", "file": {"filePath": path, "cells": cells}})
}

fn source(cell: &Value) -> String {
    match &cell["source"] {
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

fn cell_id(cell: &Value, index: usize) -> String {
    cell["id"]
        .as_str()
        .map_or_else(|| format!("cell-{index}"), str::to_owned)
}

fn language(nb: &Value) -> &str {
    nb["metadata"]["language_info"]["name"]
        .as_str()
        .unwrap_or("python")
}

pub struct NotebookEdit;

impl Tool for NotebookEdit {
    fn name(&self) -> &'static str {
        "NotebookEdit"
    }

    fn description(&self) -> &'static str {
        "Edits one cell of a Jupyter notebook (.ipynb): replaces its source, inserts a new cell after \
         it (or first, without cell_id), or deletes it. Read the notebook first; cell ids are shown \
         in the Read output."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "notebook_path": {"description": "Absolute path of the notebook.", "type": "string"},
                "cell_id": {"description": "The cell to edit, or to insert after.", "type": "string"},
                "new_source": {"description": "The cell's new source.", "type": "string"},
                "cell_type": {"description": "code or markdown; required to insert.", "type": "string", "enum": ["code", "markdown"]},
                "edit_mode": {"description": "replace (default), insert or delete.", "type": "string", "enum": ["replace", "insert", "delete"]},
            }),
            &["notebook_path", "new_source"],
        )
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::WriteFile {
            path: ctx.resolve(input["notebook_path"].as_str().unwrap_or_default()),
            verb: "edited",
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(input["notebook_path"].as_str().unwrap_or_default());
        if path.extension().is_none_or(|e| e != "ipynb") {
            return Err(ToolError::wrapped(
                "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.",
            ));
        }
        write_gate(ctx, &path)?;
        let mode = input["edit_mode"].as_str().unwrap_or("replace");
        let given_id = input["cell_id"].as_str();
        let new_source = input["new_source"].as_str().unwrap_or_default();
        if mode == "insert" && input["cell_type"].is_null() {
            return Err(ToolError::wrapped(
                "Cell type is required when using edit_mode=insert.",
            ));
        }
        if mode != "insert" && given_id.is_none() {
            return Err(ToolError::wrapped(
                "Cell ID must be specified when not inserting a new cell.",
            ));
        }
        let original =
            std::fs::read_to_string(&path).map_err(|e| ToolError::wrapped(e.to_string()))?;
        let mut nb: Value = serde_json::from_str(&original)
            .map_err(|e| ToolError::wrapped(format!("Notebook is not valid JSON: {e}")))?;
        let with_ids =
            nb["nbformat"].as_u64() > Some(4) || nb["nbformat_minor"].as_u64() >= Some(5);
        let cells = nb["cells"]
            .as_array_mut()
            .ok_or_else(|| ToolError::wrapped("Notebook has no cells array."))?;
        let index = match given_id {
            None => None,
            Some(id) => Some(find(cells, id).ok_or_else(|| {
                ToolError::wrapped(format!("Cell with ID \"{id}\" not found in notebook."))
            })?),
        };
        // The edited cell's source before the edit (none for an insert), reported as 2.1.235 does.
        let old_source = (mode != "insert")
            .then(|| index.map(|i| source(&cells[i])))
            .flatten();
        let text = match mode {
            "delete" => {
                let i = index.expect("checked above");
                let removed = cells.remove(i);
                format!("Deleted cell {}", display_id(&removed))
            }
            "insert" => {
                let kind = input["cell_type"].as_str().unwrap_or("code");
                let id =
                    with_ids.then(|| uuid::Uuid::new_v4().simple().to_string()[..8].to_owned());
                let mut cell = json!({"cell_type": kind});
                if let Some(id) = &id {
                    cell["id"] = json!(id);
                }
                cell["source"] = json!(new_source);
                cell["metadata"] = json!({});
                if kind == "code" {
                    cell["execution_count"] = Value::Null;
                    cell["outputs"] = json!([]);
                }
                let at = index.map_or(0, |i| i + 1);
                cells.insert(at, cell);
                format!(
                    "Inserted cell {} with {new_source}",
                    id.as_deref().unwrap_or("undefined")
                )
            }
            _ => {
                let i = index.expect("checked above");
                let cell = &mut cells[i];
                cell["source"] = json!(new_source);
                if let Some(kind) = input["cell_type"].as_str() {
                    cell["cell_type"] = json!(kind);
                }
                if cell.get("outputs").is_some() || cell["cell_type"] == "code" {
                    cell["execution_count"] = Value::Null;
                    cell["outputs"] = json!([]);
                }
                format!("Updated cell {} with {new_source}", display_id(cell))
            }
        };
        let updated = to_notebook_json(&nb);
        std::fs::write(&path, &updated).map_err(|e| ToolError::wrapped(e.to_string()))?;
        ctx.files.record(&path, Some(updated.clone()));
        let mut structured = json!({"new_source": new_source, "old_source": old_source,
                "cell_type": input["cell_type"].as_str().unwrap_or("code"), "language": language(&nb),
                "edit_mode": mode, "cell_id": given_id, "error": "", "notebook_path": path.display().to_string(),
                "original_file": original, "updated_file": updated});
        if let (None, Some(fields)) = (&old_source, structured.as_object_mut()) {
            fields.shift_remove("old_source");
        }
        Ok(ToolOutput {
            content: text,
            structured,
            is_error: None,
            blocks: None,
        })
    }
}

/// By id, or `cell-N` as an index when no cell has that id.
fn find(cells: &[Value], id: &str) -> Option<usize> {
    cells.iter().position(|c| c["id"] == id).or_else(|| {
        id.strip_prefix("cell-")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < cells.len())
    })
}

fn display_id(cell: &Value) -> String {
    cell["id"].as_str().unwrap_or("undefined").to_owned()
}

/// `JSON.stringify(nb, null, 1)`: one-space indent, no final newline.
fn to_notebook_json(nb: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(nb, &mut ser).expect("a JSON value serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Whether `path` is a notebook Read should render.
pub fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}
