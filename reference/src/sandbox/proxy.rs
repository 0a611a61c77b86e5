//! The session's network proxy, the only way out of a sandboxed command's network namespace
//! (recorded on 2.1.235: sandbox.network). One Unix socket serves both protocols 2.1.235 offers
//! inside the sandbox, told apart by their first byte: HTTP (plain requests forwarded, `CONNECT`
//! tunnelled) and SOCKS5. A connection must carry a command's credentials (HTTP without them is
//! answered 407, SOCKS is refused as by its ruleset, as 2.1.235 does). Every connection is then
//! judged by host: the lists, then the hosts allowed
//! earlier in the session, then (unless `strictAllowlist`) the person at the host, asked once per
//! host. A refusal answers as 2.1.235's proxy does and is kept as a violation of the command whose
//! credentials the connection carried, for its result to report.
//!
//! Hand-rolled rather than built on an HTTP library: the proxy must answer a refused `CONNECT`
//! and a refused SOCKS request byte for byte as 2.1.235 does, and forward everything else
//! untouched, which a client library would not let it do. Blocking threads, one per connection:
//! a command makes a handful.

use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;

use super::domains::{Domains, Verdict};

/// What a refused connection answers, and the header that says why.
pub const BLOCKED_BODY: &str = "Connection blocked by network allowlist";
const BLOCKED_HEADER: &str = "X-Proxy-Error: blocked-by-allowlist";
/// A request head larger than this is not a request this proxy serves.
const MAX_HEAD: usize = 64 * 1024;

/// Who decides about a host on neither list: the person at the host (`can_use_tool` with tool
/// `SandboxNetworkAccess`). The sandbox owns the trait; the tool that runs the command supplies
/// its host.
pub trait NetworkAsker: Send + Sync {
    /// Whether `host` may be reached.
    fn allow(&self, host: &str) -> bool;
}

/// The lists and switches the proxy judges by, as the settings say at the command's start.
#[derive(Clone, Default)]
pub struct Policy {
    pub domains: Domains,
    /// `network.strictAllowlist`: a host on neither list is refused without asking.
    pub strict: bool,
    pub asker: Option<Arc<dyn NetworkAsker>>,
}

/// The name and password a command's proxy variables carry: the name says which command
/// (2.1.235's shape: `srt.` and the tool_use id in base64), the password is fresh for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Credentials {
    pub user: String,
    pub password: String,
}

impl Credentials {
    fn for_call(tool_use_id: &str) -> Self {
        let encoded = base64::engine::general_purpose::STANDARD.encode(tool_use_id);
        Credentials {
            user: format!("srt.{encoded}"),
            password: uuid::Uuid::new_v4().simple().to_string(),
        }
    }
}

#[derive(Default)]
struct State {
    policy: Mutex<Policy>,
    /// The credentials handed out, password by user name.
    issued: Mutex<HashMap<String, String>>,
    /// Hosts the person allowed: not asked again this session.
    allowed_here: Mutex<HashSet<String>>,
    /// One question at a time, so a host asked about twice at once is asked once.
    asking: Mutex<()>,
    /// Refusals by the credentials' user name, in order.
    violations: Mutex<HashMap<String, Vec<String>>>,
}

pub struct Proxy {
    socket: PathBuf,
    state: Arc<State>,
}

static SESSION: OnceLock<Proxy> = OnceLock::new();

/// The session's proxy, started by the first sandboxed command.
pub fn session() -> io::Result<&'static Proxy> {
    if let Some(proxy) = SESSION.get() {
        return Ok(proxy);
    }
    let proxy = Proxy::start()?;
    // Two commands never start at once (Bash runs one call at a time); were they to, the loser's
    // socket directory is removed with its proxy.
    Ok(SESSION.get_or_init(|| proxy))
}

/// Removes the session proxy's socket, when one was started (a static is never dropped).
pub fn close() {
    if let Some(proxy) = SESSION.get() {
        proxy.remove_socket();
    }
}

