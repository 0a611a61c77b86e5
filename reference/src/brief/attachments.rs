//! SendUserMessage attachments: the path checks that run before any byte is read, in the
//! documented order (URL, UNC and `/net` network paths, resolution against cwd, a regular file,
//! a missing file with cwd and a suggestion, an inaccessible one), the wide metadata MIME table,
//! and pre-uploaded objects, which skip every local check. Texts and the suggestion rules are
//! 2.1.235's (the seed names the checks, not their words).

use std::path::{Component, Path, PathBuf};

use serde_json::{json, Map, Value};

/// One attachment after validation, as the tool result's metadata describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub path: String,
    pub size: u64,
    pub is_image: bool,
    pub media_type: Option<String>,
    /// False for a pre-uploaded object: no local file was looked at.
    pub path_validated: bool,
    pub file_uuid: Option<String>,
    pub upload_error: Option<String>,
}

impl Attachment {
    pub fn needs_upload(&self) -> bool {
        self.path_validated && self.file_uuid.is_none()
    }

    /// The `tool_use_result` entry, keys in 2.1.235's order.
    pub fn json(&self) -> Value {
        let mut out = Map::new();
        out.insert("path".into(), json!(self.path));
        out.insert("size".into(), json!(self.size));
        out.insert("isImage".into(), json!(self.is_image));
        let media_type = self.media_type.as_ref().map(|m| json!(m));
        if self.path_validated {
            out.extend(media_type.map(|m| ("media_type".to_owned(), m)));
            out.insert("pathValidated".into(), json!(true));
            out.extend(
                self.file_uuid
                    .as_ref()
                    .map(|u| ("file_uuid".to_owned(), json!(u))),
            );
        } else {
            out.extend(
                self.file_uuid
                    .as_ref()
                    .map(|u| ("file_uuid".to_owned(), json!(u))),
            );
            out.extend(media_type.map(|m| ("media_type".to_owned(), m)));
            out.insert("pathValidated".into(), json!(false));
        }
        if let Some(error) = &self.upload_error {
            out.insert("upload_error".into(), json!(error));
        }
        Value::Object(out)
    }
}

/// Checks every path attachment in order; the first failure is the tool's error and nothing is
/// uploaded. Pre-uploaded objects are skipped here and trusted as given.
pub fn validate_all(items: &[Value], cwd: &Path) -> Result<Vec<Attachment>, String> {
    for item in items {
        if let Value::String(raw) = item {
            check_path(raw, cwd)?;
        }
    }
    items
        .iter()
        .map(|item| match item {
            Value::String(raw) => describe(raw, cwd),
            object => Ok(pre_uploaded(object)),
        })
        .collect()
}

/// An object a device tool already uploaded: no stat, no upload, `pathValidated: false`.
fn pre_uploaded(object: &Value) -> Attachment {
    let name = object["file_name"].as_str().unwrap_or_default().to_owned();
    Attachment {
        media_type: object["media_type"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| media_type(Path::new(&name)).map(str::to_owned)),
        path: name,
        size: object["size"].as_u64().unwrap_or(0),
        is_image: object["is_image"].as_bool().unwrap_or(false),
        path_validated: false,
        file_uuid: object["file_uuid"].as_str().map(str::to_owned),
        upload_error: None,
    }
}

/// The checks of one path attachment, with the error text the model gets.
fn check_path(raw: &str, cwd: &Path) -> Result<(), String> {
    if is_url(raw) {
        return Err(format!(
            "Attachment \"{raw}\" looks like a URL, not a local file path. This tool can only send files that exist on the local filesystem — download or write the content to a local file first, then pass that path."
        ));
    }
    let path = resolve(raw, cwd);
    if is_unc(raw) {
        return Err(format!(
            "Attachment \"{raw}\" is a UNC network path, which is not supported."
        ));
    }
    if is_net_autofs(&path) {
        return Err(format!(
            "Attachment \"{raw}\" is a /net autofs -hosts path, which is not supported."
        ));
    }
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => Err(format!("Attachment \"{raw}\" is not a regular file.")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let hint = suggest(raw, &path, cwd)
                .map(|s| format!(" Did you mean \"{s}\"?"))
                .unwrap_or_default();
            Err(format!(
                "Attachment \"{raw}\" does not exist. Current working directory: {}.{hint}",
                cwd.display()
            ))
        }
        Err(e) => Err(format!(
            "Attachment \"{raw}\" is not accessible ({}).",
            errno_name(&e)
        )),
    }
}

/// A checked path attachment's metadata.
fn describe(raw: &str, cwd: &Path) -> Result<Attachment, String> {
    let path = resolve(raw, cwd);
    let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    Ok(Attachment {
        is_image: is_image(&path),
        media_type: media_type(&path).map(str::to_owned),
        path: path.display().to_string(),
        size: meta.len(),
        path_validated: true,
        file_uuid: None,
        upload_error: None,
    })
}

/// A scheme of two or more characters before `://`.
fn is_url(raw: &str) -> bool {
    let Some((scheme, _)) = raw.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.len() >= 2
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
}

/// UNC paths: `\\server\share` and `//server/share`, judged on the path as written (the seed
/// refuses them on every platform).
pub fn is_unc(raw: &str) -> bool {
    let b = raw.as_bytes();
    b.len() >= 2 && matches!(b[0], b'/' | b'\\') && matches!(b[1], b'/' | b'\\')
}

