//! A publish (seed 004 §Artifact): the page read from a local file, its title and description
//! cleaned, then one `deploy` carrying the version this session saw as `baseVersion`. Guards
//! before anything is sent: a login, and — when the publish replaces an existing artifact — that
//! this session has seen its live version. A publish whose answer never came is never retried:
//! the artifact is read back once to tell the model whether the version moved.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::api::{Api, Deploy};
use super::{auth, text, Session};

/// 2.1.235's stale-version guard (its `stale_version_guard` refusal).
pub const NOT_SEEN: &str = "This session hasn't viewed the latest version of the artifact. Read it first (WebFetch the URL), reapply your edits, then publish. force:true discards the other session's changes \u{2014} use it only if the user asks to overwrite.";
/// 2.1.235's answer to a 409 on `baseVersion`.
pub const CONFLICT: &str = "conflict: another session published a newer version. Re-read it (WebFetch the URL), merge your edits on top, then publish again. force:true discards the other session's changes \u{2014} use it only if the user asks to overwrite.";

pub struct Request {
    pub file_path: PathBuf,
    pub favicon: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub label: Option<String>,
    pub url: Option<String>,
    pub force: bool,
    /// `contract` and `capabilities` as `contract::publish_fields` stamped them (empty: none).
    pub contract: Map<String, Value>,
}

/// 2.1.235's line for a publish in a session that cannot hold a live watch (`-p`).
pub const NO_WATCH: &str = "Live subscription: skipped \u{2014} only an interactive or SDK main-loop session holds the watch (not a subagent, teammate, background, or print session).";

/// A publish that landed: what the model reads and the structured result.
pub struct Published {
    pub text: String,
    pub structured: Value,
}

/// `print`: the session is `-p`, which holds no live watch of what it published.
pub fn publish(
    req: &Request,
    home: &Path,
    session: &mut Session,
    runtime: &tokio::runtime::Handle,
    print: bool,
) -> Result<Published, String> {
    let token = auth::token(home)?;
    let path = &req.file_path;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let markdown = match ext.as_deref() {
        Some("html" | "htm") => false,
        Some("md") => true,
        _ => {
            return Err(format!(
                "Only .html and .md files can be published: {}",
                path.display()
            ))
        }
    };
    let source = std::fs::read_to_string(path).map_err(|_| {
        format!(
            "File not found: {}. Create the file first (Write tool, or via shell if Write is unavailable), then retry with the same path.",
            path.display()
        )
    })?;
    let target = match &req.url {
        Some(url) => {
            Some(text::parse_url(url).ok_or_else(|| format!("not an artifact URL: {url}"))?)
        }
        None => session.published.get(path).cloned(),
    };
    let base = target
        .as_ref()
        .and_then(|slug| session.seen.get(slug).cloned());
    if target.is_some() && base.is_none() && !req.force {
        return Err(NOT_SEEN.into());
    }
    let stem = |with_ext: bool| {
        let name = if with_ext {
            path.file_name()
        } else {
            path.file_stem()
        };
        name.and_then(|n| n.to_str()).unwrap_or("page").to_owned()
    };
    let title = if markdown {
        stem(true)
    } else {
        text::html_title(&source)
            .or_else(|| req.title.as_deref().and_then(text::clean_title))
            .unwrap_or_else(|| stem(false))
    };
    let content = if markdown {
        markdown_page(&title, &source)
    } else {
        source
    };
    let mut body = Map::new();
    if let Some(slug) = &target {
        body.insert("slug".into(), json!(slug));
    }
    body.insert("title".into(), json!(title));
    body.insert("favicon".into(), json!(req.favicon));
    if let Some(label) = &req.label {
        body.insert("label".into(), json!(label));
    }
    if let Some(d) = req.description.as_deref().and_then(text::clean_title) {
        body.insert("description".into(), json!(d));
    }
    body.insert("entrypoint".into(), json!("sdk-cli"));
    if req.force {
        body.insert("force".into(), json!(true));
    }
    if let Some(base) = &base {
        body.insert("baseVersion".into(), json!(base));
    }
    body.extend(req.contract.clone());
    body.insert("content".into(), json!(content));
    let api = Api::new(token);
    match runtime.block_on(api.deploy(&Value::Object(body))) {
        Deploy::Published { slug, version } => {
            session.seen.insert(slug.clone(), version.clone());
            session.published.insert(path.clone(), slug.clone());
            let url = text::viewer_url(&slug);
            let watch = if print {
                format!("\n\n{NO_WATCH}")
            } else {
                String::new()
            };
            let mut structured = json!({
                "url": url,
                "path": path,
                "title": title,
                "updated": target.is_some(),
                "version": version,
            });
            match req.contract.get("capabilities") {
                Some(declared) => {
                    session.capabilities.insert(slug.clone(), declared.clone());
                }
                None => {
                    if let Some(kept) = session.capabilities.get(&slug) {
                        structured["capabilities"] = kept.clone();
                    }
                }
            }
            if let Some(o) = structured.as_object_mut() {
                o.extend(req.contract.clone());
                if print {
                    o.insert("liveSubscription".into(), json!("publish_context"));
                }
            }
            Ok(Published {
                text: format!(
                    "Published {} at {url}{watch}\n\nTo update: republish the same file path in this conversation (keeps this URL), or pass the URL as `url` from any other conversation \u{2014} publishing without `url` from a conversation that didn't publish this artifact creates a separate artifact rather than updating this one. Artifacts are private unless shared from the page's share menu; with Claude Code on the web, the user can browse theirs at claude.ai/code/artifacts.",
                    path.display()
                ),
                structured,
            })
        }
        Deploy::Conflict { .. } => Err(CONFLICT.into()),
        Deploy::Failed(message) => Err(message),
        Deploy::Unknown(message) => Err(format!(
            "{message}\n{}",
            read_back(&api, runtime, target.as_deref(), base.as_deref())
        )),
    }
}

/// After a publish whose outcome is unknown: one read of the artifact, never a second publish.
fn read_back(
    api: &Api,
    runtime: &tokio::runtime::Handle,
    slug: Option<&str>,
    base: Option<&str>,
) -> String {
    let Some(slug) = slug else {
        return "This was a new artifact, so there is no earlier version to compare with: list the user's artifacts or ask the user before publishing again, or a duplicate may be created.".into();
    };
    match runtime.block_on(api.boot(slug)) {
        Err(e) => format!("Reading the artifact back failed too ({e}); do not publish again until its state is known."),
        Ok(boot) if Some(boot.ver.as_str()) != base => format!(
            "Read back: the live version is now {} (this session had seen {}), so the publish most likely landed. Read the live version (WebFetch {}) before any further publish.",
            boot.ver,
            base.unwrap_or("none"),
            text::viewer_url(slug)
        ),
        Ok(boot) => format!(
            "Read back: the live version is still {}, so the publish did not land; publishing again is safe.",
            boot.ver
        ),
    }
}

/// Markdown is published as its text in a minimal page (2.1.235 renders it; the reference keeps
/// the source readable instead).
fn markdown_page(title: &str, source: &str) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    format!(
        "<title>{}</title><pre>{}</pre>",
        escape(title),
        escape(source)
    )
}
