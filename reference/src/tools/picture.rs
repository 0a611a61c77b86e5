//! Pictures for the model, as 2.1.235 prepares them: told apart by their first bytes, fitted into
//! the API's bounds (pixels, then bytes), then held to the per-picture byte budget.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat};

use crate::limits;

/// The media type a file's first bytes show (PNG, JPEG, GIF, WebP), as 2.1.235 sniffs them.
pub fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.len() < 4 {
        return None;
    }
    if b.starts_with(&[0x89, b'P', b'N', b'G']) {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.len() >= 6
        && b.starts_with(b"GIF8")
        && (b[4] == b'7' || b[4] == b'9')
        && b[5] == b'a'
    {
        Some("image/gif")
    } else if b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// What a file that is not a picture looks like, for the error naming it.
pub fn describe_other(b: &[u8]) -> String {
    let head = &b[..b.len().min(32)];
    let shown: String = head
        .iter()
        .map(|&c| {
            if (0x20..=0x7e).contains(&c) {
                c as char
            } else {
                '.'
            }
        })
        .collect();
    let lower = shown.to_lowercase();
    let start: String = shown.chars().take(24).collect();
    if lower.contains("<!doctype") || lower.contains("<html") {
        format!("HTML document (starts with \"{start}\")")
    } else if lower.starts_with("<?xml") || lower.starts_with("<svg") {
        format!("XML/SVG document (starts with \"{start}\")")
    } else if lower.starts_with('{') || lower.starts_with('[') {
        format!("JSON/text (starts with \"{start}\")")
    } else if head.len() >= 4 && head[..4].eq_ignore_ascii_case(b"%pdf") {
        "PDF document".into()
    } else if head.starts_with(b"PK\x03\x04") {
        "ZIP archive (Office documents such as .pptx/.docx/.xlsx are ZIPs)".into()
    } else {
        let hex: Vec<String> = head.iter().take(8).map(|c| format!("{c:02x}")).collect();
        format!("unrecognized bytes (hex: {})", hex.join(" "))
    }
}

/// Width and height from the header alone (PNG, GIF, JPEG, WebP). Read by hand rather than by the
/// image crate: this is the fallback for pictures the decoder refuses, as 2.1.235's is, and the
/// image crate reads no header of a stream it cannot decode (see
/// `an_undecodable_picture_passes_only_within_bounds`).
pub fn header_size(b: &[u8]) -> Option<(u32, u32)> {
    if b.len() < 10 {
        return None;
    }
    let be16 = |i: usize| Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]) as u32);
    let le16 = |i: usize| Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?]) as u32);
    let le24 = |i: usize| {
        Some(u32::from_le_bytes([
            *b.get(i)?,
            *b.get(i + 1)?,
            *b.get(i + 2)?,
            0,
        ]))
    };
    if b.starts_with(&[0x89, b'P', b'N', b'G']) && b.len() >= 24 {
        let be32 = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        return Some((be32(16), be32(20)));
    }
    if b.starts_with(b"GIF") {
        return Some((le16(6)?, le16(8)?));
    }
    if b.starts_with(&[0xFF, 0xD8]) {
        let mut i = 2;
        while i + 9 < b.len() {
            if b[i] != 0xFF {
                i += 1;
                continue;
            }
            let marker = b[i + 1];
            match marker {
                0xFF => i += 1,
                0xC0..=0xCF if ![0xC4, 0xC8, 0xCC].contains(&marker) => {
                    return Some((be16(i + 7)?, be16(i + 5)?));
                }
                0xD0..=0xD9 | 0x01 => i += 2,
                _ => {
                    let len = be16(i + 2)? as usize;
                    if len < 2 {
                        return None;
                    }
                    i += 2 + len;
                }
            }
        }
        return None;
    }
    if b.len() >= 30 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP" {
        return match &b[12..16] {
            b"VP8 " => Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF)),
            b"VP8L" => {
                let bits = u32::from_le_bytes([b[21], b[22], b[23], b[24]]);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        };
    }
    None
}

/// Original and displayed size, for the model's coordinate note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    pub original: (u32, u32),
    pub display: (u32, u32),
}

