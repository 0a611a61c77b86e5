//! Started as `rg`, the reference is ripgrep 14.1.1: byte for byte the same stdout and stderr and
//! the same exit status as the real 2.1.235 binary's embedded ripgrep, on generated files,
//! patterns and flags (the real binary is installed from npm into the harness cache if needed).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use proptest::prelude::*;

fn real_binary() -> &'static Path {
    static REAL: OnceLock<PathBuf> = OnceLock::new();
    REAL.get_or_init(|| {
        probes::Target::resolve_claude("claude@2.1.235", &probes::target::default_cache())
            .expect("the real claude@2.1.235 (installed with npm) to compare against")
            .program
    })
}

fn rg(program: &Path, dir: &Path, args: &[String]) -> Output {
    Command::new(program)
        .arg0("rg")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("rg mode runs")
}

fn same_as_real(dir: &Path, args: &[String]) -> Result<(), TestCaseError> {
    let mine = rg(Path::new(env!("CARGO_BIN_EXE_claude-reference")), dir, args);
    let real = rg(real_binary(), dir, args);
    let show = |o: &Output| {
        format!(
            "exit {:?}\nstdout:\n{}\nstderr:\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    prop_assert_eq!(show(&mine), show(&real), "rg {:?}", args);
    Ok(())
}

/// Lines over a small alphabet, so generated patterns match often, sometimes across context.
fn lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[abAB x]{0,12}", 0..14)
}

fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ab]{1,3}",
        "[AB]{1,2}x?",
        Just("a+b".to_owned()),
        Just("^b".to_owned()),
        Just("x$".to_owned()),
        Just("(a|B)b".to_owned()),
        Just("zzz".to_owned()),
    ]
}

fn flags() -> impl Strategy<Value = Vec<String>> {
    let one = prop_oneof![
        Just(vec!["-n".to_owned()]),
        Just(vec!["-i".to_owned()]),
        Just(vec!["-c".to_owned()]),
        Just(vec!["-l".to_owned()]),
        (0u8..4).prop_map(|n| vec!["-m".to_owned(), n.to_string()]),
        (0u8..3).prop_map(|n| vec!["-A".to_owned(), n.to_string()]),
        (0u8..3).prop_map(|n| vec!["-B".to_owned(), n.to_string()]),
        (0u8..3).prop_map(|n| vec![format!("-C{n}")]),
        (1u8..8).prop_map(|n| vec!["--max-columns".to_owned(), n.to_string()]),
    ];
    prop::collection::vec(one, 0..4).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn one_file(content in lines(), pat in pattern(), flags in flags()) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), content.join("\n") + "\n").unwrap();
        let mut args = flags;
        args.push(pat);
        args.push("f.txt".into());
        same_as_real(dir.path(), &args)?;
    }

    #[test]
    fn a_directory_walked_in_order(files in prop::collection::vec(lines(), 1..4), pat in pattern(), flags in flags()) {
        let dir = tempfile::tempdir().unwrap();
        for (i, content) in files.iter().enumerate() {
            std::fs::write(dir.path().join(format!("f{i}.txt")), content.join("\n") + "\n").unwrap();
        }
        // One thread: the walk order is the directory's, the same for both programs.
        let mut args = vec!["-j1".to_owned()];
        args.extend(flags);
        args.push(pat);
        same_as_real(dir.path(), &args)?;
    }
}

#[test]
fn the_seed_probe_output_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("f.txt"),
        "zero\nMATCH first\nafter one\nafter two\nMATCH second\nafter three\ntail\n",
    )
    .unwrap();
    let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let out = rg(
        Path::new(env!("CARGO_BIN_EXE_claude-reference")),
        dir.path(),
        &args("-n -m 1 -C 2 MATCH f.txt"),
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1-zero\n2:MATCH first\n3-after one\n4-after two\n"
    );
    assert_eq!(out.status.code(), Some(0));
}
