//! The binary started as `rg` behaves as ripgrep 14.1.1 for the flags the Grep tool and the
//! probes use: same output bytes, same exit codes (0 match, 1 none, 2 error), same error texts.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use super::engine::{search, Mode, SearchConfig};

const NOTHING_SEARCHED: &str = "No files were searched, which means ripgrep probably applied a filter you didn't expect.\nRunning with --debug will show why files are being skipped.";

/// The release whose behaviour this mode reproduces, as the seed quotes the real binary's banner
/// (004: `ripgrep 14.1.1 (rev fdb5e06cce)`).
pub const RIPGREP_VERSION: &str = "14.1.1 (rev fdb5e06cce)";

/// Runs `rg ARGS...` (argv without argv0) and returns the exit status.
pub fn main(args: Vec<OsString>) -> i32 {
    let parsed = match parse(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("rg: {e}");
            return 2;
        }
    };
    let config = match parsed {
        Parsed::Version => {
            print!("{}", long_version());
            return 0;
        }
        Parsed::ShortVersion => {
            println!("ripgrep {RIPGREP_VERSION}");
            return 0;
        }
        Parsed::Search(config) => *config,
    };
    if config.mode != Mode::Files && config.patterns.is_empty() {
        eprintln!("rg: ripgrep requires at least one pattern to execute a search");
        return 2;
    }
    let stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout());
    match search(&config, stdout) {
        Ok((mut outcome, mut out)) => {
            let _ = out.flush();
            if config.paths.is_empty() && !outcome.searched && config.mode != Mode::Files {
                outcome.errors.push(NOTHING_SEARCHED.into());
            }
            for e in &outcome.errors {
                eprintln!("rg: {e}");
            }
            match (outcome.matched, outcome.errors.is_empty()) {
                (true, true) => 0,
                (_, false) => 2,
                (false, true) if config.mode == Mode::Files => 0,
                (false, true) => 1,
            }
        }
        Err(e) => {
            eprintln!("rg: {e:#}");
            2
        }
    }
}

enum Parsed {
    Search(Box<SearchConfig>),
    Version,
    ShortVersion,
}

/// Flags that take a value, by every name they go by.
fn value_flag(name: &str) -> Option<&'static str> {
    Some(match name {
        "-m" | "--max-count" => "max-count",
        "-A" | "--after-context" => "after-context",
        "-B" | "--before-context" => "before-context",
        "-C" | "--context" => "context",
        "-g" | "--glob" => "glob",
        "-t" | "--type" => "type",
        "-e" | "--regexp" => "regexp",
        "-j" | "--threads" => "threads",
        "-M" | "--max-columns" => "max-columns",
        "--regex-size-limit" => "regex-size-limit",
        "--sort" => "sort",
        "--max-depth" | "-d" => "max-depth",
        "--color" | "--colors" => "color",
        _ => return None,
    })
}

/// Parses an rg command line for a search run from `cwd` (the Grep and Glob tools build the
/// command line the real binary passes to its embedded rg, and run it in process).
pub fn parse_search(args: Vec<OsString>, cwd: &std::path::Path) -> anyhow::Result<SearchConfig> {
    match parse_in(args, cwd.to_owned())? {
        Parsed::Search(c) => Ok(*c),
        _ => anyhow::bail!("not a search command line"),
    }
}

fn parse(args: Vec<OsString>) -> anyhow::Result<Parsed> {
    parse_in(args, std::env::current_dir()?)
}

