//! What each DesignSync method does (2.1.235's behaviour, recorded in designsync.read and
//! designsync.write): the reads map the service's answers to the fields the model sees; the
//! changes run only under a plan `finalize_plan` registered in this session, and only on paths
//! the plan names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use base64::Engine;
use serde_json::{json, Map, Value};

use super::api::{Api, RpcError};
use crate::account::login as credentials;
use crate::design::normalize_project_path as normalize;
use crate::limits;

const PROJECT_TYPE: &str = "PROJECT_TYPE_DESIGN_SYSTEM";

/// Extensions whose files go up as UTF-8 text; any other file goes base64.
const TEXT_EXTENSIONS: &[&str] = &[
    "html", "css", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "json", "svg", "xml",
    "md", "txt", "csv", "yaml", "yml", "toml",
];

/// A finalized plan: the project, its normalized patterns, the resolved local folder.
#[derive(Debug, Clone)]
struct Plan {
    project: String,
    writes: Vec<String>,
    deletes: Vec<String>,
    local_dir: PathBuf,
}

fn plans() -> &'static Mutex<HashMap<String, Plan>> {
    static PLANS: OnceLock<Mutex<HashMap<String, Plan>>> = OnceLock::new();
    PLANS.get_or_init(Default::default)
}

/// Runs one call; the result object or the failure's text.
pub async fn run(input: &Value, home: &Path, cwd: &Path, print: bool) -> Result<Value, String> {
    let method = input["method"].as_str().unwrap_or_default();
    if method == "report_validate" {
        return Ok(json!({"method": "report_validate"}));
    }
    let token = token(home, print)?;
    let base = credentials::OAuthConfig::from_env()
        .map_err(str::to_owned)?
        .base_api_url;
    consent_preflight(&base, home).await;
    let api = Api::new(&base, token, print);
    dispatch(&api, method, input, cwd).await.map_err(|e| {
        let text = match e {
            Failure::Rpc(e) if e.needs_login() => unusable_text("needs_design_login", print),
            Failure::Rpc(e) => e.message(),
            Failure::Text(t) => t,
        };
        text.replace(api.token(), "[redacted-oauth-token]")
    })
}

/// 2.1.235 reads the account's Design consent once per session before its first DesignSync
/// call (recorded: designsync.read, one `GET /v1/design/consent` ahead of the first RPC, in a
/// session without ClaudeDesign); what it reports does not gate the call.
async fn consent_preflight(base: &str, home: &Path) {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !DONE.swap(true, std::sync::atomic::Ordering::SeqCst) {
        crate::design::Account::new(base, home.to_owned())
            .consent()
            .await;
    }
}

enum Failure {
    Rpc(RpcError),
    Text(String),
}

impl From<RpcError> for Failure {
    fn from(e: RpcError) -> Self {
        Failure::Rpc(e)
    }
}

impl From<String> for Failure {
    fn from(t: String) -> Self {
        Failure::Text(t)
    }
}

/// The credential 2.1.235's `zcr` picks, or the reason there is none in its words.
fn token(home: &Path, print: bool) -> Result<String, String> {
    if !crate::environment::first_party() {
        return Err(unusable_text("wrong_provider", print));
    }
    if crate::environment::essential_traffic_only() {
        return Err(unusable_text("essential_traffic_only", print));
    }
    credentials::login(home)
        .map(|l| l.access_token)
        .ok_or_else(|| unusable_text("needs_design_login", print))
}

fn unusable_text(reason: &str, print: bool) -> String {
    match reason {
        "wrong_provider" => "DesignSync is only available with claude.ai authentication. It is not supported through Bedrock, Vertex, or other third-party providers.".into(),
        "essential_traffic_only" => "DesignSync is unavailable while nonessential network traffic is restricted (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set). Unset it to use /design-sync.".into(),
        _ if print => "DesignSync needs design-system authorization, but /design-login requires an interactive terminal and is not available in this environment. Ask the user to provide the project files directly.".into(),
        _ => "DesignSync needs design-system authorization. Run /design-login to authorize it with your claude.ai account.".into(),
    }
}

fn field<'a>(input: &'a Value, key: &str, method: &str) -> Result<&'a Value, String> {
    input
        .get(key)
        .ok_or_else(|| format!("{method} requires \"{key}\""))
}

