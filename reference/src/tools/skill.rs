//! Skill: launches a listed skill. The tool_result only acknowledges the launch; the body goes
//! into the same user message as a text block after the results, so it reaches the model in the
//! next request (as 2.1.235 sends it).

use serde_json::{json, Value};

use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::context::skills;

pub struct Skill;

impl Tool for Skill {
    fn name(&self) -> &'static str {
        "Skill"
    }

    fn description(&self) -> &'static str {
        "Launches a skill from the available-skills list: its instructions arrive with the result. \
         Give the skill's name exactly as listed, and args when the skill takes any."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "skill": {"description": "A skill name from the list; do not guess.", "type": "string"},
                "args": {"description": "Arguments for the skill, if any.", "type": "string"},
            }),
            &["skill"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let asked = input["skill"].as_str().unwrap_or_default();
        let name = asked.trim_start_matches('/');
        let found = ctx
            .skills
            .iter()
            .find(|s| s.name == name || s.alias.as_deref() == Some(name))
            .or_else(|| {
                ctx.skills
                    .iter()
                    .find(|s| s.name.rsplit(':').next() == Some(name))
            })
            .cloned()
            .ok_or_else(|| ToolError::wrapped(format!("Unknown skill: {name}")))?;
        if !found.model_invocable {
            return Err(ToolError::wrapped(format!(
                "Skill {name} cannot be used with Skill tool due to disable-model-invocation. Ask the user to run /{name} themselves — it cannot be invoked via the Skill tool. Do not replicate this skill's workflow by other means — it is reserved for explicit user invocation."
            )));
        }
        let body = skills::body_block(&found, input["args"].as_str());
        // Launched again, it is the newest; a compaction brings back the last body given.
        ctx.invoked_skills.retain(|s| s.name != found.name);
        ctx.invoked_skills.push(crate::context::restored::Skill {
            name: found.name.clone(),
            path: skills::origin(&found, &ctx.home, &ctx.cwd),
            content: body.clone(),
        });
        ctx.follow_up.push(body);
        Ok(ToolOutput {
            content: format!("Launching skill: {name}"),
            structured: json!({"success": true, "commandName": name}),
            is_error: None,
            blocks: None,
        })
    }
}