fn parse_in(args: Vec<OsString>, cwd: PathBuf) -> anyhow::Result<Parsed> {
    let mut c = SearchConfig {
        cwd,
        ..Default::default()
    };
    let mut positional: Vec<OsString> = Vec::new();
    let mut context: Option<usize> = None;
    let (mut before, mut after): (Option<usize>, Option<usize>) = (None, None);
    let mut args = args.into_iter();
    let mut flags_done = false;
    while let Some(arg) = args.next() {
        let s = arg.to_string_lossy().into_owned();
        if flags_done || s == "-" || !s.starts_with('-') {
            positional.push(arg);
            continue;
        }
        if s == "--" {
            flags_done = true;
            continue;
        }
        // (name, inline value) for each flag in this argument.
        let mut flags: Vec<(String, Option<String>)> = Vec::new();
        if let Some(long) = s.strip_prefix("--") {
            match long.split_once('=') {
                Some((n, v)) => flags.push((format!("--{n}"), Some(v.to_owned()))),
                None => flags.push((format!("--{long}"), None)),
            }
        } else {
            let chars: Vec<char> = s[1..].chars().collect();
            let mut i = 0;
            while i < chars.len() {
                let name = format!("-{}", chars[i]);
                if value_flag(&name).is_some() {
                    let rest: String = chars[i + 1..].iter().collect();
                    flags.push((name, (!rest.is_empty()).then_some(rest)));
                    break;
                }
                flags.push((name, None));
                i += 1;
            }
        }
        for (name, inline) in flags {
            if let Some(canonical) = value_flag(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => args
                        .next()
                        .map(|v| v.to_string_lossy().into_owned())
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "missing value for flag {name}: missing argument for option '{name}'"
                            )
                        })?,
                };
                let number = |v: &str| -> anyhow::Result<u64> {
                    v.parse::<u64>().map_err(|e| {
                        anyhow::anyhow!(
                            "error parsing flag {name}: value is not a valid number: {e}"
                        )
                    })
                };
                match canonical {
                    "max-count" => c.max_count = Some(number(&value)?),
                    "after-context" => after = Some(number(&value)? as usize),
                    "before-context" => before = Some(number(&value)? as usize),
                    "context" => context = Some(number(&value)? as usize),
                    "glob" => c.globs.push(value),
                    "type" => c.types.push(value),
                    "regexp" => c.patterns.push(value),
                    "threads" => c.threads = Some(number(&value)? as usize).filter(|n| *n > 0),
                    "max-columns" => c.max_columns = Some(number(&value)?).filter(|n| *n > 0),
                    "regex-size-limit" => {
                        c.regex_size_limit = Some(human_size(&value).map_err(|e| {
                            anyhow::anyhow!(
                                "error parsing flag --regex-size-limit: invalid size: {e}"
                            )
                        })?)
                    }
                    "sort" => match value.as_str() {
                        "path" => c.sort_by_path = true,
                        "modified" => c.sort_by_modified = true,
                        _ => {}
                    },
                    "max-depth" => c.max_depth = Some(number(&value)? as usize),
                    _ => {} // --color: output is never coloured here
                }
                continue;
            }
            match name.as_str() {
                "--version" => return Ok(Parsed::Version),
                "-V" => return Ok(Parsed::ShortVersion),
                "-n" | "--line-number" => c.line_number = Some(true),
                "-N" | "--no-line-number" => c.line_number = Some(false),
                "-i" | "--ignore-case" => c.case_insensitive = true,
                "-s" | "--case-sensitive" => c.case_insensitive = false,
                "-F" | "--fixed-strings" => c.fixed_strings = true,
                "-l" | "--files-with-matches" => c.mode = Mode::FilesWithMatches,
                "-c" | "--count" => c.mode = Mode::Count,
                "--files" => c.mode = Mode::Files,
                "-H" | "--with-filename" => c.with_filename = Some(true),
                "-I" | "--no-filename" => c.with_filename = Some(false),
                "-U" | "--multiline" => c.multiline = true,
                "--multiline-dotall" => c.multiline_dotall = true,
                "--hidden" | "-." => c.hidden = true,
                "--no-ignore" => c.no_ignore = true,
                "-o" | "--only-matching" => c.only_matching = true,
                "--no-heading" | "--no-config" | "--no-messages" => {}
                other => match other.strip_prefix("--") {
                    Some(long) => anyhow::bail!("unrecognized flag --{long}"),
                    None => anyhow::bail!("unrecognized flag {other}"),
                },
            }
        }
    }
    // -A/-B win over -C for their own side, whatever the order.
    c.before_context = before.or(context).unwrap_or(0);
    c.after_context = after.or(context).unwrap_or(0);
    let mut positional = positional.into_iter();
    if c.patterns.is_empty() && c.mode != Mode::Files {
        if let Some(p) = positional.next() {
            c.patterns.push(p.to_string_lossy().into_owned());
        }
    }
    c.paths = positional.map(PathBuf::from).collect();
    Ok(Parsed::Search(Box::new(c)))
}

/// `1K`, `10M`, `2G` or a plain byte count.
fn human_size(v: &str) -> Result<usize, String> {
    let (digits, unit) = match v.char_indices().find(|(_, ch)| !ch.is_ascii_digit()) {
        Some((i, _)) => (&v[..i], &v[i..]),
        None => (v, ""),
    };
    let n: usize = digits.parse().map_err(|_| format!("invalid size '{v}'"))?;
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return Err(format!("invalid size '{v}'")),
    };
    n.checked_shl(shift)
        .ok_or_else(|| format!("size too big in '{v}'"))
}

/// `rg --version`, laid out as ripgrep 14.1.1 prints it; the feature lines say what this build
/// has (no PCRE2), not what the real binary's has.
fn long_version() -> String {
    let sign = |b: bool| if b { "+" } else { "-" };
    let mut out = format!("ripgrep {RIPGREP_VERSION}\n\nfeatures:-pcre2\n");
    #[cfg(target_arch = "x86_64")]
    {
        out.push_str(&format!(
            "simd(compile):{}SSE2,{}SSSE3,{}AVX2\n",
            sign(cfg!(target_feature = "sse2")),
            sign(cfg!(target_feature = "ssse3")),
            sign(cfg!(target_feature = "avx2"))
        ));
        out.push_str(&format!(
            "simd(runtime):{}SSE2,{}SSSE3,{}AVX2\n",
            sign(is_x86_feature_detected!("sse2")),
            sign(is_x86_feature_detected!("ssse3")),
            sign(is_x86_feature_detected!("avx2"))
        ));
    }
    out.push_str("\nPCRE2 is not available in this build of ripgrep.\n");
    out
}