/// A picture ready for the API: its bytes, their subtype (`png`, `jpeg`, …), and its sizes when
/// they were measured (a picture passed through undecoded has none).
#[derive(Debug)]
pub struct Fitted {
    pub bytes: Vec<u8>,
    pub subtype: String,
    pub dimensions: Option<Dimensions>,
}

/// Fits a picture into the API's bounds as 2.1.235 does: small enough ones pass unchanged; too
/// many bytes → recompressed (PNG, then JPEG at falling quality); too many pixels → scaled down
/// to fit, recompressed if still too many bytes. A picture that cannot be decoded passes only
/// when its header shows it within bounds; otherwise the error text says why.
pub fn fit(bytes: &[u8], subtype: &str) -> Result<Fitted, String> {
    let max_w = limits::READ_IMAGE_MAX_WIDTH.get() as u32;
    let max_h = limits::READ_IMAGE_MAX_HEIGHT.get() as u32;
    let target = limits::READ_IMAGE_TARGET_RAW_BYTES.usize();
    let subtype = if subtype == "jpg" { "jpeg" } else { subtype };
    // 2.1.235's image module does not decode GIFs: they take the undecoded path.
    let decoded = match subtype {
        "gif" => None,
        _ => image::load_from_memory(bytes).ok(),
    };
    let Some(img) = decoded else {
        return undecoded(bytes, max_w, max_h);
    };
    let (w, h) = (img.width(), img.height());
    let dims = |d: (u32, u32)| {
        Some(Dimensions {
            original: (w, h),
            display: d,
        })
    };
    let fitted = |bytes: Vec<u8>, sub: &str, d: (u32, u32)| Fitted {
        bytes,
        subtype: sub.to_owned(),
        dimensions: dims(d),
    };
    if bytes.len() <= target && w <= max_w && h <= max_h {
        return Ok(fitted(bytes.to_vec(), subtype, (w, h)));
    }
    let over = w > max_w || h > max_h;
    if !over {
        // Too many bytes at a size the API accepts: recompress at the same size.
        if let Some(smaller) = recompress(&img, subtype, target) {
            return Ok(fitted(smaller.0, smaller.1, (w, h)));
        }
    }
    let (mut d, mut p) = (w, h);
    if d > max_w {
        p = (p as f64 * max_w as f64 / d as f64).round() as u32;
        d = max_w;
    }
    if p > max_h {
        d = (d as f64 * max_h as f64 / p as f64).round() as u32;
        p = max_h;
    }
    let scaled = img.resize(d.max(1), p.max(1), image::imageops::FilterType::Lanczos3);
    let same = encode(&scaled, subtype, 80).ok_or("the image could not be encoded")?;
    if same.len() <= target {
        return Ok(fitted(same, subtype, (d, p)));
    }
    if let Some(smaller) = recompress(&scaled, subtype, target) {
        return Ok(fitted(smaller.0, smaller.1, (d, p)));
    }
    // Still too large: at most 1000 pixels wide, JPEG at the lowest quality.
    let g = d.min(1000);
    let y = (p as f64 * g as f64 / d.max(1) as f64).round() as u32;
    let last = img.resize(g.max(1), y.max(1), image::imageops::FilterType::Lanczos3);
    let jpeg = encode(&last, "jpeg", 20).ok_or("the image could not be encoded")?;
    Ok(fitted(jpeg, "jpeg", (g, y)))
}

/// Holds a picture to the per-picture byte budget (2.1.235: JPEG, quality searched by halving
/// between 1 and 90); the smallest encoding when none fits. `None` when it cannot be decoded.
pub fn within_budget(bytes: &[u8], subtype: &str, budget: usize) -> Option<Vec<u8>> {
    let img = image::load_from_memory(bytes).ok()?;
    let mut smallest = bytes.to_vec();
    let mut hi = 90;
    if !matches!(subtype, "jpeg" | "jpg") {
        let first = encode(&img, "jpeg", 90)?;
        if first.len() < smallest.len() {
            smallest = first.clone();
        }
        if first.len() <= budget {
            return Some(first);
        }
        hi = 89;
    }
    let (mut lo, mut best) = (1u8, None);
    for _ in 0..5 {
        let q = (lo + hi) / 2;
        let out = encode(&img, "jpeg", q)?;
        if out.len() < smallest.len() {
            smallest = out.clone();
        }
        if out.len() <= budget {
            best = Some(out);
            lo = q + 1;
        } else {
            hi = q.saturating_sub(1);
        }
        if lo > hi {
            break;
        }
    }
    Some(best.unwrap_or(smallest))
}

