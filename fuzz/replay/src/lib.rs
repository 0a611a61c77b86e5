//! The fuzz targets of `fuzz/fuzz_targets/`, compiled as plain functions: each file's
//! `fuzz_target!(|data: &[u8]| …)` becomes `run(data)` here (the macro below stands in for
//! libfuzzer-sys's), so the same properties run in the workspace's ordinary build. [`replay`]
//! runs one target on its seeds and then on inputs mutated from them, for a fixed time, and
//! names the first input that panics (a crash or a property's assertion).
//!
//! This is not coverage-guided: the mutations are blind (a seeded PRNG over the seeds). The
//! coverage-guided run is `cargo xtask fuzz`, whose instrumented release build of the reference's
//! whole crate graph takes about 20 minutes on two CPUs; this one adds a few seconds per target to
//! a build CI makes anyway.

// The target files say `use libfuzzer_sys::fuzz_target;`: this crate answers to that name. Each
// is a binary of its own for libFuzzer, so each declares `mod common;`: here that is one file
// loaded several times, on purpose.
#![allow(clippy::duplicate_mod)]
extern crate self as libfuzzer_sys;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::Digest;

#[path = "../../seeds.rs"]
mod seeds;

// The targets, each file of `fuzz/fuzz_targets/` as a module (`#![no_main]` is theirs for
// libFuzzer and means nothing here).
#[allow(unused_attributes)]
#[path = "../../fuzz_targets/jsonrpc_lines.rs"]
pub mod jsonrpc_lines;
#[allow(unused_attributes)]
#[path = "../../fuzz_targets/lsp_framing.rs"]
pub mod lsp_framing;
#[allow(unused_attributes)]
#[path = "../../fuzz_targets/multipart.rs"]
pub mod multipart;
#[allow(unused_attributes)]
#[path = "../../fuzz_targets/scenario_loader.rs"]
pub mod scenario_loader;
#[allow(unused_attributes)]
#[path = "../../fuzz_targets/sse_decoder.rs"]
pub mod sse_decoder;

/// `fuzz_target!(|data: &[u8]| body)` as a function of the module that invokes it. Defined after
/// the target modules, so they reach it by the path their files name, as with libFuzzer.
#[macro_export]
macro_rules! fuzz_target {
    (|$data:ident: &[u8]| $body:block) => {
        pub fn run($data: &[u8]) $body
    };
}

/// One target's property, run on one input.
pub type Run = fn(&[u8]);

/// Each target by the name `cargo xtask fuzz` knows it.
pub const TARGETS: &[(&str, Run)] = &[
    ("sse_decoder", sse_decoder::run),
    ("lsp_framing", lsp_framing::run),
    ("jsonrpc_lines", jsonrpc_lines::run),
    ("multipart", multipart::run),
    ("scenario_loader", scenario_loader::run),
];

/// What a replay did.
#[derive(Debug)]
pub struct Replayed {
    pub seeds: usize,
    pub executions: u64,
}

/// An input that made the target panic, written to disk so it can be run again.
#[derive(Debug)]
pub struct Finding {
    pub target: String,
    pub input: PathBuf,
    pub panic: String,
    /// Which input of the run it was: a seed's name, or the mutation's number and its parent.
    pub origin: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fuzz target `{}` panicked on {} ({}): {}\n  again: `FUZZ_REPLAY_INPUT={} cargo test -p fuzz-replay --test replay {}`",
            self.target,
            self.input.display(),
            self.origin,
            self.panic,
            self.input.display(),
            self.target
        )
    }
}

/// Runs `target` on its seeds (from the repository at `root`, plus what `fuzz/corpus/<target>`
/// holds), then on mutations of them until `budget` has passed; a panic stops it, its input
/// written under `out`.
pub fn replay(
    root: &Path,
    target: &str,
    budget: Duration,
    out: &Path,
) -> anyhow::Result<Result<Replayed, Finding>> {
    let run = run_of(target)?;
    let mut corpus = seeds::seeds(root, target)?;
    corpus.extend(stored(&root.join("fuzz/corpus").join(target))?);
    let started = Instant::now();
    let found = |input: &[u8], origin: String, panic: String| -> anyhow::Result<Finding> {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("crash-{:x}", sha2::Sha256::digest(input)));
        std::fs::write(&path, input)?;
        Ok(Finding {
            target: target.to_owned(),
            input: path,
            panic,
            origin,
        })
    };
    // An abort (a failed allocation) cannot be caught: the input it came from is written first.
    // Its own file per process, so a finding is never overwritten by the next run; removed when
    // the replay returns (an abort never returns).
    let aborted = out
        .join(target)
        .join(format!("aborted-input-{}", std::process::id()));
    on_abort::arm(&aborted, target)?;
    struct Unused(PathBuf);
    impl Drop for Unused {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let _unused = Unused(aborted);
    for (name, input) in &corpus {
        if let Err(panic) = guarded(run, input) {
            return Ok(Err(found(input, format!("seed {name}"), panic)?));
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ target.len() as u64);
    let mut executions = corpus.len() as u64;
    while started.elapsed() < budget {
        let parent = rng.below(corpus.len());
        let other = &corpus[rng.below(corpus.len())].1;
        let input = mutate(&corpus[parent].1, other, &mut rng);
        executions += 1;
        if let Err(panic) = guarded(run, &input) {
            let origin = format!("mutation {executions} of seed {}", corpus[parent].0);
            return Ok(Err(found(&input, origin, panic)?));
        }
    }
    Ok(Ok(Replayed {
        seeds: corpus.len(),
        executions,
    }))
}

/// The property of the target `cargo xtask fuzz` calls `target`.
fn run_of(target: &str) -> anyhow::Result<Run> {
    TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, run)| *run)
        .ok_or_else(|| anyhow::anyhow!("no fuzz target {target:?}"))
}

