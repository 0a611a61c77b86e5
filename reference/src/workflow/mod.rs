//! The Workflow tool's machinery (seed 004 §Workflow): a script's checks (`script`), named
//! workflows (`named`), where a run lives (`store`), its journal (`journal`) and which calls a
//! resume replays (`resume`), the script engine (`engine`), and a launched run (`run`).

use std::path::Path;

pub mod engine;
pub mod journal;
pub mod named;
pub mod report;
pub mod resume;
pub mod run;
pub mod script;
pub mod spawn;
pub mod store;

/// Whether the session offers Workflow, as 2.1.235 decides it: never when
/// `CLAUDE_CODE_DISABLE_WORKFLOWS` is set or managed settings say `disableWorkflows` (seed 004:
/// "managed disableWorkflows 可直接禁用"), nor when the organization's policy refuses
/// `allow_workflows`; `CLAUDE_CODE_WORKFLOWS` turns it on or off; otherwise the settings'
/// `enableWorkflows`, and by default on for every login but a Pro plan (recorded:
/// core.login-kinds/pro). `plan` is the claude.ai login's `subscriptionType`, if one signs in.
pub fn offered(home: &Path, cwd: &Path, plan: Option<&str>) -> bool {
    let flag = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if flag("CLAUDE_CODE_DISABLE_WORKFLOWS").is_some() {
        return false;
    }
    let managed: serde_json::Value =
        crate::json::read_file(&crate::environment::managed_settings()).unwrap_or_default();
    if managed["disableWorkflows"] == serde_json::Value::Bool(true)
        || !crate::account::policy::allows(home, "allow_workflows")
    {
        return false;
    }
    // A three-way switch, read as the CLI reads its switches.
    if let Some(v) = flag("CLAUDE_CODE_WORKFLOWS") {
        if crate::environment::truthy(&v) {
            return true;
        }
        if crate::environment::falsy(&v) {
            return false;
        }
    }
    match crate::environment::setting(home, cwd, "enableWorkflows") {
        Some(serde_json::Value::Bool(on)) => on,
        _ => plan != Some("pro"),
    }
}
