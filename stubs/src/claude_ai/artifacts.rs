//! Artifacts on the mock claude.ai (`[artifacts]` in a scenario; seed 004 §Artifact): published
//! pages with their versions and comment threads, and the answers a scenario scripts per
//! operation and occurrence. Transport-free: `artifacts_routes` maps HTTP onto [`Artifacts`].
//!
//! The operations are the ones 2.1.235 calls (recon artifact14): the boot read
//! (`GET /api/frame/{slug}`), the live content on the frame host (`GET /_f/{ver}/`), the publish
//! (`POST /api/frame/deploy/direct`, with `baseVersion` as its precondition), the comment list
//! (`GET /api/frame/comments/{slug}`) and a reply (`POST /api/frame/comments/{slug}/{thread}`);
//! the account's listing (`GET /api/frame/frames?limit=200`), the capability contract
//! (`GET /api/frame/contract/{latest|version}`), and each artifact's asset store
//! (`artifact_assets`: `POST /api/frame/blob/{slug}/agent-upload|agent-list`,
//! `…/{id}/agent-delete`, and `GET /_f/{ver}/_blob/{id}` on the frame host).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::artifact_assets::{AssetSeed, AssetStore};

/// Slugs the mock gives to new artifacts, in order: fixed so the harness can name their frame
/// hosts before the run (a host file has no wildcards).
pub const MINTED_SLUGS: [&str; 4] = [
    "a7f1ac70-0000-4000-8000-000000000001",
    "a7f1ac70-0000-4000-8000-000000000002",
    "a7f1ac70-0000-4000-8000-000000000003",
    "a7f1ac70-0000-4000-8000-000000000004",
];

/// The content host of an artifact (2.1.235 reads the live HTML there).
pub fn frame_host(slug: &str) -> String {
    format!("{slug}.frame.claudeusercontent.com")
}

