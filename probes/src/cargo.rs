//! `cargo` for a build started from inside a cargo-run process (`cargo xtask`, a test, the probe's
//! fake-server builds).
//!
//! `cargo run` and `cargo test` give their process `CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`,
//! `OUT_DIR` and the like. Build scripts such as ring's declare those very names with
//! `rerun-if-env-changed`, so a nested build that inherited them ran ring's build script again
//! and recompiled everything above it (rustls, the stubs, the probes, the reference), and the next
//! build from a shell did it once more. `.ci/builds-shared` caught it after the test command.

/// A `cargo` command whose environment is the caller's minus what cargo set for the caller
/// itself, so it sees what a build from a shell sees.
pub fn command() -> std::process::Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(program);
    for (key, _) in std::env::vars_os() {
        if set_by_cargo_for_its_process(&key.to_string_lossy()) {
            command.env_remove(&key);
        }
    }
    command
}

/// The variables cargo sets for a process it runs (a binary, a test, a build script), listed in
/// the Cargo book's "Environment variables Cargo sets for crates"; `CARGO` itself stays, as the
/// path of this cargo.
fn set_by_cargo_for_its_process(key: &str) -> bool {
    [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_CFG_",
        "CARGO_BIN_EXE_",
    ]
    .iter()
    .any(|prefix| key.starts_with(prefix))
        || matches!(
            key,
            "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
                | "OUT_DIR"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test runs under `cargo test`, so its own environment has the variables to drop.
    #[test]
    fn a_nested_cargo_sees_none_of_the_callers_cargo_variables() {
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let command = command();
        let removed: Vec<String> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key.to_string_lossy().into_owned())
            .collect();
        for key in [
            "CARGO_MANIFEST_DIR",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
        ] {
            assert!(
                removed.iter().any(|k| k == key),
                "{key} is passed on: {removed:?}"
            );
        }
        assert!(!removed.iter().any(|k| k == "CARGO" || k == "PATH"));
    }
}
