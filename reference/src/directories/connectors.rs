//! The connector routes (`mcp/connectors/list`, `search`, `suggest`): one POST each, the answer
//! `{results, opt_in_required?, message?}`. Whatever goes wrong, the model is told only that the
//! registry is unavailable (2.1.235 keeps the cause to its debug log); a user who has not opted in
//! to connector suggestions gets the opt-in object instead of results.

use std::path::Path;

use serde_json::{json, Value};

use super::api::{envelope, Client};
use crate::limits;

/// The one text a failed connector call shows (2.1.235's words).
pub const UNAVAILABLE: &str = "Connector registry is unavailable right now; please try again.";

/// The opt-in message when the server sends none (2.1.235's words).
const OPT_IN_DEFAULT: &str = "Enable connector suggestions in your Claude settings to use this.";

/// A connector route's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// The items, `name` first.
    Items(Vec<Value>),
    /// Connector suggestions are off for the user: the message to show.
    OptIn(String),
}

pub async fn list(home: &Path) -> Result<Found, String> {
    call(home, "mcp/connectors/list", json!({})).await
}

pub async fn search(home: &Path, keywords: &[String]) -> Result<Found, String> {
    call(
        home,
        "mcp/connectors/search",
        json!({"keywords": keywords, "include_custom": true}),
    )
    .await
}

pub async fn suggest(home: &Path, uuids: &[String]) -> Result<Found, String> {
    call(home, "mcp/connectors/suggest", json!({"uuids": uuids})).await
}

/// Each item marked `enabledInChat`: its `installedServerId` is among `server_ids` (the
/// `X-MCP-Server-ID` headers of this session's MCP servers).
pub fn mark_enabled(items: Vec<Value>, server_ids: &[String]) -> Vec<Value> {
    items
        .into_iter()
        .map(|mut item| {
            let enabled = item["installedServerId"]
                .as_str()
                .is_some_and(|id| server_ids.iter().any(|s| s == id));
            if let Some(fields) = item.as_object_mut() {
                fields.insert("enabledInChat".into(), json!(enabled));
            }
            item
        })
        .collect()
}

/// The cause, for the debug log; the tools show [`UNAVAILABLE`].
async fn call(home: &Path, route: &str, body: Value) -> Result<Found, String> {
    let client = Client::new(home, limits::DIRECTORY_REQUEST_TIMEOUT.duration())
        .map_err(|f| format!("connector route unavailable: {}", f.message()))?;
    let answer = client.post(route, &body).await.map_err(|f| f.message())?;
    if answer.status >= 400 {
        return Err(match envelope(&answer.body) {
            Some((Some(kind), Some(message))) => {
                format!("connector route {} {kind}: {message}", answer.status)
            }
            _ => format!("connector route {}", answer.status),
        });
    }
    parse(&answer.body).ok_or_else(|| "malformed connector response".to_owned())
}

/// `{results: [{name?: string, …}], opt_in_required?: boolean, message?: string | null}`.
fn parse(body: &Value) -> Option<Found> {
    let results = body["results"].as_array()?;
    let well_formed = results
        .iter()
        .all(|r| r.is_object() && (r.get("name").is_none() || r["name"].is_string()));
    let opt_in = match body.get("opt_in_required") {
        None => false,
        Some(v) => v.as_bool()?,
    };
    let message = match body.get("message") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str()?.to_owned()),
    };
    if !well_formed {
        return None;
    }
    if opt_in {
        return Some(Found::OptIn(
            message.unwrap_or_else(|| OPT_IN_DEFAULT.to_owned()),
        ));
    }
    Some(Found::Items(
        results
            .iter()
            .map(|r| super::declared_first(r, &["name"]))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_results_or_with_a_nameless_name_is_malformed() {
        assert_eq!(parse(&json!({})), None);
        assert_eq!(parse(&json!({"results": [{"name": 3}]})), None);
        assert_eq!(
            parse(&json!({"results": [], "opt_in_required": "yes"})),
            None
        );
    }

    #[test]
    fn opting_out_wins_over_results_and_has_a_default_message() {
        assert_eq!(
            parse(&json!({"results": [{"name": "x"}], "opt_in_required": true, "message": null})),
            Some(Found::OptIn(OPT_IN_DEFAULT.into()))
        );
    }

    #[test]
    fn items_put_name_first_and_are_marked_by_their_installed_server() {
        let Some(Found::Items(items)) = parse(&json!({"results": [
            {"installedServerId": "srv_a", "name": "A"},
            {"name": "B"}
        ]})) else {
            panic!("items")
        };
        let marked = mark_enabled(items, &["srv_a".into()]);
        assert_eq!(
            Value::Array(marked).to_string(),
            r#"[{"name":"A","installedServerId":"srv_a","enabledInChat":true},{"name":"B","enabledInChat":false}]"#
        );
    }
}