async fn dispatch(api: &Api, method: &str, input: &Value, cwd: &Path) -> Result<Value, Failure> {
    let project = || field(input, "projectId", method).map(|v| v.as_str().unwrap_or_default());
    match method {
        "list_projects" => {
            let reply = api
                .call("ListOrgProjects", json!({"type": PROJECT_TYPE}))
                .await?;
            let projects: Vec<Value> = reply["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| can_edit(p))
                .map(|p| {
                    pick(
                        p,
                        &[
                            "projectId",
                            "name",
                            "ownerDisplayName",
                            "isOwned",
                            "updatedAt",
                        ],
                    )
                })
                .collect();
            Ok(json!({"method": method, "projects": projects}))
        }
        "get_project" => {
            let p = api
                .call("GetProject", json!({"projectId": project()?}))
                .await?;
            let mut out = json!({"method": method});
            extend(
                &mut out,
                &p,
                &["projectId", "name", "type", "ownerDisplayName", "isOwned"],
            );
            let edit = p.get("callerCanEdit").or_else(|| p.get("canEdit"));
            if let Some(edit) = edit.filter(|v| !v.is_null()) {
                out["canEdit"] = edit.clone();
            }
            Ok(out)
        }
        "list_files" => {
            let id = project()?;
            let mut paths = Vec::new();
            for _ in 0..limits::DESIGN_SYNC_LIST_FILES_MAX_PAGES.get() {
                let mut body = json!({"projectId": id, "depth": -1});
                if !paths.is_empty() {
                    body["offset"] = json!(paths.len());
                }
                let page = api.call("ListFiles", body).await?;
                let entries = page["entries"].as_array().cloned().unwrap_or_default();
                paths.extend(entries.iter().map(|e| e["path"].clone()));
                if page["truncated"] != json!(true) || entries.is_empty() {
                    return Ok(json!({"method": method, "paths": paths}));
                }
            }
            Err(Failure::Text(
                RpcError {
                    rpc: "ListFiles".into(),
                    status: 0,
                    body: json!({"error": format!("pagination exceeded {} pages ({} paths)", limits::DESIGN_SYNC_LIST_FILES_MAX_PAGES.get(), paths.len())}),
                }
                .message(),
            ))
        }
        "get_file" => {
            let path = field(input, "path", method)?.as_str().unwrap_or_default();
            let body = json!({"projectId": project()?, "path": path, "raw": true});
            let reply = api.call("GetFile", body).await?;
            let (content, content_type, is_base64, truncated) = file_content(&reply);
            Ok(
                json!({"method": method, "path": path, "content": content, "contentType": content_type, "isBase64": is_base64, "truncated": truncated}),
            )
        }
        "finalize_plan" => {
            let id = project()?.to_owned();
            let writes: Vec<String> = crate::json::strings(field(input, "writes", method)?)
                .iter()
                .map(|p| normalize(p))
                .collect();
            let deletes: Vec<String> = crate::json::strings(field(input, "deletes", method)?)
                .iter()
                .map(|p| normalize(p))
                .collect();
            let local_dir = resolve_dir(input, cwd).map_err(|e| e.to_string())?;
            for pattern in writes.iter().chain(&deletes).filter(|p| is_glob(p)) {
                glob(pattern)?;
            }
            let plan_id = plan_id(&id);
            let reply =
                json!({"method": method, "planId": plan_id, "writes": writes, "deletes": deletes});
            let plan = Plan {
                project: id,
                writes,
                deletes,
                local_dir,
            };
            plans()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(plan_id, plan);
            Ok(reply)
        }
        "create_project" => {
            let name = field(input, "name", method)?.as_str().unwrap_or_default();
            let reply = api
                .call("CreateProject", json!({"name": name, "type": PROJECT_TYPE}))
                .await?;
            match reply["projectId"].as_str() {
                Some(id) => Ok(json!({"method": method, "projectId": id, "name": name})),
                None => Err(RpcError {
                    rpc: "CreateProject".into(),
                    status: 200,
                    body: reply,
                }
                .into()),
            }
        }
        _ => change(api, method, input).await,
    }
}

/// The plan-gated methods.
async fn change(api: &Api, method: &str, input: &Value) -> Result<Value, Failure> {
    let project = field(input, "projectId", method)?
        .as_str()
        .unwrap_or_default();
    let plan_id = field(input, "planId", method)?.as_str().unwrap_or_default();
    let plan = find_plan(plan_id)
        .filter(|p| p.project == project)
        .ok_or_else(|| {
            "Plan token is missing or does not match this project. Call finalize_plan first."
                .to_owned()
        })?;
    match method {
        "write_files" => {
            let files = field(input, "files", method)?
                .as_array()
                .cloned()
                .unwrap_or_default();
            let paths: Vec<String> = files
                .iter()
                .map(|f| f["path"].as_str().unwrap_or_default().to_owned())
                .collect();
            refuse_reserved("write", &paths)?;
            refuse_outside("write", &paths, &plan.writes)?;
            let mut out = Vec::new();
            for file in &files {
                out.push(upload_entry(file, &plan.local_dir)?);
            }
            let body = json!({"projectId": project, "files": out, "deduplicate": false});
            let reply = api.call("WriteFiles", body).await?;
            let written = reply["files"].as_array().map_or(0, Vec::len);
            Ok(json!({"method": method, "written": written}))
        }
        "delete_files" => {
            let paths = crate::json::strings(field(input, "paths", method)?);
            refuse_reserved("delete", &paths)?;
            refuse_outside("delete", &paths, &plan.deletes)?;
            let paths: Vec<String> = paths.iter().map(|p| normalize(p)).collect();
            let deleted = if paths.is_empty() {
                json!(0)
            } else {
                let reply = api
                    .call("DeleteFiles", json!({"projectId": project, "paths": paths}))
                    .await?;
                reply.get("deleted").cloned().unwrap_or(json!(0))
            };
            Ok(json!({"method": method, "deleted": deleted}))
        }
        "register_assets" => {
            let assets = field(input, "assets", method)?
                .as_array()
                .cloned()
                .unwrap_or_default();
            let paths: Vec<String> = assets
                .iter()
                .map(|a| a["path"].as_str().unwrap_or_default().to_owned())
                .collect();
            let outside: Vec<String> = paths
                .iter()
                .map(|p| normalize(p))
                .filter(|p| !in_plan(p, &plan.writes))
                .collect();
            if !outside.is_empty() {
                return Err(format!("Cannot register paths outside the finalized plan: {}. Re-run finalize_plan with the full set.", outside.join(", ")).into());
            }
            for asset in &assets {
                let mut body = json!({"projectId": project, "name": asset["name"], "path": normalize(asset["path"].as_str().unwrap_or_default())});
                for (from, to) in [
                    ("subtitle", "subtitle"),
                    ("viewport", "viewport"),
                    ("group", "section"),
                ] {
                    if let Some(v) = asset.get(from).filter(|v| v.as_str() != Some("")) {
                        body[to] = v.clone();
                    }
                }
                api.call("RecordAsset", body).await?;
            }
            Ok(json!({"method": method, "registered": assets.len()}))
        }
        "unregister_assets" => {
            let paths: Vec<String> = crate::json::strings(field(input, "paths", method)?)
                .iter()
                .map(|p| normalize(p))
                .collect();
            let outside: Vec<&String> = paths
                .iter()
                .filter(|p| !in_plan(p, &plan.deletes))
                .collect();
            if !outside.is_empty() {
                let list: Vec<&str> = outside.iter().map(|s| s.as_str()).collect();
                return Err(format!("Cannot unregister cards for paths outside the finalized plan's deletes: {}. Re-run finalize_plan with the full set.", list.join(", ")).into());
            }
            for path in &paths {
                api.call("DeleteAsset", json!({"projectId": project, "path": path}))
                    .await?;
            }
            Ok(json!({"method": method, "unregistered": paths.len()}))
        }
        other => Err(format!("DesignSync {other} is not supported.").into()),
    }
}

fn find_plan(id: &str) -> Option<Plan> {
    static SHAPE: OnceLock<regex::Regex> = OnceLock::new();
    let shape = SHAPE
        .get_or_init(|| regex::Regex::new("^plan_[a-z0-9]{1,16}_[a-f0-9]{12}$").expect("valid"));
    if !shape.is_match(id) {
        return None;
    }
    plans()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .cloned()
}

/// `plan_<up to 16 lowercase letters and digits of the project id>_<12 hex digits>`.
pub fn plan_id(project: &str) -> String {
    let mut stem: String = project
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .take(16)
        .collect();
    if stem.is_empty() {
        stem = "anon".into();
    }
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("plan_{stem}_{}", &random[..12])
}

/// CLAUDE.md and `.claude/` instruct the design agent: never written or deleted.
fn reserved(path: &str) -> bool {
    let p = normalize(path).to_lowercase();
    p == "claude.md" || p.starts_with("claude.md/") || p == ".claude" || p.starts_with(".claude/")
}

fn refuse_reserved(verb: &str, paths: &[String]) -> Result<(), String> {
    let hit: Vec<&str> = paths
        .iter()
        .filter(|p| reserved(p))
        .map(String::as_str)
        .collect();
    if hit.is_empty() {
        return Ok(());
    }
    Err(format!("Cannot {verb} reserved paths: {}. CLAUDE.md and .claude/ carry instructions to the design agent and are blocked regardless of the plan.", hit.join(", ")))
}

fn refuse_outside(verb: &str, paths: &[String], patterns: &[String]) -> Result<(), String> {
    let outside: Vec<String> = paths
        .iter()
        .map(|p| normalize(p))
        .filter(|p| !in_plan(p, patterns))
        .collect();
    if outside.is_empty() {
        return Ok(());
    }
    Err(format!("Cannot {verb} paths outside the finalized plan: {}. Re-run finalize_plan with the full set.", outside.join(", ")))
}

fn is_glob(p: &str) -> bool {
    p.contains('*') || p.contains('?')
}

/// A plan pattern as a regex: `**/` any leading folders, `**` anything, `*` and `?` within one
/// segment; more wildcards than the limit is an error.
pub fn glob(pattern: &str) -> Result<regex::Regex, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut out, mut i, mut wildcards) = (String::new(), 0, 0);
    while i < chars.len() {
        let c = chars[i];
        if c == '*' {
            wildcards += 1;
            if wildcards > limits::DESIGN_SYNC_GLOB_MAX_WILDCARDS.get() {
                return Err(format!(
                    "glob \"{pattern}\" exceeds {} '*'/'**' wildcards",
                    limits::DESIGN_SYNC_GLOB_MAX_WILDCARDS.get()
                ));
            }
            if chars.get(i + 1) == Some(&'*') {
                if chars.get(i + 2) == Some(&'/') {
                    out.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    out.push_str(".*");
                    i += 2;
                }
            } else {
                out.push_str("[^/]*");
                i += 1;
            }
        } else if c == '?' {
            out.push_str("[^/]");
            i += 1;
        } else {
            out.push_str(&regex::escape(&c.to_string()));
            i += 1;
        }
    }
    regex::Regex::new(&format!("^{out}$")).map_err(|e| e.to_string())
}

