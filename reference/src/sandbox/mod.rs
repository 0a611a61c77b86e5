//! The Bash sandbox (seed 004 line 31: a command the permission step allowed still runs confined),
//! with bubblewrap as 2.1.235 uses it on Linux, recorded on 2.1.235 (sandbox.filesystem): with `sandbox.enabled`, a command sees the whole filesystem read-only
//! except the working directory and `sandbox.filesystem.allowWrite`, less `denyWrite`; `denyRead`
//! paths cannot be read; `autoAllowBashIfSandboxed` (on unless set false) lets a sandboxed command run without
//! asking; `dangerouslyDisableSandbox` takes a command out of it (through the permission step).
//!
//! The network (sandbox.network): a command has a network namespace of its own whose only way
//! out is the session's proxy (`proxy`), reached through the bridge that starts the command
//! (`bridge`); the proxy lets through the hosts `network.allowedDomains` and `WebFetch(domain:…)`
//! allow rules name, less `network.deniedDomains` (`domains`), and asks about the rest where a
//! host can be asked. Unix sockets are taken away unless `network.allowAllUnixSockets`.
//! Credentials (`credentials`): files and variables denied or masked. What the host would run
//! or read later (shell and git configuration, `.git/hooks`, `.claude`) stays read-only even
//! inside the working directory (`protected`).
//! `excludedCommands` run outside it, judged by the permission step like any unsandboxed command.

pub mod bridge;
pub mod credentials;
pub mod domains;
pub mod protected;
pub mod proxy;
pub mod relay;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::permissions::rules::Rule;
use domains::Domains;
use proxy::Credentials;

/// The sandbox as the settings configure it, when it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct Sandbox {
    /// `enableWeakerNestedSandbox`: no user namespace of its own (inside a container).
    pub weaker_nested: bool,
    /// `autoAllowBashIfSandboxed`: a sandboxed command needs no permission.
    pub auto_allow: bool,
    /// `allowUnsandboxedCommands`: `dangerouslyDisableSandbox` is honoured.
    pub allow_unsandboxed: bool,
    pub allow_write: Vec<PathBuf>,
    /// Paths inside the writable ones that stay read-only.
    pub deny_write: Vec<PathBuf>,
    pub deny_read: Vec<PathBuf>,
    pub network: Network,
    pub secrets: credentials::Secrets,
    /// `excludedCommands`, as the Bash rules they match like: commands that run outside it,
    /// judged like any unsandboxed command.
    pub excluded: Vec<Rule>,
    /// `failIfUnavailable`: a sandbox that cannot start stops the session before it starts.
    pub fail_if_unavailable: bool,
}

/// `sandbox.network` as the settings shape it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Network {
    pub domains: Domains,
    /// `strictAllowlist`: refuse an unlisted host without asking.
    pub strict: bool,
    /// `allowAllUnixSockets`: no seccomp filter on `socket(AF_UNIX)`.
    pub unix_sockets: bool,
}

impl Sandbox {
    /// The sandbox the settings turn on (every source merged, a later one winning a switch and
    /// adding to the path lists), or `None`.
    pub fn configured(home: &Path, cwd: &Path) -> Option<Sandbox> {
        let mut enabled = false;
        let mut sandbox = Sandbox {
            weaker_nested: false,
            auto_allow: true,
            allow_unsandboxed: true,
            allow_write: Vec::new(),
            deny_write: Vec::new(),
            deny_read: Vec::new(),
            network: Network::default(),
            secrets: credentials::Secrets::default(),
            excluded: Vec::new(),
            fail_if_unavailable: false,
        };
        for (source, settings) in crate::environment::settings_by_source(home, cwd) {
            let s = &settings["sandbox"];
            let switch = |key: &str, now: bool| s[key].as_bool().unwrap_or(now);
            enabled = switch("enabled", enabled);
            sandbox.weaker_nested = switch("enableWeakerNestedSandbox", sandbox.weaker_nested);
            sandbox.fail_if_unavailable = switch("failIfUnavailable", sandbox.fail_if_unavailable);
            sandbox.auto_allow = switch("autoAllowBashIfSandboxed", sandbox.auto_allow);
            sandbox.allow_unsandboxed =
                switch("allowUnsandboxedCommands", sandbox.allow_unsandboxed);
            let paths = |key: &str| -> Vec<PathBuf> {
                crate::json::strings(&s["filesystem"][key])
                    .iter()
                    .map(|p| expand(p, home, cwd))
                    .collect()
            };
            sandbox.allow_write.extend(paths("allowWrite"));
            sandbox.deny_write.extend(paths("denyWrite"));
            sandbox.deny_read.extend(paths("denyRead"));
            sandbox.secrets.read(s, |p| expand(p, home, cwd));
            sandbox.excluded.extend(
                crate::json::strings(&s["excludedCommands"])
                    .into_iter()
                    .map(|pattern| Rule {
                        tool: "Bash".into(),
                        content: Some(pattern),
                    }),
            );
            let net = &s["network"];
            let domains = &mut sandbox.network.domains;
            domains
                .allowed
                .extend(crate::json::strings(&net["allowedDomains"]));
            domains
                .denied
                .extend(crate::json::strings(&net["deniedDomains"]));
            // `WebFetch(domain:…)` allow rules, read as the permission step reads rules.
            domains.allowed.extend(
                crate::json::strings(&settings["permissions"]["allow"])
                    .iter()
                    .filter_map(|text| Rule::parse(text))
                    .filter(|rule| rule.tool == "WebFetch")
                    .filter_map(|rule| Some(rule.content?.strip_prefix("domain:")?.to_owned())),
            );
            // Only from the user's own settings or the command line (recorded:
            // sandbox.network/sources): a repository cannot take the user's questions away.
            if !source.is_project() {
                sandbox.network.strict = net["strictAllowlist"]
                    .as_bool()
                    .unwrap_or(sandbox.network.strict);
            }
            sandbox.network.unix_sockets = net["allowAllUnixSockets"]
                .as_bool()
                .unwrap_or(sandbox.network.unix_sockets);
        }
        // A denied credential file is a denied read like any other.
        let denied = sandbox.secrets.deny_files.clone();
        sandbox.deny_read.extend(denied);
        enabled.then_some(sandbox)
    }

