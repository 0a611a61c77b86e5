//! `project_write` with `local_path`: the file is read by the client, not passed through the model,
//! so a path the user approved must not become a different file by the time the bytes are read
//! (seed 000 §15). As 2.1.235 does: a lexical check, a realpath check, an `O_NOFOLLOW` open, then
//! proof that the path still names the open descriptor's file; the content is read from that
//! descriptor, never by path again.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use crate::limits::PROJECTS_WRITE_LOCAL_PATH_MAX;

pub const REPLACED: &str = "project_write: local_path was replaced during the upload.";
const NOT_INSIDE: &str = "project_write: local_path must be inside the working directory.";
const NO_FILE: &str = "project_write: no file exists at local_path.";
const NOT_READABLE: &str = "project_write: local_path is not readable.";
const NOT_REGULAR: &str = "project_write: local_path must be a regular file.";
const RESOLVES_OUTSIDE: &str = "project_write: local_path resolves outside the working directory.";

/// 2.1.235 throws two kinds of error here: a precondition failure (the model asked for something
/// that cannot be uploaded) and a plain error (the filesystem moved under it); the caller renders
/// them differently.
#[derive(Debug, thiserror::Error)]
pub enum LocalPathError {
    #[error("{0}")]
    Precondition(String),
    #[error("{0}")]
    Plain(String),
    #[error(transparent)]
    Io(io::Error),
}

impl LocalPathError {
    pub fn is_precondition(&self) -> bool {
        matches!(self, Self::Precondition(_))
    }
}

fn precondition(message: &str) -> LocalPathError {
    LocalPathError::Precondition(message.to_owned())
}

fn replaced() -> LocalPathError {
    LocalPathError::Plain(REPLACED.to_owned())
}

fn too_large() -> LocalPathError {
    LocalPathError::Precondition(format!(
        "project_write: file at local_path exceeds the {}-byte limit.",
        PROJECTS_WRITE_LOCAL_PATH_MAX.get()
    ))
}

fn realpath_error(e: io::Error) -> LocalPathError {
    match e.raw_os_error() {
        Some(libc::ENOENT | libc::ENOTDIR | libc::ENAMETOOLONG) => precondition(NO_FILE),
        Some(libc::EACCES | libc::EPERM) => precondition(NOT_READABLE),
        _ => LocalPathError::Io(e),
    }
}

fn open_error(e: io::Error) -> LocalPathError {
    match e.raw_os_error() {
        Some(libc::ENOENT) => precondition(NO_FILE),
        Some(libc::EACCES | libc::EPERM) => precondition(NOT_READABLE),
        // ENOTSUP is the same number on Linux.
        Some(libc::EISDIR | libc::ENXIO | libc::EOPNOTSUPP) => precondition(NOT_REGULAR),
        // O_NOFOLLOW met a symlink where realpath had just seen a file.
        Some(libc::ELOOP) => replaced(),
        _ => LocalPathError::Io(e),
    }
}

/// Node's `path.resolve`: join onto the process's cwd when relative, then fold `.` and `..`
/// without asking the filesystem, so `link/..` is judged by its spelling, not its target.
fn lexical_resolve(base: &Path, tail: &Path) -> io::Result<PathBuf> {
    let joined = if base.is_absolute() {
        base.join(tail)
    } else {
        std::env::current_dir()?.join(base).join(tail)
    };
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Ok(out)
}