/// Runs `target` on the one input in `path` (a finding, to see it again); the panic's message.
pub fn rerun(target: &str, path: &Path) -> anyhow::Result<Result<(), String>> {
    let run = run_of(target)?;
    let input = std::fs::read(path)?;
    Ok(guarded(run, &input))
}

/// Runs one input; the panic's message when it panicked.
pub fn guarded(run: Run, input: &[u8]) -> Result<(), String> {
    on_abort::current(input);
    let ran = std::panic::catch_unwind(AssertUnwindSafe(|| run(input)));
    on_abort::current(&[]);
    ran.map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

/// What happens when a run aborts the process (`memory allocation of N bytes failed`): a
/// SIGABRT handler writes the input that thread was running to the file [`arm`] opened, and
/// says so on stderr, before the abort goes on. Per thread, as the tests run targets in parallel.
mod on_abort {
    use std::cell::Cell;
    use std::os::fd::IntoRawFd;
    use std::path::Path;
    use std::sync::Once;

    thread_local! {
        /// The input running now, the file it goes to, and the line said about it.
        static CURRENT: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
        static FILE: Cell<i32> = const { Cell::new(-1) };
        static NOTE: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
    }

    pub fn arm(path: &Path, target: &str) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let fd = std::fs::File::create(path)?.into_raw_fd();
        let note: &'static [u8] = Box::leak(
            format!(
                "\nfuzz target `{target}` aborted the process; its input is in {}\n",
                path.display()
            )
            .into_bytes()
            .into_boxed_slice(),
        );
        FILE.with(|f| f.set(fd));
        NOTE.with(|n| n.set((note.as_ptr(), note.len())));
        static HANDLER: Once = Once::new();
        // SAFETY: the handler only reads thread-locals set above and calls write, signal and
        // raise, which are async-signal-safe.
        HANDLER.call_once(|| unsafe {
            libc::signal(libc::SIGABRT, handler as *const () as libc::sighandler_t);
        });
        Ok(())
    }

    pub fn current(input: &[u8]) {
        CURRENT.with(|c| c.set((input.as_ptr(), input.len())));
    }

    extern "C" fn handler(_: libc::c_int) {
        // SAFETY: the pointers are a live input (set around each run) and a leaked note.
        unsafe {
            let (input, len) = CURRENT.with(Cell::get);
            let fd = FILE.with(Cell::get);
            if fd >= 0 && !input.is_null() {
                libc::write(fd, input.cast(), len);
                let (note, note_len) = NOTE.with(Cell::get);
                libc::write(2, note.cast(), note_len);
            }
            libc::signal(libc::SIGABRT, libc::SIG_DFL);
            libc::raise(libc::SIGABRT);
        }
    }
}

/// The inputs libFuzzer kept in a corpus directory, when there is one.
fn stored(dir: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // The seeds are made afresh above; a stale copy of one would only repeat it.
        if path.is_file() && !name.starts_with("seed-") {
            out.push((name, std::fs::read(&path)?));
        }
    }
    out.sort();
    Ok(out)
}

/// xorshift64*: a fixed sequence per target, so a run on one machine is a run on another.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes the formats under test give meaning to.
const INTERESTING: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r\n\r\n",
    b":",
    b"{",
    b"}",
    b"\"",
    b"\\",
    b"0",
    b"-1",
    b"\xff",
    b"\x00",
    b"data: ",
    b"Content-Length: ",
    b"--",
    b"[[",
    b"]]",
    b"=",
    b"99999999999",
];

/// One input from `parent`: a few of the edits libFuzzer makes most (flip, insert, erase,
/// duplicate, splice with `other`, an interesting token), stacked one to four deep.
fn mutate(parent: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = parent.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => data.insert(at, rng.next() as u8),
            2 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            3 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(64)).min(data.len());
                let piece = data[start..end].to_vec();
                data.splice(at..at, piece);
            }
            4 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(256)).min(other.len());
                data.splice(at..at, other[start..end].iter().copied());
            }
            5 => {
                let token = INTERESTING[rng.below(INTERESTING.len())];
                data.splice(at..at, token.iter().copied());
            }
            _ => data.truncate(at),
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panics_on_x(data: &[u8]) {
        assert!(!data.contains(&b'X'), "an X in the input");
    }

    #[test]
    fn a_panic_is_caught_with_its_message() {
        assert!(guarded(panics_on_x, b"abc").is_ok());
        assert_eq!(
            guarded(panics_on_x, b"aXc").unwrap_err(),
            "an X in the input"
        );
    }

    #[test]
    fn mutations_stay_near_their_parents_and_repeat_per_seed() {
        let (mut a, mut b) = (Rng(7), Rng(7));
        let ma: Vec<Vec<u8>> = (0..50)
            .map(|_| mutate(b"data: {\"a\":1}\n\n", b"xyz", &mut a))
            .collect();
        let mb: Vec<Vec<u8>> = (0..50)
            .map(|_| mutate(b"data: {\"a\":1}\n\n", b"xyz", &mut b))
            .collect();
        assert_eq!(ma, mb, "the same seed gives the same inputs");
        assert!(ma.iter().any(|m| m.as_slice() != b"data: {\"a\":1}\n\n"));
    }
}
