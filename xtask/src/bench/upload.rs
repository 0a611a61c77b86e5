//! The upload benchmark: the reference's upload path as a whole process (`claude-reference
//! --upload-file`) against `curl -F`, both posting the same files to the same mock claude.ai
//! endpoint, in one run: 1 KiB, 1 MiB and 30 MiB. Every upload must arrive whole (size and
//! SHA-256 checked by the mock) before its time counts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use serde_json::json;
use sha2::Digest;

use super::measure::{self, median};

#[derive(Args)]
pub struct UploadArgs {
    /// Write the figures as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Timed runs per contender and size (the median is reported).
    #[arg(long, default_value_t = 7)]
    runs: usize,
}

const SIZES: &[(&str, usize)] = &[("1 KiB", 1 << 10), ("1 MiB", 1 << 20), ("30 MiB", 30 << 20)];

pub fn run(args: UploadArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dir = root.join("target/bench-upload");
    std::fs::create_dir_all(&dir)?;
    let reference = super::release_reference(&root)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let mock = runtime.block_on(stubs::claude_ai::ClaudeAiMock::start(Vec::new()))?;
    let url = format!("{}/api/oauth/file_upload", mock.base_url());
    // The reference reads its endpoint and token from the environment, as the real CLI does.
    std::env::set_var("ANTHROPIC_BASE_URL", mock.base_url());
    std::env::set_var("CLAUDE_CODE_OAUTH_TOKEN", "bench-token");
    let limit = Duration::from_secs(60);
    let mut rows = Vec::new();
    let mut ok = true;
    eprintln!("{} runs each, round-robin; {}", args.runs, super::machine());
    for (label, size) in SIZES {
        let file = fixture(&dir, *size)?;
        let want_sha = format!("{:x}", sha2::Sha256::digest(std::fs::read(&file)?));
        let contenders: Vec<(&str, PathBuf, Vec<String>)> = vec![
            (
                "curl -F",
                PathBuf::from("curl"),
                vec![
                    "-s".into(),
                    "-o".into(),
                    "/dev/null".into(),
                    "-H".into(),
                    "Authorization: Bearer bench-token".into(),
                    "-F".into(),
                    format!("file=@{}", file.display()),
                    url.clone(),
                ],
            ),
            (
                "reference",
                reference.clone(),
                vec!["--upload-file".into(), file.display().to_string()],
            ),
        ];
        let mut walls = vec![Vec::new(); contenders.len()];
        let mut rss = vec![0u64; contenders.len()];
        for round in 0..=args.runs {
            for (i, (name, program, argv)) in contenders.iter().enumerate() {
                let argv0 = program
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let s = measure::run(program, &argv0, argv, &dir, limit)?;
                let arrived = mock.uploads().last().cloned();
                let whole = arrived.as_ref().is_some_and(|u| {
                    u.size == *size
                        && u.sha256.as_deref() == Some(want_sha.as_str())
                        && u.status == 201
                });
                if s.exit != 0 || !whole {
                    eprintln!(
                        "{name} {label}: exit {} and the mock saw {arrived:?}",
                        s.exit
                    );
                    ok = false;
                }
                // Round 0 warms the page cache and the mock.
                if round > 0 {
                    walls[i].push(s.wall.as_secs_f64());
                    rss[i] = rss[i].max(s.max_rss_kib);
                }
            }
        }
        let curl = median(walls[0].clone());
        let mine = median(walls[1].clone());
        let ratio = mine / curl;
        let rss_ratio = (rss[1] * 1024) as f64 / *size as f64;
        eprintln!(
            "{label:>7}: curl {:.1} ms, reference {:.1} ms (×{ratio:.2}); peak RSS curl {} KiB, reference {} KiB ({rss_ratio:.2}× the file)",
            curl * 1e3, mine * 1e3, rss[0], rss[1]
        );
        rows.push(json!({"size": label, "bytes": size, "curl_median_s": curl, "reference_median_s": mine,
            "ratio_reference_to_curl": ratio, "reference_peak_rss_kib": rss[1], "curl_peak_rss_kib": rss[0],
            "reference_rss_to_file_size": rss_ratio}));
    }
    let report = json!({"machine": super::machine(), "runs": args.runs, "sizes": rows});
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)?;
        eprintln!("figures written to {}", path.display());
    }
    Ok(ok)
}

/// A deterministic file of `size` bytes (a linear congruential sequence: not compressible).
fn fixture(dir: &Path, size: usize) -> Result<PathBuf> {
    let path = dir.join(format!("upload-{size}.bin"));
    if path.metadata().map(|m| m.len() as usize).ok() == Some(size) {
        return Ok(path);
    }
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let bytes: Vec<u8> = (0..size)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect();
    std::fs::write(&path, bytes)?;
    Ok(path)
}