/// `p === root || p.startsWith(root + sep)` on the strings, as 2.1.235 writes it, so a working
/// directory of `/` admits only `/` itself (its `root + sep` is `//`).
fn within(p: &Path, root: &Path) -> bool {
    let (p, root) = (p.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    p == root || (p.len() > root.len() && p.starts_with(root) && p[root.len()] == b'/')
}

/// An open descriptor proven, at open time, to be the file `local_path` names inside the working
/// directory.
#[derive(Debug)]
pub struct VerifiedFile {
    file: File,
    /// `path.resolve(cwd, local_path)`: both what the checks re-resolve and what the result shows.
    candidate: PathBuf,
    real: PathBuf,
    dev: u64,
    ino: u64,
}

/// Every check 2.1.235 makes before reading; on success the descriptor is open and positioned at 0.
pub fn open_verified(cwd: &Path, local_path: &str) -> Result<VerifiedFile, LocalPathError> {
    let cwd_abs = lexical_resolve(cwd, Path::new("")).map_err(LocalPathError::Io)?;
    let candidate = lexical_resolve(&cwd_abs, Path::new(local_path)).map_err(LocalPathError::Io)?;
    if !within(&candidate, &cwd_abs) {
        return Err(precondition(NOT_INSIDE));
    }
    let real = fs::canonicalize(&candidate).map_err(realpath_error)?;
    let real_cwd = fs::canonicalize(&cwd_abs).map_err(realpath_error)?;
    if !within(&real, &real_cwd) {
        return Err(LocalPathError::Plain(RESOLVES_OUTSIDE.to_owned()));
    }
    // O_NONBLOCK: a FIFO must reach the regular-file check instead of hanging the open.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&real)
        .map_err(open_error)?;
    let held = file.metadata().map_err(LocalPathError::Io)?;
    // What the kernel says the descriptor is; a deleted file or no /proc gives no answer, and
    // 2.1.235 then relies on the dev/ino comparison alone.
    if let Ok(h) = fs::canonicalize(format!("/proc/self/fd/{}", file.as_raw_fd())) {
        if !within(&h, &real_cwd) {
            return Err(replaced());
        }
    }
    let verified = VerifiedFile {
        file,
        candidate,
        real,
        dev: held.dev(),
        ino: held.ino(),
    };
    verified.recheck()?;
    // Only after the identity check: a swapped path must report the swap, not its new type.
    if !held.file_type().is_file() {
        return Err(precondition(NOT_REGULAR));
    }
    if held.len() > PROJECTS_WRITE_LOCAL_PATH_MAX.get() {
        return Err(too_large());
    }
    Ok(verified)
}

impl VerifiedFile {
    pub fn resolved(&self) -> &Path {
        &self.candidate
    }

    /// The path still leads, through the same symlinks, to the file the descriptor holds.
    /// An inode of 0 means the filesystem does not report one, so only the device can be compared.
    pub fn recheck(&self) -> Result<(), LocalPathError> {
        let again = fs::canonicalize(&self.candidate).map_err(|_| replaced())?;
        let now = fs::metadata(&again).map_err(|_| replaced())?;
        let same = again.as_os_str() == self.real.as_os_str()
            && now.dev() == self.dev
            && (self.ino == 0 || now.ino() == self.ino);
        if same {
            Ok(())
        } else {
            Err(replaced())
        }
    }

    /// Whatever the path names by now, these are the verified file's bytes. Lossy like Node's
    /// `Buffer.toString("utf8")`: a binary file uploads as text with U+FFFD, it is not refused.
    pub fn read_text(mut self) -> Result<String, LocalPathError> {
        let mut bytes = Vec::new();
        self.file
            .read_to_end(&mut bytes)
            .map_err(LocalPathError::Io)?;
        Ok(String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// `root/cwd` is the working directory; `root/outside` holds a secret beside it.
    struct Tree {
        _root: tempfile::TempDir,
        cwd: PathBuf,
        outside: PathBuf,
    }

    fn tree() -> Tree {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path().join("cwd");
        let outside = root.path().join("outside");
        fs::create_dir(&cwd).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET").unwrap();
        fs::write(cwd.join("doc.txt"), "INSIDE").unwrap();
        Tree {
            _root: root,
            cwd,
            outside,
        }
    }

    fn refusal(t: &Tree, local_path: &str) -> LocalPathError {
        open_verified(&t.cwd, local_path).expect_err(local_path)
    }

    fn assert_precondition(t: &Tree, local_path: &str, message: &str) {
        let e = refusal(t, local_path);
        assert_eq!(e.to_string(), message, "{local_path}");
        assert!(e.is_precondition(), "{local_path}");
    }

    #[test]
    fn lexical_resolve_folds_without_the_filesystem() {
        let r = |b: &str, t: &str| lexical_resolve(Path::new(b), Path::new(t)).unwrap();
        assert_eq!(r("/a/b", "./c/../d/"), Path::new("/a/b/d"));
        assert_eq!(r("/a/b", "../../../x"), Path::new("/x"));
        assert_eq!(r("/a/b", "/etc//passwd"), Path::new("/etc/passwd"));
        assert_eq!(r("/a/b/", ""), Path::new("/a/b"));
        assert!(within(Path::new("/a/b"), Path::new("/a/b")));
        assert!(!within(Path::new("/a/bc"), Path::new("/a/b")));
        assert!(!within(Path::new("/etc"), Path::new("/")));
    }

    #[test]
    fn refusals_carry_the_exact_messages() {
        let t = tree();
        assert_precondition(&t, "../x", NOT_INSIDE);
        assert_precondition(&t, "../outside/secret.txt", NOT_INSIDE);
        let secret = t.outside.join("secret.txt");
        assert_precondition(&t, secret.to_str().unwrap(), NOT_INSIDE);
        assert_precondition(&t, "missing.txt", NO_FILE);
        assert_precondition(&t, "doc.txt/under-a-file", NO_FILE);

        symlink(&secret, t.cwd.join("escape.txt")).unwrap();
        let e = refusal(&t, "escape.txt");
        assert_eq!(e.to_string(), RESOLVES_OUTSIDE);
        assert!(!e.is_precondition());

        fs::create_dir(t.cwd.join("dir")).unwrap();
        assert_precondition(&t, "dir", NOT_REGULAR);
        assert_precondition(&t, "", NOT_REGULAR);

        let fifo = std::ffi::CString::new(t.cwd.join("fifo").as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_precondition(&t, "fifo", NOT_REGULAR);
    }

    #[test]
    fn unreadable_file_is_refused() {
        let t = tree();
        let locked = t.cwd.join("locked.txt");
        fs::write(&locked, "x").unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        // Root (CAP_DAC_OVERRIDE) opens mode 000 anyway; there is nothing to refuse then.
        if File::open(&locked).is_ok() {
            return;
        }
        assert_precondition(&t, "locked.txt", NOT_READABLE);
    }

    #[test]
    fn size_limit_is_inclusive() {
        let t = tree();
        let limit = PROJECTS_WRITE_LOCAL_PATH_MAX.get();
        // Sparse: set_len allocates nothing, so 25 MiB costs no disk and no time.
        File::create(t.cwd.join("big.bin"))
            .unwrap()
            .set_len(limit + 1)
            .unwrap();
        assert_precondition(
            &t,
            "big.bin",
            "project_write: file at local_path exceeds the 26214400-byte limit.",
        );
        File::create(t.cwd.join("max.bin"))
            .unwrap()
            .set_len(limit)
            .unwrap();
        let text = open_verified(&t.cwd, "max.bin")
            .unwrap()
            .read_text()
            .unwrap();
        assert_eq!(text.len() as u64, limit);
    }

    #[test]
    fn symlink_inside_reads_its_target() {
        let t = tree();
        symlink("doc.txt", t.cwd.join("link.txt")).unwrap();
        let f = open_verified(&t.cwd, "./sub/../link.txt").unwrap();
        assert_eq!(f.resolved(), t.cwd.join("link.txt"));
        assert_eq!(f.read_text().unwrap(), "INSIDE");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let t = tree();
        fs::write(t.cwd.join("bin"), b"ok\xff\xfe!\xe2\x82x").unwrap();
        let text = open_verified(&t.cwd, "bin").unwrap().read_text().unwrap();
        assert_eq!(text, "ok\u{FFFD}\u{FFFD}!\u{FFFD}x");
    }

    #[test]
    fn recheck_sees_swaps_and_read_keeps_the_original() {
        let t = tree();
        let doc = t.cwd.join("doc.txt");

        let f = open_verified(&t.cwd, "doc.txt").unwrap();
        f.recheck().unwrap();
        fs::remove_file(&doc).unwrap();
        symlink(t.outside.join("secret.txt"), &doc).unwrap();
        assert_eq!(f.recheck().unwrap_err().to_string(), REPLACED);
        assert_eq!(f.read_text().unwrap(), "INSIDE");

        fs::remove_file(&doc).unwrap();
        fs::write(&doc, "INSIDE").unwrap();
        let f = open_verified(&t.cwd, "doc.txt").unwrap();
        let other = t.cwd.join("other.txt");
        fs::write(&other, "REPLACEMENT").unwrap();
        fs::rename(&other, &doc).unwrap();
        let e = f.recheck().unwrap_err();
        assert_eq!(e.to_string(), REPLACED);
        assert!(!e.is_precondition());
        assert_eq!(f.read_text().unwrap(), "INSIDE");
    }

    #[test]
    fn racing_swaps_never_leak_the_outside_file() {
        let t = tree();
        let stage = t.outside.join("stage");
        fs::create_dir(&stage).unwrap();
        let (doc, secret) = (t.cwd.join("doc.txt"), t.outside.join("secret.txt"));
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let (link, file) = (stage.join("link"), stage.join("file"));
                while !stop.load(Ordering::Relaxed) {
                    // Prepared aside and renamed over the path: it always exists, whole, as
                    // one or the other.
                    symlink(&secret, &link).unwrap();
                    fs::rename(&link, &doc).unwrap();
                    std::thread::yield_now();
                    fs::write(&file, "INSIDE").unwrap();
                    fs::rename(&file, &doc).unwrap();
                    // Rests only while the regular file is in place, so a preempted swapper
                    // leaves the reader something it may succeed on.
                    std::thread::sleep(Duration::from_micros(200));
                }
            })
        };

        let allowed = [REPLACED, RESOLVES_OUTSIDE, NO_FILE];
        let (mut ok, mut refused) = (0, 0);
        let started = Instant::now();
        // 300 tries, then more only until one succeeds: success needs the scheduler's help,
        // the property checked on every try does not.
        while ok + refused < 300 || (ok == 0 && started.elapsed() < Duration::from_secs(5)) {
            let outcome = open_verified(&t.cwd, "doc.txt")
                .and_then(|f| f.recheck().map(|()| f))
                .and_then(VerifiedFile::read_text);
            match outcome {
                Ok(text) => {
                    assert_eq!(text, "INSIDE");
                    ok += 1;
                }
                Err(e) => {
                    assert!(
                        allowed.contains(&e.to_string().as_str()),
                        "unexpected: {e:?}"
                    );
                    refused += 1;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        eprintln!("race: {ok} read INSIDE, {refused} refused");
        assert!(ok > 0, "no read succeeded in 5 s ({refused} refused)");
    }
}
