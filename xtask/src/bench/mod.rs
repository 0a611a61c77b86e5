//! `cargo xtask bench <what>`: whole-process comparisons against an anchor measured in the same
//! run (ripgrep for grep). Criterion benchmarks of in-process paths live in `benches/`.

mod grep;
mod measure;

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
}

pub fn run(args: BenchArgs) -> anyhow::Result<bool> {
    match args.what {
        What::Grep(a) => grep::run(a),
    }
}
