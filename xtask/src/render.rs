//! `cargo xtask render RECORD`: a probe record's run shown as the Brief main view and as the
//! transcript, so the difference between the two is read, not described.

use std::path::PathBuf;

use anyhow::{bail, Context};

#[derive(clap::Args)]
pub struct RenderArgs {
    /// A probe record (`target/probes/<target>/<id>.json`), or a scenario id whose record under
    /// `target/probes/<target>/` is read.
    record: String,
    /// The target whose record a scenario id names.
    #[arg(long, default_value = "reference")]
    target: String,
    /// `brief`, `transcript`, or `both`.
    #[arg(long, default_value = "both")]
    view: String,
}

pub fn run(args: RenderArgs) -> anyhow::Result<bool> {
    let path = if args.record.ends_with(".json") {
        PathBuf::from(&args.record)
    } else {
        crate::workspace_root()
            .join("target/probes")
            .join(args.target.replace(['/', ':'], "_"))
            .join(format!("{}.json", args.record.replace('/', "__")))
    };
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {} (run `cargo xtask probe` first)",
            path.display()
        )
    })?;
    let record: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a probe record", path.display()))?;
    let stdout = record["stdout"]
        .as_str()
        .with_context(|| format!("{}: no `stdout` field", path.display()))?;
    let (brief, transcript) = match args.view.as_str() {
        "brief" => (true, false),
        "transcript" => (false, true),
        "both" => (true, true),
        other => bail!("--view {other}: expected brief, transcript or both"),
    };
    if brief {
        println!("── brief main view ──");
        print!("{}", probes::render::brief_view(stdout));
    }
    if transcript {
        println!("── transcript ──");
        print!("{}", probes::render::transcript(stdout));
    }
    Ok(true)
}
