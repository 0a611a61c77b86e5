//! The Workflow tool's machinery (seed 004 §Workflow): a script's checks (`script`), named
//! workflows (`named`), where a run lives (`store`), its journal (`journal`) and which calls a
//! resume replays (`resume`), the script engine (`engine`), and a launched run (`run`).

pub mod engine;
pub mod journal;
pub mod named;
pub mod report;
pub mod resume;
pub mod run;
pub mod script;
pub mod spawn;
pub mod store;

/// Whether the session offers Workflow: not when `CLAUDE_CODE_DISABLE_WORKFLOWS` is set, nor
/// when managed settings say `disableWorkflows` (seed 004: "managed disableWorkflows 可直接禁用").
pub fn offered() -> bool {
    if std::env::var_os("CLAUDE_CODE_DISABLE_WORKFLOWS").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let settings: serde_json::Value =
        std::fs::read_to_string(crate::environment::managed_settings())
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
    settings["disableWorkflows"] != serde_json::Value::Bool(true)
}
