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

/// Where the `[[site]]` hosts live inside the namespace: their own loopback address, so their
/// 443 is not the first-party mock's.
pub const SITES_ADDR: &str = "127.0.0.2";

/// A run's isolated network: the namespace, the mock first-party hosts on TLS 443 inside it, the
/// hosts file and the CA a target is given.
pub struct IsolatedNetwork {
    ns: Namespace,
    authority: stubs::tls::Authority,
    hosts: PathBuf,
    ca: PathBuf,
    tls: Option<stubs::tls::TlsServer>,
    /// The `[[site]]` hosts' servers, stopped with the network.
    sites: Vec<stubs::tls::TlsServer>,
    plain_sites: Option<tokio::sync::oneshot::Sender<()>>,
}

impl IsolatedNetwork {
    /// A new namespace; the CA and the hosts file are written into `dir` (the run's own).
    pub fn new(dir: &Path) -> anyhow::Result<Self> {
        Self::with_sites(dir, &[])
    }

    /// As [`new`](Self::new), with a scenario's `[[site]]` hosts also named: at [`SITES_ADDR`]
    /// in the hosts file, and in the leaf certificate.
    pub fn with_sites(dir: &Path, site_hosts: &[String]) -> anyhow::Result<Self> {
        Self::with_names(dir, site_hosts, &[])
    }

    /// As [`with_sites`](Self::with_sites), with more names served by the first-party mock at
    /// 127.0.0.1 (the artifacts' frame hosts, which 2.1.235 reads live pages from).
    pub fn with_names(
        dir: &Path,
        site_hosts: &[String],
        first_party: &[String],
    ) -> anyhow::Result<Self> {
        let ns = Namespace::new()?;
        let mut names: Vec<&str> = FIRST_PARTY_HOSTS.to_vec();
        names.extend(first_party.iter().map(String::as_str));
        names.extend(site_hosts.iter().map(String::as_str));
        let authority = stubs::tls::Authority::new(&names)?;
        let ca = dir.join("throwaway-ca.pem");
        std::fs::write(&ca, authority.ca_pem())?;
        let hosts = dir.join("hosts");
        let mut text = hosts_file();
        for host in first_party {
            text.push_str(&format!("127.0.0.1\t{host}\n"));
        }
        for host in site_hosts {
            text.push_str(&format!("{SITES_ADDR}\t{host}\n"));
        }
        std::fs::write(&hosts, text)?;
        Ok(IsolatedNetwork {
            ns,
            authority,
            hosts,
            ca,
            tls: None,
            sites: Vec::new(),
            plain_sites: None,
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

    /// Serves the `[[site]]` hosts at [`SITES_ADDR`]: HTTPS on 443, plain HTTP on 80.
    pub fn serve_sites(&mut self, sites: &stubs::site::Sites) -> anyhow::Result<()> {
        let tls = self.ns.bind_on(SITES_ADDR, 443)?;
        self.sites.push(stubs::tls::TlsServer::serve(
            tls,
            &self.authority,
            sites.router("https"),
        )?);
        let plain = tokio::net::TcpListener::from_std(self.ns.bind_on(SITES_ADDR, 80)?)?;
        let router = sites.router("http");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(plain, router)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        self.plain_sites = Some(tx);
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
        self.bind_on("127.0.0.1", port)
    }

    /// A listener on `addr`:`port` inside the namespace (any 127/8 address is the loopback's).
    pub fn bind_on(&self, addr: &'static str, port: u16) -> io::Result<std::net::TcpListener> {
        let fd = self.net.as_raw_fd();
        in_thread(move || {
            check(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }, "setns")?;
            let listener = std::net::TcpListener::bind((addr, port))?;
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

    /// The `[[site]]` hosts are named in the hosts file at their own address, and a process in
    /// the namespace reaches their HTTPS and HTTP listeners there.
    #[tokio::test]
    async fn site_hosts_resolve_to_their_address_and_are_served_there() {
        let dir = tempfile::tempdir().unwrap();
        let hosts = vec!["docs.example.test".to_owned()];
        let mut net = match IsolatedNetwork::with_sites(dir.path(), &hosts) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("skipped: {e}");
                return;
            }
        };
        let sites = stubs::site::Sites::new(vec![stubs::site::SiteScript {
            host: "docs.example.test".into(),
            ..Default::default()
        }]);
        net.serve_sites(&sites).unwrap();
        let mut bash = std::process::Command::new("bash");
        bash.arg("-c").arg(format!(
            "grep -c '^{SITES_ADDR}\tdocs.example.test$' /etc/hosts; for p in 443 80; do (exec 3<>/dev/tcp/docs.example.test/$p) 2>/dev/null && echo up || echo down; done"
        ));
        net.enter(&mut bash).unwrap();
        let out = tokio::task::spawn_blocking(move || bash.output().unwrap())
            .await
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1\nup\nup\n");
    }

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
