//! SendUserMessage attachments: the path checks that run before any byte is read, in the
//! documented order (URL, UNC and `/net` network paths, resolution against cwd, a regular file,
//! a missing file with cwd and a suggestion, an inaccessible one), the wide metadata MIME table,
//! and pre-uploaded objects, which skip every local check.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// One attachment after validation, as the tool result's metadata describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub path: String,
    pub size: u64,
    pub is_image: bool,
    pub media_type: Option<&'static str>,
    /// False for a pre-uploaded object: no local file was looked at.
    pub path_validated: bool,
    pub file_uuid: Option<String>,
    pub upload_error: Option<String>,
    /// A pre-uploaded object's own metadata, kept as given.
    pub uploaded: Option<Value>,
}

impl Attachment {
    pub fn needs_upload(&self) -> bool {
        self.path_validated && self.file_uuid.is_none()
    }

    /// The `tool_use_result` entry.
    pub fn json(&self) -> Value {
        if let Some(object) = &self.uploaded {
            let mut out = object.clone();
            out["pathValidated"] = json!(false);
            return out;
        }
        let mut out = Map::new();
        out.insert("path".into(), json!(self.path));
        out.insert("size".into(), json!(self.size));
        out.insert("isImage".into(), json!(self.is_image));
        if let Some(m) = self.media_type {
            out.insert("media_type".into(), json!(m));
        }
        out.insert("pathValidated".into(), json!(self.path_validated));
        if let Some(uuid) = &self.file_uuid {
            out.insert("file_uuid".into(), json!(uuid));
        }
        if let Some(error) = &self.upload_error {
            out.insert("upload_error".into(), json!(error));
        }
        Value::Object(out)
    }
}

/// Checks every attachment; the first failure is the tool's error and nothing is uploaded.
pub fn validate_all(items: &[Value], cwd: &Path) -> Result<Vec<Attachment>, String> {
    items
        .iter()
        .map(|item| match item {
            Value::String(path) => validate_path(path, cwd),
            object => Ok(pre_uploaded(object)),
        })
        .collect()
}

/// An object a device tool already uploaded: trusted as given, never stat'ed or uploaded again.
fn pre_uploaded(object: &Value) -> Attachment {
    Attachment {
        path: object["file_name"].as_str().unwrap_or_default().to_owned(),
        size: object["size"].as_u64().unwrap_or(0),
        is_image: object["is_image"].as_bool().unwrap_or(false),
        media_type: None,
        path_validated: false,
        file_uuid: object["file_uuid"].as_str().map(str::to_owned),
        upload_error: None,
        uploaded: Some(object.clone()),
    }
}

pub fn validate_path(raw: &str, cwd: &Path) -> Result<Attachment, String> {
    if is_url(raw) {
        return Err(format!(
            "Attachment \"{raw}\" looks like a URL, not a local file path. This tool can only send files that exist on the local filesystem — download or write the content to a local file first, then pass that path."
        ));
    }
    if is_unc(raw) {
        return Err(format!(
            "Attachment \"{raw}\" is a UNC network path, which is not supported."
        ));
    }
    if is_net_autofs(raw) {
        return Err(format!(
            "Attachment \"{raw}\" is a /net autofs -hosts path, which is not supported."
        ));
    }
    let path = resolve(raw, cwd);
    let shown = path.display().to_string();
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut message = format!(
                "Attachment \"{raw}\" does not exist. Current working directory: {}.",
                cwd.display()
            );
            if let Some(better) = suggest(raw, cwd) {
                message.push_str(&format!(" Did you mean \"{better}\"?"));
            }
            return Err(message);
        }
        Err(_) => return Err(format!("Attachment \"{raw}\" is not accessible.")),
    };
    if !meta.is_file() {
        return Err(format!("Attachment \"{raw}\" is not a regular file."));
    }
    if std::fs::File::open(&path).is_err() {
        return Err(format!("Attachment \"{raw}\" is not accessible."));
    }
    let media_type = media_type(&path);
    Ok(Attachment {
        path: shown,
        size: meta.len(),
        is_image: media_type.is_some_and(|m| m.starts_with("image/")),
        media_type,
        path_validated: true,
        file_uuid: None,
        upload_error: None,
        uploaded: None,
    })
}

fn is_url(raw: &str) -> bool {
    let Some((scheme, _)) = raw.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// UNC paths: `\\server\share` and `//server/share`.
pub fn is_unc(raw: &str) -> bool {
    raw.starts_with("\\\\") || raw.starts_with("//")
}

/// autofs `-hosts` paths under `/net`.
pub fn is_net_autofs(raw: &str) -> bool {
    raw == "/net" || raw.starts_with("/net/")
}

fn resolve(raw: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(raw);
    if p.is_absolute() {
        p.to_owned()
    } else {
        cwd.join(p)
    }
}

/// A path that exists for a missing one: the same path with a repeated cwd prefix removed (`work/x`
/// run from `/…/work`), relative to cwd as the model wrote it.
fn suggest(raw: &str, cwd: &Path) -> Option<String> {
    let name = cwd.file_name()?.to_str()?;
    let rest = raw.strip_prefix(&format!("{name}/"))?;
    cwd.join(rest).exists().then(|| rest.to_owned())
}

/// The metadata table: wider than the upload's (images, video, audio, PDF, Office, Markdown,
/// JSON, CSV, HTML, XML, ZIP).
pub fn media_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp4" => "video/mp4",
        "mov" => "video/quicktime",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" => "audio/mp4",
        "pdf" => "application/pdf",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt" => "application/vnd.ms-powerpoint",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "zip" => "application/zip",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_and_url_forms_are_recognised() {
        for raw in [
            "https://example.com/a.pdf",
            "file:///etc/passwd",
            "s3://b/k",
        ] {
            assert!(is_url(raw), "{raw}");
        }
        for raw in ["\\\\server\\share\\a.pdf", "//server/share/a.pdf"] {
            assert!(is_unc(raw), "{raw}");
        }
        assert!(is_net_autofs("/net/host/a"));
        for raw in ["a.pdf", "/network/a", "/srv/x"] {
            assert!(!is_unc(raw) && !is_net_autofs(raw) && !is_url(raw), "{raw}");
        }
    }

    #[test]
    fn a_repeated_cwd_prefix_gets_a_suggestion() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(cwd.join("out")).unwrap();
        std::fs::write(cwd.join("out/report.pdf"), b"x").unwrap();
        assert_eq!(
            suggest("work/out/report.pdf", &cwd).as_deref(),
            Some("out/report.pdf")
        );
        assert_eq!(suggest("out/reprot.pdf", &cwd), None);
        assert_eq!(suggest("work/out/gone.pdf", &cwd), None);
    }
}
