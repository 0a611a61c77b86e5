//! A remote session's directory tools (2.1.235's, beyond seed 004; recorded in
//! tools.surface/remote-directories and its faults): the organization's MCP connectors
//! (ListConnectors, SearchMcpRegistry, SuggestConnectors), plugins (ListPlugins, SearchPlugins,
//! SuggestPluginInstall) and skills (ListSkills, SearchSkills, SuggestSkills). The reading is
//! `crate::directories`; here are the schemas, the keyword filter of the listings, and the
//! results: compact JSON, and a failure's message as it is (never in `<tool_use_error>`). Every one
//! only reads, so none is asked about; the Suggest tools show a card in the host's interface and
//! change nothing here.

use serde_json::{json, Map, Value};

use super::{block_on, object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::directories::catalog::{self, Noun, SearchFailure};
use crate::directories::connectors::{self, Found};
use crate::limits::{self, Limit};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ListConnectors,
    SearchMcpRegistry,
    SuggestConnectors,
    ListPlugins,
    SearchPlugins,
    SuggestPluginInstall,
    ListSkills,
    SearchSkills,
    SuggestSkills,
}

pub struct Directory(Kind);

pub const LIST_CONNECTORS: Directory = Directory(Kind::ListConnectors);
pub const SEARCH_MCP_REGISTRY: Directory = Directory(Kind::SearchMcpRegistry);
pub const SUGGEST_CONNECTORS: Directory = Directory(Kind::SuggestConnectors);
pub const LIST_PLUGINS: Directory = Directory(Kind::ListPlugins);
pub const SEARCH_PLUGINS: Directory = Directory(Kind::SearchPlugins);
pub const SUGGEST_PLUGIN_INSTALL: Directory = Directory(Kind::SuggestPluginInstall);
pub const LIST_SKILLS: Directory = Directory(Kind::ListSkills);
pub const SEARCH_SKILLS: Directory = Directory(Kind::SearchSkills);
pub const SUGGEST_SKILLS: Directory = Directory(Kind::SuggestSkills);

/// What SuggestSkills shows when its search fails (2.1.235's words: capitalized, unlike
/// SearchSkills' "skill search …").
const SUGGEST_SKILLS_UNAVAILABLE: &str = "Skill search is unavailable right now; please try again.";

/// Our words for what the host does with an install card.
const CARD_NOTE: &str = "The host shows this card to the user, who installs a plugin outside this session; call ListPlugins later to see what was actually installed.";

fn keywords(description: &str, required: bool) -> Value {
    let mut schema = json!({
        "description": description,
        "maxItems": limits::DIRECTORY_KEYWORDS_MAX.get(),
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": limits::DIRECTORY_KEYWORD_MAX_LEN.get()},
    });
    if required {
        let map = schema.as_object_mut().expect("an object");
        map.shift_insert(1, "minItems".into(), json!(1));
    }
    schema
}

fn ok(content: String, structured: Value) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput {
        content,
        structured,
        is_error: None,
        blocks: None,
    })
}

