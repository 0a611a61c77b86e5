//! Files the harness writes where another run may read or write them at the same time (two
//! `cargo xtask probe` on one checkout share `target/probes` and `snapshots/`): written whole
//! under a temporary name in the same directory, then renamed into place, so a reader sees the
//! old file or the new one, never a torn mix of two runs.

use std::io::Write;
use std::path::Path;

pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(contents.as_ref())?;
    // A temporary file is private (0600); what it becomes is an ordinary file of the checkout.
    use std::os::unix::fs::PermissionsExt;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn readers_see_one_whole_version_while_writers_race() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.json");
        // Large enough that a plain write is seen half done.
        let versions: Vec<Vec<u8>> = (b'a'..=b'd').map(|c| vec![c; 1 << 20]).collect();
        super::write(&path, &versions[0]).unwrap();
        std::thread::scope(|s| {
            for v in &versions {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..20 {
                        super::write(path, v).unwrap();
                    }
                });
            }
            s.spawn(|| {
                for _ in 0..200 {
                    let seen = std::fs::read(&path).unwrap();
                    assert!(
                        versions.contains(&seen),
                        "a torn file of {} bytes",
                        seen.len()
                    );
                }
            });
        });
        // No temporary file is left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
