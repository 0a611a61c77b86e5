//! `sandbox.credentials` (recorded on 2.1.235: sandbox.credentials): files and environment
//! variables a sandboxed command must not see. `deny` hides them (a file cannot be read, a
//! variable is unset); `mask` shows a stand-in, `fake_value_` and a UUID fixed for the session,
//! the whole file or value replaced. 2.1.235 would put the real value back at its proxy on the
//! way to `injectHosts`, which needs TLS termination; without it (the reference has none) it
//! warns at start that masked credentials cannot work, and so does the reference.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Secrets {
    pub deny_files: Vec<PathBuf>,
    pub mask_files: Vec<PathBuf>,
    pub deny_vars: Vec<String>,
    pub mask_vars: Vec<String>,
    /// `network.tlsTerminate` or `credentials.allowPlaintextInject` is set.
    pub injects: bool,
}

impl Secrets {
    /// Adds what one settings source's `sandbox` object says.
    pub fn read(&mut self, sandbox: &Value, expand: impl Fn(&str) -> PathBuf) {
        let credentials = &sandbox["credentials"];
        for entry in credentials["files"].as_array().into_iter().flatten() {
            let Some(path) = entry["path"].as_str() else {
                continue;
            };
            match entry["mode"].as_str() {
                Some("deny") => self.deny_files.push(expand(path)),
                Some("mask") => self.mask_files.push(expand(path)),
                _ => {}
            }
        }
        for entry in credentials["envVars"].as_array().into_iter().flatten() {
            let Some(name) = entry["name"].as_str() else {
                continue;
            };
            match entry["mode"].as_str() {
                Some("deny") => self.deny_vars.push(name.to_owned()),
                Some("mask") => self.mask_vars.push(name.to_owned()),
                _ => {}
            }
        }
        self.injects |= !sandbox["network"]["tlsTerminate"].is_null()
            || credentials["allowPlaintextInject"] == true;
    }

    /// The warning at start when masked credentials cannot be put back: their names, variables
    /// first, as 2.1.235 lists them.
    pub fn warning(&self) -> Option<String> {
        if self.injects || (self.mask_vars.is_empty() && self.mask_files.is_empty()) {
            return None;
        }
        let names: Vec<String> = self
            .mask_vars
            .iter()
            .cloned()
            .chain(self.mask_files.iter().map(|p| p.display().to_string()))
            .collect();
        Some(format!(
            "sandbox.credentials mask entries ({}) only ever show sandboxed commands a stand-in: \
             with no TLS termination the proxy cannot swap the real value back in, so whatever \
             needs them will fail to sign in. Turn on sandbox.network.tlsTerminate or drop the \
             mask entries",
            names.join(", ")
        ))
    }

    /// Hides and masks them for the command `c` (a bubblewrap command line, its binds so far in
    /// place); stand-in files are written into `dir`, which outlives the command.
    pub fn apply(&self, c: &mut Command, dir: &Path) -> std::io::Result<()> {
        for name in &self.deny_vars {
            c.env_remove(name);
        }
        for name in self
            .mask_vars
            .iter()
            .filter(|n| std::env::var_os(n).is_some())
        {
            c.env(name, sentinel(name));
        }
        for (i, path) in self.mask_files.iter().filter(|p| p.is_file()).enumerate() {
            let stand_in = dir.join(format!("masked-{i}"));
            std::fs::write(&stand_in, sentinel(&path.display().to_string()))?;
            c.arg("--ro-bind").arg(&stand_in).arg(path);
        }
        Ok(())
    }
}

/// The session's stand-in for one credential: the same on every command, so a tool that
/// compares two readings sees one value.
fn sentinel(key: &str) -> String {
    static SENTINELS: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    SENTINELS
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(key.to_owned())
        .or_insert_with(|| format!("fake_value_{}", crate::vocab::uuid()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secrets(sandbox: Value) -> Secrets {
        let mut s = Secrets::default();
        s.read(&sandbox, |p| {
            PathBuf::from("/home/u").join(p.trim_start_matches("~/"))
        });
        s
    }

    #[test]
    fn entries_sort_by_mode_and_a_mask_without_injection_warns() {
        let s = secrets(json!({"credentials": {
            "files": [{"path": "~/.netrc", "mode": "deny"}, {"path": "~/token", "mode": "mask"}],
            "envVars": [{"name": "A", "mode": "deny"}, {"name": "B", "mode": "mask"}],
        }}));
        assert_eq!(s.deny_files, [PathBuf::from("/home/u/.netrc")]);
        assert_eq!(s.mask_files, [PathBuf::from("/home/u/token")]);
        assert_eq!(
            (s.deny_vars.as_slice(), s.mask_vars.as_slice()),
            (&["A".to_owned()][..], &["B".to_owned()][..])
        );
        assert!(s
            .warning()
            .unwrap()
            .starts_with("sandbox.credentials mask entries (B, /home/u/token) "));
        let injecting = secrets(json!({"network": {"tlsTerminate": {}}, "credentials": {
            "envVars": [{"name": "B", "mode": "mask"}]}}));
        assert_eq!(injecting.warning(), None);
        assert_eq!(secrets(json!({})).warning(), None);
    }

    #[test]
    fn a_stand_in_is_fixed_for_the_session() {
        assert_eq!(sentinel("X"), sentinel("X"));
        assert_ne!(sentinel("X"), sentinel("Y"));
        assert!(sentinel("X").starts_with("fake_value_"));
    }
}