/// autofs `-hosts` paths: the normalized absolute path's first component is `net` (any case) and
/// a host follows.
pub fn is_net_autofs(path: &Path) -> bool {
    let mut parts = path.components().filter_map(|c| match c {
        Component::Normal(p) => p.to_str(),
        _ => None,
    });
    path.is_absolute()
        && parts.next().is_some_and(|p| p.eq_ignore_ascii_case("net"))
        && parts.next().is_some()
}

/// `raw` against cwd, `.` and `..` resolved lexically as path.resolve does.
fn resolve(raw: &str, cwd: &Path) -> PathBuf {
    let joined = cwd.join(raw);
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What a missing path probably meant, tried in 2.1.235's order: the same path under cwd when it
/// was written from cwd's parent; the path without a repeated cwd name (`work/x` from `/…/work`,
/// relative as written); a file of the same name with another extension (its name only).
fn suggest(raw: &str, path: &Path, cwd: &Path) -> Option<String> {
    if let Some(parent) = cwd.parent() {
        let real = path
            .parent()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .map(|d| d.join(path.file_name().unwrap_or_default()))
            .unwrap_or_else(|| path.to_owned());
        if real.starts_with(parent) && !real.starts_with(cwd) {
            let inside = cwd.join(real.strip_prefix(parent).ok()?);
            if inside.exists() {
                return Some(inside.display().to_string());
            }
        }
    }
    if !Path::new(raw).is_absolute() {
        let mut parts = raw.split(['/', '\\']).filter(|p| !p.is_empty());
        let first = parts.next();
        let rest: Vec<&str> = parts.collect();
        let cwd_name = cwd.file_name().and_then(|n| n.to_str());
        if first.is_some() && first == cwd_name && !rest.is_empty() {
            let candidate = rest.iter().fold(cwd.to_owned(), |p, r| p.join(r));
            if candidate.is_file() {
                return Some(rest.join("/"));
            }
        }
    }
    let stem = path.file_stem()?;
    let mut names: Vec<String> = std::fs::read_dir(path.parent()?)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| Path::new(&e.file_name()).file_stem() == Some(stem))
        .filter(|e| e.path() != path)
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names.into_iter().next()
}

/// The errno name Node reports (`EACCES`, `ENOTDIR`, …).
fn errno_name(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EACCES) => "EACCES".into(),
        Some(libc::EPERM) => "EPERM".into(),
        Some(libc::ENOTDIR) => "ENOTDIR".into(),
        Some(libc::ELOOP) => "ELOOP".into(),
        Some(libc::ENAMETOOLONG) => "ENAMETOOLONG".into(),
        Some(libc::EIO) => "EIO".into(),
        Some(n) => format!("errno {n}"),
        None => e.kind().to_string(),
    }
}

/// The images the metadata flags as such.
fn is_image(path: &Path) -> bool {
    matches!(
        extension(path).as_deref(),
        Some("png" | "jpg" | "jpeg" | "gif" | "webp")
    )
}

fn extension(path: &Path) -> Option<String> {
    Some(path.extension()?.to_str()?.to_ascii_lowercase())
}

/// The metadata table: wider than the upload's (images, video, audio, PDF, text, Office, ZIP).
pub fn media_type(path: &Path) -> Option<&'static str> {
    Some(match extension(path)?.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "avif" => "image/avif",
        "tif" | "tiff" => "image/tiff",
        "mp4" => "video/mp4",
        "m4v" => "video/x-m4v",
        "mov" => "video/quicktime",
        "webm" => "video/webm",
        "avi" => "video/x-msvideo",
        "mkv" => "video/x-matroska",
        "mp3" => "audio/mpeg",
        "m4a" => "audio/mp4",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "aac" => "audio/aac",
        "flac" => "audio/flac",
        "pdf" => "application/pdf",
        "txt" | "log" => "text/plain",
        "md" => "text/markdown",
        "json" => "application/json",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
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
        assert!(
            !is_url("a://b"),
            "a one-letter scheme is a drive letter, not a URL"
        );
        for raw in ["\\\\server\\share\\a.pdf", "//server/share/a.pdf", "/\\x"] {
            assert!(is_unc(raw), "{raw}");
        }
        for path in ["/net/host/a", "/NET/h", "/x/../net/h/a"] {
            assert!(is_net_autofs(&resolve(path, Path::new("/"))), "{path}");
        }
        for path in ["/net", "/network/a", "/srv/net/x"] {
            assert!(!is_net_autofs(&resolve(path, Path::new("/"))), "{path}");
        }
    }

    #[test]
    fn suggestions_follow_the_three_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let cwd = root.join("work");
        std::fs::create_dir_all(cwd.join("out")).unwrap();
        std::fs::write(cwd.join("out/report.pdf"), b"x").unwrap();
        let check = |raw: &str| suggest(raw, &resolve(raw, &cwd), &cwd);
        assert_eq!(
            check("work/out/report.pdf").as_deref(),
            Some("out/report.pdf")
        );
        let from_parent = root.join("out/report.pdf").display().to_string();
        assert_eq!(
            check(&from_parent),
            Some(cwd.join("out/report.pdf").display().to_string())
        );
        assert_eq!(check("out/report.txt").as_deref(), Some("report.pdf"));
        assert_eq!(check("out/reprot.pdf"), None);
    }
}
