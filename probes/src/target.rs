//! Targets: the agent binaries a scenario runs against.
//!
//! `reference` (the workspace's `claude-reference`), `claude@VERSION` (the npm package, installed
//! once into a cache folder) and `claude:PATH` (any local binary). The harness treats all three
//! the same way: a program, argv, env, a cwd.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

#[derive(Debug, Clone)]
pub struct Target {
    /// How reports, snapshots and `differs` keys name it: `reference` or `claude@VERSION`.
    pub name: String,
    /// `reference` or `claude`: what a scenario's `targets` list names.
    pub kind: &'static str,
    pub program: PathBuf,
    /// The credentials its runs hand out (and redact by name from everything they write).
    pub secrets: crate::secrets::Secrets,
}

impl Target {
    pub fn reference(program: PathBuf) -> Self {
        Target {
            name: "reference".into(),
            kind: "reference",
            program,
            secrets: Default::default(),
        }
    }

    /// The same target given other credentials (a test's, of any shape).
    pub fn with_secrets(mut self, secrets: crate::secrets::Secrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// A real binary at `program`, named by the version it reports.
    pub fn claude_at(program: PathBuf) -> Result<Self> {
        let version = version_of(&program)?;
        Ok(Target {
            name: format!("claude@{version}"),
            kind: "claude",
            program,
            secrets: Default::default(),
        })
    }

    /// Resolves `claude@VERSION` (installing it when needed) or `claude:PATH`.
    pub fn resolve_claude(spec: &str, cache: &Path) -> Result<Self> {
        if let Some(path) = spec.strip_prefix("claude:") {
            let path = PathBuf::from(path);
            if !path.is_file() {
                bail!("target `{spec}`: no file at {}", path.display());
            }
            return Self::claude_at(path);
        }
        let Some(version) = spec.strip_prefix("claude@") else {
            bail!(
                "unknown target `{spec}`: expected `reference`, `claude@VERSION` or `claude:PATH`"
            );
        };
        let program = install_npm(version, cache)?;
        let target = Self::claude_at(program)?;
        if target.name != format!("claude@{version}") {
            bail!(
                "target `{spec}`: the installed binary reports `{}`",
                target.name
            );
        }
        Ok(target)
    }

    /// The snapshot folder name: a path-safe form of the name.
    pub fn dir_name(&self) -> String {
        self.name.replace(['/', ':', '\\'], "_")
    }
}

/// `--version` prints e.g. `2.1.235 (Claude Code)`; the first word is the version.
fn version_of(program: &Path) -> Result<String> {
    let out = Command::new(program)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .with_context(|| format!("cannot run {} --version", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().next().unwrap_or_default();
    if !out.status.success() || version.is_empty() {
        bail!(
            "{} --version failed: {}{}",
            program.display(),
            text,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(version.to_owned())
}

/// The native executable of `@anthropic-ai/claude-code@VERSION`, installed with npm into
/// `cache/claude@VERSION` the first time and reused afterwards.
pub fn install_npm(version: &str, cache: &Path) -> Result<PathBuf> {
    if version.is_empty()
        || !version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-".contains(c))
    {
        bail!("`{version}` is not a version");
    }
    let dir = cache.join(format!("claude@{version}"));
    let native = native_binary(&dir);
    if native.is_file() {
        crate::registry::touch(&dir);
        return Ok(native);
    }
    let _lock = crate::registry::lock(cache)?;
    // Another run may have installed it while this one waited for the lock.
    if !native.is_file() {
        npm_install(version, &dir)?;
    }
    crate::registry::touch(&dir);
    for gone in crate::registry::evict(cache, &dir, crate::registry::budget_bytes()) {
        eprintln!("cache over budget: removed {}", gone.display());
    }
    if !native.is_file() {
        bail!(
            "npm installed @anthropic-ai/claude-code@{version} but {} is missing",
            native.display()
        );
    }
    Ok(native)
}

fn npm_install(version: &str, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    eprintln!(
        "installing @anthropic-ai/claude-code@{version} into {}",
        dir.display()
    );
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(dir)
        .arg(format!("@anthropic-ai/claude-code@{version}"))
        .status()
        .context("cannot run npm: is Node.js installed?")?;
    if !status.success() {
        bail!("npm install @anthropic-ai/claude-code@{version} failed ({status})");
    }
    Ok(())
}

/// The platform package carries the real executable; the wrapper's `bin/claude.exe` is only a
/// placeholder until its postinstall script runs, which npm may skip.
fn native_binary(dir: &Path) -> PathBuf {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    dir.join(format!(
        "node_modules/@anthropic-ai/claude-code-{}-{arch}/claude",
        std::env::consts::OS
    ))
}

/// Where `claude@VERSION` installs go: `$CLAUDE_CONFORMANCE_CACHE`, else `~/.cache/claude-conformance`.
pub fn default_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFORMANCE_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache/claude-conformance")
}
