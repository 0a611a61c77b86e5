//! Each fuzz target for a fixed time on its seeds and mutations of them (`FUZZ_REPLAY_SECONDS`,
//! 4 by default): what CI runs of the fuzzers. A panic fails the test, naming the input it
//! wrote under `target/fuzz-replay/<target>/`; `FUZZ_REPLAY_INPUT=PATH` runs that one input.

use std::path::PathBuf;
use std::time::Duration;

fn replay(target: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root");
    if let Some(input) = std::env::var_os("FUZZ_REPLAY_INPUT") {
        match fuzz_replay::rerun(target, input.as_ref()) {
            Ok(Ok(())) => return,
            Ok(Err(panic)) => panic!("fuzz {target}: {panic}"),
            Err(e) => panic!("fuzz {target}: cannot run {input:?}: {e:#}"),
        }
    }
    let seconds = std::env::var("FUZZ_REPLAY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4.0);
    let out = root.join("target/fuzz-replay");
    match fuzz_replay::replay(&root, target, Duration::from_secs_f64(seconds), &out) {
        Ok(Ok(done)) => eprintln!(
            "fuzz {target}: ok, {} executions in {seconds} s from {} seeds",
            done.executions, done.seeds
        ),
        Ok(Err(finding)) => panic!("{finding}"),
        Err(e) => panic!("fuzz {target}: cannot run: {e:#}"),
    }
}

#[test]
fn sse_decoder() {
    replay("sse_decoder");
}

#[test]
fn lsp_framing() {
    replay("lsp_framing");
}

#[test]
fn jsonrpc_lines() {
    replay("jsonrpc_lines");
}

#[test]
fn multipart() {
    replay("multipart");
}

#[test]
fn scenario_loader() {
    replay("scenario_loader");
}
