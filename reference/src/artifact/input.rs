//! Artifact's input checks after the schema's, each action's own (2.1.235's `validateInput`,
//! recon artifact14 and artifact-assets): which fields an action takes, what it requires, and
//! for an upload, the file itself. The texts are 2.1.235's. The login gate comes first and is
//! the tool's.

use std::path::Path;

use serde_json::Value;

use super::{assets, contract, text};
use crate::limits;

fn str_of<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input[key].as_str()
}

/// The fields set in `input` that `action` does not take.
fn extra<'a>(input: &'a Value, takes: &[&str]) -> Vec<&'a str> {
    input
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| k.as_str() != "action" && !takes.contains(&k.as_str()) && !v.is_null())
        .map(|(k, _)| k.as_str())
        .collect()
}

/// `action "…" takes only `a`, `b` — remove c.` when `input` sets a field `action` does not take.
fn takes_only(input: &Value, action: &str, takes: &[&str]) -> Option<String> {
    let extra = extra(input, takes);
    (!extra.is_empty()).then(|| {
        format!(
            "action \"{action}\" takes only {} \u{2014} remove {}.",
            quoted(takes),
            extra.join(", ")
        )
    })
}

fn quoted(fields: &[&str]) -> String {
    fields
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The refusal for `input`, or `None` when the action may go on to its permission check.
pub fn check(input: &Value, cwd: &Path) -> Option<String> {
    let action = str_of(input, "action").unwrap_or("publish");
    match action {
        "list" => {
            let extra = extra(input, &["limit", "scope"]);
            (!extra.is_empty()).then(|| format!(
                "action \"list\" takes only `limit` and `scope` \u{2014} remove {}. To publish or update an artifact, omit `action`.",
                extra.join(", ")
            ))
        }
        "comments" | "reply" => comment_action(input, action),
        "upload_asset" => upload(input, cwd),
        "list_assets" | "read_asset" | "delete_asset" => asset_action(input, action),
        _ => publish(input),
    }
}

fn comment_action(input: &Value, action: &str) -> Option<String> {
    let takes: &[&str] = if action == "comments" {
        &["url", "thread_id"]
    } else {
        &["url", "thread_id", "text"]
    };
    if let Some(refusal) = takes_only(input, action, takes) {
        return Some(refusal);
    }
    let Some(url) = str_of(input, "url") else {
        return Some(format!(
            "`url` (the artifact's URL) is required for action \"{action}\""
        ));
    };
    if text::parse_url(url).is_none() {
        return Some(format!("not an artifact URL: {url}"));
    }
    if action == "reply" {
        let missing: Vec<&str> = ["thread_id", "text"]
            .into_iter()
            .filter(|k| input[*k].is_null())
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "{} required for action \"reply\"",
                missing.join(" and ")
            ));
        }
    }
    if let Some(id) = str_of(input, "thread_id") {
        if !text::is_slug(id) {
            return Some(
                "thread_id must be a thread id from action \"comments\" (a lowercase UUID)".into(),
            );
        }
    }
    if let Some(t) = str_of(input, "text") {
        if t.trim().is_empty() {
            return Some("text must not be empty".into());
        }
        let max = limits::ARTIFACT_REPLY_MAX_BYTES.usize();
        if t.len() > max {
            return Some(format!(
                "text is {} bytes of UTF-8 \u{2014} the limit is {max}. Shorten the reply.",
                t.len()
            ));
        }
    }
    None
}

/// The url an asset action names: required, and an artifact's.
fn asset_url(input: &Value, action: &str) -> Result<(), String> {
    let Some(url) = str_of(input, "url") else {
        return Err(format!(
            "action \"{action}\" requires `url` \u{2014} the artifact's claude.ai URL (find it with action: \"list\")."
        ));
    };
    match text::parse_url(url) {
        Some(_) => Ok(()),
        None => Err(format!("not an artifact URL: {url}")),
    }
}

fn upload(input: &Value, cwd: &Path) -> Option<String> {
    let extra = extra(input, &["url", "file_path"]);
    if !extra.is_empty() {
        return Some(format!(
            "action \"upload_asset\" takes only `url` and `file_path` \u{2014} remove {}.",
            extra.join(", ")
        ));
    }
    if let Err(e) = asset_url(input, "upload_asset") {
        return Some(e);
    }
    let Some(file) = str_of(input, "file_path") else {
        return Some(
            "action \"upload_asset\" requires `file_path` \u{2014} the local file to upload."
                .into(),
        );
    };
    let path = cwd.join(file);
    let Some(content_type) = assets::type_of(&path) else {
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        return Some(format!(
            "unsupported asset type \"{ext}\": upload_asset takes {}.",
            assets::accepted()
        ));
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(format!("File not found: {}.", path.display()))
        }
        Err(e) => return Some(format!("cannot read file_path ({e})")),
    };
    if meta.file_type().is_symlink() {
        return None;
    }
    if !meta.is_file() {
        return Some("file_path must name a regular file to upload.".into());
    }
    let cap = assets::cap_for(content_type);
    if meta.len() as usize > cap {
        return Some(assets::too_large(meta.len(), cap));
    }
    if meta.len() == 0 {
        return Some("the file is empty \u{2014} nothing to upload.".into());
    }
    None
}

