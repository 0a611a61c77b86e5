//! Which hosts a sandboxed command may reach (recorded on 2.1.235: sandbox.network): a denied
//! pattern wins over an allowed one; `*.example.test` is any strict subdomain, never the bare
//! domain; anything else is the exact host, letters in any case. An IP address is a host like
//! any other: reachable only when a pattern names it.

/// The lists a decision reads: `network.allowedDomains` with every `WebFetch(domain:…)` allow
/// rule (`Sandbox::configured` reads them), and `network.deniedDomains`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Domains {
    pub allowed: Vec<String>,
    pub denied: Vec<String>,
}

/// What the lists say about one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    /// On neither list: asked, or refused where no one can be asked.
    Unlisted,
}

impl Domains {
    pub fn judge(&self, host: &str) -> Verdict {
        if self.denied.iter().any(|p| matches(host, p)) {
            Verdict::Denied
        } else if self.allowed.iter().any(|p| matches(host, p)) {
            Verdict::Allowed
        } else {
            Verdict::Unlisted
        }
    }
}

/// Whether `host` matches one pattern. A `:port` suffix on a pattern is not read yet: the
/// pattern then names no host.
pub fn matches(host: &str, pattern: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let pattern = pattern.to_ascii_lowercase();
    if pattern == "*" {
        return true;
    }
    match pattern.strip_prefix("*.") {
        Some(base) => {
            host.parse::<std::net::IpAddr>().is_err() && host.ends_with(&format!(".{base}"))
        }
        None => host == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_is_a_strict_subdomain_and_a_denial_wins() {
        let d = Domains {
            allowed: vec!["allowed.test".into(), "*.wild.test".into()],
            denied: vec!["no.wild.test".into()],
        };
        assert_eq!(d.judge("allowed.test"), Verdict::Allowed);
        assert_eq!(d.judge("ALLOWED.test"), Verdict::Allowed);
        assert_eq!(d.judge("a.wild.test"), Verdict::Allowed);
        assert_eq!(d.judge("a.b.wild.test"), Verdict::Allowed);
        assert_eq!(d.judge("wild.test"), Verdict::Unlisted);
        assert_eq!(d.judge("no.wild.test"), Verdict::Denied);
        assert_eq!(d.judge("evilallowed.test"), Verdict::Unlisted);
        assert_eq!(d.judge("127.0.0.2"), Verdict::Unlisted);
    }

    #[test]
    fn a_wildcard_never_matches_an_address() {
        assert!(!matches("1.2.3.4", "*.3.4"));
        assert!(matches("1.2.3.4", "1.2.3.4"));
        assert!(matches("anything.test", "*"));
    }
}