/// The asset token the boot read hands out and the content host demands.
pub fn asset_token(slug: &str) -> String {
    format!("asset-{}", &slug[..8.min(slug.len())])
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArtifactsScript {
    /// Artifacts the account owns before the run.
    #[serde(default, rename = "artifact")]
    pub artifacts: Vec<ArtifactSeed>,
    /// Scripted answers by operation and occurrence; anything else is served from the state.
    #[serde(default, rename = "answer")]
    pub answers: Vec<ArtifactAnswer>,
    /// What the capability contract offers (`GET /api/frame/contract/latest`): 2.1.235 uploads
    /// or lists assets only when it names `assets`.
    #[serde(default = "default_capabilities")]
    pub capabilities: Vec<String>,
}

/// The contract's version the mock serves.
pub const CONTRACT_VERSION: &str = "0.1.0";

fn default_capabilities() -> Vec<String> {
    vec!["assets".into()]
}

impl Default for ArtifactsScript {
    fn default() -> Self {
        ArtifactsScript {
            artifacts: Vec::new(),
            answers: Vec::new(),
            capabilities: default_capabilities(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArtifactSeed {
    /// A lowercase UUID, as 2.1.235 requires of a slug.
    pub slug: String,
    #[serde(default = "untitled")]
    pub title: String,
    #[serde(default)]
    pub favicon: Option<String>,
    /// The live version's HTML; `{repeat:N:s}` is expanded by the harness.
    #[serde(default)]
    pub html: String,
    /// The live version's id.
    #[serde(default = "first_version")]
    pub version: String,
    #[serde(default, rename = "thread")]
    pub threads: Vec<ThreadSeed>,
    /// Whose it is in the account's listing: `mine` (the account owns it) or `shared` (someone
    /// shared it with the account).
    #[serde(default = "mine")]
    pub rel: String,
    /// When it was last published, as the listing says (most recent first).
    #[serde(default = "seed_time")]
    pub updated_at: String,
    /// The files in its asset store, oldest first.
    #[serde(default, rename = "asset")]
    pub assets: Vec<AssetSeed>,
}

fn mine() -> String {
    "mine".into()
}

fn untitled() -> String {
    "Untitled".into()
}

fn first_version() -> String {
    "v1".into()
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ThreadSeed {
    /// A lowercase UUID.
    pub id: String,
    /// Whether a person activated Claude on the thread (only then a reply is accepted).
    #[serde(default = "yes")]
    pub activated: bool,
    #[serde(default)]
    pub resolved: bool,
    #[serde(default = "seed_time")]
    pub created_at: String,
    #[serde(default, rename = "comment")]
    pub comments: Vec<CommentSeed>,
}

fn yes() -> bool {
    true
}

pub(super) fn seed_time() -> String {
    "2026-11-30T12:00:00Z".into()
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommentSeed {
    /// `human` (a viewer) or `assistant` (an earlier Claude reply).
    #[serde(default = "human")]
    pub role: String,
    #[serde(default = "viewer_account")]
    pub account: String,
    pub text: String,
    /// The viewer sent this comment to Claude.
    #[serde(default)]
    pub sent_to_claude: bool,
    #[serde(default = "seed_time")]
    pub created_at: String,
}

fn human() -> String {
    "human".into()
}

fn viewer_account() -> String {
    "0000beef-0000-4000-8000-000000000001".into()
}

/// An operation of the artifact routes, as scripts and records name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactOp {
    Boot,
    Content,
    Deploy,
    Comments,
    Reply,
    /// `GET /api/frame/frames`: the account's artifacts.
    Frames,
    /// `GET /api/frame/contract/…`: the capability contract.
    Contract,
    AssetUpload,
    AssetList,
    AssetDelete,
    /// `GET /_f/{ver}/_blob/{id}` on the frame host.
    AssetRead,
}

impl ArtifactOp {
    /// Whether the operation changes the artifact (a fault may then strike after the change).
    pub fn writes(self) -> bool {
        matches!(
            self,
            ArtifactOp::Deploy
                | ArtifactOp::Reply
                | ArtifactOp::AssetUpload
                | ArtifactOp::AssetDelete
        )
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArtifactAnswer {
    pub op: ArtifactOp,
    /// The 1-based occurrence of `op` this answers.
    #[serde(default = "one")]
    pub nth: usize,
    #[serde(default)]
    pub status: Option<u16>,
    #[serde(default)]
    pub body: Option<String>,
    /// Close the connection without an answer.
    #[serde(default)]
    pub drop: bool,
    /// Apply the write first, then answer as scripted: the client cannot know it landed.
    #[serde(default)]
    pub after_apply: bool,
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

fn one() -> usize {
    1
}

impl ArtifactsScript {
    /// Every way the script can be wrong, as one message naming the field.
    pub fn validate(&self) -> Result<(), String> {
        let mut slugs = std::collections::HashSet::new();
        for (i, a) in self.artifacts.iter().enumerate() {
            if !is_uuid(&a.slug) {
                return Err(format!(
                    "`[[artifacts.artifact]]` #{}: `slug` {:?} is not a lowercase UUID",
                    i + 1,
                    a.slug
                ));
            }
            if MINTED_SLUGS.contains(&a.slug.as_str()) || !slugs.insert(a.slug.as_str()) {
                return Err(format!(
                    "`[[artifacts.artifact]]` #{}: `slug` {} is used twice (or is one the mock mints)",
                    i + 1,
                    a.slug
                ));
            }
            if a.version.is_empty() || a.version.len() > 64 {
                return Err(format!(
                    "`[[artifacts.artifact]]` {}: `version` must be 1-64 characters",
                    a.slug
                ));
            }
            if !["mine", "shared"].contains(&a.rel.as_str()) {
                return Err(format!(
                    "`[[artifacts.artifact]]` {}: `rel` {:?} is neither \"mine\" nor \"shared\"",
                    a.slug, a.rel
                ));
            }
            for asset in &a.assets {
                asset.validate(&a.slug)?;
            }
            for t in &a.threads {
                if !is_uuid(&t.id) {
                    return Err(format!(
                        "`[[artifacts.artifact.thread]]` of {}: `id` {:?} is not a lowercase UUID",
                        a.slug, t.id
                    ));
                }
                if let Some(c) = t
                    .comments
                    .iter()
                    .find(|c| !["human", "assistant"].contains(&c.role.as_str()))
                {
                    return Err(format!(
                        "`[[artifacts.artifact.thread.comment]]` of thread {}: `role` {:?} is neither \"human\" nor \"assistant\"",
                        t.id, c.role
                    ));
                }
            }
        }
        for (i, a) in self.answers.iter().enumerate() {
            let what = format!("`[[artifacts.answer]]` #{} ({:?})", i + 1, a.op);
            if a.nth == 0 {
                return Err(format!("{what}: `nth` counts from 1"));
            }
            if a.status.is_none() && a.body.is_none() && !a.drop && a.delay_ms.is_none() {
                return Err(format!(
                    "{what}: says nothing: give `status`, `body`, `drop` or `delay_ms`"
                ));
            }
            if a.drop && (a.status.is_some() || a.body.is_some()) {
                return Err(format!(
                    "{what}: `drop` sends no answer, so `status` and `body` cannot be given"
                ));
            }
            if a.after_apply && !a.op.writes() {
                return Err(format!(
                    "{what}: `after_apply` needs a write (`deploy`, `reply`, `asset-upload` or `asset-delete`)"
                ));
            }
        }
        Ok(())
    }

    /// The frame hosts a run must resolve: the seeded artifacts' and the ones the mock mints.
    pub fn frame_hosts(&self) -> Vec<String> {
        self.artifacts
            .iter()
            .map(|a| a.slug.as_str())
            .chain(MINTED_SLUGS)
            .map(frame_host)
            .collect()
    }
}

pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
}

/// One request to an artifact route, as the mock saw it (the page's bytes as size and SHA-256).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArtifactRequest {
    pub op: ArtifactOp,
    pub http_method: String,
    pub path: String,
    pub slug: Option<String>,
    /// Whether the bearer was the planted login's access token (never the token itself).
    pub bearer: super::design::Bearer,
    /// The JSON body, `content` replaced by `content_bytes` and `content_sha256`.
    pub body: Value,
    pub status: u16,
    /// Whether the request changed the state (a write, applied).
    pub applied: bool,
    /// How the answer ended when it was not an ordinary one: `dropped`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Version {
    pub id: String,
    pub html: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Artifact {
    pub slug: String,
    pub title: String,
    pub favicon: Option<String>,
    pub versions: Vec<Version>,
    pub threads: Vec<ThreadState>,
    pub rel: String,
    pub updated_at: String,
    pub assets: AssetStore,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadState {
    pub id: String,
    pub activated: bool,
    pub resolved: bool,
    pub created_at: String,
    pub comments: Vec<CommentSeed>,
}

impl Artifact {
    fn live(&self) -> &Version {
        self.versions.last().expect("an artifact has a version")
    }
}

/// What a route answers, before transport faults.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    pub content_type: String,
    pub applied: bool,
    /// A body of bytes (an asset), sent in place of `body`.
    pub bytes: Option<Vec<u8>>,
}

impl Reply {
    fn json(status: u16, body: Value) -> Self {
        Reply {
            status,
            body,
            content_type: "application/json".into(),
            applied: false,
            bytes: None,
        }
    }

    fn text(status: u16, text: &str, content_type: &str) -> Self {
        Reply {
            status,
            body: Value::String(text.into()),
            content_type: content_type.into(),
            applied: false,
            bytes: None,
        }
    }
}

/// The artifacts and what was asked of them.
#[derive(Debug, Clone)]
pub struct Artifacts {
    pub artifacts: Vec<Artifact>,
    pub answers: Vec<ArtifactAnswer>,
    pub requests: Vec<ArtifactRequest>,
    capabilities: Vec<String>,
    minted: usize,
}

impl Artifacts {
    pub fn new(script: ArtifactsScript) -> Self {
        let artifacts = script
            .artifacts
            .into_iter()
            .map(|a| Artifact {
                slug: a.slug,
                title: a.title,
                favicon: a.favicon,
                versions: vec![Version {
                    id: a.version,
                    html: a.html,
                }],
                threads: a
                    .threads
                    .into_iter()
                    .map(|t| ThreadState {
                        id: t.id,
                        activated: t.activated,
                        resolved: t.resolved,
                        created_at: t.created_at,
                        comments: t.comments,
                    })
                    .collect(),
                rel: a.rel,
                updated_at: a.updated_at,
                assets: AssetStore::new(a.assets),
            })
            .collect();
        Artifacts {
            artifacts,
            answers: script.answers,
            requests: Vec::new(),
            capabilities: script.capabilities,
            minted: 0,
        }
    }

    /// The scripted answer for the occurrence of `op` about to be recorded, if any.
    pub fn scripted(&self, op: ArtifactOp) -> Option<ArtifactAnswer> {
        let nth = self.requests.iter().filter(|r| r.op == op).count() + 1;
        self.answers
            .iter()
            .find(|a| a.op == op && a.nth == nth)
            .cloned()
    }

    fn find(&mut self, slug: &str) -> Option<&mut Artifact> {
        self.artifacts.iter_mut().find(|a| a.slug == slug)
    }

    /// `GET /api/frame/{slug}`: what the page viewer boots with.
    pub fn boot(&mut self, slug: &str) -> Reply {
        match self.find(slug) {
            None => not_found(),
            Some(a) => Reply::json(
                200,
                json!({
                    "ver": a.live().id,
                    "assetToken": asset_token(&a.slug),
                    "title": a.title,
                    "favicon": a.favicon,
                    "mode": if a.rel == "mine" { "owner" } else { "shared" },
                    "perm": if a.rel == "mine" {
                        json!({"role": "owner", "mode": "owner"})
                    } else {
                        json!({"role": "reader", "mode": "shared"})
                    },
                    "shared": "",
                }),
            ),
        }
    }

    /// `GET /_f/{ver}/?__frame_t=…` on the artifact's frame host: that version's HTML.
    pub fn content(&mut self, slug: &str, ver: &str, token: Option<&str>) -> Reply {
        match self.served(slug, ver, token) {
            Ok((_, v)) => Reply::text(200, &v.html, "text/html; charset=utf-8"),
            Err(refused) => *refused,
        }
    }

    /// What the frame host serves from: the artifact and its version `ver`, when the request
    /// carries the artifact's asset token; else the refusal (404 unknown, 403 without the token).
    fn served(
        &mut self,
        slug: &str,
        ver: &str,
        token: Option<&str>,
    ) -> Result<(&Artifact, &Version), Box<Reply>> {
        let Some(a) = self.find(slug) else {
            return Err(Box::new(not_found()));
        };
        if token != Some(asset_token(slug).as_str()) {
            return Err(Box::new(Reply::text(403, "forbidden", "text/plain")));
        }
        let a = &*a;
        match a.versions.iter().find(|v| v.id == ver) {
            Some(v) => Ok((a, v)),
            None => Err(Box::new(not_found())),
        }
    }

    /// `GET /api/frame/frames?limit=N`: the account's artifacts, most recently published first,
    /// each with whose it is (`rel`).
    pub fn frames(&self, limit: usize) -> Reply {
        let mut rows: Vec<&Artifact> = self.artifacts.iter().collect();
        rows.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        let frames: Vec<Value> = rows
            .into_iter()
            .take(limit)
            .map(|a| {
                json!({
                    "slug": a.slug,
                    "title": a.title,
                    "favicon": a.favicon,
                    "rel": a.rel,
                    "updatedAt": a.updated_at,
                })
            })
            .collect();
        Reply::json(200, json!({"frames": frames}))
    }

    /// `GET /api/frame/contract/{latest|version}`: the contract's version and capabilities.
    pub fn contract(&self, version: &str) -> Reply {
        if version != "latest" && version != CONTRACT_VERSION {
            return not_found();
        }
        Reply::json(
            200,
            json!({"version": CONTRACT_VERSION, "capabilities": self.capabilities}),
        )
    }

    /// The asset store of an artifact the account may write, or the refusal as (status, text):
    /// a 404 `not found` (2.1.235 reads that text as "no such artifact"), a 403 `not a writer`.
    fn writable_store(&mut self, slug: &str) -> Result<&mut AssetStore, (u16, &'static str)> {
        match self.find(slug) {
            Some(a) if a.rel == "mine" => Ok(&mut a.assets),
            Some(_) => Err((403, "not a writer")),
            None => Err((404, "not found")),
        }
    }

    pub fn asset_upload(&mut self, slug: &str, content_type: &str, bytes: &[u8]) -> Reply {
        match self.writable_store(slug) {
            Ok(store) => {
                let (status, body, stored) = store.upload(slug, content_type, bytes);
                Reply {
                    applied: stored,
                    ..Reply::json(status, body)
                }
            }
            Err((status, text)) => Reply::text(status, text, "text/plain"),
        }
    }

    pub fn asset_list(&mut self, slug: &str, body: &Value) -> Reply {
        match self.writable_store(slug) {
            Ok(store) => {
                let (status, body) = store.list(body);
                Reply::json(status, body)
            }
            Err((status, text)) => Reply::text(status, text, "text/plain"),
        }
    }

    pub fn asset_delete(&mut self, slug: &str, id: &str) -> Reply {
        match self.writable_store(slug) {
            Ok(store) => {
                let (body, deleted) = store.delete(id);
                Reply {
                    applied: deleted,
                    ..Reply::json(200, body)
                }
            }
            Err((status, text)) => Reply::text(status, text, "text/plain"),
        }
    }

    /// `GET /_f/{ver}/_blob/{id}?__frame_t=…` on the frame host: the asset's bytes, typed.
    pub fn asset_read(&mut self, slug: &str, ver: &str, id: &str, token: Option<&str>) -> Reply {
        let a = match self.served(slug, ver, token) {
            Ok((a, _)) => a,
            Err(refused) => return *refused,
        };
        match a.assets.get(id) {
            None => Reply::text(404, "not found", "text/plain"),
            Some(asset) => Reply {
                bytes: Some(asset.bytes.clone()),
                ..Reply::text(200, "", &asset.content_type)
            },
        }
    }

    /// `POST /api/frame/deploy/direct`: a new artifact, or a new version of one when `slug` is
    /// given; `baseVersion` must be the live version unless `force`.
    pub fn deploy(&mut self, body: &Value) -> Reply {
        let Some(content) = body["content"].as_str() else {
            return Reply::json(400, json!({"error": "content is required"}));
        };
        let title = body["title"].as_str().unwrap_or("Untitled").to_owned();
        let favicon = body["favicon"].as_str().map(str::to_owned);
        match body["slug"].as_str() {
            Some(slug) => {
                let Some(a) = self.find(slug) else {
                    return not_found();
                };
                let live = a.live().id.clone();
                let force = body["force"].as_bool() == Some(true);
                if let Some(base) = body["baseVersion"].as_str() {
                    if base != live && !force {
                        return Reply::json(409, json!({"conflict": true, "live": live}));
                    }
                }
                let id = next_version(&live, a.versions.len());
                a.versions.push(Version {
                    id: id.clone(),
                    html: content.to_owned(),
                });
                a.title = title;
                a.favicon = favicon;
                let slug = a.slug.clone();
                applied(json!({"slug": slug, "version": id}))
            }
            None => {
                let Some(slug) = MINTED_SLUGS.get(self.minted) else {
                    return Reply::json(
                        429,
                        json!({"error": "the mock mints at most 4 artifacts"}),
                    );
                };
                self.minted += 1;
                self.artifacts.push(Artifact {
                    slug: (*slug).to_owned(),
                    title,
                    favicon,
                    versions: vec![Version {
                        id: "v1".into(),
                        html: content.to_owned(),
                    }],
                    threads: Vec::new(),
                    rel: "mine".into(),
                    updated_at: seed_time(),
                    assets: AssetStore::default(),
                });
                applied(json!({"slug": slug, "version": "v1"}))
            }
        }
    }

    /// `GET /api/frame/comments/{slug}`: the threads in 2.1.235's wire shape.
    pub fn comments(&mut self, slug: &str) -> Reply {
        let Some(a) = self.find(slug) else {
            return not_found();
        };
        let threads: Vec<Value> = a
            .threads
            .iter()
            .map(|t| {
                let comments: Vec<Value> = t
                    .comments
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let mut v = json!({
                            "id": format!("{}{:04x}", &t.id[..32], i),
                            "author": {"role": c.role, "account": c.account},
                            "text": c.text,
                            "created_at": c.created_at,
                        });
                        if c.sent_to_claude {
                            v["to_claude_at"] = json!(c.created_at);
                        }
                        v
                    })
                    .collect();
                let mut v = json!({"id": t.id, "created_at": t.created_at, "comments": comments});
                if t.activated {
                    v["claude_activated_at"] = json!(t.created_at);
                }
                if t.resolved {
                    v["resolved_at"] = json!(t.created_at);
                }
                v
            })
            .collect();
        Reply::json(200, json!({"threads": threads}))
    }

    /// `POST /api/frame/comments/{slug}/{thread}`: a reply, only on an activated thread.
    pub fn reply(&mut self, slug: &str, thread: &str, body: &Value) -> Reply {
        let Some(a) = self.find(slug) else {
            return not_found();
        };
        let Some(t) = a.threads.iter_mut().find(|t| t.id == thread) else {
            return not_found();
        };
        if !t.activated {
            return Reply::json(403, json!({"error": "not activated on this thread"}));
        }
        let Some(text) = body["text"].as_str() else {
            return Reply::json(400, json!({"error": "text is required"}));
        };
        t.comments.push(CommentSeed {
            role: "assistant".into(),
            account: viewer_account(),
            text: text.to_owned(),
            sent_to_claude: false,
            created_at: seed_time(),
        });
        let comment_id = format!("{}{:04x}", &t.id[..32], t.comments.len() - 1);
        let mut r = applied(json!({"thread_id": t.id, "comment_id": comment_id}));
        r.status = 201;
        r
    }
}

/// The version after `live`: `vN` counts on, any other id gets a numbered successor.
fn next_version(live: &str, count: usize) -> String {
    match live.strip_prefix('v').and_then(|n| n.parse::<u64>().ok()) {
        Some(n) => format!("v{}", n + 1),
        None => format!("{live}.{count}"),
    }
}

fn not_found() -> Reply {
    Reply::json(404, json!({"error": "not found"}))
}

fn applied(body: Value) -> Reply {
    Reply {
        applied: true,
        ..Reply::json(200, body)
    }
}
