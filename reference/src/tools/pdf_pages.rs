//! PDF pages as pictures through poppler's `pdftoppm`, and the page count through `pdfinfo`, as
//! 2.1.235 runs them (found on PATH; a missing pdftoppm is an error naming the package).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;

use crate::limits;

/// A `pages` value: 1-based, `last` `None` for an open end (`"3-"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pages {
    pub first: u64,
    pub last: Option<u64>,
}

impl Pages {
    /// 2.1.235's parse: `"3"`, `"1-5"`, `"10-"`; numbers read as JavaScript's parseInt reads them.
    pub fn parse(s: &str) -> Option<Pages> {
        let t = s.trim();
        if t.is_empty() {
            return None;
        }
        if let Some(head) = t.strip_suffix('-') {
            let first = parse_int(head).filter(|&n| n >= 1)?;
            return Some(Pages {
                first: first as u64,
                last: None,
            });
        }
        let Some(dash) = t.find('-') else {
            let n = parse_int(t).filter(|&n| n >= 1)? as u64;
            return Some(Pages {
                first: n,
                last: Some(n),
            });
        };
        let first = parse_int(&t[..dash])?;
        let last = parse_int(&t[dash + 1..])?;
        if first < 1 || last < 1 || last < first {
            return None;
        }
        Some(Pages {
            first: first as u64,
            last: Some(last as u64),
        })
    }

    /// How many pages the range asks for; an open end counts as one more than allowed.
    pub fn count(&self) -> u64 {
        match self.last {
            None => limits::READ_PDF_MAX_PAGES_PER_READ.get() + 1,
            Some(last) => last - self.first + 1,
        }
    }

    fn label(&self) -> String {
        match self.last {
            None => format!("pages {}-", self.first),
            Some(last) if last == self.first => format!("page {last}"),
            Some(last) => format!("pages {}-{last}", self.first),
        }
    }
}

/// JavaScript's `parseInt(s, 10)`: leading blanks, a sign, then as many digits as there are.
fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    Some(sign * digits.parse::<i64>().unwrap_or(i64::MAX))
}

