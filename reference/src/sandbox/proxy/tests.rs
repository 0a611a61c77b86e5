use super::*;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A one-request web server on loopback: answers "hi" and hands back what it was sent.
fn upstream() -> (u16, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        while !head.ends_with("\r\n\r\n") {
            if reader.read_line(&mut head).unwrap() == 0 {
                break;
            }
        }
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
            .unwrap();
        head
    });
    (port, served)
}

fn proxy(allowed: &[&str], strict: bool, asker: Option<Arc<dyn NetworkAsker>>) -> Proxy {
    let proxy = Proxy::start().unwrap();
    proxy.configure(Policy {
        domains: Domains {
            allowed: allowed.iter().map(|s| s.to_string()).collect(),
            denied: vec![],
        },
        strict,
        asker,
    });
    proxy
}

fn exchange(proxy: &Proxy, request: &[u8]) -> Vec<u8> {
    let mut stream = UnixStream::connect(proxy.socket()).unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    answer
}

fn basic(c: &Credentials) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", c.user, c.password))
}

#[test]
fn an_allowed_host_gets_the_request_in_origin_form_without_the_proxy_headers() {
    let (port, served) = upstream();
    let p = proxy(&["127.0.0.1"], false, None);
    let request = format!(
        "GET http://127.0.0.1:{port}/page?q=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nProxy-Authorization: Basic {}\r\nProxy-Connection: Keep-Alive\r\n\r\n",
        basic(&p.issue("toolu_a"))
    );
    let answer = exchange(&p, request.as_bytes());
    assert!(String::from_utf8_lossy(&answer).ends_with("\r\n\r\nhi"));
    let head = served.join().unwrap();
    assert!(head.starts_with("GET /page?q=1 HTTP/1.1\r\n"), "{head}");
    assert!(head.contains("Connection: close\r\n"));
    assert!(!head.to_ascii_lowercase().contains("proxy-"), "{head}");
}

