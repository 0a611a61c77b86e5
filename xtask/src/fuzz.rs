//! `cargo xtask fuzz [TARGET…] [--seconds N]`: the coverage-guided fuzz targets of `fuzz/` on the
//! stable toolchain. The crate is built with libFuzzer's coverage instrumentation set by hand
//! (what cargo-fuzz sets, less the sanitizer, which needs nightly) into `fuzz/target`; each target
//! then runs for N seconds on its corpus, `fuzz/corpus/<target>/`, which this task first seeds
//! from the repository (scenario files, the stub's SSE encoding, framed and line-delimited
//! JSON-RPC, upload bodies). A crash fails the task and names the reproducer under
//! `fuzz/artifacts/<target>/`; `fuzz/target/<target>.log` holds libFuzzer's whole output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};

// The seeds are shared with the fuzz replay CI runs (`fuzz/replay`), as a file.
#[path = "../../fuzz/seeds.rs"]
mod seeds;
pub use seeds::seeds;

/// The targets, in the order they run by default (`fuzz/fuzz_targets/<name>.rs`).
pub const TARGETS: &[&str] = &[
    "sse_decoder",
    "lsp_framing",
    "jsonrpc_lines",
    "multipart",
    "scenario_loader",
];

/// What cargo-fuzz passes to rustc for libFuzzer, less `-Zsanitizer=…` (nightly only): edge
/// coverage as inline 8-bit counters with the PC table libFuzzer reads them by, and comparison
/// tracing so it can solve magic values (`Content-Length`, `page-`, a boundary).
pub const RUSTFLAGS: &[&str] = &[
    "--cfg",
    "fuzzing",
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
];

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// Targets to run (default: all): sse_decoder, lsp_framing, jsonrpc_lines, multipart,
    /// scenario_loader.
    targets: Vec<String>,
    /// Seconds each target runs (libFuzzer's `-max_total_time`).
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// The longest input libFuzzer makes (`-max_len`); the seeds it is given may be longer.
    #[arg(long, default_value_t = 8192)]
    max_len: usize,
    /// Seed the corpora and build, but run nothing.
    #[arg(long)]
    build_only: bool,
}

pub fn run(args: FuzzArgs) -> anyhow::Result<bool> {
    let targets: Vec<&str> = if args.targets.is_empty() {
        TARGETS.to_vec()
    } else {
        for t in &args.targets {
            if !TARGETS.contains(&t.as_str()) {
                bail!(
                    "no fuzz target {t:?}; the targets are {}",
                    TARGETS.join(", ")
                );
            }
        }
        args.targets.iter().map(String::as_str).collect()
    };
    let root = crate::workspace_root();
    let fuzz = root.join("fuzz");
    for t in &targets {
        write_seeds(&root, t)?;
    }
    let bins = build(&fuzz, &targets)?;
    if args.build_only {
        return Ok(true);
    }
    let mut all_ok = true;
    for t in &targets {
        let outcome = run_target(&fuzz, &bins, t, args.seconds, args.max_len)?;
        println!("{}", outcome.line(t));
        if let Some(reproducer) = &outcome.crash {
            all_ok = false;
            eprintln!("{}", outcome.tail);
            eprintln!(
                "fuzz {t}: crash; reproduce with `{} {}` (whole output in {})",
                bins.join(t).display(),
                reproducer.display(),
                outcome.log.display()
            );
        }
    }
    Ok(all_ok)
}

/// Builds every target, instrumented; the directory the binaries are in.
fn build(fuzz: &Path, targets: &[&str]) -> anyhow::Result<PathBuf> {
    let host = host_triple()?;
    let started = Instant::now();
    let mut cargo = crate::cargo();
    cargo
        .current_dir(fuzz)
        .args(["build", "--release", "--manifest-path"])
        .arg(fuzz.join("Cargo.toml"))
        // An explicit target keeps RUSTFLAGS off build scripts and proc macros, which must not
        // be instrumented (nothing links libFuzzer into them).
        .args(["--target", &host])
        .env("CARGO_TARGET_DIR", fuzz.join("target"))
        .env("RUSTFLAGS", RUSTFLAGS.join(" "))
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for t in targets {
        cargo.args(["--bin", t]);
    }
    let status = cargo.status().context("running cargo build for fuzz/")?;
    if !status.success() {
        bail!("building the fuzz targets failed");
    }
    println!(
        "fuzz: built {} in {:.0} s",
        targets.join(", "),
        started.elapsed().as_secs_f64()
    );
    Ok(fuzz.join("target").join(host).join("release"))
}

