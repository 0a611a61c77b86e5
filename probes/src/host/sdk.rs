//! The `sdk` channel: the official TypeScript Agent SDK between the harness and the target. A
//! small Node script of the harness's own (`probes/sdk-host/host.mjs`) runs the SDK's `query()`
//! with the target as its executable and speaks the control protocol to the harness on its
//! stdio, so the control host drives it as it drives a target; the SDK builds the command line,
//! `initialize`, the prompts and the answers as it does for any program that uses it.

use std::path::Path;

use anyhow::{Context, Result};

use crate::Target;

/// The host script, written into each run's directory (a run needs nothing from the source tree).
const HOST_SCRIPT: &str = include_str!("../../sdk-host/host.mjs");

/// `node host.mjs SDK TARGET ARGS`: the SDK matching the target's version, installed into the
/// cache when missing.
pub fn command(target: &Target, args: &[String], base: &Path) -> Result<std::process::Command> {
    let version = crate::target::agent_sdk_version(target)?;
    let sdk = crate::target::install_agent_sdk(&version, &crate::target::default_cache())?;
    let script = base.join("sdk-host.mjs");
    std::fs::write(&script, HOST_SCRIPT)
        .with_context(|| format!("cannot write {}", script.display()))?;
    let mut command = std::process::Command::new("node");
    command
        .arg(&script)
        .arg(&sdk)
        .arg(&target.program)
        .arg(serde_json::to_string(args)?);
    Ok(command)
}
