//! The reference's upload path in process: the one uploader (stat, read, multipart body, POST,
//! answer) against the mock claude.ai on loopback, for the benchmark's three sizes. Whole-process
//! figures against `curl -F` come from `cargo xtask bench upload`.

use std::time::Duration;

use claude_reference::upload::Uploader;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stubs::claude_ai::ClaudeAiMock;

const SIZES: &[(&str, usize)] = &[("1KiB", 1 << 10), ("1MiB", 1 << 20), ("30MiB", 30 << 20)];

fn upload(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = runtime.block_on(ClaudeAiMock::start(Vec::new())).unwrap();
    let uploader = Uploader::new(
        &mock.base_url(),
        Some("bench-token".into()),
        Duration::from_secs(30),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("upload");
    for (label, size) in SIZES {
        let path = dir.path().join(format!("{label}.bin"));
        let bytes: Vec<u8> = (0..*size).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, bytes).unwrap();
        group.throughput(Throughput::Bytes(*size as u64));
        if *size > 1 << 20 {
            group.sample_size(10);
        }
        group.bench_with_input(BenchmarkId::from_parameter(label), &path, |b, path| {
            b.iter(|| {
                let uuid = runtime.block_on(uploader.upload(path)).unwrap();
                assert!(uuid.starts_with("file-"));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, upload);
criterion_main!(benches);
