//! An artifact's asset store on the mock claude.ai (seed 004 §Artifact; the routes 2.1.235 calls,
//! recon artifact-assets): files a writer uploads beside a page, served from the page's frame host
//! under `_blob/{id}`. The store answers in the wire shapes 2.1.235 parses: an upload's echo
//! (`opaque_id`, `size_bytes`, `content_type`, `sha256`), a listing oldest first with the store's
//! usage and a `next` cursor, a delete's `deleted`. Ids are minted from the slug and a counter, so
//! a run's ids are the same every time.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The types the store takes (2.1.235 uploads only these, by file extension).
pub const ASSET_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/svg+xml",
    "video/mp4",
    "video/webm",
    "application/pdf",
    "font/woff2",
    "font/woff",
    "font/ttf",
    "font/otf",
];

/// The mock's quota, reported as `usage` in a listing.
pub const MAX_FILES: usize = 500;
pub const MAX_BYTES: usize = 100 * 1024 * 1024;
/// One asset at most (2.1.235's client limit too; SVG has a smaller one client-side).
pub const MAX_ASSET_BYTES: usize = 20 * 1024 * 1024;
/// A listing page when the request names no limit.
const PAGE: usize = 50;

/// An asset the artifact holds before the run.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AssetSeed {
    /// 32 lowercase hex characters.
    pub id: String,
    pub content_type: String,
    /// The file's bytes, as text (an SVG, or any stand-in: the store never decodes them).
    pub content: String,
    #[serde(default = "super::artifacts::seed_time")]
    pub created_at: String,
}

impl AssetSeed {
    pub fn validate(&self, slug: &str) -> Result<(), String> {
        if !is_asset_id(&self.id) {
            return Err(format!(
                "`[[artifacts.artifact.asset]]` of {slug}: `id` {:?} is not 32 lowercase hex characters",
                self.id
            ));
        }
        if !ASSET_TYPES.contains(&self.content_type.as_str()) {
            return Err(format!(
                "`[[artifacts.artifact.asset]]` {}: `content_type` {:?} is not one the store takes ({})",
                self.id,
                self.content_type,
                ASSET_TYPES.join(", ")
            ));
        }
        Ok(())
    }
}

pub fn is_asset_id(s: &str) -> bool {
    s.len() == 32
        && s.bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// An asset as the store keeps it; serialized by size and digest, never its bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Asset {
    pub id: String,
    pub content_type: String,
    pub size_bytes: usize,
    pub sha256: String,
    pub created_at: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

impl Asset {
    pub fn of_seed(seed: AssetSeed) -> Self {
        Asset::new(
            seed.id,
            seed.content_type,
            seed.content.into_bytes(),
            seed.created_at,
        )
    }

    fn new(id: String, content_type: String, bytes: Vec<u8>, created_at: String) -> Self {
        Asset {
            sha256: format!("{:x}", Sha256::digest(&bytes)),
            size_bytes: bytes.len(),
            id,
            content_type,
            created_at,
            bytes,
        }
    }

    fn wire(&self) -> Value {
        json!({
            "opaque_id": self.id,
            "content_type": self.content_type,
            "size_bytes": self.size_bytes,
            "sha256": self.sha256,
            "created_at": self.created_at,
        })
    }
}

/// One artifact's store: its assets oldest first, and how many it has minted.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AssetStore {
    pub assets: Vec<Asset>,
    #[serde(skip)]
    minted: usize,
}

impl AssetStore {
    pub fn new(seeds: Vec<AssetSeed>) -> Self {
        AssetStore {
            assets: seeds.into_iter().map(Asset::of_seed).collect(),
            minted: 0,
        }
    }

    /// `POST …/agent-upload`: the body is the file, its type the request's `Content-Type`.
    /// Answers (status, body, whether it was stored).
    pub fn upload(&mut self, slug: &str, content_type: &str, bytes: &[u8]) -> (u16, Value, bool) {
        let content_type = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if !ASSET_TYPES.contains(&content_type.as_str()) {
            return (
                415,
                error("unsupported_type", "this file type is not accepted"),
                false,
            );
        }
        if bytes.is_empty() {
            return (400, error("invalid_request", "the file is empty"), false);
        }
        if bytes.len() > MAX_ASSET_BYTES {
            return (
                413,
                error("too_large", "the file exceeds the per-asset limit"),
                false,
            );
        }
        if self.assets.len() >= MAX_FILES || self.bytes() + bytes.len() > MAX_BYTES {
            return (
                409,
                error("quota_or_state", "the asset store is full"),
                false,
            );
        }
        self.minted += 1;
        let id =
            format!("{:x}", Sha256::digest(format!("{slug}#{}", self.minted)))[..32].to_owned();
        let asset = Asset::new(
            id,
            content_type,
            bytes.to_vec(),
            super::artifacts::seed_time(),
        );
        let echo = json!({
            "opaque_id": asset.id,
            "size_bytes": asset.size_bytes,
            "content_type": asset.content_type,
            "sha256": asset.sha256,
        });
        self.assets.push(asset);
        (200, echo, true)
    }

