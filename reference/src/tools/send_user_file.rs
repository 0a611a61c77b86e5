//! SendUserFile: on a remote surface (a cloud or bring-your-own-compute session) the user cannot
//! open a path on this machine, so files are sent to them: checked like SendUserMessage's
//! attachments, uploaded through the same lane, and each file's fate reported. 2.1.235 offers it
//! there whatever the Brief state (recorded: brief.lanes/env-ccr, brief.lanes/env-byoc); its
//! schema, gate and result lines are 2.1.235's, the description is ours.

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::brief::attachments::{self, Attachment};

pub struct SendUserFile;

pub const NAME: &str = "SendUserFile";

/// 2.1.235's `isEnabled`: Anthropic's own provider, the policy allows `allow_send_file`, and the
/// session runs on a remote surface (`CLAUDE_CODE_REMOTE_ENVIRONMENT_TYPE` or
/// `CLAUDE_CODE_REMOTE`). Its flag `tengu_send_user_file` defaults on and is not read here.
pub fn offered(home: &std::path::Path) -> bool {
    let remote = std::env::var("CLAUDE_CODE_REMOTE_ENVIRONMENT_TYPE").is_ok_and(|v| !v.is_empty())
        || crate::environment::remote();
    remote
        && crate::environment::first_party()
        && crate::account::policy::allows(home, "allow_send_file")
}

impl Tool for SendUserFile {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Sends files to the user, who is on a remote surface and cannot open paths on this \
         machine: a report, a diagram, a screenshot, a build output. Pass local paths (absolute, \
         or relative to the working directory); URLs are not fetched. Use status \"proactive\" \
         for a file the user did not ask for, \"normal\" when answering them."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "files": {"description": "Local paths of the files to send; one path alone may be a plain string.", "type": "array", "items": {"type": "string"}, "minItems": 1},
                "caption": {"description": "A short caption for the files.", "type": "string"},
                "status": {"description": "\"proactive\" for a file the user did not ask for, \"normal\" when answering them.", "type": "string", "enum": ["normal", "proactive"]},
                "display": {"description": "\"render\" to open the file inline, \"attach\" for a download card only; left out, the client decides by file type.", "type": "string", "enum": ["render", "attach"]},
            }),
            &["files", "status"],
        )
    }

    /// A single path may come as a plain string (2.1.235's preprocess).
    fn coerce_input(&self, input: &Value) -> Option<Value> {
        let one = input["files"].as_str()?;
        let mut input = input.clone();
        input["files"] = json!([one]);
        Some(input)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let files = input["files"].as_array().cloned().unwrap_or_default();
        let mut attached =
            attachments::validate_all(&files, &ctx.cwd).map_err(ToolError::wrapped)?;
        tokio::runtime::Handle::current().block_on(ctx.brief.deliver(&mut attached));
        let rendered_locally = ctx.brief.renders_locally;
        let mut structured = json!({});
        for key in ["caption", "display"] {
            if let Some(v) = input[key].as_str() {
                structured[key] = json!(v);
            }
        }
        structured["attachments"] = attached.iter().map(Attachment::json).collect();
        if rendered_locally {
            structured["rendered_locally"] = json!(true);
        }
        Ok(ToolOutput {
            content: result_text(&attached, rendered_locally),
            structured,
            is_error: None,
            blocks: None,
        })
    }
}

fn files(n: usize) -> String {
    format!("{n} {}", if n == 1 { "file" } else { "files" })
}

/// 2.1.235's result lines: what was delivered (with each upload's file id), then what was not.
fn result_text(attached: &[Attachment], rendered_locally: bool) -> String {
    let (failed, sent): (Vec<&Attachment>, Vec<&Attachment>) =
        attached.iter().partition(|a| a.upload_error.is_some());
    let mut parts = Vec::new();
    if !sent.is_empty() {
        let mut text = format!("{} delivered to user.", files(sent.len()));
        for a in &sent {
            if let Some(id) = &a.file_uuid {
                text.push_str(&format!("\n  {} \u{2192} file_uuid: {id}", a.path));
            }
        }
        parts.push(text);
    }
    if !failed.is_empty() {
        let lines: Vec<String> = failed
            .iter()
            .map(|a| {
                format!(
                    "  {} ({:.1} MiB): {}",
                    a.path,
                    a.size as f64 / 1_048_576.0,
                    a.upload_error.as_deref().unwrap_or_default()
                )
            })
            .collect();
        let one = failed.len() == 1;
        parts.push(if rendered_locally {
            format!(
                "{} NOT delivered to Remote Control (phone/web) viewers \u{2014} only visible in the desktop app on this machine:\n{}\nTell the user the {} only visible in the desktop app, and why.",
                files(failed.len()),
                lines.join("\n"),
                if one { "file is" } else { "files are" }
            )
        } else {
            format!(
                "{} could NOT be delivered to the user:\n{}\nTell the user the {} not delivered and why.",
                files(failed.len()),
                lines.join("\n"),
                if one { "file was" } else { "files were" }
            )
        });
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, uuid: Option<&str>, error: Option<&str>) -> Attachment {
        Attachment {
            path: path.into(),
            size: 2_097_152,
            is_image: false,
            media_type: None,
            path_validated: true,
            file_uuid: uuid.map(str::to_owned),
            upload_error: error.map(str::to_owned),
        }
    }

    #[test]
    fn delivered_files_name_their_ids_and_failures_say_what_to_tell() {
        let text = result_text(
            &[
                file("/w/report.pdf", Some("file_1"), None),
                file("/w/raw.csv", None, Some("HTTP 503")),
            ],
            false,
        );
        assert_eq!(
            text,
            "1 file delivered to user.\n  /w/report.pdf \u{2192} file_uuid: file_1\n1 file could NOT be delivered to the user:\n  /w/raw.csv (2.0 MiB): HTTP 503\nTell the user the file was not delivered and why."
        );
    }

    #[test]
    fn a_lone_path_becomes_a_list() {
        let input = SendUserFile
            .coerce_input(&json!({"files": "a.pdf", "status": "normal"}))
            .unwrap();
        assert_eq!(input["files"], json!(["a.pdf"]));
        assert!(SendUserFile
            .coerce_input(&json!({"files": ["a.pdf"]}))
            .is_none());
    }
}
