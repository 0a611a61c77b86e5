//! `--agents`: agent types the user defines as a JSON object (`{"name": {"description",
//! "prompt", "tools"?, "model"?}}`), listed and launched beside the built-in ones. Recorded on
//! 2.1.235 (sdk.invocation/agents, /agents-invalid): text that is not such an object, or one with
//! an entry that lacks its description or prompt, defines nothing at all, and stops nothing.
//! An SDK host's `initialize` may define more (sdk.control/agents). Fixed before the session
//! opens.

use std::sync::RwLock;

use serde_json::Value;

/// One agent type the user defined.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomAgent {
    pub name: String,
    /// What the Agent tool's listing says of it.
    pub description: String,
    /// Where its loop's system prompt starts.
    pub prompt: String,
    /// The only tools it gets, in this order; `None`: what any agent gets.
    pub tools: Option<Vec<String>>,
    /// Its model, as the Agent tool's `model` names one (`haiku`, …).
    pub model: Option<String>,
    /// Defined by an SDK host at `initialize`: init lists these after all the others.
    pub from_host: bool,
}

static DEFINED: RwLock<Vec<CustomAgent>> = RwLock::new(Vec::new());

/// The agent types `text` defines: all of them, or none when one entry is not a definition.
pub fn parse(text: &str) -> Vec<CustomAgent> {
    serde_json::from_str(text).map_or_else(|_| Vec::new(), |v| from_value(&v))
}

/// The agent types a JSON value defines (`initialize`'s `agents`), as [`parse`] reads them.
pub fn from_value(value: &Value) -> Vec<CustomAgent> {
    let Value::Object(map) = value else {
        return Vec::new();
    };
    let all: Option<Vec<CustomAgent>> = map
        .iter()
        .map(|(name, v)| {
            Some(CustomAgent {
                name: name.clone(),
                description: v["description"].as_str()?.to_owned(),
                prompt: v["prompt"].as_str()?.to_owned(),
                tools: v.get("tools").map(crate::json::strings),
                model: v["model"].as_str().map(str::to_owned),
                from_host: false,
            })
        })
        .collect();
    all.unwrap_or_default()
}

/// Adds agent types to the session's own (one of a name already defined replaces it).
pub fn define(agents: Vec<CustomAgent>) {
    let mut defined = DEFINED.write().unwrap_or_else(|e| e.into_inner());
    for agent in agents {
        defined.retain(|a| a.name != agent.name);
        defined.push(agent);
    }
}

/// The agent types the user defined, in the order given.
pub fn defined() -> Vec<CustomAgent> {
    DEFINED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The user's agent type of this name.
pub fn find(name: &str) -> Option<CustomAgent> {
    defined().into_iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_need_a_description_and_a_prompt_and_bad_text_defines_nothing() {
        let good = r#""rev": {"description": "d", "prompt": "p", "tools": ["Read", "Grep"], "model": "haiku"},
                "all": {"description": "e", "prompt": "q"}"#;
        assert!(parse(&format!(r#"{{{good}, "half": {{"description": "d"}}}}"#)).is_empty());
        let got = parse(&format!("{{{good}}}"));
        let names: Vec<&str> = got.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["rev", "all"]);
        assert_eq!(
            got[0].tools.as_deref(),
            Some(&["Read".to_owned(), "Grep".to_owned()][..])
        );
        assert_eq!(got[0].model.as_deref(), Some("haiku"));
        assert_eq!(got[1].tools, None);
        assert!(parse("{bad").is_empty());
        assert!(parse("[1]").is_empty());
    }
}
