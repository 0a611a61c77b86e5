use std::path::Path;

use serde_json::json;

use super::*;

fn scenario(id: &str, turns: &str) -> Scenario {
    let source = format!(
        "id = \"{id}\"\ntitle = \"t\"\ntargets = [\"reference\", \"claude\"]\nprompt = \"p\"\n{turns}\n[[check]]\nkind = \"exit\"\nequals = 0\n"
    );
    let file = format!("{}.toml", id.replace('/', "__"));
    Scenario::parse(Path::new(&file), &source).unwrap()
}

fn offer(tools: serde_json::Value) -> Params {
    let mut params = Params::new();
    offered_in(&json!({ "tools": tools }), &mut params);
    params
}

#[test]
fn the_offer_is_the_built_in_tools_top_level_properties() {
    let params = offer(json!([
        {"name": "Read", "input_schema": {"properties": {"file_path": {}, "offset": {}}}},
        {"name": "mcp__s__t", "input_schema": {"properties": {"x": {}}}},
        {"type": "web_search_20250305", "name": "web_search"},
    ]));
    assert_eq!(params.len(), 1);
    assert_eq!(
        params["Read"].iter().collect::<Vec<_>>(),
        ["file_path", "offset"]
    );
}

#[test]
fn a_parameter_counts_where_its_scenario_ran_and_the_tool_was_offered() {
    let read = scenario(
        "tools.read",
        "[[turn]]\n[[turn.block]]\ntype = \"tool_use\"\nid = \"t1\"\nname = \"Read\"\ninput = { file_path = \"a\", offset = 2 }\n\
         [[agent]]\nmatch = \"C\"\n[[agent.turn]]\n[[agent.turn.block]]\ntype = \"tool_use\"\nid = \"t2\"\nname = \"Read\"\ninput = { file_path = \"a\", limit = 1 }",
    );
    let reference = offer(
        json!([{"name": "Read", "input_schema": {"properties": {"file_path": {}, "offset": {}, "limit": {}, "pages": {}}}}]),
    );
    let real = offer(
        json!([{"name": "Read", "input_schema": {"properties": {"file_path": {}, "offset": {}, "limit": {}}}}]),
    );
    let samples = [
        Sample {
            id: "tools.read",
            target: "reference",
            offered: &reference,
        },
        // Ran on the real binary with another scenario only: nothing exercised there.
        Sample {
            id: "other",
            target: "claude@2.1.235",
            offered: &real,
        },
    ];
    let listed = [Listed {
        tool: "Read".into(),
        param: "pages".into(),
        only: Some("reference".into()),
        reason: "r".into(),
    }];
    let coverage = Coverage::of(&samples, &[read], &listed);
    assert_eq!(coverage.targets, ["reference", "claude@2.1.235"]);
    let gaps: Vec<&str> = coverage
        .gaps("reference")
        .iter()
        .map(|r| r.param.as_str())
        .collect();
    assert!(gaps.is_empty(), "{gaps:?}");
    let gaps: Vec<&str> = coverage
        .gaps("claude@2.1.235")
        .iter()
        .map(|r| r.param.as_str())
        .collect();
    assert_eq!(gaps, ["file_path", "limit", "offset"]);
    assert!(coverage.unexercised_anywhere().is_empty());
    let text = coverage.text();
    assert!(
        text.contains("  reference          3/4  not exercised: pages (listed)"),
        "{text}"
    );
    assert!(
        text.contains("  claude@2.1.235     0/3  not exercised: file_path, limit, offset"),
        "{text}"
    );
}

#[test]
fn a_parameter_no_scenario_scripts_is_unexercised_anywhere_unless_listed() {
    let reference =
        offer(json!([{"name": "Edit", "input_schema": {"properties": {"replace_all": {}}}}]));
    let samples = [Sample {
        id: "x",
        target: "reference",
        offered: &reference,
    }];
    let coverage = Coverage::of(&samples, &[], &[]);
    assert_eq!(coverage.unexercised_anywhere()[0].param, "replace_all");
    let listed = [Listed {
        tool: "Edit".into(),
        param: "replace_all".into(),
        only: None,
        reason: "r".into(),
    }];
    assert!(Coverage::of(&samples, &[], &listed)
        .unexercised_anywhere()
        .is_empty());
}

#[test]
fn a_listed_parameter_needs_a_reason_and_known_keys() {
    let dir = tempfile::tempdir().unwrap();
    assert!(load_listed(dir.path()).unwrap().is_empty());
    let file = dir.path().join("coverage.toml");
    std::fs::write(
        &file,
        "[[unexercised]]\ntool = \"A\"\nparam = \"b\"\nreason = \" \"\n",
    )
    .unwrap();
    assert!(load_listed(dir.path())
        .unwrap_err()
        .contains("A.b is listed without a reason"));
    std::fs::write(
        &file,
        "[[unexercised]]\ntool = \"A\"\nparam = \"b\"\nwhy = \"x\"\n",
    )
    .unwrap();
    let err = load_listed(dir.path()).unwrap_err();
    assert!(
        err.contains("coverage.toml") && err.contains("why"),
        "{err}"
    );
}

#[test]
fn a_listing_whose_parameter_is_now_exercised_or_gone_is_stale() {
    let read = scenario(
        "tools.read",
        "[[turn]]\n[[turn.block]]\ntype = \"tool_use\"\nid = \"t1\"\nname = \"Read\"\ninput = { offset = 2 }",
    );
    let offered = offer(
        json!([{"name": "Read", "input_schema": {"properties": {"offset": {}, "limit": {}}}}]),
    );
    let samples = [Sample {
        id: "tools.read",
        target: "reference",
        offered: &offered,
    }];
    let listed = |param: &str| Listed {
        tool: "Read".into(),
        param: param.into(),
        only: None,
        reason: "r".into(),
    };
    let all = [listed("offset"), listed("limit"), listed("gone")];
    let coverage = Coverage::of(&samples, &[read], &all);
    let stale: Vec<String> = coverage.stale(&all).into_iter().map(|l| l.param).collect();
    assert_eq!(stale, ["offset", "gone"]);
}
