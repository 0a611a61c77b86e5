//! `cargo xtask <task>`: the project's tasks. `cargo xtask --help` lists them.

mod adopt;
mod bench;
mod bisect;
mod changes;
mod fuzz;
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
    /// Coverage-guided fuzzing (libFuzzer) of the parsers, on the stable toolchain.
    Fuzz(fuzz::FuzzArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Probe(args) => probe::run(args),
        Task::Merge(args) => merge::run(args),
        Task::Parity(args) => parity::run(args),
        Task::Adopt(args) => adopt::run(args),
        Task::Bench(args) => bench::run(args),
        Task::Bisect(args) => bisect::run(args),
        Task::Render(args) => render::run(args),
        Task::Test(args) => test::run(args),
        Task::Fuzz(args) => fuzz::run(args),
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

/// `cargo` for a nested build, without what `cargo run` set for xtask itself: build scripts
/// such as ring's re-run when `CARGO_MANIFEST_DIR` or `CARGO_PKG_NAME` change, so an inherited
/// `xtask` value would rebuild them (and everything above them) on every alternation between
/// `cargo xtask …` and a plain `cargo build`.
fn cargo() -> std::process::Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(program);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        let set_for_xtask = key.starts_with("CARGO_PKG_")
            || key.starts_with("CARGO_MANIFEST_")
            || matches!(
                &*key,
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
            );
        if set_for_xtask {
            command.env_remove(&*key);
        }
    }
    command
}
