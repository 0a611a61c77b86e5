//! The grep benchmark: the reference's `rg` mode, ripgrep 14.1.1 (built from crates.io into the
//! cache by this task) and the real binary's embedded rg, on one deterministic offline corpus, in
//! one run. Every contender must print the same number of lines before its time counts (as
//! ripgrep's benchsuite checks).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;

use super::measure::{self, median};

#[derive(Args)]
pub struct GrepArgs {
    /// Write the figures as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Timed runs per contender and case (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Size of the generated single file, in MiB.
    #[arg(long, default_value_t = 1024)]
    big_mib: u64,
    /// The real binary to include (skipped when it cannot be installed).
    #[arg(long, default_value = "claude@2.1.235")]
    real: String,
}

/// The patterns of the issue: a literal, a case-insensitive literal, an alternation, a class
/// pattern, and one that never matches.
const PATTERNS: &[(&str, &[&str])] = &[
    ("literal", &["Result"]),
    ("literal -i", &["-i", "result"]),
    ("alternation", &["Serialize|Deserialize|Display"]),
    ("class", &[r"\w+Error"]),
    ("no match", &["QQZZ_nothing_matches_this_QQZZ"]),
];

struct Contender {
    name: String,
    program: PathBuf,
    argv0: &'static str,
}

pub fn run(args: GrepArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let corpus = root.join("target/bench-corpus");
    std::fs::create_dir_all(&corpus)?;
    let vendor = vendor_corpus(&root, &corpus)?;
    let big = big_file(&vendor, &corpus, args.big_mib)?;
    let big_name = big
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .into_owned();

    let mut contenders = vec![Contender {
        name: "ripgrep 14.1.1".into(),
        program: install_ripgrep()?,
        argv0: "rg",
    }];
    contenders.push(Contender {
        name: "reference rg mode".into(),
        program: super::release_reference(&root)?,
        argv0: "rg",
    });
    match probes::Target::resolve_claude(&args.real, &probes::target::default_cache()) {
        Ok(t) => contenders.push(Contender {
            name: format!("{} embedded rg", t.name),
            program: t.program,
            argv0: "rg",
        }),
        Err(e) => eprintln!("note: {} left out: {e:#}", args.real),
    }

    let cases: Vec<(String, Vec<String>, PathBuf)> = PATTERNS
        .iter()
        .flat_map(|(name, pat)| {
            let pat: Vec<String> = pat.iter().map(|s| s.to_string()).collect();
            [
                (
                    format!("vendor/ {name}"),
                    [vec!["-n".into()], pat.clone(), vec!["vendor".into()]].concat(),
                    corpus.clone(),
                ),
                (
                    format!("big file {name}"),
                    [vec!["-n".into()], pat, vec![big_name.clone()]].concat(),
                    corpus.clone(),
                ),
            ]
        })
        .collect();

    let machine = machine();
    let vendor_size = dir_size(&vendor);
    eprintln!(
        "corpus: {} ({} files, {:.0} MiB) and big.txt ({} MiB); {} runs each; {machine}",
        vendor.display(),
        vendor_size.0,
        vendor_size.1 as f64 / 1048576.0,
        args.big_mib,
        args.runs
    );
    let limit = Duration::from_secs(120);
    let mut rows = Vec::new();
    let mut ok = true;
    for (case, case_args, dir) in &cases {
        // One untimed run each warms the page cache; then the timed runs go round-robin, so a
        // burst of background load falls on every contender alike.
        let mut warm = Vec::new();
        for c in &contenders {
            warm.push(measure::run(&c.program, c.argv0, case_args, dir, limit)?);
        }
        let mut walls = vec![Vec::new(); contenders.len()];
        let mut rss = vec![0u64; contenders.len()];
        for _ in 0..args.runs {
            for (i, c) in contenders.iter().enumerate() {
                let s = measure::run(&c.program, c.argv0, case_args, dir, limit)?;
                if s.lines != warm[i].lines {
                    bail!(
                        "{}: {case}: line counts vary between runs ({} vs {})",
                        c.name,
                        s.lines,
                        warm[i].lines
                    );
                }
                walls[i].push(s.wall.as_secs_f64());
                rss[i] = rss[i].max(s.max_rss_kib);
            }
        }
        let per: Vec<_> = contenders
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    c,
                    median(walls[i].clone()),
                    rss[i],
                    warm[i].lines,
                    warm[i].exit,
                )
            })
            .collect();
        let anchor_lines = per[0].3;
        for (c, _, _, lines, _) in &per {
            if *lines != anchor_lines {
                eprintln!(
                    "MISMATCH {case}: {} printed {lines} lines, ripgrep {anchor_lines}",
                    c.name
                );
                ok = false;
            }
        }
        let anchor = per[0].1;
        let ratio = |t: f64| t / anchor;
        let line = per
            .iter()
            .map(|(c, t, rss, _, _)| {
                format!(
                    "{}: {t:.3}s ×{:.2} {:.0}MiB",
                    c.name,
                    ratio(*t),
                    *rss as f64 / 1024.0
                )
            })
            .collect::<Vec<_>>()
            .join(" | ");
        eprintln!("{case:<24} {anchor_lines:>8} lines  {line}");
        rows.push(json!({
            "case": case,
            "args": case_args,
            "lines": anchor_lines,
            "contenders": per.iter().map(|(c, t, rss, lines, exit)| json!({
                "name": c.name, "median_s": t, "peak_rss_kib": rss, "lines": lines, "exit": exit,
                "ratio_to_ripgrep": ratio(*t),
            })).collect::<Vec<_>>(),
            "ratio_reference_to_ripgrep": per.iter().find(|p| p.0.name.starts_with("reference")).map(|p| p.1 / anchor),
        }));
    }
    let report = json!({
        "machine": machine,
        "corpus": {"vendor_files": vendor_size.0, "vendor_bytes": vendor_size.1, "big_file_mib": args.big_mib},
        "runs": args.runs,
        "cases": rows,
    });
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)?;
        eprintln!("figures written to {}", path.display());
    }
    Ok(ok)
}