/// The bytes at the same size but fewer of them: PNG recompressed, then JPEG at 80, 60, 40, 20.
fn recompress(img: &DynamicImage, subtype: &str, target: usize) -> Option<(Vec<u8>, &'static str)> {
    if subtype == "png" {
        if let Some(png) = encode(img, "png-best", 0).filter(|b| b.len() <= target) {
            return Some((png, "png"));
        }
    }
    [80, 60, 40, 20]
        .into_iter()
        .filter_map(|q| encode(img, "jpeg", q))
        .find(|b| b.len() <= target)
        .map(|b| (b, "jpeg"))
}

/// A picture the image module cannot decode: passed through when its header shows it within
/// the pixel bounds and its base64 within the API's size limit.
fn undecoded(bytes: &[u8], max_w: u32, max_h: u32) -> Result<Fitted, String> {
    let max_b64 = limits::READ_IMAGE_MAX_BASE64_BYTES.get();
    let Some((w, h)) = header_size(bytes) else {
        return Err("Unable to resize image \u{2014} image processing is unavailable and dimensions could not be read from the file header. Please convert the image to PNG, JPEG, GIF, or WebP.".into());
    };
    let over = w > max_w || h > max_h;
    let b64 = (bytes.len() as u64 * 4).div_ceil(3);
    if b64 <= max_b64 && !over {
        let subtype = sniff(bytes)
            .unwrap_or("image/png")
            .trim_start_matches("image/");
        return Ok(Fitted {
            bytes: bytes.to_vec(),
            subtype: subtype.to_owned(),
            dimensions: None,
        });
    }
    Err(if over {
        format!("Unable to resize image \u{2014} dimensions exceed the {max_w}x{max_h}px limit and image processing failed. Please resize the image to reduce its pixel dimensions.")
    } else {
        format!(
            "Unable to resize image ({} raw, {} base64). The image exceeds the {} API limit and compression failed. Please resize the image manually or use a smaller image.",
            human_bytes(bytes.len() as u64),
            human_bytes(b64),
            human_bytes(max_b64)
        )
    })
}

/// `subtype` encoded; `quality` is JPEG's.
fn encode(img: &DynamicImage, subtype: &str, quality: u8) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    match subtype {
        "jpeg" | "jpg" => {
            let rgb = img.to_rgb8();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.max(1))
                .encode_image(&rgb)
                .ok()?;
        }
        // A scaled picture keeps the default encoding; recompressing asks for the smallest.
        "png" => img.write_to(&mut out, ImageFormat::Png).ok()?,
        "png-best" => {
            let encoder = image::codecs::png::PngEncoder::new_with_quality(
                &mut out,
                image::codecs::png::CompressionType::Best,
                image::codecs::png::FilterType::Adaptive,
            );
            img.write_with_encoder(encoder).ok()?;
        }
        "webp" => img.write_to(&mut out, ImageFormat::WebP).ok()?,
        _ => return None,
    }
    Some(out.into_inner())
}

/// A byte count as 2.1.235 prints one: `586 bytes`, `3.5KB`, `20MB`.
pub fn human_bytes(n: u64) -> String {
    let one = |v: f64, unit: &str| {
        let s = format!("{v:.1}");
        format!("{}{unit}", s.strip_suffix(".0").unwrap_or(&s))
    };
    let kb = n as f64 / 1024.0;
    if kb < 1.0 {
        return format!("{n} bytes");
    }
    if kb < 1024.0 {
        return one(kb, "KB");
    }
    let mb = kb / 1024.0;
    if mb < 1024.0 {
        return one(mb, "MB");
    }
    one(mb / 1024.0, "GB")
}