impl Tool for Directory {
    fn name(&self) -> &'static str {
        match self.0 {
            Kind::ListConnectors => "ListConnectors",
            Kind::SearchMcpRegistry => "SearchMcpRegistry",
            Kind::SuggestConnectors => "SuggestConnectors",
            Kind::ListPlugins => "ListPlugins",
            Kind::SearchPlugins => "SearchPlugins",
            Kind::SuggestPluginInstall => "SuggestPluginInstall",
            Kind::ListSkills => "ListSkills",
            Kind::SearchSkills => "SearchSkills",
            Kind::SuggestSkills => "SuggestSkills",
        }
    }

    fn description(&self) -> &'static str {
        match self.0 {
            Kind::ListConnectors => "Lists the MCP connectors installed for the user's claude.ai organization, with keywords to narrow it. Each says whether it is connected (null: unknown) and whether this session loaded its tools (`enabledInChat`). To find connectors the user does not have, use SearchMcpRegistry, then SuggestConnectors; this tool connects nothing.",
            Kind::SearchMcpRegistry => "Searches the MCP connector registry by keywords (an intent or a product name) for connectors that could help. Hits carry a directoryUuid, name, description, sample tools, install state and whether this session has them; the organization's own connectors are included. Nothing is connected: the user connects through claude.ai.",
            Kind::SuggestConnectors => "Resolves full connector details for directoryUuid values SearchMcpRegistry returned (never guessed ones). Check ListConnectors before saying a connector can be used here.",
            Kind::ListPlugins => "Lists the user's enabled claude.ai plugins, with keywords to narrow it. After an install card, use it to see what was installed; for plugins the user lacks, use SearchPlugins and SuggestPluginInstall.",
            Kind::SearchPlugins => "Searches the user's claude.ai plugin catalog by keywords for plugins that could help. Hits come ranked, with id, name, description and whether each is enabled. Offer them with SuggestPluginInstall when it is available, else in text; say nothing when none fit.",
            Kind::SuggestPluginInstall => "Shows the user an install card for plugins from SearchPlugins results (their pluginId, pluginName, description and skills). The card does the rest; do not repeat one already shown.",
            Kind::ListSkills => "Lists the user's enabled claude.ai skills, with keywords to narrow it. For skills the user lacks, use SuggestSkills or SearchSkills.",
            Kind::SearchSkills => "Searches the user's claude.ai skills by keywords for skills that could help. Hits come ranked, with id, name, description and whether each is enabled. Offer them with SuggestSkills when it is available, else in text; say nothing when none fit.",
            Kind::SuggestSkills => "Shows the user a card of standalone skills they can add (those not enabled yet) for the given keywords. Call it when the user asks for skills, or when ListSkills found nothing that fits.",
        }
    }

    fn input_schema(&self) -> Value {
        let filter = "Narrows the list to what these words name; leave out for everything.";
        let intent = "Words for what the user wants done, or a product's name.";
        let label_max = limits::SUGGEST_CONTEXT_LABEL_MAX.get();
        match self.0 {
            Kind::ListConnectors | Kind::ListPlugins | Kind::ListSkills => {
                object_schema(json!({"keywords": keywords(filter, false)}), &[])
            }
            Kind::SearchMcpRegistry | Kind::SearchPlugins | Kind::SearchSkills => {
                object_schema(json!({"keywords": keywords(intent, true)}), &["keywords"])
            }
            Kind::SuggestConnectors => {
                let mut uuids = keywords("The directoryUuid or server_id values to resolve.", true);
                uuids["maxItems"] = json!(limits::SUGGEST_CONNECTORS_MAX.get());
                object_schema(json!({"uuids": uuids}), &["uuids"])
            }
            Kind::SuggestSkills => object_schema(
                json!({
                    "keywords": keywords("Topic words from the user's request.", true),
                    "contextLabel": {"type": "string", "maxLength": label_max},
                    "trigger": {"description": "Whether the user asked (`user_asked`) or you offered unasked (`proactive`).",
                                "type": "string", "enum": ["user_asked", "proactive"]},
                }),
                &["keywords"],
            ),
            Kind::SuggestPluginInstall => {
                let name =
                    json!({"type": "string", "maxLength": limits::SUGGEST_PLUGIN_NAME_MAX.get()});
                let description =
                    json!({"type": "string", "maxLength": limits::SUGGEST_DESCRIPTION_MAX.get()});
                let id = json!({"type": "string", "minLength": 1, "maxLength": limits::SUGGEST_PLUGIN_NAME_MAX.get()});
                let skill = json!({
                    "type": "object",
                    "properties": {"name": name, "description": description},
                    "required": ["name"],
                    "additionalProperties": false,
                });
                let plugin = json!({
                    "type": "object",
                    "properties": {
                        "pluginId": id,
                        "pluginName": id,
                        "description": description,
                        "skills": {"maxItems": limits::SUGGEST_PLUGIN_SKILLS_MAX.get(), "type": "array", "items": skill},
                    },
                    "required": ["pluginId", "pluginName", "description"],
                    "additionalProperties": false,
                });
                object_schema(
                    json!({
                        "contextLabel": {"description": "A short heading tying the card to the user's request.",
                                         "type": "string", "maxLength": label_max},
                        "plugins": {"description": "Plugins taken from SearchPlugins results.", "minItems": 1,
                                    "maxItems": limits::SUGGEST_PLUGINS_MAX.get(), "type": "array", "items": plugin},
                    }),
                    &["contextLabel", "plugins"],
                )
            }
        }
    }

    /// SuggestPluginInstall's plugins refuse fields they do not name (a strict object in
    /// 2.1.235; recorded: tools.surface/remote-directories-faults).
    fn validation_schema(&self) -> Value {
        let mut schema = self.input_schema();
        if self.0 == Kind::SuggestPluginInstall {
            schema["properties"]["plugins"]["items"][super::schema::STRICT] = json!(true);
        }
        schema
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(match self.0 {
            Kind::ListConnectors => &limits::LIST_CONNECTORS_RESULT_BUDGET,
            _ => &limits::DIRECTORY_RESULT_BUDGET,
        })
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let home = ctx.home.clone();
        let words = crate::json::strings(&input["keywords"]);
        match self.0 {
            Kind::ListConnectors | Kind::SearchMcpRegistry | Kind::SuggestConnectors => {
                let found = block_on(async {
                    match self.0 {
                        Kind::ListConnectors => connectors::list(&home).await,
                        Kind::SearchMcpRegistry => connectors::search(&home, &words).await,
                        _ => {
                            connectors::suggest(&home, &crate::json::strings(&input["uuids"])).await
                        }
                    }
                });
                // The cause stays out of the result, as 2.1.235 keeps it to its debug log.
                let found = found.map_err(|_| ToolError::plain(connectors::UNAVAILABLE))?;
                let field = match self.0 {
                    Kind::SearchMcpRegistry => "results",
                    _ => "connectors",
                };
                let items = match found {
                    Found::OptIn(message) => {
                        let out = json!({field: [], "opt_in_required": true, "message": message});
                        return ok(out.to_string(), out);
                    }
                    Found::Items(items) => items,
                };
                let server_ids = ctx
                    .mcp
                    .as_ref()
                    .map(|m| m.header_values("X-MCP-Server-ID"))
                    .unwrap_or_default();
                let items = match self.0 {
                    Kind::SuggestConnectors => items,
                    Kind::SearchMcpRegistry => connectors::mark_enabled(items, &server_ids),
                    _ => crate::directories::named_by(
                        connectors::mark_enabled(items, &server_ids),
                        &words,
                    ),
                };
                ok(
                    Value::Array(items.clone()).to_string(),
                    json!({field: items}),
                )
            }
            Kind::ListPlugins | Kind::ListSkills => {
                let listed = block_on(async {
                    match self.0 {
                        Kind::ListPlugins => catalog::list_plugins(&home).await,
                        _ => catalog::list_skills(&home).await,
                    }
                })
                .map_err(ToolError::plain)?;
                let out = json!({"results": crate::directories::named_by(listed, &words)});
                ok(out.to_string(), out)
            }
            Kind::SearchPlugins | Kind::SearchSkills | Kind::SuggestSkills => {
                let noun = match self.0 {
                    Kind::SearchPlugins => Noun::Plugin,
                    _ => Noun::Skill,
                };
                let hits = block_on(catalog::search(&home, noun, &words)).map_err(|f| {
                    ToolError::plain(match (f, self.0) {
                        (SearchFailure::Policy(text), Kind::SearchPlugins | Kind::SearchSkills) => {
                            text.to_owned()
                        }
                        (_, Kind::SuggestSkills) => SUGGEST_SKILLS_UNAVAILABLE.to_owned(),
                        _ => format!(
                            "{} search is unavailable right now; please try again.",
                            noun.word()
                        ),
                    })
                })?;
                let mut out = Map::new();
                if self.0 == Kind::SuggestSkills {
                    let addable = hits.into_iter().filter(|h| h["enabled"] != true).collect();
                    out.insert("results".into(), Value::Array(addable));
                    if let Some(trigger) = input.get("trigger") {
                        out.insert("trigger".into(), trigger.clone());
                    }
                } else {
                    out.insert("results".into(), Value::Array(hits));
                }
                let out = Value::Object(out);
                ok(out.to_string(), out)
            }
            Kind::SuggestPluginInstall => {
                let out = card(input);
                ok(out.to_string(), out)
            }
        }
    }
}

/// The card as the host receives it: the input in the schema's order, and the note.
fn card(input: &Value) -> Value {
    let pick = |v: &Value, keys: &[&str]| {
        Value::Object(
            keys.iter()
                .filter_map(|k| v.get(*k).map(|x| ((*k).to_owned(), x.clone())))
                .collect(),
        )
    };
    let plugins: Vec<Value> = input["plugins"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let mut plugin = pick(p, &["pluginId", "pluginName", "description"]);
            if let Some(skills) = p["skills"].as_array() {
                plugin["skills"] = skills
                    .iter()
                    .map(|s| pick(s, &["name", "description"]))
                    .collect();
            }
            plugin
        })
        .collect();
    json!({"contextLabel": input["contextLabel"], "plugins": plugins, "note": CARD_NOTE})
}