/// The workspace's own dependency tree, vendored once: a deterministic, offline source corpus.
fn vendor_corpus(root: &Path, corpus: &Path) -> Result<PathBuf> {
    let vendor = corpus.join("vendor");
    if vendor.join(".done").exists() {
        return Ok(vendor);
    }
    eprintln!("vendoring the dependency tree into {} …", vendor.display());
    let status = crate::cargo()
        .args(["vendor", "--quiet", "--versioned-dirs"])
        .arg(&vendor)
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .status()?;
    if !status.success() {
        bail!("cargo vendor failed");
    }
    std::fs::write(vendor.join(".done"), "")?;
    Ok(vendor)
}

/// One large file made of the corpus' `.rs` sources in path order, repeated up to `mib` MiB.
fn big_file(vendor: &Path, corpus: &Path, mib: u64) -> Result<PathBuf> {
    let path = corpus.join("big.txt");
    let want = mib * 1024 * 1024;
    if path.metadata().map(|m| m.len()).ok() == Some(want) {
        return Ok(path);
    }
    eprintln!("generating {} ({mib} MiB) …", path.display());
    let mut sources = Vec::new();
    collect_rs(vendor, &mut sources)?;
    sources.sort();
    let mut text = Vec::new();
    for s in sources.iter().take(2000) {
        text.extend_from_slice(&std::fs::read(s)?);
    }
    if text.is_empty() {
        bail!("no .rs sources under {}", vendor.display());
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let mut written = 0u64;
    while written < want {
        let take = text.len().min((want - written) as usize);
        out.write_all(&text[..take])?;
        written += take as u64;
    }
    out.flush()?;
    Ok(path)
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() {
            collect_rs(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

fn dir_size(dir: &Path) -> (u64, u64) {
    let mut files = 0;
    let mut bytes = 0;
    for e in ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .flatten()
    {
        if e.file_type().is_some_and(|t| t.is_file()) {
            files += 1;
            bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    (files, bytes)
}

/// ripgrep 14.1.1 from crates.io, installed once into the harness cache.
fn install_ripgrep() -> Result<PathBuf> {
    let root = probes::target::default_cache().join("ripgrep-14.1.1");
    let bin = root.join("bin/rg");
    if bin.is_file() {
        return Ok(bin);
    }
    eprintln!(
        "installing ripgrep 14.1.1 from crates.io into {} …",
        root.display()
    );
    let status = crate::cargo()
        .args(["install", "--quiet", "--locked", "ripgrep@14.1.1", "--root"])
        .arg(&root)
        .status()
        .context("cannot run cargo install")?;
    if !status.success() || !bin.is_file() {
        bail!("cargo install ripgrep@14.1.1 failed");
    }
    Ok(bin)
}

pub(super) fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .next()
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned())
        })
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(String::new(), |kb| format!(", {} GiB RAM", kb / 1048576));
    format!("{cpus} CPUs ({model}){mem}")
}
