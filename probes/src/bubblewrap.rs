//! Whether this machine can sandbox a command as the targets do on Linux: bubblewrap installed,
//! and allowed to make the namespaces a sandboxed command gets (mount, network). Scenarios that
//! say `requires = ["bubblewrap"]` are skipped with the reason where it cannot, never passed.

use std::process::{Command, Stdio};
use std::time::Duration;

/// Why sandboxed runs cannot happen on this machine, if they cannot: asked once per process.
pub fn unavailable() -> Option<&'static str> {
    static REASON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    REASON
        .get_or_init(|| {
            // A trial run with the namespaces both targets ask for; bounded, it is one process.
            let trial = Command::new("bwrap")
                .args(["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--", "true"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .and_then(|child| crate::process::output_within(child, Duration::from_secs(10)));
            match trial {
                Err(e) => Some(format!(
                    "no bubblewrap on this machine ({e}; `cargo xtask test` installs Debian's bubblewrap)"
                )),
                Ok(out) if !out.status.success() => Some(format!(
                    "bubblewrap cannot make a sandbox here: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )),
                Ok(_) => None,
            }
        })
        .as_deref()
}