#[test]
fn a_refused_request_is_answered_by_the_proxy_and_charged_to_its_command() {
    let p = proxy(&["allowed.test"], false, None);
    let credentials = p.issue("toolu_1");
    let request = format!(
        "GET http://blocked.test/no HTTP/1.1\r\nHost: blocked.test\r\nProxy-Authorization: Basic {}\r\n\r\n",
        basic(&credentials)
    );
    let answer = String::from_utf8(exchange(&p, request.as_bytes())).unwrap();
    assert!(answer.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{answer}");
    assert!(answer.contains("\r\nX-Proxy-Error: blocked-by-allowlist\r\n"));
    assert!(answer.ends_with(&format!("\r\n\r\n{BLOCKED_BODY}")));
    let tunnel = format!(
        "CONNECT blocked.test:443 HTTP/1.1\r\nHost: blocked.test:443\r\nProxy-Authorization: Basic {}\r\n\r\n",
        basic(&credentials)
    );
    let answer = String::from_utf8(exchange(&p, tunnel.as_bytes())).unwrap();
    assert_eq!(
        answer,
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nX-Proxy-Error: blocked-by-allowlist\r\n\r\n"
    );
    assert_eq!(
        p.take_violations(&credentials),
        [
            "deny network-outbound blocked.test:80 (user denied)",
            "deny network-outbound blocked.test:443 (user denied)"
        ]
    );
    assert!(p.take_violations(&credentials).is_empty(), "taken once");
}

#[test]
fn socks_connects_an_allowed_host_and_refuses_another_by_ruleset() {
    let (port, served) = upstream();
    let p = proxy(&["localhost"], false, None);
    let c = p.issue("toolu_s");
    let mut greeting = vec![5, 1, 2, 1, c.user.len() as u8];
    greeting.extend(c.user.as_bytes());
    greeting.push(c.password.len() as u8);
    greeting.extend(c.password.as_bytes());
    let mut refused = greeting.clone();
    refused.extend([5, 1, 0, 3, 12]);
    refused.extend(b"blocked.test");
    refused.extend(80u16.to_be_bytes());
    let answer = exchange(&p, &refused);
    assert_eq!(answer, [5, 2, 1, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);

    let mut stream = UnixStream::connect(p.socket()).unwrap();
    let mut allowed = greeting;
    allowed.extend([5, 1, 0, 3, 9]);
    allowed.extend(b"localhost");
    allowed.extend(port.to_be_bytes());
    allowed.extend(b"GET / HTTP/1.1\r\n\r\n");
    stream.write_all(&allowed).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    assert_eq!(&answer[..14], [5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    assert!(answer.ends_with(b"hi"));
    assert!(served.join().unwrap().starts_with("GET / HTTP/1.1"));
    assert_eq!(
        p.take_violations(&c),
        ["deny network-outbound blocked.test:80 (user denied)"]
    );
}

#[test]
fn without_a_commands_credentials_nothing_is_allowed_or_charged() {
    let p = proxy(&["allowed.test"], false, None);
    let issued = p.issue("toolu_real");
    let forged = Credentials {
        user: issued.user.clone(),
        password: "guessed".into(),
    };
    for auth in [
        String::new(),
        format!("Proxy-Authorization: Basic {}\r\n", basic(&forged)),
    ] {
        let request = format!("GET http://allowed.test/ HTTP/1.1\r\n{auth}\r\n");
        let answer = String::from_utf8(exchange(&p, request.as_bytes())).unwrap();
        assert!(answer.starts_with("HTTP/1.1 407 "), "{answer}");
    }
    let mut anonymous = vec![5, 1, 0, 5, 1, 0, 3, 12];
    anonymous.extend(b"allowed.test");
    anonymous.extend(80u16.to_be_bytes());
    assert_eq!(
        exchange(&p, &anonymous),
        [5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]
    );
    assert!(p.take_violations(&issued).is_empty());
}

struct Counting(AtomicUsize, bool);

impl NetworkAsker for Counting {
    fn allow(&self, _host: &str) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst);
        self.1
    }
}

#[test]
fn an_unlisted_host_is_asked_about_once_and_never_under_a_strict_allowlist() {
    let yes = Arc::new(Counting(AtomicUsize::new(0), true));
    let p = proxy(&[], false, Some(yes.clone()));
    let tunnel = |p: &Proxy| {
        format!(
            "CONNECT asked.test:443 HTTP/1.1\r\nProxy-Authorization: Basic {}\r\n\r\n",
            basic(&p.issue("toolu_t"))
        )
    };
    for _ in 0..2 {
        let mut stream = UnixStream::connect(p.socket()).unwrap();
        stream.write_all(tunnel(&p).as_bytes()).unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        // Allowed: the tunnel is tried (there is no such host, so it fails upstream).
        assert!(!line.starts_with("HTTP/1.1 403"), "{line}");
    }
    assert_eq!(yes.0.load(Ordering::SeqCst), 1, "asked once");

    let strict_asker = Arc::new(Counting(AtomicUsize::new(0), true));
    let strict = proxy(&[], true, Some(strict_asker.clone()));
    let answer = String::from_utf8(exchange(&strict, tunnel(&strict).as_bytes())).unwrap();
    assert!(answer.starts_with("HTTP/1.1 403 Forbidden"));
    assert_eq!(strict_asker.0.load(Ordering::SeqCst), 0);
}

#[test]
fn credentials_name_the_call_in_base64() {
    let c = Credentials::for_call("toolu_allowed");
    assert_eq!(c.user, "srt.dG9vbHVfYWxsb3dlZA==");
    assert_eq!(c.password.len(), 32);
    assert!(c.password.chars().all(|ch| ch.is_ascii_hexdigit()));
    assert_ne!(c.password, Credentials::for_call("toolu_allowed").password);
}
