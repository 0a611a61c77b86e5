use serde_json::json;

use super::*;

fn script() -> DirectoryScript {
    DirectoryScript {
        registry: vec![
            json!({"directoryUuid": "d-1", "name": "GitHub", "description": "Code hosting"}),
            json!({"directoryUuid": "d-2", "name": "Linear", "description": "Issue tracking"}),
        ],
        plugins: vec![
            json!({"id": "p-1", "name": "lint-kit"}),
            json!({"id": "p-2", "name": "off", "enabled": false}),
            json!({"id": "p-3", "name": "docs-kit"}),
        ],
        filler_plugins: 2,
        organization: Some("org".into()),
        ..DirectoryScript::default()
    }
}

fn ask<'a>(route: Route, org: &'a str, query: &'a [(String, String)], body: &'a Value) -> Ask<'a> {
    Ask {
        route,
        path_org: org,
        header_org: Some(org),
        query,
        body,
    }
}

#[test]
fn a_search_keeps_items_naming_any_keyword_in_name_or_description_ignoring_case() {
    let d = Directories::new(script());
    let body = json!({"keywords": ["ISSUE", "nothing"]});
    let (status, answer) = d.answer(&ask(Route::ConnectorsSearch, "org", &[], &body));
    assert_eq!(status, 200);
    assert_eq!(answer["results"][0]["name"], "Linear");
    assert_eq!(answer["results"].as_array().unwrap().len(), 1);
}

#[test]
fn suggest_resolves_by_directory_uuid() {
    let d = Directories::new(script());
    let body = json!({"uuids": ["d-2", "d-9"]});
    let (_, answer) = d.answer(&ask(Route::ConnectorsSuggest, "org", &[], &body));
    assert_eq!(answer, json!({"results": [script().registry[1]]}));
}

#[test]
fn list_plugins_pages_the_enabled_ones_and_says_when_more_follow() {
    let d = Directories::new(script());
    let q = |offset: &str| {
        vec![
            ("enabled_only".to_owned(), "true".to_owned()),
            ("limit".to_owned(), "2".to_owned()),
            ("offset".to_owned(), offset.to_owned()),
        ]
    };
    let (q0, q1) = (q("0"), q("2"));
    let (_, first) = d.answer(&ask(Route::PluginsList, "org", &q0, &Value::Null));
    let (_, second) = d.answer(&ask(Route::PluginsList, "org", &q1, &Value::Null));
    let ids = |page: &Value| -> Vec<String> {
        page["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&first), ["p-1", "p-3"]);
    assert_eq!(first["has_more"], true);
    assert_eq!(ids(&second), ["plg-filler-001", "plg-filler-002"]);
    assert_eq!(second["has_more"], false);
}

#[test]
fn another_organization_is_not_found_and_opt_out_empties_every_connector_route() {
    let d = Directories::new(script());
    let (status, answer) = d.answer(&ask(Route::SkillsList, "other", &[], &Value::Null));
    assert_eq!(status, 404);
    assert_eq!(answer["error"]["type"], "not_found_error");
    let d = Directories::new(DirectoryScript {
        opt_in_required: true,
        ..script()
    });
    let (_, answer) = d.answer(&ask(Route::ConnectorsList, "org", &[], &Value::Null));
    assert_eq!(answer, json!({"results": [], "opt_in_required": true}));
}

#[test]
fn a_scripted_fault_answers_only_its_nth_request() {
    let mut d = Directories::new(DirectoryScript {
        answers: vec![DirectoryAnswer {
            route: Route::SkillsSearch,
            nth: Some(2),
            status: 503,
            body: None,
        }],
        ..script()
    });
    let body = json!({"keywords": ["x"]});
    let a = ask(Route::SkillsSearch, "org", &[], &body);
    let headers = || Headers {
        method: "POST".into(),
        bearer: None,
        anthropic_version: None,
        client_platform: None,
        beta: None,
    };
    assert_eq!(d.answer(&a).0, 200);
    d.record(&a, headers(), 200);
    assert_eq!(d.answer(&a).0, 503);
    d.record(&a, headers(), 503);
    assert_eq!(d.answer(&a).0, 200);
}
