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
                "unknown target `{spec}`: expected `reference`, `claude@VERSION`, `claude@latest` or `claude:PATH`"
            );
        };
        // A tag (`latest`) names whatever npm publishes under it today: looked up now, said.
        let resolved;
        let version = if crate::registry::is_version(version) {
            version
        } else {
            resolved = crate::registry::tagged(version)?.to_string();
            eprintln!("target {spec} is claude@{resolved} (npm's `{version}` tag, looked up now)");
            resolved.as_str()
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
    npm_install_package("@anthropic-ai/claude-code", version, dir, &[])
}

fn npm_install_package(package: &str, version: &str, dir: &Path, extra: &[&str]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    eprintln!("installing {package}@{version} into {}", dir.display());
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .args(extra)
        .arg("--prefix")
        .arg(dir)
        .arg(format!("{package}@{version}"))
        .status()
        .context("cannot run npm: is Node.js installed?")?;
    if !status.success() {
        bail!("npm install {package}@{version} failed ({status})");
    }
    Ok(())
}

/// An SDK version is digits and dots (it becomes part of a path and a package spec).
fn sdk_version_checked(version: &str) -> Result<()> {
    if version.is_empty() || !version.chars().all(|c| c.is_ascii_digit() || c == '.') {
        bail!("`{version}` is not a version");
    }
    Ok(())
}

/// The TypeScript Agent SDK that goes with a target: `0.3.N` for a CLI at `2.1.N` (the SDK's
/// versions track the CLI's patch number). The reference reports its contract's version.
pub fn agent_sdk_version(target: &Target) -> Result<String> {
    // A real binary's name says its version; only the reference is asked.
    let cli = match target.name.strip_prefix("claude@") {
        Some(version) => version.to_owned(),
        None => version_of(&target.program)?,
    };
    match cli.split('.').collect::<Vec<_>>().as_slice() {
        ["2", "1", patch] if patch.chars().all(|c| c.is_ascii_digit()) => {
            Ok(format!("0.3.{patch}"))
        }
        _ => bail!("no Agent SDK is known to go with {} ({cli})", target.name),
    }
}

/// The Python of a virtual environment holding `claude-agent-sdk==VERSION` (the Python Agent
/// SDK), made with `python3 -m venv` in `cache/py-sdk@VERSION` the first time. On Debian the
/// venv module is the `python3-venv` package, which `cargo xtask test` installs.
pub fn install_python_agent_sdk(version: &str, cache: &Path) -> Result<PathBuf> {
    sdk_version_checked(version)?;
    let dir = cache.join(format!("py-sdk@{version}"));
    let python = dir.join("bin/python");
    let has_sdk = |python: &Path| {
        Command::new(python)
            .args(["-c", "import claude_agent_sdk"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_sdk(&python) {
        return Ok(python);
    }
    let _lock = crate::registry::lock(cache)?;
    if !has_sdk(&python) {
        eprintln!(
            "installing claude-agent-sdk=={version} into {}",
            dir.display()
        );
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&dir)
            .status()
            .context("cannot run python3: is Python installed?")?;
        if !made.success() {
            bail!(
                "python3 -m venv {} failed ({made}): on Debian, install python3-venv",
                dir.display()
            );
        }
        let pip = Command::new(dir.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("claude-agent-sdk=={version}"))
            .status()
            .context("cannot run the venv's pip")?;
        if !pip.success() {
            bail!("pip install claude-agent-sdk=={version} failed ({pip})");
        }
    }
    Ok(python)
}

/// The entry module (`sdk.mjs`) of `@anthropic-ai/claude-agent-sdk@VERSION`, installed with npm
/// into `cache/agent-sdk@VERSION` the first time, without the executable it bundles (the
/// harness names the target's). Outside the cache's eviction, which counts CLI installs only.
pub fn install_agent_sdk(version: &str, cache: &Path) -> Result<PathBuf> {
    sdk_version_checked(version)?;
    let dir = cache.join(format!("agent-sdk@{version}"));
    let module = dir.join("node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    if module.is_file() {
        return Ok(module);
    }
    let _lock = crate::registry::lock(cache)?;
    if !module.is_file() {
        npm_install_package(
            "@anthropic-ai/claude-agent-sdk",
            version,
            &dir,
            &["--omit=optional"],
        )?;
    }
    if !module.is_file() {
        bail!(
            "npm installed @anthropic-ai/claude-agent-sdk@{version} but {} is missing",
            module.display()
        );
    }
    Ok(module)
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
