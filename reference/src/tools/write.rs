//! Write: create a file, or overwrite one the session has read and that has not changed since.

use serde_json::{json, Value};

use super::{
    object_schema, write_gate, Access, Tool, ToolContext, ToolError, ToolOutput, STATE_CURRENT,
};

pub struct Write;

impl Tool for Write {
    fn name(&self) -> &'static str {
        "Write"
    }

    fn description(&self) -> &'static str {
        "Writes a whole file, creating it or replacing its content. An existing file must have been \
         read first in this session, and must not have changed since. Prefer Edit for small changes."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "file_path": {"description": "Absolute path of the file to write; an existing file must have been read first.", "type": "string"},
                "content": {"description": "The complete new content.", "type": "string"},
            }),
            &["file_path", "content"],
        )
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::WriteFile {
            path: ctx.resolve(input["file_path"].as_str().unwrap_or_default()),
            verb: "written",
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let given = input["file_path"].as_str().unwrap_or_default();
        let path = ctx.resolve(given);
        let content = input["content"].as_str().unwrap_or_default();
        let original = if path.exists() {
            write_gate(ctx, &path)?;
            Some(std::fs::read_to_string(&path).map_err(|e| ToolError::wrapped(e.to_string()))?)
        } else {
            None
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ToolError::wrapped(e.to_string()))?;
        }
        std::fs::write(&path, content).map_err(|e| ToolError::wrapped(e.to_string()))?;
        ctx.files.record(&path, Some(content.to_owned()));
        // Results name the path as the model gave it, relative or absolute.
        let shown = given;
        let (kind, text) = match original {
            None => (
                "create",
                format!("File created successfully at: {shown} {STATE_CURRENT}"),
            ),
            Some(_) => (
                "update",
                format!("The file {shown} has been updated successfully. {STATE_CURRENT}"),
            ),
        };
        Ok(ToolOutput {
            content: text,
            structured: json!({"type": kind, "filePath": path, "content": content, "structuredPatch": [], "originalFile": original, "userModified": false}),
            is_error: None,
            blocks: None,
        })
    }
}