/// The note 2.1.235 adds after a picture shown smaller than it is.
pub fn coordinate_note(d: &Dimensions) -> Option<String> {
    let ((ow, oh), (dw, dh)) = (d.original, d.display);
    if ow == 0 || oh == 0 || dw == 0 || dh == 0 || (ow, oh) == (dw, dh) {
        return None;
    }
    let ratio = ow as f64 / dw as f64;
    Some(format!(
        "[Image: original {ow}x{oh}, displayed at {dw}x{dh}. Multiply coordinates by {ratio:.2} to map to original image.]"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, noise: bool) -> Vec<u8> {
        let mut seed: u32 = 7;
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            if noise {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let v = seed.to_le_bytes();
                image::Rgb([v[0], v[1], v[2]])
            } else {
                image::Rgb([(x % 256) as u8, (y % 256) as u8, 9])
            }
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn sniffing_and_describing() {
        assert_eq!(sniff(&png(2, 2, false)), Some("image/png"));
        assert_eq!(sniff(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff(b"<ht"), None);
        assert_eq!(
            describe_other(b"<!DOCTYPE html><html><body>login</body></html>"),
            "HTML document (starts with \"<!DOCTYPE html><html><bo\")"
        );
        assert_eq!(describe_other(b"%PDF-1.4"), "PDF document");
        assert_eq!(
            describe_other(&[0, 1, 2, 3, 4, 5, 6, 7, 8]),
            "unrecognized bytes (hex: 00 01 02 03 04 05 06 07)"
        );
    }

    #[test]
    fn a_small_picture_passes_unchanged_with_its_size() {
        let bytes = png(4, 3, false);
        let f = fit(&bytes, "png").unwrap();
        assert_eq!(f.bytes, bytes);
        assert_eq!(f.dimensions.unwrap().display, (4, 3));
        assert_eq!(coordinate_note(&f.dimensions.unwrap()), None);
    }

    #[test]
    fn a_wide_picture_is_scaled_into_bounds_in_its_own_format() {
        let f = fit(&png(3000, 1500, false), "png").unwrap();
        assert_eq!(f.subtype, "png");
        let d = f.dimensions.unwrap();
        assert_eq!((d.original, d.display), ((3000, 1500), (2000, 1000)));
        assert_eq!(header_size(&f.bytes), Some((2000, 1000)));
        assert_eq!(
            coordinate_note(&d).unwrap(),
            "[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]"
        );
    }

    #[test]
    fn the_byte_budget_gives_a_jpeg_within_it() {
        let noisy = png(600, 600, true);
        assert!(noisy.len() > limits::READ_IMAGE_BUDGET_BYTES.usize());
        let out = within_budget(&noisy, "png", limits::READ_IMAGE_BUDGET_BYTES.usize()).unwrap();
        assert_eq!(sniff(&out), Some("image/jpeg"));
        assert!(
            out.len() <= limits::READ_IMAGE_BUDGET_BYTES.usize(),
            "{}",
            out.len()
        );
        assert_eq!(header_size(&out), Some((600, 600)));
    }

    #[test]
    fn an_undecodable_picture_passes_only_within_bounds() {
        let mut gif = b"GIF89a".to_vec();
        gif.extend([4, 0, 3, 0, 0, 0, 0, 0]);
        let f = fit(&gif, "gif").unwrap();
        assert_eq!((f.subtype.as_str(), f.dimensions), ("gif", None));
        let mut big = b"GIF89a".to_vec();
        big.extend([0xD0, 0x07 + 1, 3, 0, 0, 0, 0, 0]);
        let e = fit(&big, "gif").unwrap_err();
        assert!(e.contains("dimensions exceed the 2000x2000px limit"), "{e}");
    }

    #[test]
    fn byte_counts_print_as_the_binary_prints_them() {
        assert_eq!(human_bytes(586), "586 bytes");
        assert_eq!(human_bytes(3544), "3.5KB");
        assert_eq!(human_bytes(20 * 1024 * 1024), "20MB");
        assert_eq!(human_bytes(100 * 1024 * 1024), "100MB");
    }
}
