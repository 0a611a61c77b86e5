//! A run's private directories and what the scenario puts in them before the target starts:
//! HOME and cwd under one temporary root, the placeholders that name them, fixture files, a git
//! repository, and the scripted turns with their paths expanded.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use stubs::messages::{Block, FileWrite, Turn};

use crate::placeholders::Places;
use crate::process::interrupt::Root;
use crate::scenario::{Fixture, FixtureKind, Scenario};

/// The run's directories: removed with `root`, registered so an interrupt removes them too.
pub(super) struct Dirs {
    pub root: Root,
    pub base: PathBuf,
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub places: Places,
}

impl Dirs {
    /// A fresh root with `home` and `work` in it, and the placeholders naming them.
    pub fn make(scenario: &Scenario) -> Result<Dirs> {
        let root = Root::new(tempfile::Builder::new().prefix("conformance-").tempdir()?);
        let base = root.path().canonicalize()?;
        let home = base.join("home");
        let cwd = base.join("work");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&cwd)?;
        let places = Places {
            cwd: cwd.display().to_string(),
            home: home.display().to_string(),
            mcp_config: base.join("mcp-config.json").display().to_string(),
            fake_lsp: if scenario.source.contains("{fake_lsp}") {
                crate::mcp::fake_lsp_binary()?.display().to_string()
            } else {
                String::new()
            },
            hook_recorder: if scenario.source.contains("{hook_recorder}") {
                crate::hooks::install(&base)?.display().to_string()
            } else {
                String::new()
            },
        };
        Ok(Dirs {
            root,
            base,
            home,
            cwd,
            places,
        })
    }

    /// The scenario's fixture files, then its git repository when it asks for one.
    pub async fn fill(&self, scenario: &Scenario) -> Result<()> {
        for fixture in &scenario.files {
            write_fixture(fixture, &self.places, &self.cwd, &self.home).with_context(|| {
                format!("{}: fixture `{}`", scenario.path.display(), fixture.path)
            })?;
        }
        if scenario.git_init {
            crate::git::init_repo(&self.cwd, &self.home)
                .await
                .with_context(|| format!("{}: git_init", scenario.path.display()))?;
        }
        Ok(())
    }

    /// A scripted turn with the run's places expanded in its texts, inputs and file writes.
    pub fn expand_turn(&self, turn: &Turn) -> Turn {
        expand_turn(turn, &self.places, &self.cwd)
    }
}

fn resolve(path: &str, places: &Places, cwd: &Path, home: &Path) -> PathBuf {
    let path = places.expand(path);
    match path.strip_prefix("~/") {
        Some(rel) => home.join(rel),
        None => cwd.join(path),
    }
}

fn write_fixture(fixture: &Fixture, places: &Places, cwd: &Path, home: &Path) -> Result<()> {
    let path = resolve(&fixture.path, places, cwd, home);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match fixture.kind {
        FixtureKind::File => match fixture.size {
            // Sparse: a 25 MiB fixture costs nothing to make.
            Some(size) => std::fs::File::create(&path)?.set_len(size)?,
            None => match &fixture.image {
                Some(picture) => {
                    std::fs::write(&path, picture.encode(&path).map_err(anyhow::Error::msg)?)?
                }
                None => {
                    std::fs::write(&path, stubs::mcp::expand(&places.expand(&fixture.content)))?
                }
            },
        },
        FixtureKind::Dir => std::fs::create_dir_all(&path)?,
        FixtureKind::Fifo => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())?;
            // SAFETY: a valid NUL-terminated path; mkfifo only reads it.
            if unsafe { libc::mkfifo(c.as_ptr(), 0o644) } != 0 {
                return Err(std::io::Error::last_os_error().into());
            }
        }
        FixtureKind::Symlink => {
            let target = places.expand(fixture.target.as_deref().unwrap_or_default());
            std::os::unix::fs::symlink(target, &path)?;
        }
    }
    if let Some(age) = fixture.age_s {
        let now = std::time::SystemTime::now();
        let when = match u64::try_from(age) {
            Ok(past) => now - Duration::from_secs(past),
            Err(_) => now + Duration::from_secs(age.unsigned_abs()),
        };
        // A directory opens only for reading; its owner may still set its times.
        let dir = matches!(fixture.kind, FixtureKind::Dir);
        std::fs::File::options()
            .read(dir)
            .write(!dir)
            .open(&path)?
            .set_modified(when)?;
    }
    if let Some(mode) = fixture.mode {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn expand_turn(turn: &Turn, places: &Places, cwd: &Path) -> Turn {
    let home = Path::new(&places.home);
    Turn {
        text: turn.text.as_deref().map(|t| places.expand(t)),
        blocks: turn
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => Block::Text {
                    text: places.expand(text),
                },
                Block::ToolUse { id, name, input } => Block::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: places.expand_json(input),
                },
                other => other.clone(),
            })
            .collect(),
        touch: turn
            .touch
            .iter()
            .map(|w| FileWrite {
                path: resolve(&w.path, places, cwd, home).display().to_string(),
                content: places.expand(&w.content),
            })
            .collect(),
        // A file the answer waits on may be in the run's places (`{hook_log}`, `{home}/…`).
        after: turn.after.as_ref().map(|a| {
            a.filled(|text| Ok(places.expand(text)))
                .expect("expanding places cannot fail")
        }),
        end_after: turn.end_after.as_ref().map(|a| {
            a.filled(|text| Ok(places.expand(text)))
                .expect("expanding places cannot fail")
        }),
        ..turn.clone()
    }
}
