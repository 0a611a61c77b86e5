//! The report files a run or a merge writes: JSON (`{runs, changelogs}`), JUnit XML for CI
//! systems, and one self-contained HTML page for people.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use probes::report::Doc;

#[derive(clap::Args)]
pub struct Outputs {
    /// Write the JSON report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write JUnit XML here: a test case per scenario and target.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write the HTML report here: one file, no network needed to read it.
    #[arg(long)]
    html: Option<PathBuf>,
}

impl Outputs {
    pub fn write(&self, doc: &Doc) -> Result<()> {
        if let Some(path) = &self.report {
            write(path, "report", &doc.to_json()?)?;
        }
        if let Some(path) = &self.junit {
            write(
                path,
                "JUnit report",
                probes::report::junit::render(doc).as_bytes(),
            )?;
        }
        if let Some(path) = &self.html {
            write(
                path,
                "HTML report",
                probes::report::html::render(doc).as_bytes(),
            )?;
        }
        Ok(())
    }
}

fn write(path: &Path, what: &str, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("{what} written to {}", path.display());
    Ok(())
}