    /// `POST …/agent-list` with `{after?, limit}`: a page oldest first, `next` while more follow.
    pub fn list(&self, body: &Value) -> (u16, Value) {
        let limit = body["limit"]
            .as_u64()
            .map_or(PAGE, |n| (n as usize).clamp(1, 1000));
        let start = match body["after"].as_str() {
            None => 0,
            Some(after) => match self.assets.iter().position(|a| a.id == after) {
                Some(i) => i + 1,
                None => return (400, error("invalid_request", "unknown cursor")),
            },
        };
        let page: Vec<Value> = self.assets[start..]
            .iter()
            .take(limit)
            .map(Asset::wire)
            .collect();
        let mut body = json!({
            "assets": page,
            "usage": {
                "files": self.assets.len(),
                "bytes": self.bytes(),
                "max_files": MAX_FILES,
                "max_bytes": MAX_BYTES,
            },
        });
        if start + page.len() < self.assets.len() {
            body["next"] = json!(self.assets[start + page.len() - 1].id);
        }
        (200, body)
    }

    /// `POST …/{id}/agent-delete`: `deleted` says whether there was one.
    pub fn delete(&mut self, id: &str) -> (Value, bool) {
        let before = self.assets.len();
        self.assets.retain(|a| a.id != id);
        let deleted = self.assets.len() < before;
        (json!({"deleted": deleted}), deleted)
    }

    pub fn get(&self, id: &str) -> Option<&Asset> {
        self.assets.iter().find(|a| a.id == id)
    }

    fn bytes(&self) -> usize {
        self.assets.iter().map(|a| a.size_bytes).sum()
    }
}

/// The store's error body (`{error: {code, message}}`, the shape 2.1.235 reads a code from).
fn error(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLUG: &str = "0a1b2c3d-0000-4000-8000-00000000abcd";

    #[test]
    fn an_upload_is_listed_oldest_first_and_a_delete_takes_it_out() {
        let mut store = AssetStore::new(vec![]);
        let (status, first, stored) = store.upload(SLUG, "image/png", b"PNG1");
        assert_eq!((status, stored), (200, true));
        let (_, second, _) = store.upload(SLUG, "image/svg+xml; charset=utf-8", b"<svg/>");
        assert_eq!(second["content_type"], "image/svg+xml");
        assert_ne!(first["opaque_id"], second["opaque_id"]);
        assert!(is_asset_id(first["opaque_id"].as_str().unwrap()));
        let (_, page) = store.list(&json!({"limit": 1}));
        assert_eq!(page["assets"][0]["opaque_id"], first["opaque_id"]);
        assert_eq!(page["next"], first["opaque_id"]);
        assert_eq!(page["usage"]["files"], 2);
        assert_eq!(page["usage"]["bytes"], 10);
        let (_, rest) = store.list(&json!({"limit": 1, "after": page["next"]}));
        assert_eq!(rest["assets"][0]["opaque_id"], second["opaque_id"]);
        assert!(rest.get("next").is_none());
        let id = first["opaque_id"].as_str().unwrap();
        assert_eq!(store.delete(id), (json!({"deleted": true}), true));
        assert_eq!(store.delete(id), (json!({"deleted": false}), false));
    }

    #[test]
    fn the_store_refuses_a_type_it_does_not_take_and_an_empty_file() {
        let mut store = AssetStore::new(vec![]);
        let (status, body, stored) = store.upload(SLUG, "text/html", b"<p>");
        assert_eq!((status, stored), (415, false));
        assert_eq!(body["error"]["code"], "unsupported_type");
        assert_eq!(store.upload(SLUG, "image/png", b"").0, 400);
        assert!(store.assets.is_empty());
    }

    #[test]
    fn minted_ids_are_the_same_every_run() {
        let id = |_: ()| {
            let mut store = AssetStore::new(vec![]);
            store.upload(SLUG, "image/png", b"x").1["opaque_id"].clone()
        };
        assert_eq!(id(()), id(()));
    }
}
