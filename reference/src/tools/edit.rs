//! Edit: an exact, unique string replacement in a file the session has read and that has not
//! changed since. A change on disk after the Read is refused, as the seed documents (the real
//! 2.1.235 applies some such edits with a note; the scenarios record that difference).

use serde_json::{json, Value};

use super::{
    missing_file, object_schema, write_gate, Access, Tool, ToolContext, ToolError, ToolOutput,
    STATE_CURRENT,
};

pub struct Edit;

impl Tool for Edit {
    fn name(&self) -> &'static str {
        "Edit"
    }

    fn description(&self) -> &'static str {
        "Replaces old_string with new_string in a file that was read earlier in this session. \
         old_string must occur exactly once unless replace_all is set; include enough surrounding \
         text to make it unique."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "file_path": {"description": "Absolute path of the file to change.", "type": "string"},
                "old_string": {"description": "Exact text to replace.", "type": "string"},
                "new_string": {"description": "Replacement text; must differ from old_string.", "type": "string"},
                "replace_all": {"description": "Replace every occurrence instead of exactly one.", "default": false, "type": "boolean"},
            }),
            &["file_path", "old_string", "new_string"],
        )
    }

    fn access(&self, input: &Value, ctx: &ToolContext) -> Access {
        Access::WriteFile {
            path: ctx.resolve(input["file_path"].as_str().unwrap_or_default()),
            verb: "edited",
        }
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let given = input["file_path"].as_str().unwrap_or_default();
        let path = ctx.resolve(given);
        let old = input["old_string"].as_str().unwrap_or_default();
        let new = input["new_string"].as_str().unwrap_or_default();
        let replace_all = input["replace_all"].as_bool().unwrap_or(false);
        if old == new {
            return Err(ToolError::wrapped(
                "No changes to make: old_string and new_string are exactly the same.",
            ));
        }
        if !path.exists() {
            if old.is_empty() {
                return create(&path, given, new, ctx);
            }
            return Err(ToolError::wrapped(missing_file(&ctx.cwd)));
        }
        write_gate(ctx, &path)?;
        let original =
            std::fs::read_to_string(&path).map_err(|e| ToolError::wrapped(e.to_string()))?;
        if old.is_empty() && !original.is_empty() {
            return Err(ToolError::wrapped(
                "Cannot create new file - file already exists.",
            ));
        }
        let count = if old.is_empty() {
            0
        } else {
            original.matches(old).count()
        };
        if count == 0 {
            return Err(ToolError::wrapped(format!(
                "String to replace not found in file.\nString: {old}"
            )));
        }
        if count > 1 && !replace_all {
            return Err(ToolError::wrapped(format!(
                "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, \
                 set replace_all to true. To replace only one occurrence, please provide more context to uniquely \
                 identify the instance.\nString: {old}"
            )));
        }
        let updated = if replace_all {
            original.replace(old, new)
        } else {
            original.replacen(old, new, 1)
        };
        std::fs::write(&path, &updated).map_err(|e| ToolError::wrapped(e.to_string()))?;
        ctx.files.record(&path, Some(updated));
        // Results name the path as the model gave it, relative or absolute.
        let shown = given;
        let text = if replace_all {
            format!("The file {shown} has been updated. All occurrences were successfully replaced. {STATE_CURRENT}")
        } else {
            format!("The file {shown} has been updated successfully. {STATE_CURRENT}")
        };
        Ok(ToolOutput {
            content: text,
            structured: json!({"filePath": path, "oldString": old, "newString": new, "originalFile": original,
                               "structuredPatch": [], "userModified": false, "replaceAll": replace_all}),
            is_error: None,
            blocks: None,
        })
    }
}

/// An empty old_string on a missing file creates it.
fn create(
    path: &std::path::Path,
    given: &str,
    content: &str,
    ctx: &mut ToolContext,
) -> Result<ToolOutput, ToolError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ToolError::wrapped(e.to_string()))?;
    }
    std::fs::write(path, content).map_err(|e| ToolError::wrapped(e.to_string()))?;
    ctx.files.record(path, Some(content.to_owned()));
    Ok(ToolOutput {
        content: format!("File created successfully at: {given} {STATE_CURRENT}"),
        structured: json!({"filePath": given, "oldString": "", "newString": content, "originalFile": null,
                           "structuredPatch": [], "userModified": false, "replaceAll": false}),
        is_error: None,
        blocks: None,
    })
}
