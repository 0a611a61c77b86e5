//! The organization's plugins and skills: the listings (`plugins/list-plugins`, paged, read once
//! more after a failure; `skills/list-skills`, one read) and the searches (`plugins/search`,
//! `skills/search`). A listing's failure is shown as its own words; a search's only as "… search
//! is unavailable", except the organization's policy refusal. A 403 carrying an error envelope is
//! an empty answer, not a failure (2.1.235 degrades to empty there).

use std::path::Path;

use serde_json::{json, Value};

use super::api::{envelope, Answer, Client};
use crate::limits;

/// What a directory holds: plugins or skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noun {
    Plugin,
    Skill,
}

impl Noun {
    pub fn word(self) -> &'static str {
        match self {
            Noun::Plugin => "plugin",
            Noun::Skill => "skill",
        }
    }
}

const POLICY_KEY: &str = "allow_plugin_skill_search";
/// The organization's refusal (2.1.235's words), shown as it is.
pub const POLICY_REFUSED: &str = "Plugin and skill search is disabled by your organization's policy. Contact your organization admin to enable it.";

/// Why a search gave nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchFailure {
    /// The organization's policy forbids it: this text is shown.
    Policy(&'static str),
    /// Anything else (the cause, for the debug log).
    Unavailable(String),
}

/// A listing that failed: its words, and the status when an error envelope came with one.
struct ListingFailure {
    message: String,
    status: Option<u16>,
}

/// The enabled plugins, every page, as `{id, name, description, enabled}`.
pub async fn list_plugins(home: &Path) -> Result<Vec<Value>, String> {
    super::scope::ensure_plugins(home).await;
    let mut listed = plugin_pages(home).await;
    if listed.as_ref().is_err_and(|f| f.status != Some(403)) {
        tokio::time::sleep(limits::DIRECTORY_PLUGIN_RETRY_DELAY.duration()).await;
        listed = plugin_pages(home).await;
    }
    degraded(listed)
}

/// The enabled skills, as `{id, name, description, enabled}`.
pub async fn list_skills(home: &Path) -> Result<Vec<Value>, String> {
    let route = format!(
        "skills/list-skills?include_wiggle_skills=true&entrypoint={}",
        crate::api::wire::get().entrypoint
    );
    let listed = async {
        let client = client(home, limits::DIRECTORY_SKILLS_LIST_TIMEOUT.duration())?;
        let answer = client.get(&route).await.map_err(failure)?;
        items(&answer, "skills", "list-skills")
    }
    .await;
    degraded(listed.map(|(items, _)| items))
}

/// A search's hits, as the server ranks them, with `id, name, description, enabled` first.
pub async fn search(
    home: &Path,
    noun: Noun,
    keywords: &[String],
) -> Result<Vec<Value>, SearchFailure> {
    if !crate::account::policy::allows(home, POLICY_KEY) {
        return Err(SearchFailure::Policy(POLICY_REFUSED));
    }
    if noun == Noun::Plugin {
        super::scope::ensure_plugins(home).await;
    }
    let unavailable = SearchFailure::Unavailable;
    let client = Client::new(home, limits::DIRECTORY_REQUEST_TIMEOUT.duration())
        .map_err(|f| unavailable(format!("search route unavailable: {}", f.message())))?;
    let route = format!("{}s/search", noun.word());
    let answer = client
        .post(&route, &json!({"keywords": keywords}))
        .await
        .map_err(|f| unavailable(f.message()))?;
    if answer.status >= 400 {
        let Some((kind, message)) = envelope(&answer.body) else {
            return Err(unavailable(format!("search route {}", answer.status)));
        };
        if answer.status == 403 {
            return Ok(Vec::new());
        }
        let kind = kind.unwrap_or("error_envelope_no_type");
        let message = message.map(|m| format!(": {m}")).unwrap_or_default();
        return Err(unavailable(format!(
            "search route {} {kind}{message}",
            answer.status
        )));
    }
    hits(&answer.body).ok_or_else(|| unavailable("malformed search response".into()))
}

/// `{results: [{id: string, name: string, description?: string | null, enabled?: boolean |
/// null, …}]}`.
fn hits(body: &Value) -> Option<Vec<Value>> {
    let optional = |item: &Value, field: &str, ok: fn(&Value) -> bool| {
        item.get(field).is_none_or(|v| v.is_null() || ok(v))
    };
    body["results"]
        .as_array()?
        .iter()
        .map(|item| {
            let well_formed = item["id"].is_string()
                && item["name"].is_string()
                && optional(item, "description", Value::is_string)
                && optional(item, "enabled", Value::is_boolean);
            well_formed
                .then(|| super::declared_first(item, &["id", "name", "description", "enabled"]))
        })
        .collect()
}