impl Proxy {
    fn start() -> io::Result<Proxy> {
        // A directory of its own under the temporary one: the socket's path must stay short.
        let dir = tempfile::Builder::new()
            .prefix("claude-sandbox-")
            .tempdir()?
            .keep();
        let socket = dir.join("proxy.sock");
        let listener = UnixListener::bind(&socket)?;
        let state = Arc::new(State::default());
        let serving = state.clone();
        std::thread::Builder::new()
            .name("sandbox-proxy".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let state = serving.clone();
                    std::thread::spawn(move || {
                        let _ = serve(stream, &state);
                    });
                }
            })?;
        Ok(Proxy { socket, state })
    }

    fn remove_socket(&self) {
        if let Some(dir) = self.socket.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// What the next command's connections are judged by.
    pub fn configure(&self, policy: Policy) {
        *self.state.policy.lock().unwrap() = policy;
    }

    /// Credentials for the command of call `tool_use_id`, which the proxy now accepts.
    pub fn issue(&self, tool_use_id: &str) -> Credentials {
        let credentials = Credentials::for_call(tool_use_id);
        self.state
            .issued
            .lock()
            .unwrap()
            .insert(credentials.user.clone(), credentials.password.clone());
        credentials
    }

    /// The refusals charged to `credentials` so far, taken.
    pub fn take_violations(&self, credentials: &Credentials) -> Vec<String> {
        self.state
            .violations
            .lock()
            .unwrap()
            .remove(&credentials.user)
            .unwrap_or_default()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.remove_socket();
    }
}

impl State {
    /// The user name of credentials this proxy handed out; `None` for any others.
    fn authenticated(&self, user: &str, password: &str) -> Option<String> {
        let issued = self.issued.lock().unwrap();
        (issued.get(user).map(String::as_str) == Some(password)).then(|| user.to_owned())
    }

    /// Whether a connection to `host:port` may be made; a refusal is charged to `user`, with
    /// why as 2.1.235 words it.
    fn decide(&self, host: &str, port: u16, user: &str) -> bool {
        let policy = self.policy.lock().unwrap().clone();
        let host = host.to_ascii_lowercase();
        let refused = match policy.domains.judge(&host) {
            Verdict::Allowed => None,
            Verdict::Denied => Some("host is on the deny list"),
            Verdict::Unlisted => self.ask(&host, &policy).err(),
        };
        let Some(why) = refused else { return true };
        let mut violations = self.violations.lock().unwrap();
        let seen = violations.entry(user.to_owned()).or_default();
        let line = format!("deny network-outbound {host}:{port} ({why})");
        if !seen.contains(&line) {
            seen.push(line);
        }
        false
    }

    /// A host on neither list: allowed earlier, or asked about; why not otherwise.
    fn ask(&self, host: &str, policy: &Policy) -> Result<(), &'static str> {
        if self.allowed_here.lock().unwrap().contains(host) {
            return Ok(());
        }
        if policy.strict {
            return Err("host is not on the allow list");
        }
        let Some(asker) = &policy.asker else {
            return Err("user denied");
        };
        let _one_at_a_time = self.asking.lock().unwrap();
        if self.allowed_here.lock().unwrap().contains(host) {
            return Ok(());
        }
        if !asker.allow(host) {
            return Err("user denied");
        }
        self.allowed_here.lock().unwrap().insert(host.to_owned());
        Ok(())
    }
}

fn serve(stream: UnixStream, state: &State) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let first = reader.fill_buf()?.first().copied();
    match first {
        Some(5) => socks(reader, stream, state),
        Some(_) => http(reader, stream, state),
        None => Ok(()),
    }
}

/// One HTTP request: a `CONNECT` tunnel, or a plain request sent on with `Connection: close`,
/// its answer streamed back untouched.
fn http(
    mut reader: BufReader<UnixStream>,
    mut client: UnixStream,
    state: &State,
) -> io::Result<()> {
    let head = read_head(&mut reader)?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (method, target, version) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or("HTTP/1.1"),
    );
    let headers: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    let user = headers
        .iter()
        .find_map(|h| header_value(h, "proxy-authorization"))
        .and_then(basic_credentials)
        .and_then(|(user, password)| state.authenticated(&user, &password));
    let Some(user) = user else {
        return client.write_all(
            b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"sandbox\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((host, port)) = split_authority(target, 443) else {
            return client.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
        };
        if !state.decide(&host, port, &user) {
            return client.write_all(
                format!("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n{BLOCKED_HEADER}\r\n\r\n")
                    .as_bytes(),
            );
        }
        let Ok(upstream) = TcpStream::connect((host.as_str(), port)) else {
            return client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n");
        };
        client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
        return super::relay::relay(reader, client, upstream);
    }
    let Some(rest) = target.strip_prefix("http://") else {
        return client.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let Some((host, port)) = split_authority(authority, 80) else {
        return client.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
    };
    if !state.decide(&host, port, &user) {
        let answer = format!(
            "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n{BLOCKED_HEADER}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{BLOCKED_BODY}",
            BLOCKED_BODY.len()
        );
        return client.write_all(answer.as_bytes());
    }
    let Ok(mut upstream) = TcpStream::connect((host.as_str(), port)) else {
        return client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
    };
    let mut forwarded = format!("{method} {path} {version}\r\n");
    for h in headers.iter().filter(|h| {
        ![
            "proxy-authorization",
            "proxy-connection",
            "connection",
            "keep-alive",
        ]
        .iter()
        .any(|name| header_value(h, name).is_some())
    }) {
        forwarded.push_str(h);
        forwarded.push_str("\r\n");
    }
    forwarded.push_str("Connection: close\r\n\r\n");
    upstream.write_all(forwarded.as_bytes())?;
    super::relay::relay(reader, client, upstream)
}