    /// The sandbox commands actually run in: the configured one, when it can start (recorded:
    /// sandbox.escape/missing; without bubblewrap 2.1.235 warns at start and runs commands
    /// unconfined, or with `failIfUnavailable` does not start).
    pub fn usable(home: &Path, cwd: &Path) -> Option<Sandbox> {
        Sandbox::configured(home, cwd).filter(|_| missing().is_none())
    }

    /// Whether the Bash call `input` runs inside it: not when it asks to be let out (and may
    /// be), nor when its command is one `excludedCommands` names (as a Bash permission rule
    /// would: exact, `prefix:*`, or with `*` standing for any text).
    pub fn confines(&self, input: &Value) -> bool {
        let command = input["command"].as_str().unwrap_or_default();
        let excluded = self
            .excluded
            .iter()
            .any(|rule| rule.matches_command(command));
        !self.escapes(input) && !excluded
    }

    /// Whether the call asked to be let out and may be; its structured result says so
    /// (an excluded command's does not: recorded, sandbox.escape/excluded).
    pub fn escapes(&self, input: &Value) -> bool {
        self.allow_unsandboxed && input["dangerouslyDisableSandbox"] == true
    }

    /// `bash -c script` inside bubblewrap: everything read-only but `cwd`, the allowed paths and
    /// the files the command's own shell must write (`writable`); denied paths hidden; the
    /// network only through the proxy at `proxy_socket`, with the variables that point there.
    pub fn command(
        &self,
        cwd: &Path,
        writable: &[&Path],
        proxy_socket: &Path,
        credentials: &Credentials,
        script: &str,
    ) -> std::io::Result<Command> {
        let mut c = Command::new("bwrap");
        if !self.weaker_nested {
            c.args(["--unshare-user", "--unshare-pid"]);
        }
        c.arg("--unshare-net");
        c.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
        for path in std::iter::once(cwd)
            .chain(self.allow_write.iter().map(PathBuf::as_path))
            .chain(writable.iter().copied())
            .filter(|p| p.exists())
        {
            c.arg("--bind").arg(path).arg(path);
        }
        // Later mounts cover earlier ones: a denied path inside a writable one is read-only.
        for path in self.deny_write.iter().filter(|p| p.exists()) {
            c.arg("--ro-bind").arg(path).arg(path);
        }
        c.args(protected::binds(cwd));
        for path in self.deny_read.iter().filter(|p| p.exists()) {
            // A file is covered by an empty one; a directory by an empty, read-only tmpfs.
            if path.is_dir() {
                c.arg("--tmpfs").arg(path).arg("--remount-ro").arg(path);
            } else {
                c.arg("--ro-bind").arg("/dev/null").arg(path);
            }
        }
        let stand_ins = proxy_socket.parent().unwrap_or(proxy_socket);
        self.secrets.apply(&mut c, stand_ins)?;
        // By its path, as 2.1.235's sandbox starts it: the shell's own errors then name it so
        // (`/bin/bash: line 1: …`, recorded: sandbox.filesystem/deny-write).
        let unix = if self.network.unix_sockets {
            "unix"
        } else {
            "no-unix"
        };
        c.arg("--")
            .arg(std::env::current_exe()?)
            .args([bridge::ARG])
            .arg(proxy_socket)
            .args([unix, "--", "/bin/bash", "-c", script]);
        c.envs(proxy_variables(credentials));
        Ok(c)
    }
}

/// What the sandbox needs and this machine lacks, in 2.1.235's words, looked up once.
pub fn missing() -> Option<&'static str> {
    static MISSING: std::sync::OnceLock<Option<&'static str>> = std::sync::OnceLock::new();
    *MISSING.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found = std::env::split_paths(&path).any(|dir| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(dir.join("bwrap"))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        });
        (!found).then_some("bubblewrap (bwrap) not installed")
    })
}

