//! The isolated network of `network = "isolated"` runs (real-binary.md, "claude.ai paths"): a
//! private network namespace whose only interface is loopback, where the harness binds its stubs
//! and the mock claude.ai (TLS on 443), and a private mount namespace per target process in which
//! a hosts file points the first-party host names at 127.0.0.1. Nothing a target sends there can
//! leave the machine.
//!
//! The harness process itself never changes namespace: a short-lived thread makes the namespace
//! (namespaces belong to threads, and a socket stays in the namespace it was made in), keeps a
//! handle to it, and binds listeners from inside; the target joins it between fork and exec.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// Host names the mock answers for: the API host the Design and Projects paths call, the OAuth
/// token host, claude.ai, and the side hosts 2.1.235 reaches at start, so none of them waits on a
/// resolver that cannot be reached.
pub const FIRST_PARTY_HOSTS: &[&str] = &[
    "api.anthropic.com",
    "platform.claude.com",
    "claude.ai",
    "claude.com",
    "console.anthropic.com",
    "statsig.anthropic.com",
    "mcp-proxy.anthropic.com",
];

/// A run's isolated network: the namespace, the mock first-party hosts on TLS 443 inside it, the
/// hosts file and the CA a target is given.
pub struct IsolatedNetwork {
    ns: Namespace,
    authority: stubs::tls::Authority,
    hosts: PathBuf,
    ca: PathBuf,
    tls: Option<stubs::tls::TlsServer>,
}

impl IsolatedNetwork {
    /// A new namespace; the CA and the hosts file are written into `dir` (the run's own).
    pub fn new(dir: &Path) -> anyhow::Result<Self> {
        let ns = Namespace::new()?;
        let authority = stubs::tls::Authority::new(FIRST_PARTY_HOSTS)?;
        let ca = dir.join("throwaway-ca.pem");
        std::fs::write(&ca, authority.ca_pem())?;
        let hosts = dir.join("hosts");
        std::fs::write(&hosts, hosts_file())?;
        Ok(IsolatedNetwork {
            ns,
            authority,
            hosts,
            ca,
            tls: None,
        })
    }

    /// Serves `router` as every first-party host, HTTPS on 443 inside the namespace.
    pub fn serve_first_party(&mut self, router: axum::Router) -> anyhow::Result<()> {
        let listener = self.ns.bind(443)?;
        self.tls = Some(stubs::tls::TlsServer::serve(
            listener,
            &self.authority,
            router,
        )?);
        Ok(())
    }

    /// A listener on an ephemeral port inside the namespace, for a stub the target dials by
    /// address (the Messages API).
    pub fn listener(&self) -> io::Result<tokio::net::TcpListener> {
        tokio::net::TcpListener::from_std(self.ns.bind(0)?)
    }

    /// Makes `command` start inside the network, seeing the hosts file.
    pub fn enter(&self, command: &mut std::process::Command) -> io::Result<()> {
        self.ns.enter(command, &self.hosts)
    }

    /// The CA certificate a target must trust (`NODE_EXTRA_CA_CERTS`).
    pub fn ca(&self) -> &Path {
        &self.ca
    }
}

/// Why isolated runs cannot happen on this machine, if they cannot: asked once per process.
pub fn unavailable() -> Option<&'static str> {
    static REASON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    REASON
        .get_or_init(|| {
            Namespace::new().err().map(|e| {
                format!("no isolated network on this machine ({e}; it needs root or CAP_SYS_ADMIN)")
            })
        })
        .as_deref()
}

/// A private network namespace, alive as long as this handle.
pub struct Namespace {
    net: OwnedFd,
}