/// Whether the plan's patterns cover `path`.
pub fn in_plan(path: &str, patterns: &[String]) -> bool {
    let p = normalize(path);
    if p.is_empty()
        || p.chars().count() as u64 > limits::DESIGN_SYNC_PATH_MAX_LEN.get()
        || p.split('/').any(|s| s == "..")
        || p.contains('\0')
    {
        return false;
    }
    patterns.iter().any(|pattern| {
        let pattern = normalize(pattern);
        if is_glob(&pattern) {
            glob(&pattern).is_ok_and(|re| re.is_match(&p))
        } else {
            pattern == p
        }
    })
}

fn resolve_dir(input: &Value, cwd: &Path) -> std::io::Result<PathBuf> {
    let dir = input["localDir"].as_str().unwrap_or(".");
    std::fs::canonicalize(cwd.join(dir))
}

/// One entry of a WriteFiles body: inline data as given, or a file under the plan's folder read
/// from disk (text as is, anything else base64).
fn upload_entry(file: &Value, local_dir: &Path) -> Result<Value, String> {
    let path = normalize(file["path"].as_str().unwrap_or_default());
    let mut entry = Map::new();
    entry.insert("path".into(), json!(path));
    let Some(local) = file["localPath"].as_str() else {
        let data = file
            .get("data")
            .ok_or_else(|| format!("write_files: {path} has neither data nor localPath"))?;
        entry.insert("data".into(), data.clone());
        for key in ["encoding", "mimeType"] {
            if let Some(v) = file.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        return Ok(Value::Object(entry));
    };
    if file.get("data").is_some() {
        return Err(format!("write_files: {path} has both data and localPath"));
    }
    let target = local_dir.join(local);
    if !target.starts_with(local_dir) || local.split(['/', '\\']).any(|s| s == "..") {
        return Err(
            "write_files: localPath must be inside the directory approved at finalize_plan.".into(),
        );
    }
    let real = std::fs::canonicalize(&target).map_err(|e| e.to_string())?;
    if !real.starts_with(local_dir) {
        return Err(
            "write_files: localPath resolves outside the directory approved at finalize_plan."
                .into(),
        );
    }
    let meta = std::fs::metadata(&real).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("write_files: localPath must be a regular file.".into());
    }
    let cap = limits::DESIGN_SYNC_LOCAL_FILE_MAX.get();
    if meta.len() > cap {
        return Err(format!(
            "write_files: file at localPath exceeds the {cap} byte limit."
        ));
    }
    let bytes = std::fs::read(&real).map_err(|e| e.to_string())?;
    let ext = real
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_lowercase();
    if TEXT_EXTENSIONS.contains(&ext.as_str()) {
        entry.insert("data".into(), json!(String::from_utf8_lossy(&bytes)));
    } else {
        entry.insert(
            "data".into(),
            json!(base64::engine::general_purpose::STANDARD.encode(&bytes)),
        );
        entry.insert("encoding".into(), json!("base64"));
    }
    if let Some(m) = file.get("mimeType") {
        entry.insert("mimeType".into(), m.clone());
    }
    Ok(Value::Object(entry))
}

