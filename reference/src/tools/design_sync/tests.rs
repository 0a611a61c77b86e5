use serde_json::json;

use super::methods::{glob, in_plan, plan_id};
use super::*;
use crate::design::normalize_project_path as normalize;
use crate::tools::schema;

/// The process environment is shared by the tests of this binary; these tests change it.
static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn offered_unless_traffic_is_essential_a_third_party_provider_or_the_policy_says_no() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = tempfile::tempdir().unwrap();
    std::env::remove_var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC");
    std::env::remove_var("CLAUDE_CODE_USE_FOUNDRY");
    std::env::remove_var("ANTHROPIC_BASE_URL");
    assert!(offered(home.path()), "first party, no policy cache");

    std::env::set_var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    assert!(!offered(home.path()), "essential traffic only");
    std::env::remove_var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC");

    std::env::set_var("CLAUDE_CODE_USE_FOUNDRY", "1");
    assert!(
        !offered(home.path()),
        "a third-party provider without the flag"
    );
    std::env::remove_var("CLAUDE_CODE_USE_FOUNDRY");

    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/policy-limits.json"),
        r#"{"restrictions":{"allow_design_sync":{"allowed":false}}}"#,
    )
    .unwrap();
    assert!(!offered(home.path()), "the organization's policy denies it");
}

#[test]
fn schema_carries_the_recorded_limits_and_the_eleven_methods() {
    let s = DesignSync.input_schema();
    assert_eq!(s["required"], json!(["method"]));
    assert_eq!(s["additionalProperties"], json!(false));
    assert_eq!(
        s["properties"]["method"]["enum"].as_array().unwrap().len(),
        11
    );
    assert_eq!(s["properties"]["writes"]["maxItems"], json!(256));
    assert_eq!(s["properties"]["writes"]["items"]["maxLength"], json!(256));
    assert_eq!(s["properties"]["name"]["maxLength"], json!(200));
    let asset = &s["properties"]["assets"]["items"];
    assert_eq!(asset["properties"]["group"]["maxLength"], json!(64));
    assert_eq!(asset["properties"]["subtitle"]["maxLength"], json!(255));
    assert_eq!(asset["required"], json!(["name", "path"]));
    let width = &asset["properties"]["viewport"]["properties"]["width"];
    assert_eq!(width["exclusiveMinimum"], json!(0));
    assert_eq!(width["maximum"], json!(9_007_199_254_740_991u64));
    let counts = &s["properties"]["counts"];
    assert_eq!(counts["required"].as_array().unwrap().len(), 5);
}

#[test]
fn the_schema_refuses_what_2_1_235_refused() {
    let s = DesignSync.input_schema();
    let long = "n".repeat(201);
    let issues = DesignSync.refine(&json!({"method": "create_project", "name": long}));
    assert_eq!(issues.len(), 1, "a 201-character name");
    assert_eq!(issues[0].zod["maximum"], json!(200));
    assert_eq!(
        issues[0].zod["message"],
        json!("Too big: expected string to have <=200 characters")
    );
    assert!(DesignSync
        .refine(&json!({"method": "create_project", "name": "ok"}))
        .is_empty());
    assert!(schema::issues(&s, &json!({"method": "bogus"})).len() == 1);
    assert!(!schema::issues(&s, &json!({"method": "list_projects", "extra": 1})).is_empty());
    assert!(schema::issues(&s, &json!({"method": "list_projects"})).is_empty());
}

#[test]
fn own_checks_give_the_recorded_messages() {
    let m = |v| validate(&v);
    assert_eq!(
        m(json!({"method": "get_file", "projectId": "p"})).as_deref(),
        Some("get_file requires: path.")
    );
    assert_eq!(
        m(json!({"method": "write_files", "projectId": "p", "planId": "x", "files": []}))
            .as_deref(),
        Some("write_files requires: files.")
    );
    assert_eq!(
        m(json!({"method": "finalize_plan", "projectId": "p", "writes": [], "deletes": []}))
            .as_deref(),
        Some("finalize_plan needs at least one write or delete path.")
    );
    let both = json!({"method": "write_files", "projectId": "p", "planId": "x",
                      "files": [{"path": "a.css", "data": "x", "localPath": "a.css"}]});
    assert_eq!(
        m(both).as_deref(),
        Some("Each file needs exactly one of \"data\" or \"localPath\" (offending path: a.css).")
    );
    assert_eq!(m(json!({"method": "list_projects"})), None);
    assert_eq!(
        m(json!({"method": "report_validate"})).as_deref(),
        Some("report_validate requires: counts.")
    );
}

#[test]
fn plans_match_paths_and_globs_as_2_1_235_does() {
    let plan = vec![
        "components/**".to_owned(),
        "ui/*/index.html".into(),
        "a.css".into(),
    ];
    assert!(in_plan("components/button/x.html", &plan));
    assert!(in_plan("./ui/card/index.html", &plan));
    assert!(!in_plan("ui/card/deep/index.html", &plan));
    assert!(in_plan("a.css", &plan));
    assert!(!in_plan("components/../secret", &plan));
    assert!(glob("a*/b*/c*/d*").is_err(), "four wildcards");
    assert_eq!(normalize("a\\b//./c"), "a/b/c");
    let id = plan_id("ds-acme-0001");
    assert!(id.starts_with("plan_dsacme0001_") && id.len() == "plan_dsacme0001_".len() + 12);
    assert!(plan_id("---").starts_with("plan_anon_"));
}

#[test]
fn only_reads_are_read_only() {
    assert!(read_only("get_file") && read_only("report_validate"));
    assert!(!read_only("write_files") && !read_only("create_project"));
}