fn host_triple() -> anyhow::Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .context("rustc -vV")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .context("no host line in `rustc -vV`")
}

struct Outcome {
    /// Total executions, from `-print_final_stats`.
    runs: Option<u64>,
    /// The last status line's `cov:`, `ft:` and `corp:` (edges, features, corpus entries).
    cov: Option<String>,
    ft: Option<String>,
    corp: Option<String>,
    seconds: f64,
    crash: Option<PathBuf>,
    log: PathBuf,
    /// The end of libFuzzer's output, shown on a crash.
    tail: String,
}

impl Outcome {
    fn line(&self, target: &str) -> String {
        let runs = self.runs.map_or("?".into(), |r| r.to_string());
        let rate = self.runs.map_or("?".into(), |r| {
            format!("{:.0}", r as f64 / self.seconds.max(0.001))
        });
        let verdict = if self.crash.is_some() { "CRASH" } else { "ok" };
        format!(
            "fuzz {target}: {verdict}, {runs} executions in {:.0} s ({rate}/s), coverage {} edges, {} features, corpus {}",
            self.seconds,
            self.cov.as_deref().unwrap_or("?"),
            self.ft.as_deref().unwrap_or("?"),
            self.corp.as_deref().unwrap_or("?"),
        )
    }
}

fn run_target(
    fuzz: &Path,
    bins: &Path,
    target: &str,
    seconds: u64,
    max_len: usize,
) -> anyhow::Result<Outcome> {
    let corpus = fuzz.join("corpus").join(target);
    let artifacts = fuzz.join("artifacts").join(target);
    std::fs::create_dir_all(&artifacts)?;
    let log = fuzz.join("target").join(format!("{target}.log"));
    let started = Instant::now();
    let output = Command::new(bins.join(target))
        .current_dir(fuzz)
        .arg(&corpus)
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={max_len}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        // A hang or a runaway allocation is a finding too, not a stuck CI job.
        .args(["-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1"])
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", bins.join(target).display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    std::fs::write(&log, &text).with_context(|| format!("writing {}", log.display()))?;
    let runs = text
        .lines()
        .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .and_then(|n| n.trim().parse().ok());
    // `#123 DONE cov: 812 ft: 2301 corp: 120/8Kb …`, or the last `#N NEW/REDUCE/pulse` line.
    let status = text
        .lines()
        .rev()
        .find(|l| l.starts_with('#') && l.contains(" cov: "))
        .unwrap_or_default();
    let field = |name: &str| {
        let mut words = status.split_whitespace();
        words.find(|w| *w == name)?;
        words.next().map(str::to_owned)
    };
    let crash = if output.status.success() {
        None
    } else {
        // "Test unit written to <path>"; without one (killed from outside), the log.
        Some(
            text.lines()
                .rev()
                .find_map(|l| l.split_once("Test unit written to ").map(|(_, p)| p))
                .map(|p| fuzz.join(p.trim()))
                .unwrap_or_else(|| log.clone()),
        )
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(40)..].join("\n");
    Ok(Outcome {
        runs,
        cov: field("cov:"),
        ft: field("ft:"),
        corp: field("corp:"),
        seconds,
        crash,
        log,
        tail,
    })
}

/// Writes the target's seeds into its corpus directory (`seed-*` files, rewritten each time;
/// what libFuzzer adds beside them is kept).
fn write_seeds(root: &Path, target: &str) -> anyhow::Result<()> {
    let dir = root.join("fuzz/corpus").join(target);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, bytes) in seeds(root, target)? {
        std::fs::write(dir.join(format!("seed-{name}")), bytes)?;
    }
    Ok(())
}
