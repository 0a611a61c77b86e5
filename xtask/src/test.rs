//! `cargo xtask test`: the workspace's tests on a fresh machine. Cargo fetches the crates and the
//! tests install the real CLI and the Agent SDKs with npm and pip themselves; three tools come
//! from Debian's packages, which only the machine's package manager can install: Chromium (the
//! HTML report's browser test), libxml2's `xmllint` (the JUnit schema test) and Python's venv
//! module (the Python Agent SDK test). This installs the missing ones, then runs `cargo test
//! --workspace` with any further arguments.

use std::process::Command;

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Passed on to `cargo test --workspace` (e.g. `-- --test-threads 1`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    cargo_args: Vec<String>,
}

/// What is looked for, the Debian package that brings it, what needs it, whether it is there.
type Tool = (&'static str, &'static str, &'static str, fn() -> bool);

const TOOLS: [Tool; 5] = [
    (
        "chromium",
        "chromium",
        "the HTML report's browser test",
        || on_path("chromium") || std::env::var_os("CHROMIUM").is_some(),
    ),
    ("xmllint", "libxml2-utils", "the JUnit schema test", || {
        on_path("xmllint")
    }),
    (
        "python3's venv",
        "python3-venv",
        "the Python Agent SDK test",
        || {
            // Debian's python3 has the venv module but not the ensurepip it needs.
            Command::new("python3")
                .args(["-c", "import venv, ensurepip"])
                .status()
                .is_ok_and(|s| s.success())
        },
    ),
    (
        "bwrap",
        "bubblewrap",
        "the Bash sandbox scenarios (sandbox.*)",
        || on_path("bwrap"),
    ),
    // The real CLI's sandbox on Linux needs socat beside bwrap (its network proxy bridge);
    // without it the sandbox is off and every sandbox.* run on a real binary falls back to
    // permission checks ("install missing tools (e.g. apt install bubblewrap socat)").
    (
        "socat",
        "socat",
        "the Bash sandbox scenarios (sandbox.*) on a real binary",
        || on_path("socat"),
    ),
];

pub fn run(args: TestArgs) -> Result<bool> {
    install_missing()?;
    let status = crate::cargo()
        .args(["test", "--workspace"])
        .args(&args.cargo_args)
        .current_dir(crate::workspace_root())
        .status()
        .context("cannot run cargo test")?;
    Ok(status.success())
}

fn install_missing() -> Result<()> {
    let missing: Vec<_> = TOOLS.iter().filter(|(.., present)| !present()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|(_, package, ..)| *package).collect();
    for (program, package, why, _) in &missing {
        eprintln!("{program} is missing ({why}): installing Debian's {package}");
    }
    let root = is_root();
    if !on_path("apt-get") || !root {
        bail!(
            "install them first: `sudo apt-get install {}`",
            packages.join(" ")
        );
    }
    let apt = |args: &[&str]| -> Result<bool> {
        Ok(Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("cannot run apt-get")?
            .success())
    };
    let mut install = vec!["install", "-y", "-q"];
    install.extend(&packages);
    // A fresh image may have no package lists yet: then update them and try again.
    let installed = apt(&install)? || (apt(&["update", "-q"])? && apt(&install)?);
    if !installed {
        bail!("apt-get could not install {}", packages.join(" "));
    }
    Ok(())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