fn asset_action(input: &Value, action: &str) -> Option<String> {
    let takes: &[&str] = match action {
        "list_assets" => &["url", "after"],
        "read_asset" => &["url", "asset_id", "out_dir"],
        _ => &["url", "asset_id"],
    };
    if let Some(refusal) = takes_only(input, action, takes) {
        return Some(refusal);
    }
    if let Err(e) = asset_url(input, action) {
        return Some(e);
    }
    if action == "list_assets" {
        return str_of(input, "after")
            .filter(|a| !assets::is_cursor(a))
            .map(|_| {
                "after must be the `next` value copied from a previous list_assets result.".into()
            });
    }
    match str_of(input, "asset_id") {
        None => Some(format!(
            "action \"{action}\" requires `asset_id` \u{2014} the 32-character id from a list_assets or upload_asset result."
        )),
        Some(id) if !assets::is_asset_id(id) => Some(
            "asset_id must be the 32 lowercase hex characters of an asset id (the part after \"_blob/\").".into(),
        ),
        Some(_) => None,
    }
}

fn publish(input: &Value) -> Option<String> {
    let has = |k: &str| !input[k].is_null();
    let missing: Vec<&str> = ["file_path", "favicon"]
        .into_iter()
        .filter(|k| !has(k))
        .collect();
    if !missing.is_empty() {
        return Some(format!("{} required to publish", missing.join(" and ")));
    }
    if has("limit") {
        return Some("`limit` applies only to action \"list\"".into());
    }
    if has("thread_id") || has("text") {
        return Some("`thread_id` applies only to actions \"comments\", \"reply\", and \"resolve\", and `text` only to \"reply\"".into());
    }
    if has("scope") {
        return Some("`scope` applies only to action \"list\"".into());
    }
    if let Some(c) = str_of(input, "contract") {
        if c != "latest" && (!contract::is_version(c) || c == contract::NO_PIN) {
            return Some(format!(
                "invalid contract \"{c}\" \u{2014} pass 'latest' or a published version like 0.1.0."
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const URL: &str = "https://claude.ai/code/artifact/a7f1ac70-0000-4000-8000-000000000001";

    #[test]
    fn list_takes_only_limit_and_scope_and_publish_refuses_them() {
        let cwd = Path::new("/");
        assert_eq!(
            check(&json!({"action": "list", "limit": 3, "scope": "all"}), cwd),
            None
        );
        assert_eq!(
            check(&json!({"action": "list", "url": URL}), cwd).unwrap(),
            "action \"list\" takes only `limit` and `scope` \u{2014} remove url. To publish or update an artifact, omit `action`."
        );
        let publish = json!({"file_path": "p.html", "favicon": "x", "scope": "all"});
        assert_eq!(
            check(&publish, cwd).unwrap(),
            "`scope` applies only to action \"list\""
        );
    }

    #[test]
    fn each_asset_action_names_what_it_takes_and_needs() {
        let cwd = Path::new("/");
        assert_eq!(
            check(&json!({"action": "read_asset", "url": URL}), cwd).unwrap(),
            "action \"read_asset\" requires `asset_id` \u{2014} the 32-character id from a list_assets or upload_asset result."
        );
        assert_eq!(
            check(&json!({"action": "delete_asset", "url": URL, "asset_id": "ABC"}), cwd).unwrap(),
            "asset_id must be the 32 lowercase hex characters of an asset id (the part after \"_blob/\")."
        );
        assert_eq!(
            check(
                &json!({"action": "list_assets", "url": URL, "out_dir": "x"}),
                cwd
            )
            .unwrap(),
            "action \"list_assets\" takes only `url`, `after` \u{2014} remove out_dir."
        );
        assert!(check(&json!({"action": "list_assets"}), cwd)
            .unwrap()
            .starts_with("action \"list_assets\" requires `url`"));
    }

    #[test]
    fn an_upload_is_checked_for_its_type_and_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let up = |file: &str| {
            check(
                &json!({"action": "upload_asset", "url": URL, "file_path": file}),
                dir.path(),
            )
        };
        assert_eq!(
            up("page.html").unwrap(),
            "unsupported asset type \".html\": upload_asset takes png, jpg, jpeg, gif, webp, svg, mp4, webm, pdf, woff2, woff, ttf, otf."
        );
        assert!(up("missing.png").unwrap().starts_with("File not found: "));
        std::fs::write(dir.path().join("empty.png"), b"").unwrap();
        assert_eq!(
            up("empty.png").unwrap(),
            "the file is empty \u{2014} nothing to upload."
        );
        std::fs::write(dir.path().join("logo.png"), b"PNG").unwrap();
        assert_eq!(up("logo.png"), None);
    }
}