/// A program's exit code, stdout and stderr; `None` when it could not start (not installed).
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(program: &str, args: &[String], timeout: Duration) -> Option<Ran> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    // Both pipes drained on their own threads, so a chatty child never blocks on a full pipe.
    fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    }
    let out = drain(child.stdout.take()?);
    let err = drain(child.stderr.take()?);
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                break child.wait().ok()?;
            }
        }
    };
    Some(Ran {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// The page count `pdfinfo` reports, if it runs and says.
pub fn page_count(path: &Path) -> Option<u64> {
    let ran = run(
        "pdfinfo",
        &[path.display().to_string()],
        limits::READ_PDFINFO_TIMEOUT.duration(),
    )?;
    if ran.code != 0 {
        return None;
    }
    let re = Regex::new(r"(?m)^Pages:\s+(\d+)").expect("valid regex");
    re.captures(&ran.stdout)?[1].parse().ok()
}

fn available() -> bool {
    // 2.1.235: exit 0, or any other status than "not found" with something on stderr.
    run(
        "pdftoppm",
        &["-v".into()],
        limits::READ_PDFTOPPM_PROBE_TIMEOUT.duration(),
    )
    .is_some_and(|r| r.code == 0 || (r.code != 127 && !r.stderr.is_empty()))
}

/// Renders `pages` (all when `None`) into JPEGs under `dir`; the pages' files in order, or the
/// error text the model sees.
pub fn render(
    path: &Path,
    size: u64,
    pages: Option<Pages>,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let shown = path.display().to_string();
    if size == 0 {
        return Err(format!("PDF file is empty: {shown}"));
    }
    let max = limits::READ_PDF_EXTRACT_MAX_BYTES.get();
    if size > max {
        return Err(format!(
            "PDF file exceeds maximum allowed size for text extraction ({}).",
            super::picture::human_bytes(max)
        ));
    }
    if !available() {
        return Err("pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or `apt-get install poppler-utils`) to enable PDF page rendering.".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut args: Vec<String> = vec![
        "-jpeg".into(),
        "-r".into(),
        limits::READ_PDF_RENDER_DPI.get().to_string(),
    ];
    if let Some(p) = pages {
        args.extend(["-f".into(), p.first.to_string()]);
        if let Some(last) = p.last {
            args.extend(["-l".into(), last.to_string()]);
        }
    }
    args.extend([shown.clone(), dir.join("page").display().to_string()]);
    let ran = run("pdftoppm", &args, limits::READ_PDFTOPPM_TIMEOUT.duration())
        .ok_or_else(|| "pdftoppm failed: it could not be started".to_owned())?;
    if ran.code != 0 {
        return Err(failure(&ran.stderr, &shown, pages));
    }
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    pages.sort();
    if pages.is_empty() {
        return Err("pdftoppm produced no output pages. The PDF may be invalid.".into());
    }
    Ok(pages)
}

/// The text for a pdftoppm failure, by what its stderr says (2.1.235's classification).
fn failure(stderr: &str, path: &str, pages: Option<Pages>) -> String {
    if stderr.to_lowercase().contains("password") {
        return "PDF is password-protected. Please provide an unprotected version.".into();
    }
    let range =
        Regex::new(r"(?i)Wrong page range given.*last page \((\d+)\)").expect("valid regex");
    if let Some(c) = range.captures(stderr) {
        let total: u64 = c[1].parse().unwrap_or(0);
        if total == 0 {
            return "PDF reports 0 pages (empty page tree). The PDF may be invalid.".into();
        }
        let max = limits::READ_PDF_MAX_PAGES_PER_READ.get();
        let label = pages.map_or("page range".into(), |p| p.label());
        let noun = if total == 1 { "page" } else { "pages" };
        return format!(
            "Requested {label} is outside the document (PDF has {total} {noun}). Use a range within 1-{total}, maximum {max} pages per request (e.g. pages: \"1-{}\").",
            total.min(max)
        );
    }
    let broken = Regex::new(r"(?i)damaged|corrupt|invalid|Syntax Error(?: \(\d+\))?: Couldn't (?:find trailer dictionary|read xref table)").expect("valid regex");
    if broken.is_match(stderr) {
        return "PDF file is corrupted or invalid.".into();
    }
    let first = stderr.split('\n').next().unwrap_or_default();
    let tool_error =
        Regex::new(r"^(Command Line Error|Internal Error)(?: \(\d+\))?: ").expect("valid regex");
    if ((first.starts_with("I/O Error: ") && first.contains(&format!("'{path}'")))
        || first.starts_with("Permission Error: "))
        && !stderr.split('\n').any(|l| tool_error.is_match(l))
    {
        return format!("Could not render PDF: {first}");
    }
    format!("pdftoppm failed: {stderr}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_parse_as_the_binary_parses_them() {
        let p = |s| Pages::parse(s);
        assert_eq!(
            p("3"),
            Some(Pages {
                first: 3,
                last: Some(3)
            })
        );
        assert_eq!(
            p(" 2-4 "),
            Some(Pages {
                first: 2,
                last: Some(4)
            })
        );
        assert_eq!(
            p("11-"),
            Some(Pages {
                first: 11,
                last: None
            })
        );
        assert_eq!(
            p("1x"),
            Some(Pages {
                first: 1,
                last: Some(1)
            })
        );
        for bad in ["", "abc", "0", "5-3", "-2", "1--3", "0-"] {
            assert_eq!(p(bad), None, "{bad}");
        }
        assert_eq!(p("3-").unwrap().count(), 21);
        assert_eq!(p("1-20").unwrap().count(), 20);
    }

    #[test]
    fn failures_are_told_apart_by_stderr() {
        let range = Some(Pages {
            first: 13,
            last: Some(15),
        });
        assert_eq!(
            failure("Wrong page range given: the first page (13) can not be after the last page (12).\n", "/a.pdf", range),
            "Requested pages 13-15 is outside the document (PDF has 12 pages). Use a range within 1-12, maximum 20 pages per request (e.g. pages: \"1-12\")."
        );
        assert_eq!(
            failure(
                "Wrong page range given: the first page (1) can not be after the last page (0).",
                "/a.pdf",
                range
            ),
            "PDF reports 0 pages (empty page tree). The PDF may be invalid."
        );
        assert!(
            failure("Command Line Error: Incorrect password", "/a", None)
                .starts_with("PDF is password-protected")
        );
        assert_eq!(
            failure("Syntax Error: Couldn't read xref table", "/a", None),
            "PDF file is corrupted or invalid."
        );
        assert_eq!(
            failure("I/O Error: Couldn't open file '/a.pdf'", "/a.pdf", None),
            "Could not render PDF: I/O Error: Couldn't open file '/a.pdf'"
        );
        assert_eq!(failure("odd", "/a", None), "pdftoppm failed: odd");
    }
}
