//! The in-process search engine behind the Grep tool and the `rg` mode: one generated 32 MiB file
//! of source-like text, the benchmark's five patterns, output into memory. Whole-process figures
//! against ripgrep 14.1.1 come from `cargo xtask bench grep`.

use std::path::Path;

use claude_reference::search::{search, Mode, SearchConfig};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SIZE: usize = 32 << 20;

fn corpus(dir: &Path) -> std::path::PathBuf {
    // Deterministic text: numbered lines mixing identifiers, errors and results.
    let words = [
        "fn",
        "let",
        "Result",
        "Ok",
        "ParseError",
        "io::Error",
        "match",
        "Serialize",
        "self",
        "value",
    ];
    let mut text = String::with_capacity(SIZE + 128);
    let mut n = 0usize;
    while text.len() < SIZE {
        n += 1;
        for k in 0..8 {
            text.push_str(words[(n * 7 + k * 3) % words.len()]);
            text.push(' ');
        }
        text.push_str(&n.to_string());
        text.push('\n');
    }
    let path = dir.join("corpus.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn grep(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus(dir.path());
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Bytes(SIZE as u64));
    group.sample_size(20);
    let patterns: &[(&str, &str, bool)] = &[
        ("literal", "Result", false),
        ("literal -i", "result", true),
        ("alternation", "Serialize|ParseError|match", false),
        ("class", r"\w+Error", false),
        ("no match", "QQZZ_nothing_QQZZ", false),
    ];
    for (name, pattern, insensitive) in patterns {
        let config = SearchConfig {
            patterns: vec![(*pattern).to_owned()],
            case_insensitive: *insensitive,
            line_number: Some(true),
            mode: Mode::Standard,
            paths: vec![file.clone()],
            cwd: dir.path().to_owned(),
            ..Default::default()
        };
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| {
                let (outcome, out) = search(config, Vec::new()).unwrap();
                (outcome.matched, out.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, grep);
criterion_main!(benches);
