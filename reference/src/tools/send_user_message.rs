//! SendUserMessage (Brief mode): the message the user actually reads, with attachments checked
//! before anything is read, uploaded in parallel through the lane's one uploader, and every
//! attachment's fate reported back to the model.

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::brief::{self, attachments, result};

pub struct SendUserMessage;

impl Tool for SendUserMessage {
    fn name(&self) -> &'static str {
        brief::TOOL
    }

    fn description(&self) -> &'static str {
        "Sends a message to the user: the only output they see in this mode. Markdown is \
         rendered. Attach local files by path (absolute, or relative to the working directory) \
         or files already uploaded by a device tool. Use status \"proactive\" for news the user \
         did not ask for, \"normal\" otherwise."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "message": {"type": "string", "description": "The message, in Markdown."},
                "attachments": {
                    "type": "array",
                    "description": "Files to send with the message.",
                    "items": {
                        "anyOf": [
                            {"type": "string"},
                            {
                                "type": "object",
                                "properties": {
                                    "file_uuid": {"type": "string"},
                                    "file_name": {"type": "string"},
                                    "size": {"type": "number"},
                                    "is_image": {"type": "boolean"},
                                    "media_type": {"type": "string"},
                                },
                                "required": ["file_uuid", "file_name", "size", "is_image"],
                                "additionalProperties": false,
                            },
                        ],
                    },
                },
                "status": {"type": "string", "enum": ["normal", "proactive"]},
            }),
            &["message", "status"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let message = input["message"].as_str().unwrap_or_default();
        let items = input["attachments"].as_array().cloned().unwrap_or_default();
        let mut attached =
            attachments::validate_all(&items, &ctx.cwd).map_err(ToolError::wrapped)?;
        // Tools run on a blocking section of the runtime; the uploads run on the runtime itself.
        tokio::runtime::Handle::current().block_on(ctx.brief.deliver(&mut attached));
        // Set for every message with attachments in such a lane, failures or not (as 2.1.235 does);
        // the result text uses it only when something failed.
        let rendered_locally = ctx.brief.renders_locally && !attached.is_empty();
        let (content, is_error) = result::tool_result(&attached, rendered_locally);
        let mut structured = json!({"message": message});
        if !attached.is_empty() {
            structured["attachments"] = attached.iter().map(|a| a.json()).collect();
        }
        structured["sentAt"] = json!(crate::vocab::timestamp());
        if rendered_locally {
            structured["rendered_locally"] = json!(true);
        }
        Ok(ToolOutput {
            content,
            structured,
            is_error: is_error.then_some(true),
            blocks: None,
        })
    }
}
