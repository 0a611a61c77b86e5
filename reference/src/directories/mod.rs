//! An organization's directories on Anthropic's API host, as 2.1.235's remote-session tools read
//! them (not in the seeds; recorded in tools.surface/remote-directories and its variants): the
//! MCP connectors installed for the organization and the connector registry (`connectors`), the
//! organization's plugins and skills (`catalog`). `api` is the one way to the routes; `scope`
//! widens the login to `user:plugins` before a plugin request, as 2.1.235 does.
//!
//! The answers' items are the server's objects, passed on with the few fields 2.1.235 declares
//! first and the rest in the server's order, which is how its schemas rebuild them.

pub mod api;
pub mod catalog;
pub mod connectors;
mod scope;

use std::path::Path;

use serde_json::{Map, Value};

/// Whether a session offers the connector tools (2.1.235's `JDt`): a remote session
/// (`CLAUDE_CODE_REMOTE`) on Anthropic's own provider.
pub fn connectors_offered() -> bool {
    crate::environment::remote() && crate::environment::first_party()
}

/// Whether a session offers the plugin and skill tools (2.1.235's `Qft`): as the connector tools,
/// unless the organization carries the `hipaa` compliance taint.
pub fn catalog_offered(home: &Path) -> bool {
    connectors_offered() && !crate::account::policy::tainted(home, "hipaa")
}

/// `item` with `keys` first, where present, then its other fields in their order.
pub(crate) fn declared_first(item: &Value, keys: &[&str]) -> Value {
    let Some(fields) = item.as_object() else {
        return item.clone();
    };
    let mut out = Map::new();
    for k in keys {
        if let Some(v) = fields.get(*k) {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    for (k, v) in fields {
        if !keys.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// The items any keyword names, ignoring case, in a string `name` or `description`; all of
/// them when there are no keywords.
pub(crate) fn named_by(items: Vec<Value>, keywords: &[String]) -> Vec<Value> {
    if keywords.is_empty() {
        return items;
    }
    let has = |item: &Value, field: &str| {
        item[field].as_str().is_some_and(|text| {
            let text = text.to_lowercase();
            keywords.iter().any(|k| text.contains(&k.to_lowercase()))
        })
    };
    items
        .into_iter()
        .filter(|item| has(item, "name") || has(item, "description"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn declared_fields_come_first_and_the_rest_keep_their_order() {
        let item = json!({"b": 1, "name": "x", "a": 2});
        let out = declared_first(&item, &["id", "name"]);
        assert_eq!(out.to_string(), r#"{"name":"x","b":1,"a":2}"#);
    }

    #[test]
    fn a_keyword_matches_name_or_description_ignoring_case() {
        let items = vec![
            json!({"name": "GitHub", "description": "Code"}),
            json!({"name": "Linear", "description": "Issue tracking"}),
            json!({"name": 7, "description": null}),
        ];
        let kept = named_by(items.clone(), &["ISSUE".into()]);
        assert_eq!(kept, vec![items[1].clone()]);
        assert_eq!(named_by(items.clone(), &[]).len(), 3);
    }
}
