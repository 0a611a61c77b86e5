//! The claude.ai Project a session is attached to (`[project]` in a scenario): its metadata, text
//! docs, file uploads (a document kind with extracted text, any other kind as raw bytes), synced
//! sources and knowledge counters, and the answers a scenario scripts over them (a status, a body,
//! a delay, a raw download whose reported size is wrong, a local file replaced while a request is
//! held). The operations are transport-neutral (`detail`, `read-doc`, `read-file`, `read-file-raw`,
//! `write-doc`, `update-doc`, `delete-doc`, `kb-search`; `detail-memory`, the Project memory read
//! `GET …/detail?include=melange_memory`, is on the organization routes only): `projects_routes`
//! maps the organization routes and the session route onto them. Every request is recorded by
//! shape; a doc's content by size and digest, never a token.

use std::collections::BTreeMap;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::design::Bearer;

/// The Project and what its API plays.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectScript {
    #[serde(default = "default_uuid")]
    pub uuid: String,
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// The Project's custom instructions (`prompt_template` on the wire).
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub knowledge_size: u64,
    #[serde(default = "default_max_knowledge")]
    pub max_knowledge_size: u64,
    #[serde(default, rename = "doc")]
    pub docs: Vec<DocSeed>,
    #[serde(default, rename = "upload")]
    pub uploads: Vec<UploadSeed>,
    /// Synced sources as the detail lists them (`{type, config}`).
    #[serde(default, rename = "sync_source")]
    pub sync_sources: Vec<Value>,
    /// What `kb-search` finds, in order (the first `n` are answered).
    #[serde(default, rename = "hit")]
    pub hits: Vec<Hit>,
    #[serde(default, rename = "answer")]
    pub answers: Vec<ProjectAnswer>,
    /// Read by the harness: the session is started with `CLAUDE_PROJECT_UUID` (true by default).
    #[serde(default = "yes")]
    pub attached: bool,
    /// Read by the harness: `CLAUDE_PROJECT_UUID` is set but empty (a tool on offer with no
    /// Project behind it).
    #[serde(default)]
    pub empty_uuid: bool,
    /// Read by the harness: the session also has a session access token, so a target calls the
    /// session route instead of the organization routes.
    #[serde(default)]
    pub session_token: bool,
    /// The account's organization, the one the organization routes must name (set by the harness).
    #[serde(skip)]
    pub organization: Option<String>,
    /// The account's access token and the session token, to classify bearers (set by the harness).
    #[serde(skip)]
    pub tokens: Tokens,
}

impl ProjectScript {
    /// What the Project holds before any request: the baseline of "Project unchanged".
    pub fn seeded_state(&self) -> ProjectState {
        Project::new(self.clone()).state()
    }
}

/// The tokens a request may carry, by origin, so a record names the origin and never the value.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    pub account: Option<String>,
    pub session: Option<String>,
}

impl Tokens {
    pub(super) fn classify(&self, token: Option<&str>) -> Bearer {
        match token {
            Some(t) if Some(t) == self.session.as_deref() => Bearer::Session,
            other => Bearer::classify(other, self.account.as_deref()),
        }
    }
}

/// A text doc the Project starts with.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DocSeed {
    pub path: String,
    #[serde(default)]
    pub content: String,
}

/// A file upload the Project starts with: `kind = "document"` has extracted `text`; any other kind
/// is downloaded raw (`content` as its bytes).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UploadSeed {
    pub path: String,
    #[serde(default = "default_kind")]
    pub kind: String,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub content: String,
}

/// One RAG hit.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hit {
    /// The doc it comes from (its path).
    pub name: String,
    pub text: String,
}

/// A scripted answer for an operation's requests.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectAnswer {
    pub op: Op,
    /// Only the nth request of that operation (1-based); every one when absent.
    #[serde(default)]
    pub nth: Option<usize>,
    #[serde(default)]
    pub status: Option<u16>,
    /// The body as JSON text, instead of the operation's own answer.
    #[serde(default)]
    pub body: Option<String>,
    /// Hold the answer this long (past the client's 30,000 ms timeout, to test it).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// A raw download reports a size one byte larger than the bytes it sends.
    #[serde(default)]
    pub size_mismatch: bool,
    /// While the answer is held: `[path, target]`, the file at `path` replaced by a symlink to
    /// `target` (a workspace file swapped during an upload).
    #[serde(default)]
    pub replace_with_symlink: Option<(String, String)>,
}

/// The Projects API's operations, named as the session route's `op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    Detail,
    /// `GET …/detail?include=melange_memory`: the detail with the Project's memory
    /// (`melange_memory`), which claude@2.1.332 reads at start. Its own operation, so a scenario's
    /// `nth` for `detail` counts only the plain detail reads.
    DetailMemory,
    ReadDoc,
    ReadFile,
    ReadFileRaw,
    WriteDoc,
    UpdateDoc,
    DeleteDoc,
    KbSearch,
}

