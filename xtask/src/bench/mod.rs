//! `cargo xtask bench <what>`: whole-process comparisons against an anchor measured in the same
//! run (ripgrep for grep, curl for uploads, the real binary for a text turn). Criterion benchmarks of in-process paths live in `benches/`.

mod grep;
mod measure;
mod turn;
mod upload;

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// The reference's `rg` mode against ripgrep 14.1.1 and the real binary's embedded rg.
    Grep(grep::GrepArgs),
    /// The reference's upload path against `curl -F`, to the same mock claude.ai endpoint.
    Upload(upload::UploadArgs),
    /// One text turn as a whole process, the reference against the real binary, same stub.
    Turn(turn::TurnArgs),
}

/// The machine, for every figure's context.
pub fn machine() -> String {
    grep::machine()
}

/// Builds the reference in release mode (cargo decides whether anything changed) and returns it.
fn release_reference(root: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    eprintln!("building the reference (release)…");
    let status = crate::cargo()
        .args(["build", "--release", "--quiet", "-p", "claude-reference"])
        .current_dir(root)
        .status()?;
    if !status.success() {
        anyhow::bail!("cargo build --release -p claude-reference failed");
    }
    Ok(root.join("target/release/claude-reference"))
}

pub fn run(args: BenchArgs) -> anyhow::Result<bool> {
    match args.what {
        What::Grep(a) => grep::run(a),
        What::Upload(a) => upload::run(a),
        What::Turn(a) => turn::run(a),
    }
}