impl Namespace {
    /// Makes the namespace and brings its loopback up. Fails (and the run is skipped with the
    /// reason) where the process may not: not root, or unshare forbidden by the container.
    pub fn new() -> io::Result<Self> {
        in_thread(|| {
            check(
                unsafe { libc::unshare(libc::CLONE_NEWNET) },
                "unshare(CLONE_NEWNET)",
            )?;
            loopback_up()?;
            let path = CString::new("/proc/thread-self/ns/net").expect("no NUL");
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
            check(fd, "open /proc/thread-self/ns/net")?;
            Ok(Namespace {
                net: unsafe { OwnedFd::from_raw_fd(fd) },
            })
        })
    }

    /// A listener on 127.0.0.1:`port` inside the namespace (0: the system picks).
    pub fn bind(&self, port: u16) -> io::Result<std::net::TcpListener> {
        let fd = self.net.as_raw_fd();
        in_thread(move || {
            check(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }, "setns")?;
            let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
            listener.set_nonblocking(true)?;
            Ok(listener)
        })
    }

    /// Makes `command` start inside the namespace, with `hosts` over `/etc/hosts` in a mount
    /// namespace of its own (made private first, so the bind never reaches the machine's).
    pub fn enter(&self, command: &mut std::process::Command, hosts: &Path) -> io::Result<()> {
        let net = self.net.as_raw_fd();
        let source = CString::new(hosts.as_os_str().as_encoded_bytes())?;
        let target = CString::new("/etc/hosts").expect("no NUL");
        let root = CString::new("/").expect("no NUL");
        // Only async-signal-safe calls between fork and exec: everything is allocated before.
        unsafe {
            command.pre_exec(move || {
                if libc::setns(net, libc::CLONE_NEWNET) != 0
                    || libc::unshare(libc::CLONE_NEWNS) != 0
                    || libc::mount(
                        std::ptr::null(),
                        root.as_ptr(),
                        std::ptr::null(),
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) != 0
                    || libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND,
                        std::ptr::null(),
                    ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Ok(())
    }
}

/// The hosts file a target sees: every first-party name at 127.0.0.1.
pub fn hosts_file() -> String {
    let mut text = String::from("127.0.0.1\tlocalhost\n::1\tlocalhost\n");
    for host in FIRST_PARTY_HOSTS {
        text.push_str(&format!("127.0.0.1\t{host}\n"));
    }
    text
}

/// Runs `f` on a fresh thread, so a namespace change never touches the harness's own threads.
fn in_thread<T: Send + 'static>(
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    std::thread::spawn(f)
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("namespace thread panicked")))
}

fn check(rc: libc::c_int, what: &str) -> io::Result<()> {
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(())
}

/// `ip link set lo up`, without needing iproute2 on the machine.
fn loopback_up() -> io::Result<()> {
    let sock = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    check(sock, "socket")?;
    let sock = unsafe { OwnedFd::from_raw_fd(sock) };
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    check(
        unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) },
        "SIOCGIFFLAGS lo",
    )?;
    unsafe {
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    }
    check(
        unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &req) },
        "SIOCSIFFLAGS lo",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listener made inside the namespace is reachable from a process that joined it, and not
    /// from the harness's own network (where nothing listens on that port).
    #[test]
    fn a_process_in_the_namespace_reaches_its_listener_and_sees_the_hosts_file() {
        let ns = match Namespace::new() {
            Ok(ns) => ns,
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                eprintln!("skipped: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let listener = ns.bind(0).unwrap();
        let port = listener.local_addr().unwrap().port();
        let dir = tempfile::tempdir().unwrap();
        let hosts = dir.path().join("hosts");
        std::fs::write(&hosts, hosts_file()).unwrap();
        // bash, for its /dev/tcp.
        let mut bash = std::process::Command::new("bash");
        bash.arg("-c").arg(format!(
            "grep -c api.anthropic.com /etc/hosts; (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo refused"
        ));
        ns.enter(&mut bash, &hosts).unwrap();
        let out = bash.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1\nconnected\n");
        // The machine's own /etc/hosts was not touched.
        let own = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
        assert!(!own.contains("api.anthropic.com"), "{own}");
        // Outside the namespace nothing listens there.
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
        drop(listener);
    }
}