impl Op {
    pub fn parse(op: &str) -> Option<Op> {
        serde_json::from_value(Value::String(op.to_owned())).ok()
    }
}

/// Which way a request came.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// `/api/organizations/:org/projects/:project/…`
    #[default]
    Org,
    /// `POST /v2/ccr-sessions/-/chat-project` with `op`.
    Session,
}

/// One request to the Projects API, as the mock saw it (`Default`: see `DesignRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProjectRequest {
    pub transport: Transport,
    pub http_method: String,
    /// The operation, or None for a request the mock does not know.
    pub op: Option<Op>,
    pub path: String,
    /// Whether the organization routes named the account's organization and this Project, and
    /// sent the organization header.
    pub scoped: Option<bool>,
    pub bearer: Bearer,
    /// The doc's path a write names (`file_name`).
    pub file_name: Option<String>,
    /// A written doc's content: its UTF-8 size and SHA-256.
    pub content_bytes: Option<usize>,
    pub content_sha256: Option<String>,
    pub query: Option<String>,
    pub n: Option<u64>,
    /// The doc or file id a request names, as the mock's own path for it (`doc:<path>`).
    pub names: Option<String>,
    /// The status answered; 0 while an answer is still held (a run that ended before a delayed
    /// answer was sent, as after a client's timeout).
    pub status: u16,
    /// When the mock took the request (Unix ms), to order it against the other wires' records.
    pub at_unix_ms: u64,
}

/// The Project after a run, for checks: what it holds, not how it got there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProjectState {
    pub docs: Vec<DocState>,
    pub uploads: Vec<String>,
    pub knowledge_size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocState {
    pub path: String,
    pub content: String,
    pub bytes: usize,
    pub sha256: String,
}

fn default_uuid() -> String {
    "0b1ec7ed-0000-4000-8000-00000000fa11".into()
}

fn default_name() -> String {
    "Launch plan".into()
}

fn default_max_knowledge() -> u64 {
    200_000
}

fn default_kind() -> String {
    "document".into()
}

fn yes() -> bool {
    true
}

pub(super) fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// A fixed timestamp: the mock has no clock a trace should depend on.
const CREATED_AT: &str = "2026-11-30T12:00:00.000000Z";

/// The Project's live state, shared by both transports.
pub(super) struct Project {
    pub script: ProjectScript,
    docs: BTreeMap<String, (String, String)>, // uuid -> (path, content)
    next_id: u64,
    knowledge_size: u64,
    seen: BTreeMap<Op, usize>,
    pub requests: Vec<ProjectRequest>,
}

impl PartialOrd for Op {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Op {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}

/// What one operation answers.
pub(super) struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    fn ok(body: Value) -> Self {
        Answer { status: 200, body }
    }

    fn not_found(what: &str) -> Self {
        Answer {
            status: 404,
            body: json!({"error": format!("{what} not found")}),
        }
    }
}

impl Project {
    pub fn new(script: ProjectScript) -> Self {
        let mut project = Project {
            docs: BTreeMap::new(),
            next_id: 0,
            knowledge_size: script.knowledge_size,
            seen: BTreeMap::new(),
            requests: Vec::new(),
            script,
        };
        for doc in project.script.docs.clone() {
            let id = project.fresh_id();
            project.docs.insert(id, (doc.path, doc.content));
        }
        project
    }

    /// Ids the mock hands out: UUID-shaped, numbered, stable across runs.
    fn fresh_id(&mut self) -> String {
        self.next_id += 1;
        format!("d0c00000-0000-4000-8000-{:012}", self.next_id)
    }

    /// Upload ids: UUID-shaped and distinct from doc ids.
    fn upload_id(index: usize) -> String {
        format!("f11e0000-0000-4000-8000-{:012}", index + 1)
    }

    /// Counts a request of `op` and returns the answer scripted for this occurrence.
    pub fn scripted(&mut self, op: Op) -> Option<ProjectAnswer> {
        let n = self.seen.entry(op).or_default();
        *n += 1;
        let n = *n;
        self.script
            .answers
            .iter()
            .find(|a| a.op == op && a.nth.is_none_or(|k| k == n))
            .cloned()
    }

    /// Names a doc or upload id by its path, for records.
    pub fn name_of(&self, id: &str) -> Option<String> {
        if let Some((path, _)) = self.docs.get(id) {
            return Some(format!("doc:{path}"));
        }
        self.upload(id).map(|u| format!("file:{}", u.path))
    }

