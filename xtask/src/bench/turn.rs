//! The start-up benchmark: one text turn as a whole process, the reference (release) against the
//! real binary, both against the same scripted Messages stub in one run. What it measures is
//! everything a `-p` prompt costs before and around its one request: start-up, the request,
//! the stream, the result, the exit.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use serde_json::json;
use stubs::messages::{MessagesStub, Split, StubConfig, Turn};

use super::measure::{self, median};

#[derive(Args)]
pub struct TurnArgs {
    /// The real binary to pair with (installed with npm into the cache once).
    #[arg(long, default_value = "claude@2.1.235")]
    against: String,
    /// Timed runs per contender (the median is reported).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Write the figures as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

const MODEL: &str = "claude-sonnet-4-5";

pub fn run(args: TurnArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let reference = super::release_reference(&root)?;
    let real = probes::Target::resolve_claude(&args.against, &probes::target::default_cache())?;
    let runtime = tokio::runtime::Runtime::new()?;
    // One text turn per run, the untimed first round included; helpers get the stub's side answer.
    let rounds = args.runs + 1;
    let turn = Turn {
        text: Some("TURN_OK".into()),
        ..Default::default()
    };
    let stub = runtime.block_on(MessagesStub::start(StubConfig {
        main_model: MODEL.into(),
        more_main_models: Vec::new(),
        turns: vec![turn; rounds * 2],
        agents: Vec::new(),
        split: Split::Whole,
        cues: Default::default(),
    }))?;
    let home = tempfile::tempdir()?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work)?;
    // What a harness run gives both targets: a private HOME, the stub, no nonessential traffic.
    for (key, value) in [
        ("HOME", home.path().display().to_string()),
        ("ANTHROPIC_BASE_URL", stub.base_url()),
        ("ANTHROPIC_API_KEY", "sk-ant-bench-not-a-key".into()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("IS_SANDBOX", "1".into()),
        ("TERM", "dumb".into()),
    ] {
        std::env::set_var(key, value);
    }
    let argv: Vec<String> = [
        "-p",
        "Say OK.",
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        MODEL,
    ]
    .map(String::from)
    .to_vec();
    let contenders = [
        (real.name.clone(), real.program.clone()),
        ("reference".to_owned(), reference),
    ];
    let limit = Duration::from_secs(60);
    let mut walls = vec![Vec::new(); contenders.len()];
    let mut rss = vec![0u64; contenders.len()];
    eprintln!("{} runs each, round-robin; {}", args.runs, super::machine());
    for round in 0..rounds {
        for (i, (name, program)) in contenders.iter().enumerate() {
            let argv0 = program
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let s = measure::run(program, &argv0, &argv, &work, limit)?;
            // stream-json: init, the assistant message, the result at least.
            if s.exit != 0 || s.lines < 3 {
                bail!(
                    "{name}: exit {} with {} stdout lines: not a whole text turn",
                    s.exit,
                    s.lines
                );
            }
            // Round 0 warms the page cache (node's modules for the real binary).
            if round > 0 {
                walls[i].push(s.wall.as_secs_f64());
                rss[i] = rss[i].max(s.max_rss_kib);
            }
        }
    }
    let real_wall = median(walls[0].clone());
    let mine = median(walls[1].clone());
    let (wall_ratio, rss_ratio) = (real_wall / mine, rss[0] as f64 / rss[1].max(1) as f64);
    eprintln!(
        "one text turn: {} {:.1} ms, reference {:.1} ms (1/{wall_ratio:.0}); peak RSS {} {:.1} MiB, reference {:.1} MiB (1/{rss_ratio:.0})",
        contenders[0].0,
        real_wall * 1e3,
        mine * 1e3,
        contenders[0].0,
        rss[0] as f64 / 1024.0,
        rss[1] as f64 / 1024.0,
    );
    let report = json!({"machine": super::machine(), "runs": args.runs, "against": contenders[0].0,
        "real_median_s": real_wall, "reference_median_s": mine, "real_peak_rss_kib": rss[0],
        "reference_peak_rss_kib": rss[1], "wall_real_over_reference": wall_ratio,
        "rss_real_over_reference": rss_ratio});
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)?;
        eprintln!("figures written to {}", path.display());
    }
    Ok(true)
}
