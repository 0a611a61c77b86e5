//! Read of pictures and PDFs (seed 004 §Read: "图片/PDF … 进入各自解码路径"), in the shapes
//! 2.1.235 sends: a picture as an image block inside the tool_result; a PDF as a one-line
//! tool_result followed by a document block, or, with `pages`, by one picture per page. What
//! follows the result goes into `ToolContext::after_result`. Neither is recorded as read (the
//! Read-before-write gate stays shut for them, as in 2.1.235).

use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Value};

use super::pdf_pages::{self, Pages};
use super::picture::{self, human_bytes};
use super::{ToolContext, ToolError, ToolOutput};
use crate::limits;

const PICTURE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];

/// Extensions 2.1.235 refuses as binary before reading (pictures and PDFs excepted).
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "tiff", "tif", "mp4", "mov", "avi", "mkv",
    "webm", "wmv", "flv", "m4v", "mpeg", "mpg", "mp3", "wav", "ogg", "flac", "aac", "m4a", "wma",
    "aiff", "opus", "zip", "tar", "gz", "bz2", "7z", "rar", "xz", "z", "tgz", "iso", "exe", "dll",
    "so", "dylib", "bin", "o", "a", "obj", "lib", "app", "msi", "deb", "rpm", "pdf", "doc", "docx",
    "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "ttf", "otf", "woff", "woff2", "eot", "pyc",
    "pyo", "class", "jar", "war", "ear", "node", "wasm", "rlib", "sqlite", "sqlite3", "db", "mdb",
    "idx", "psd", "ai", "eps", "sketch", "fig", "xd", "blend", "3ds", "max", "swf", "fla", "lockb",
    "dat", "data",
];

