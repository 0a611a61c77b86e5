//! The published versions of the real CLI, and the cache its installs share between runs.
//!
//! `claude@2.1.235..2.1.332` names every version the npm registry publishes in that closed range
//! (versions are not contiguous: some numbers were never published). Installs go one at a time,
//! across processes too, under an exclusive lock on the cache; each version marks when it was last
//! used, and the cache stays under a size budget by removing the least recently used versions
//! (one is ~400 MB, a range of 85 would fill a disk).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};
use semver::Version;

pub const PACKAGE: &str = "@anthropic-ai/claude-code";

/// The versions the registry publishes, oldest first (pre-releases left out).
pub fn published() -> Result<Vec<Version>> {
    let out = Command::new("npm")
        .args(["view", PACKAGE, "versions", "--json"])
        .output()
        .context("cannot run npm: is Node.js installed?")?;
    if !out.status.success() {
        bail!(
            "npm view {PACKAGE} versions failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    parse_versions(&out.stdout)
}

fn parse_versions(json: &[u8]) -> Result<Vec<Version>> {
    let names: Vec<String> =
        serde_json::from_slice(json).context("npm view printed something other than a list")?;
    let mut versions: Vec<Version> = names
        .iter()
        .filter_map(|v| Version::parse(v).ok())
        .filter(|v| v.pre.is_empty())
        .collect();
    versions.sort();
    Ok(versions)
}

/// `2.1.235`, not a tag such as `latest`.
pub fn is_version(text: &str) -> bool {
    Version::parse(text).is_ok()
}

/// The version npm publishes under `tag` (`latest`), looked up now.
pub fn tagged(tag: &str) -> Result<Version> {
    if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        bail!("target `claude@{tag}`: not a version and not an npm tag");
    }
    let child = Command::new("npm")
        .args(["view", &format!("{PACKAGE}@{tag}"), "version"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .context("cannot run npm: is Node.js installed?")?;
    let out = crate::process::output_within(child, Duration::from_secs(60))
        .with_context(|| format!("npm view {PACKAGE}@{tag} version"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match Version::parse(text.trim()) {
        Ok(version) if out.status.success() => Ok(version),
        _ => bail!(
            "npm has no version of {PACKAGE} tagged `{tag}`: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}

/// `claude@TAG` (`claude@latest`) as the runs that say what changed: the newest adopted
/// baseline among `adopted` (the versions with snapshots), then the tagged version, once each.
pub fn expand_tag(tag: &str, tagged: &Version, adopted: &[Version]) -> Vec<String> {
    let mut specs = Vec::new();
    if let Some(baseline) = adopted.iter().max().filter(|b| *b != tagged) {
        eprintln!(
            "claude@{tag} is claude@{tagged} (npm's `{tag}` tag, looked up now); compared with the newest adopted baseline, claude@{baseline}"
        );
        specs.push(format!("claude@{baseline}"));
    } else {
        eprintln!("claude@{tag} is claude@{tagged} (npm's `{tag}` tag, looked up now)");
    }
    specs.push(format!("claude@{tagged}"));
    specs
}

/// Target specs for `spec`: `claude@A..B` becomes one `claude@V` per published version in
/// `[A, B]`, `claude@A,B,C` one per listed version; anything else is returned as it is.
pub fn expand(spec: &str, published: impl FnOnce() -> Result<Vec<Version>>) -> Result<Vec<String>> {
    let Some(versions) = spec.strip_prefix("claude@") else {
        return Ok(vec![spec.to_owned()]);
    };
    if let Some((low, high)) = versions.split_once("..") {
        let parse = |v: &str| {
            Version::parse(v.trim())
                .with_context(|| format!("target `{spec}`: `{v}` is not a version"))
        };
        let (low, high) = (parse(low)?, parse(high)?);
        if low > high {
            bail!("target `{spec}`: the range is empty ({low} is after {high})");
        }
        let all = published()?;
        for end in [&low, &high] {
            if !all.contains(end) {
                bail!("target `{spec}`: {end} is not a published version of {PACKAGE}");
            }
        }
        return Ok(all
            .into_iter()
            .filter(|v| *v >= low && *v <= high)
            .map(|v| format!("claude@{v}"))
            .collect());
    }
    Ok(versions
        .split(',')
        .map(|v| format!("claude@{}", v.trim()))
        .collect())
}

/// Holds the cache's install lock until dropped.
pub struct InstallLock(#[allow(dead_code)] File);

/// Waits for the cache's install lock: one `npm install` (and one eviction) at a time across
/// every process sharing the cache.
pub fn lock(cache: &Path) -> Result<InstallLock> {
    std::fs::create_dir_all(cache).with_context(|| format!("cannot create {}", cache.display()))?;
    let path = cache.join(".install.lock");
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(InstallLock(file))
}

const USED: &str = ".last-used";

/// Marks an installed version as used now.
pub fn touch(dir: &Path) {
    let _ = std::fs::write(dir.join(USED), b"");
}

/// The cache's budget: `$CLAUDE_CONFORMANCE_CACHE_GIB` GiB, 12 by default (about 30 versions).
pub fn budget_bytes() -> u64 {
    let gib = std::env::var("CLAUDE_CONFORMANCE_CACHE_GIB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(12);
    gib << 30
}

/// Versions used within this long are never removed: another run may be using them.
const IN_USE: Duration = Duration::from_secs(15 * 60);

/// Removes least recently used installs until the cache fits `budget` bytes, keeping `keep`
/// and anything used recently. Returns the removed folders. Call it holding the lock.
pub fn evict(cache: &Path, keep: &Path, budget: u64) -> Vec<PathBuf> {
    let mut installs: Vec<(SystemTime, u64, PathBuf)> = std::fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("claude@"))
        })
        .map(|p| {
            let used = std::fs::metadata(p.join(USED))
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            (used, size_of(&p), p)
        })
        .collect();
    installs.sort();
    let mut total: u64 = installs.iter().map(|(_, size, _)| size).sum();
    let now = SystemTime::now();
    let mut removed = Vec::new();
    for (used, size, path) in installs {
        if total <= budget {
            break;
        }
        let recent = now.duration_since(used).is_ok_and(|age| age < IN_USE);
        if path == keep || recent {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            total -= size;
            removed.push(path);
        }
    }
    removed
}

/// Bytes under `dir`, counting a hard-linked file once (npm links the native binary twice).
fn size_of(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut total = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() && seen.insert((meta.dev(), meta.ino())) {
                total += meta.len();
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed() -> Result<Vec<Version>> {
        parse_versions(
            br#"["2.1.233","2.1.235","2.1.236","2.1.239","2.1.240-beta.1","2.1.241","2.1.300"]"#,
        )
    }

    #[test]
    fn a_range_names_each_published_version_in_it_and_only_those() {
        assert_eq!(
            expand("claude@2.1.235..2.1.241", listed).unwrap(),
            [
                "claude@2.1.235",
                "claude@2.1.236",
                "claude@2.1.239",
                "claude@2.1.241"
            ]
        );
        let e = expand("claude@2.1.235..2.1.238", listed)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2.1.238 is not a published version"), "{e}");
        let e = expand("claude@2.1.241..2.1.235", listed)
            .unwrap_err()
            .to_string();
        assert!(e.contains("the range is empty"), "{e}");
    }

    #[test]
    fn a_tag_runs_the_newest_adopted_baseline_then_the_tagged_version() {
        let v = |s: &str| Version::parse(s).unwrap();
        let adopted = [v("2.1.200"), v("2.1.235")];
        assert_eq!(
            expand_tag("latest", &v("2.1.332"), &adopted),
            ["claude@2.1.235", "claude@2.1.332"]
        );
        assert_eq!(
            expand_tag("latest", &v("2.1.235"), &adopted),
            ["claude@2.1.235"]
        );
        assert_eq!(expand_tag("latest", &v("2.1.332"), &[]), ["claude@2.1.332"]);
        assert!(is_version("2.1.235") && !is_version("latest"));
        let e = tagged("latest; rm -rf /").unwrap_err();
        assert!(
            e.to_string().contains("not a version and not an npm tag"),
            "{e}"
        );
    }

    #[test]
    fn a_list_and_a_plain_spec_need_no_registry() {
        let offline = || bail!("no network");
        assert_eq!(
            expand("claude@2.1.235,2.1.300", offline).unwrap(),
            ["claude@2.1.235", "claude@2.1.300"]
        );
        assert_eq!(expand("reference", offline).unwrap(), ["reference"]);
        assert_eq!(expand("claude:/bin/x", offline).unwrap(), ["claude:/bin/x"]);
    }

    #[test]
    fn eviction_removes_the_least_recently_used_beyond_the_budget_and_keeps_the_one_in_use() {
        let cache = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        for (i, name) in ["claude@1.0.0", "claude@1.0.1", "claude@1.0.2"]
            .iter()
            .enumerate()
        {
            let dir = cache.path().join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("bin"), vec![0u8; 1000]).unwrap();
            let used = File::create(dir.join(USED)).unwrap();
            used.set_modified(old + Duration::from_secs(i as u64))
                .unwrap();
        }
        let keep = cache.path().join("claude@1.0.0");
        let removed = evict(cache.path(), &keep, 2500);
        assert_eq!(
            removed,
            [cache.path().join("claude@1.0.1")],
            "the oldest but the kept one"
        );
        assert!(keep.is_dir() && cache.path().join("claude@1.0.2").is_dir());
        assert!(
            evict(cache.path(), &keep, 2500).is_empty(),
            "within budget now"
        );
        let removed = evict(cache.path(), &keep, 0);
        assert_eq!(
            removed,
            [cache.path().join("claude@1.0.2")],
            "never the kept one"
        );
    }
}
