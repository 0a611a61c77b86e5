//! `cargo xtask test`: the workspace's tests on a fresh machine. Cargo fetches the crates and the
//! tests install the real CLI with npm themselves; two tools come from Debian's packages, which
//! only the machine's package manager can install: Chromium (the HTML report's browser test)
//! and libxml2's `xmllint` (the JUnit schema test). This installs the missing ones, then runs
//! `cargo test --workspace` with any further arguments.

use std::process::Command;

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Passed on to `cargo test --workspace` (e.g. `-- --test-threads 1`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    cargo_args: Vec<String>,
}

/// (program looked for, Debian package, what needs it).
const TOOLS: [(&str, &str, &str); 2] = [
    ("chromium", "chromium", "the HTML report's browser test"),
    ("xmllint", "libxml2-utils", "the JUnit schema test"),
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
    let missing: Vec<_> = TOOLS
        .iter()
        .filter(|(program, ..)| !on_path(program))
        .filter(|(program, ..)| *program != "chromium" || std::env::var_os("CHROMIUM").is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|(_, package, _)| *package).collect();
    for (program, package, why) in &missing {
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