/// Every page of the plugin listing, `DIRECTORY_PLUGIN_PAGE_SIZE` at a time, while the server
/// says more follow, up to `DIRECTORY_PLUGIN_PAGE_CAP` pages.
async fn plugin_pages(home: &Path) -> Result<Vec<Value>, ListingFailure> {
    let client = client(home, limits::DIRECTORY_PLUGIN_PAGE_TIMEOUT.duration())?;
    let size = limits::DIRECTORY_PLUGIN_PAGE_SIZE.get();
    let mut plugins = Vec::new();
    for page in 0..limits::DIRECTORY_PLUGIN_PAGE_CAP.get() {
        let route = format!(
            "plugins/list-plugins?enabled_only=true&compact=true&limit={size}&offset={}",
            page * size
        );
        let answer = client.get(&route).await.map_err(failure)?;
        let (mut found, more) = items(&answer, "plugins", "list-plugins")?;
        plugins.append(&mut found);
        if !more {
            return Ok(plugins);
        }
    }
    Err(ListingFailure {
        message: format!(
            "list-plugins page cap ({}) exceeded",
            limits::DIRECTORY_PLUGIN_PAGE_CAP.get()
        ),
        status: None,
    })
}

/// A listing page's enabled items as `{id, name, description, enabled}` (an empty description is
/// none), and whether more follow. Only the body decides: an array under `field` is an answer
/// whatever the status, an error envelope is a failure whatever the status.
fn items(answer: &Answer, field: &str, what: &str) -> Result<(Vec<Value>, bool), ListingFailure> {
    let Some(list) = answer.body[field].as_array() else {
        return Err(match envelope(&answer.body) {
            Some((kind, _)) => ListingFailure {
                message: kind.unwrap_or("error_envelope_no_type").to_owned(),
                status: Some(answer.status),
            },
            None => ListingFailure {
                message: format!("malformed {what} response"),
                status: None,
            },
        });
    };
    let items = list
        .iter()
        .filter(|item| item["enabled"] != false)
        .map(|item| {
            let description = item["description"].as_str().filter(|d| !d.is_empty());
            json!({"id": item["id"], "name": item["name"], "description": description, "enabled": true})
        })
        .collect();
    Ok((items, answer.body["has_more"] == true))
}

/// A listing's result: a 403 envelope is an empty directory; any other failure its words.
fn degraded(listed: Result<Vec<Value>, ListingFailure>) -> Result<Vec<Value>, String> {
    match listed {
        Ok(items) => Ok(items),
        Err(f) if f.status == Some(403) => Ok(Vec::new()),
        Err(f) => Err(f.message),
    }
}

fn client(home: &Path, timeout: std::time::Duration) -> Result<Client, ListingFailure> {
    Client::new(home, timeout).map_err(failure)
}

fn failure(f: super::api::Failure) -> ListingFailure {
    ListingFailure {
        message: f.message(),
        status: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: Value) -> Answer {
        Answer { status, body }
    }

    #[test]
    fn a_listing_keeps_the_enabled_items_in_four_fields_and_reads_has_more() {
        let a = answer(
            200,
            json!({"plugins": [
                {"id": "a", "name": "A", "description": "", "version": "1"},
                {"id": "b", "name": "B", "enabled": false}
            ], "has_more": true}),
        );
        let Ok((items, more)) = items(&a, "plugins", "list-plugins") else {
            panic!("items")
        };
        assert_eq!(
            items,
            vec![json!({"id": "a", "name": "A", "description": null, "enabled": true})]
        );
        assert!(more);
    }

    #[test]
    fn a_listing_body_decides_whatever_the_status() {
        let envelope = answer(
            403,
            json!({"error": {"type": "permission_error", "message": "no"}}),
        );
        let f = items(&envelope, "skills", "list-skills").err().unwrap();
        assert_eq!(
            (f.message.as_str(), f.status),
            ("permission_error", Some(403))
        );
        assert_eq!(degraded(Err(f)), Ok(Vec::new()));
        let f = items(&answer(200, json!({})), "skills", "list-skills")
            .err()
            .unwrap();
        assert_eq!(
            degraded(Err(f)),
            Err("malformed list-skills response".into())
        );
        assert!(items(&answer(404, json!({"skills": []})), "skills", "list-skills").is_ok());
    }

    #[test]
    fn a_hit_needs_an_id_and_a_name_and_keeps_the_servers_other_fields() {
        assert_eq!(hits(&json!({"results": [{"name": "x"}]})), None);
        let hits = hits(&json!({"results": [{"version": "2", "name": "x", "id": "i"}]})).unwrap();
        assert_eq!(
            Value::Array(hits).to_string(),
            r#"[{"id":"i","name":"x","version":"2"}]"#
        );
    }
}