pub enum Media {
    Picture,
    Pdf,
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Which decoding path a file takes: by extension, or by its first bytes when it has none.
pub fn media_of(path: &Path) -> Option<Media> {
    let ext = extension(path);
    if PICTURE_EXTENSIONS.contains(&ext.as_str()) {
        return Some(Media::Picture);
    }
    if ext == "pdf" {
        return Some(Media::Pdf);
    }
    if ext.is_empty() && path.is_file() {
        let mut head = [0u8; 16];
        let n = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        if picture::sniff(&head[..n]).is_some() {
            return Some(Media::Picture);
        }
    }
    None
}

/// 2.1.235's checks before a Read runs, in its order: the `pages` value, then a binary
/// extension with no decoding path. The message is shown as a tool error.
pub fn validate(input: &Value, path: &Path) -> Option<String> {
    if let Some(pages) = input.get("pages").and_then(Value::as_str) {
        let max = limits::READ_PDF_MAX_PAGES_PER_READ.get();
        match Pages::parse(pages) {
            None => {
                return Some(format!("Invalid pages parameter: \"{pages}\". Use formats like \"1-5\", \"3\", or \"10-20\". Pages are 1-indexed."));
            }
            Some(range) if range.count() > max => {
                return Some(format!("Page range \"{pages}\" exceeds maximum of {max} pages per request. Please use a smaller range."));
            }
            Some(_) => {}
        }
    }
    let ext = extension(path);
    if !ext.is_empty() && BINARY_EXTENSIONS.contains(&ext.as_str()) && media_of(path).is_none() {
        return Some(format!("This tool cannot read binary files. The file appears to be a binary .{ext} file. Please use appropriate tools for binary file analysis."));
    }
    None
}

pub fn read(
    media: Media,
    path: &Path,
    input: &Value,
    ctx: &mut ToolContext,
) -> Result<ToolOutput, ToolError> {
    match media {
        Media::Picture => read_picture(path, ctx),
        Media::Pdf => match input.get("pages").and_then(Value::as_str) {
            Some(pages) => read_pages(path, Pages::parse(pages), ctx),
            None => read_pdf(path, ctx),
        },
    }
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn read_picture(path: &Path, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ToolError::plain(e.to_string()))?;
    if bytes.is_empty() {
        return Err(ToolError::plain(format!("Image file is empty: {shown}")));
    }
    let Some(media_type) = picture::sniff(&bytes) else {
        return Err(ToolError::plain(format!(
            "File has an image extension but its content is not a valid PNG/JPEG/GIF/WebP. Detected: {}. This usually means a download saved an error/login page instead of the image. Use `file \"{shown}\"` to confirm, or read it as text with Bash (e.g. `head -c 500`).",
            picture::describe_other(&bytes)
        )));
    };
    let subtype = media_type.trim_start_matches("image/");
    let fitted = picture::fit(&bytes, subtype).map_err(ToolError::plain)?;
    let (mut data, mut subtype) = (fitted.bytes, fitted.subtype);
    let budget = limits::READ_IMAGE_BUDGET_BYTES.usize();
    if data.len() > budget {
        match picture::within_budget(&data, &subtype, budget) {
            Some(smaller) => {
                data = smaller;
                subtype = "jpeg".into();
            }
            // 2.1.235 falls back to the file as it is, without its sizes.
            None => {
                data = bytes.clone();
                subtype = media_type.trim_start_matches("image/").into();
            }
        }
    }
    let encoded = b64(&data);
    let media_type = format!("image/{subtype}");
    let mut file = json!({"base64": encoded, "type": media_type, "originalSize": bytes.len()});
    if let Some(d) = &fitted.dimensions {
        file["dimensions"] = json!({
            "originalWidth": d.original.0, "originalHeight": d.original.1,
            "displayWidth": d.display.0, "displayHeight": d.display.1,
        });
        if let Some(note) = picture::coordinate_note(d) {
            ctx.after_result.push(json!({"type": "text", "text": note}));
        }
    }
    let block = json!({"type": "image", "source": {"type": "base64", "data": encoded, "media_type": media_type}});
    Ok(ToolOutput {
        content: String::new(),
        structured: json!({"type": "image", "file": file}),
        is_error: None,
        blocks: Some(json!([block])),
    })
}

fn read_pdf(path: &Path, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
    let shown = path.display().to_string();
    let whole_max = limits::READ_PDF_MAX_PAGES_WHOLE.get();
    if let Some(n) = pdf_pages::page_count(path).filter(|&n| n > whole_max) {
        return Err(ToolError::plain(format!(
            "This PDF has {n} pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: \"1-5\"). Maximum {} pages per request.",
            limits::READ_PDF_MAX_PAGES_PER_READ.get()
        )));
    }
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size == 0 {
        return Err(ToolError::plain(format!("PDF file is empty: {shown}")));
    }
    let max = limits::READ_PDF_MAX_BYTES.get();
    if size > max {
        return Err(ToolError::plain(format!(
            "PDF file exceeds maximum allowed size of {}.",
            human_bytes(max)
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| ToolError::plain(e.to_string()))?;
    if !bytes.starts_with(b"%PDF-") {
        return Err(ToolError::plain(format!(
            "File is not a valid PDF (missing %PDF- header): {shown}"
        )));
    }
    let encoded = b64(&bytes);
    ctx.after_result.push(json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": encoded}}));
    Ok(ToolOutput {
        content: format!("PDF file read: {shown} ({})", human_bytes(size)),
        structured: json!({"type": "pdf", "file": {"filePath": shown, "base64": encoded, "originalSize": size}}),
        is_error: None,
        blocks: None,
    })
}

fn read_pages(
    path: &Path,
    pages: Option<Pages>,
    ctx: &mut ToolContext,
) -> Result<ToolOutput, ToolError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| ToolError::plain(e.to_string()))?;
    if !meta.is_file() {
        return Err(ToolError::plain(format!(
            "Path is not a regular file: {shown}"
        )));
    }
    let dir = crate::environment::project_dir(&ctx.home, &ctx.cwd)
        .join(&ctx.session_id)
        .join("tool-results")
        .join(format!("pdf-{}", uuid::Uuid::new_v4()));
    let files = pdf_pages::render(path, meta.len(), pages, &dir).map_err(ToolError::plain)?;
    let budget = limits::READ_IMAGE_BUDGET_BYTES.usize();
    let mut blocks = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).map_err(|e| ToolError::plain(e.to_string()))?;
        let block = match picture::fit(&bytes, "jpeg") {
            Ok(fitted) => {
                let data = if fitted.bytes.len() > budget {
                    picture::within_budget(&fitted.bytes, &fitted.subtype, budget)
                        .unwrap_or(fitted.bytes)
                } else {
                    fitted.bytes
                };
                let media_type = picture::sniff(&data).unwrap_or("image/png");
                json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64(&data)}})
            }
            Err(why) => {
                json!({"type": "text", "text": format!("[Image could not be processed: {why}]")})
            }
        };
        blocks.push(block);
    }
    ctx.after_result.append(&mut blocks);
    Ok(ToolOutput {
        content: format!(
            "PDF pages extracted: {} page(s) from {shown} ({})",
            files.len(),
            human_bytes(meta.len())
        ),
        structured: json!({"type": "parts", "file": {"filePath": shown, "originalSize": meta.len(), "outputDir": dir.display().to_string(), "count": files.len()}}),
        is_error: None,
        blocks: None,
    })
}