/// GetFile's answer as the model sees it: text arrives base64-encoded unless `isBase64` says the
/// file is binary (then it stays base64); either is cut at the cap.
fn file_content(reply: &Value) -> (String, String, bool, bool) {
    let content = reply["content"].as_str().unwrap_or_default();
    let is_base64 = reply["isBase64"] == json!(true);
    let cap = limits::DESIGN_SYNC_GET_FILE_CAP.get() as usize;
    let (text, truncated) = if is_base64 {
        let cut = content.len() > cap;
        (content.chars().take(cap).collect(), cut)
    } else {
        let mut bytes = base64::engine::general_purpose::STANDARD
            .decode(content)
            .unwrap_or_default();
        let cut = bytes.len() > cap;
        bytes.truncate(cap);
        (String::from_utf8_lossy(&bytes).into_owned(), cut)
    };
    let content_type = reply["contentType"].as_str().unwrap_or_default().to_owned();
    (text, content_type, is_base64, truncated)
}

/// 2.1.235 lists a project the caller can edit: `callerCanEdit`, else `canEdit`, else owned or
/// shared for team editing.
fn can_edit(p: &Value) -> bool {
    for key in ["callerCanEdit", "canEdit"] {
        if let Some(b) = p.get(key).and_then(Value::as_bool) {
            return b;
        }
    }
    p["isOwned"] == json!(true) || p["sharing"]["teamCanEdit"] == json!(true)
}

fn pick(from: &Value, keys: &[&str]) -> Value {
    let mut out = json!({});
    extend(&mut out, from, keys);
    out
}

fn extend(out: &mut Value, from: &Value, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key).filter(|v| !v.is_null()) {
            out[*key] = v.clone();
        }
    }
}

/// The user's review of a plan: the project, the folder, what goes up and what goes.
pub fn plan_prompt(input: &Value, cwd: &Path) -> String {
    let project = input["projectId"].as_str().unwrap_or("?");
    let folder = resolve_dir(input, cwd)
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| input["localDir"].as_str().unwrap_or(".").to_owned());
    let mut lines = vec![
        format!("To project: {project}"),
        format!("From folder: {folder}"),
    ];
    for (key, verb) in [("writes", "Upload"), ("deletes", "Delete")] {
        let all = crate::json::strings(&input[key]);
        if !all.is_empty() {
            lines.push(format!("{verb}: {}", all.join(", ")));
        }
    }
    lines.join("\n")
}