/// The variables a sandboxed command finds its proxies by, 2.1.235's names and shapes.
fn proxy_variables(credentials: &Credentials) -> Vec<(&'static str, String)> {
    let Credentials { user, password } = credentials;
    let escaped_user = user.replace('=', "%3D");
    let http = format!(
        "http://{escaped_user}:{password}@localhost:{}",
        bridge::HTTP_PORT
    );
    let socks = format!(
        "socks5h://{escaped_user}:{password}@localhost:{}",
        bridge::SOCKS_PORT
    );
    let local = "localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16";
    let mut vars = Vec::new();
    for name in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "GRPC_PROXY",
        "DOCKER_HTTP_PROXY",
        "DOCKER_HTTPS_PROXY",
    ] {
        vars.push((name, http.clone()));
    }
    for name in ["http_proxy", "https_proxy", "all_proxy", "grpc_proxy"] {
        vars.push((name, http.clone()));
    }
    vars.extend([
        ("FTP_PROXY", socks.clone()),
        ("ftp_proxy", socks),
        ("NO_PROXY", local.to_owned()),
        ("no_proxy", local.to_owned()),
        ("RSYNC_PROXY", format!("localhost:{}", bridge::SOCKS_PORT)),
        ("CLOUDSDK_PROXY_TYPE", "http".to_owned()),
        ("CLOUDSDK_PROXY_ADDRESS", "localhost".to_owned()),
        ("CLOUDSDK_PROXY_PORT", bridge::HTTP_PORT.to_string()),
        ("CLOUDSDK_PROXY_USERNAME", user.clone()),
        ("CLOUDSDK_PROXY_PASSWORD", password.clone()),
        (
            "GIT_CONFIG_PARAMETERS",
            "'http.proxyAuthMethod=basic'".to_owned(),
        ),
        (
            "GIT_SSH_COMMAND",
            format!(
                "ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand='socat - PROXY:localhost:%h:%p,proxyport={},proxyauth={user}:{password}'",
                bridge::HTTP_PORT
            ),
        ),
    ]);
    vars
}

/// A settings path: `~/` from HOME, a relative one from the working directory.
fn expand(path: &str, home: &Path, cwd: &Path) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => cwd.join(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_turn_it_on_and_shape_it() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        assert_eq!(Sandbox::configured(home.path(), cwd.path()), None);
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"sandbox": {"enabled": true, "enableWeakerNestedSandbox": true,
                "filesystem": {"allowWrite": ["/tmp/w"], "denyWrite": ["locked"], "denyRead": ["~/secret"]}}}"#,
        )
        .unwrap();
        let s = Sandbox::configured(home.path(), cwd.path()).unwrap();
        assert!(s.weaker_nested && s.auto_allow && s.allow_unsandboxed);
        assert_eq!(s.allow_write, [PathBuf::from("/tmp/w")]);
        assert_eq!(s.deny_read, [home.path().join("secret")]);
        assert_eq!(s.deny_write, [cwd.path().join("locked")]);
        assert!(s.confines(&serde_json::json!({"command": "ls"})));
        assert!(
            !s.confines(&serde_json::json!({"command": "ls", "dangerouslyDisableSandbox": true}))
        );
    }

    #[test]
    fn web_fetch_domain_allow_rules_allow_their_hosts() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"sandbox": {"enabled": true},
                "permissions": {"allow": ["WebFetch(domain:rule.test)", "WebFetch", "Bash(curl:*)"]}}"#,
        )
        .unwrap();
        let s = Sandbox::configured(home.path(), cwd.path()).unwrap();
        assert_eq!(s.network.domains.allowed, ["rule.test"]);
    }

    #[test]
    fn a_projects_strict_allowlist_is_ignored_and_the_lists_merge() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        for dir in [home.path(), cwd.path()] {
            std::fs::create_dir_all(dir.join(".claude")).unwrap();
        }
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["user.test"]}}}"#,
        )
        .unwrap();
        std::fs::write(
            cwd.path().join(".claude/settings.json"),
            r#"{"sandbox": {"network": {"allowedDomains": ["project.test"], "strictAllowlist": true}}}"#,
        )
        .unwrap();
        let s = Sandbox::configured(home.path(), cwd.path()).unwrap();
        assert_eq!(s.network.domains.allowed, ["user.test", "project.test"]);
        assert!(!s.network.strict);
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"sandbox": {"enabled": true, "network": {"strictAllowlist": true}}}"#,
        )
        .unwrap();
        assert!(
            Sandbox::configured(home.path(), cwd.path())
                .unwrap()
                .network
                .strict
        );
    }

    #[test]
    fn excluded_commands_match_as_bash_rules_and_do_not_count_as_let_out() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"sandbox": {"enabled": true, "excludedCommands": ["git status", "mkdir:*", "ls *"]}}"#,
        )
        .unwrap();
        let s = Sandbox::configured(home.path(), cwd.path()).unwrap();
        let call = |c: &str| serde_json::json!({ "command": c });
        for outside in ["git status", "mkdir -p a/b", "ls / > out.txt"] {
            assert!(!s.confines(&call(outside)), "{outside}");
            assert!(!s.escapes(&call(outside)));
        }
        for inside in ["git status --short", "mkdirx", "touch a"] {
            assert!(s.confines(&call(inside)), "{inside}");
        }
    }
}