/// One SOCKS5 `CONNECT` (RFC 1928), with or without the name-and-password method (RFC 1929),
/// whose name says which command asks. A refusal is reply code 2, "not allowed by ruleset".
fn socks(
    mut reader: BufReader<UnixStream>,
    mut client: UnixStream,
    state: &State,
) -> io::Result<()> {
    let [_, count] = read_array(&mut reader)?;
    let mut methods = vec![0; count as usize];
    reader.read_exact(&mut methods)?;
    let mut user = None;
    if methods.contains(&2) {
        client.write_all(&[5, 2])?;
        let [_, len] = read_array(&mut reader)?;
        let mut name = vec![0; len as usize];
        reader.read_exact(&mut name)?;
        let [len] = read_array(&mut reader)?;
        let mut password = vec![0; len as usize];
        reader.read_exact(&mut password)?;
        user = state.authenticated(
            &String::from_utf8_lossy(&name),
            &String::from_utf8_lossy(&password),
        );
        client.write_all(&[1, 0])?;
    } else if methods.contains(&0) {
        client.write_all(&[5, 0])?;
    } else {
        return client.write_all(&[5, 0xff]);
    }
    let [_, command, _, kind] = read_array(&mut reader)?;
    let host = match kind {
        1 => std::net::Ipv4Addr::from(read_array::<4>(&mut reader)?).to_string(),
        4 => std::net::Ipv6Addr::from(read_array::<16>(&mut reader)?).to_string(),
        3 => {
            let [len] = read_array(&mut reader)?;
            let mut name = vec![0; len as usize];
            reader.read_exact(&mut name)?;
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => return client.write_all(&socks_reply(8)),
    };
    let port = u16::from_be_bytes(read_array(&mut reader)?);
    if command != 1 {
        return client.write_all(&socks_reply(7));
    }
    // Without a command's credentials, nothing is allowed, and nothing charged.
    let allowed = user.is_some_and(|user| state.decide(&host, port, &user));
    if !allowed {
        return client.write_all(&socks_reply(2));
    }
    let Ok(upstream) = TcpStream::connect((host.as_str(), port)) else {
        return client.write_all(&socks_reply(5));
    };
    client.write_all(&socks_reply(0))?;
    super::relay::relay(reader, client, upstream)
}

fn socks_reply(code: u8) -> [u8; 10] {
    [5, code, 0, 1, 0, 0, 0, 0, 0, 0]
}

fn read_array<const N: usize>(reader: &mut impl Read) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    reader.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// The request head up to its blank line, as text.
fn read_head(reader: &mut BufReader<UnixStream>) -> io::Result<String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if reader.read_until(b'\n', &mut head)? == 0 || head.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "no request head",
            ));
        }
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The value of header line `line` when it is header `name`.
fn header_value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let (key, value) = line.split_once(':')?;
    key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
}

/// The name and password of a `Basic` credential.
fn basic_credentials(value: &str) -> Option<(String, String)> {
    let encoded = value.strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// `host[:port]` (an IPv6 address in brackets), the port defaulted.
fn split_authority(authority: &str, default_port: u16) -> Option<(String, u16)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default_port,
        };
        return Some((host.to_owned(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host.to_owned(), port.parse().ok()?)),
        None if !authority.is_empty() => Some((authority.to_owned(), default_port)),
        None => None,
    }
}

#[cfg(test)]
mod tests;
