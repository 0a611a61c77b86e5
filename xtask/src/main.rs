//! `cargo xtask <task>`: the project's tasks. `cargo xtask --help` lists them.

mod adopt;
mod bench;
mod bisect;
mod changes;
mod coverage;
mod fuzz;
mod layers;
mod merge;
mod outputs;
mod parity;
mod probe;
mod progress;
mod render;
mod test;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run scenarios against targets and compare with the snapshots.
    Probe(probe::ProbeArgs),
    /// One report (JSON, JUnit, HTML) from the runs of many shards or invocations.
    Merge(merge::MergeArgs),
    /// Which input parameters of the built-in tools the last probes exercised, per target.
    Coverage(coverage::CoverageArgs),
    /// How the real binary's stored traces compare with the reference's (drop-in parity).
    Parity(parity::ParityArgs),
    /// Make a run on a new version its baseline: snapshots, widened and new differences.
    Adopt(adopt::AdoptArgs),
    /// The first published version where a scenario's (or one check's) outcome changed.
    Bisect(bisect::BisectArgs),
    /// Whole-process benchmarks against an anchor measured in the same run.
    Bench(bench::BenchArgs),
    /// The workspace's tests, after installing the Debian packages they need (Chromium, xmllint).
    Test(test::TestArgs),
    /// Show a recorded run as the Brief main view and as the transcript.
    Render(render::RenderArgs),
    /// The top-level modules of the reference and the harness as layers; fails on an import cycle.
    Layers(layers::LayersArgs),
    /// Coverage-guided fuzzing (libFuzzer) of the parsers, on the stable toolchain.
    Fuzz(fuzz::FuzzArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Probe(args) => probe::run(args),
        Task::Merge(args) => merge::run(args),
        Task::Parity(args) => parity::run(args),
        Task::Coverage(args) => coverage::run(args),
        Task::Adopt(args) => adopt::run(args),
        Task::Bench(args) => bench::run(args),
        Task::Bisect(args) => bisect::run(args),
        Task::Render(args) => render::run(args),
        Task::Test(args) => test::run(args),
        Task::Fuzz(args) => fuzz::run(args),
        Task::Layers(args) => layers::run(args),
    };
    match result {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root")
        .to_owned()
}

/// `cargo` for a nested build, without what `cargo run` set for xtask itself.
fn cargo() -> std::process::Command {
    probes::cargo::command()
}