    pub fn detail(&self) -> Value {
        let documents: Vec<Value> = self
            .docs
            .iter()
            .map(|(id, (path, _))| json!({"uuid": id, "file_name": path, "created_at": CREATED_AT}))
            .collect();
        let files: Vec<Value> = self
            .script
            .uploads
            .iter()
            .enumerate()
            .map(|(i, u)| {
                json!({"file_uuid": Self::upload_id(i), "file_name": u.path, "file_kind": u.kind, "created_at": CREATED_AT})
            })
            .collect();
        json!({
            "uuid": self.script.uuid,
            "name": self.script.name,
            "description": self.script.description,
            "prompt_template": self.script.instructions,
            "documents": documents,
            "files": files,
            "sync_sources": self.script.sync_sources,
            "knowledge_stats": {
                "knowledge_size": self.knowledge_size,
                "max_knowledge_size": self.script.max_knowledge_size,
            },
        })
    }

    /// The detail with the Project's memory, as `?include=melange_memory` asks: an empty memory
    /// store (`{files: [{path, content, …}], truncated}` is the shape a client parses).
    pub fn detail_memory(&self) -> Value {
        let mut detail = self.detail();
        detail["melange_memory"] = json!({"files": [], "truncated": false});
        detail
    }

    pub fn read_doc(&self, id: &str) -> Answer {
        match self.docs.get(id) {
            Some((path, content)) => Answer::ok(
                json!({"uuid": id, "file_name": path, "content": content, "created_at": CREATED_AT}),
            ),
            None => Answer::not_found("doc"),
        }
    }

    fn upload(&self, id: &str) -> Option<&UploadSeed> {
        self.script
            .uploads
            .iter()
            .enumerate()
            .find(|(i, _)| Self::upload_id(*i) == id)
            .map(|(_, u)| u)
    }

    /// The extracted text of a document upload; any other kind has none to give.
    pub fn read_file(&self, id: &str) -> Answer {
        match self.upload(id) {
            Some(u) => Answer::ok(json!({
                "file_uuid": id,
                "file_name": u.path,
                "file_kind": u.kind,
                "content": u.text.clone().unwrap_or_default(),
                "created_at": CREATED_AT,
            })),
            None => Answer::not_found("file"),
        }
    }

    pub fn read_file_raw(&self, id: &str, size_mismatch: bool) -> Answer {
        let Some(u) = self.upload(id) else {
            return Answer::not_found("file");
        };
        let bytes = u.content.as_bytes();
        let reported = bytes.len() + usize::from(size_mismatch);
        Answer::ok(json!({
            "uuid": id,
            "file_name": u.path,
            "file_kind": u.kind,
            "file_size_bytes": reported,
            "content_base64": base64::engine::general_purpose::STANDARD.encode(bytes),
            "created_at": CREATED_AT,
        }))
    }

    fn estimate(content: &str) -> u64 {
        (content.len() as u64).div_ceil(4)
    }

    pub fn create_doc(&mut self, path: &str, content: &str) -> Answer {
        let id = self.fresh_id();
        self.knowledge_size += Self::estimate(content);
        self.docs
            .insert(id.clone(), (path.to_owned(), content.to_owned()));
        Answer::ok(json!({"uuid": id, "file_name": path, "created_at": CREATED_AT}))
    }

    pub fn update_doc(&mut self, id: &str, content: &str) -> Answer {
        let Some((path, old)) = self.docs.get(id).cloned() else {
            return Answer::not_found("doc");
        };
        self.knowledge_size =
            (self.knowledge_size + Self::estimate(content)).saturating_sub(Self::estimate(&old));
        self.docs
            .insert(id.to_owned(), (path.clone(), content.to_owned()));
        Answer::ok(json!({"uuid": id, "file_name": path, "created_at": CREATED_AT}))
    }

    pub fn delete_doc(&mut self, id: &str) -> Answer {
        match self.docs.remove(id) {
            Some((_, old)) => {
                self.knowledge_size = self.knowledge_size.saturating_sub(Self::estimate(&old));
                Answer {
                    status: 204,
                    body: Value::Null,
                }
            }
            None => Answer::not_found("doc"),
        }
    }

    pub fn search(&self, n: u64) -> Answer {
        let doc_uuid = |name: &str| {
            self.docs
                .iter()
                .find(|(_, (p, _))| p == name)
                .map(|(id, _)| id.clone())
        };
        let results: Vec<Value> = self
            .script
            .hits
            .iter()
            .take(n as usize)
            .map(|h| json!({"name": h.name, "doc_uuid": doc_uuid(&h.name), "chunk": {"text": h.text}}))
            .collect();
        Answer::ok(json!({"text_results": results, "rich_content_results": []}))
    }

    pub fn state(&self) -> ProjectState {
        let mut docs: Vec<DocState> = self
            .docs
            .values()
            .map(|(path, content)| DocState {
                path: path.clone(),
                content: content.clone(),
                bytes: content.len(),
                sha256: sha256(content.as_bytes()),
            })
            .collect();
        docs.sort_by(|a, b| a.path.cmp(&b.path));
        ProjectState {
            docs,
            uploads: self.script.uploads.iter().map(|u| u.path.clone()).collect(),
            knowledge_size: self.knowledge_size,
        }
    }
}
