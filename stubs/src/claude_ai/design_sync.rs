//! DesignSync's backend on the mock claude.ai: the design-system projects service 2.1.235's
//! DesignSync tool reaches as JSON RPCs (`POST /anthropic.omelette.api.v1alpha.OmeletteService/
//! <Rpc>`), scripted by `[[design.sync_project]]`. The default answers follow the fields the
//! client reads (recorded on 2.1.235: tools.surface/design-sync); a `[[design.answer]]`
//! with `method = "sync"` and `tool = "<Rpc>"` overrides one. Writes and deletes change the
//! projects, so a later `ListFiles` sees them.

use std::collections::BTreeMap;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The RPC service's path prefix.
pub const SERVICE_PATH: &str = "/anthropic.omelette.api.v1alpha.OmeletteService";

/// One design-system project: `[[design.sync_project]]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SyncProject {
    pub id: String,
    pub name: String,
    #[serde(default = "owner")]
    pub owner: String,
    #[serde(default = "yes")]
    pub owned: bool,
    #[serde(default = "yes")]
    pub can_edit: bool,
    /// Path → text content.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

fn owner() -> String {
    "Fixture Owner".into()
}

fn yes() -> bool {
    true
}

/// Every project carries this `updatedAt`, a fixed instant so snapshots stay stable.
const UPDATED_AT: &str = "2026-11-30T12:00:00Z";

/// The default answer to `rpc` with `body`, and the projects changed by it.
pub(super) fn answer(projects: &mut Vec<SyncProject>, rpc: &str, body: &Value) -> (u16, Value) {
    let id = body["projectId"].as_str().unwrap_or_default();
    let found = projects.iter().position(|p| p.id == id);
    let missing = || (404, json!({"error": "project not found"}));
    match rpc {
        "ListOrgProjects" => {
            let items: Vec<Value> = projects.iter().map(summary).collect();
            (200, json!({"items": items, "cursor": ""}))
        }
        "CreateProject" => {
            let n = projects.len() + 1;
            let project = SyncProject {
                id: format!("ds-created-{n}"),
                name: body["name"].as_str().unwrap_or_default().to_owned(),
                owner: owner(),
                owned: true,
                can_edit: true,
                files: BTreeMap::new(),
            };
            let reply = json!({"projectId": project.id});
            projects.push(project);
            (200, reply)
        }
        _ => {
            let Some(i) = found else { return missing() };
            let project = &mut projects[i];
            match rpc {
                "GetProject" => {
                    let mut p = summary(project);
                    p["type"] = json!("PROJECT_TYPE_DESIGN_SYSTEM");
                    (200, p)
                }
                "ListFiles" => {
                    let entries: Vec<Value> =
                        project.files.keys().map(|p| json!({"path": p})).collect();
                    (200, json!({"entries": entries, "truncated": false}))
                }
                "GetFile" => {
                    let path = body["path"].as_str().unwrap_or_default();
                    match project.files.get(path) {
                        // Text comes base64-encoded with `isBase64: false`, as the client decodes.
                        Some(text) => (
                            200,
                            json!({
                                "content": base64::engine::general_purpose::STANDARD.encode(text),
                                "contentType": content_type(path),
                                "isBase64": false,
                            }),
                        ),
                        None => (404, json!({"error": "file not found"})),
                    }
                }
                "WriteFiles" => {
                    let files = body["files"].as_array().cloned().unwrap_or_default();
                    for f in &files {
                        let path = f["path"].as_str().unwrap_or_default().to_owned();
                        let data = f["data"].as_str().unwrap_or_default().to_owned();
                        project.files.insert(path, data);
                    }
                    let written: Vec<Value> =
                        files.iter().map(|f| json!({"path": f["path"]})).collect();
                    (200, json!({ "files": written }))
                }
                "DeleteFiles" => {
                    let paths = body["paths"].as_array().cloned().unwrap_or_default();
                    let deleted = paths
                        .iter()
                        .filter_map(Value::as_str)
                        .filter(|p| project.files.remove(*p).is_some())
                        .count();
                    (200, json!({ "deleted": deleted }))
                }
                "RecordAsset" | "DeleteAsset" => (200, json!({})),
                _ => (404, json!({"error": "unknown method"})),
            }
        }
    }
}

fn summary(p: &SyncProject) -> Value {
    json!({
        "projectId": p.id,
        "name": p.name,
        "ownerDisplayName": p.owner,
        "isOwned": p.owned,
        "callerCanEdit": p.can_edit,
        "updatedAt": UPDATED_AT,
    })
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html",
        Some("css") => "text/css",
        Some("json") => "application/json",
        Some("md") => "text/markdown",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Vec<SyncProject> {
        vec![SyncProject {
            id: "ds-1".into(),
            name: "Acme".into(),
            owner: owner(),
            owned: true,
            can_edit: true,
            files: BTreeMap::from([("a.md".to_owned(), "hi".to_owned())]),
        }]
    }

    #[test]
    fn files_round_trip_and_unknown_projects_are_404() {
        let mut p = fixture();
        let (s, v) = answer(
            &mut p,
            "GetFile",
            &json!({"projectId": "ds-1", "path": "a.md"}),
        );
        assert_eq!((s, v["content"].as_str()), (200, Some("aGk=")));
        let w = json!({"projectId": "ds-1", "files": [{"path": "b.css", "data": "x"}]});
        assert_eq!(
            answer(&mut p, "WriteFiles", &w).1["files"][0]["path"],
            "b.css"
        );
        let (_, v) = answer(&mut p, "ListFiles", &json!({"projectId": "ds-1"}));
        assert_eq!(v["entries"].as_array().unwrap().len(), 2);
        assert_eq!(
            answer(&mut p, "GetProject", &json!({"projectId": "x"})).0,
            404
        );
    }
}
