//! A scenario's `[[site]]`: one web host the target may fetch from, with its pages. Hosts are
//! reached by name inside an isolated run (the hosts file points them at the site's loopback
//! address, the run's CA signs them), so a redirect to another host is a real second host.

use serde::{Deserialize, Serialize};

/// One host and what it serves; a path no page names answers 404.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SiteScript {
    /// The host name, e.g. `docs.example.test` (at least one dot: 2.1.235 refuses single labels).
    pub host: String,
    /// What `api.anthropic.com/api/web/domain_info` says about this host (2.1.235's preflight).
    #[serde(default)]
    pub preflight: Preflight,
    #[serde(default, rename = "page")]
    pub pages: Vec<Page>,
}

/// The preflight's answer for a host: allowed (the default), blocked, or an HTTP failure.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Preflight {
    #[default]
    Allowed,
    Blocked,
    /// Any status but 200 (the check then fails without deciding).
    Failed,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// The path, with its query if the page is only that query (`/a?b=1`); starts with `/`.
    pub path: String,
    #[serde(default = "ok")]
    pub status: u16,
    #[serde(default = "html")]
    pub content_type: String,
    /// The body (`{repeat:N:s}` expands); or `size`.
    #[serde(default)]
    pub body: String,
    /// A generated body of this many bytes (`a` filler), for bodies too big to write out.
    #[serde(default)]
    pub size: Option<u64>,
    /// `Location` of a 3xx page.
    #[serde(default)]
    pub location: Option<String>,
    /// Other response headers (`retry-after`, …).
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// Held this long before the answer's headers are sent.
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

fn ok() -> u16 {
    200
}

fn html() -> String {
    "text/html; charset=utf-8".into()
}

impl SiteScript {
    /// What is wrong with this declaration, if anything, as one sentence naming the field.
    pub fn validate(&self) -> Result<(), String> {
        let host = &self.host;
        if host.split('.').count() < 2
            || host.split('.').any(str::is_empty)
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        {
            return Err(format!(
                "`host` `{host}` is not a dotted lower-level host name (e.g. docs.example.test)"
            ));
        }
        if host != &host.to_ascii_lowercase() {
            return Err(format!("`host` `{host}` must be lower case"));
        }
        let mut seen: Vec<&str> = Vec::new();
        for page in &self.pages {
            let p = &page.path;
            let what = |m: &str| Err(format!("page `{p}`: {m}"));
            if !p.starts_with('/') {
                return what("`path` must start with `/`");
            }
            if seen.contains(&p.as_str()) {
                return what("declared twice");
            }
            seen.push(p);
            if !(100..=599).contains(&page.status) {
                return what("`status` must be 100-599");
            }
            if page.size.is_some() && !page.body.is_empty() {
                return what("`body` or `size`, not both");
            }
            let redirect = (300..400).contains(&page.status);
            if redirect != page.location.is_some() {
                return what("a `location` goes with a 3xx `status`, and only there");
            }
        }
        Ok(())
    }

    pub(super) fn page(&self, path_and_query: &str) -> Option<&Page> {
        let path = path_and_query.split('?').next().unwrap_or_default();
        self.pages
            .iter()
            .find(|p| p.path == path_and_query)
            .or_else(|| self.pages.iter().find(|p| p.path == path))
    }
}

impl Page {
    pub(super) fn body_bytes(&self) -> Vec<u8> {
        match self.size {
            Some(n) => vec![b'a'; n as usize],
            None => crate::mcp::expand(&self.body).into_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(toml_text: &str) -> SiteScript {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn defaults_are_an_allowed_html_200() {
        let s = site("host = \"a.example.test\"\n[[page]]\npath = \"/x\"\nbody = \"hi\"\n");
        s.validate().unwrap();
        let page = s.page("/x?q=1").unwrap();
        assert_eq!(
            (page.status, page.content_type.as_str()),
            (200, "text/html; charset=utf-8")
        );
        assert_eq!(s.preflight, Preflight::Allowed);
        assert!(s.page("/y").is_none());
    }

    #[test]
    fn declarations_that_cannot_be_served_are_named() {
        let cases = [
            ("host = \"localhost\"", "not a dotted"),
            ("host = \"A.example.test\"", "lower case"),
            (
                "host = \"a.test\"\n[[page]]\npath = \"x\"",
                "start with `/`",
            ),
            (
                "host = \"a.test\"\n[[page]]\npath = \"/x\"\nstatus = 302",
                "`location`",
            ),
            (
                "host = \"a.test\"\n[[page]]\npath = \"/x\"\nlocation = \"https://b.test/\"",
                "`location`",
            ),
            (
                "host = \"a.test\"\n[[page]]\npath = \"/x\"\nsize = 3\nbody = \"abc\"",
                "not both",
            ),
            (
                "host = \"a.test\"\n[[page]]\npath = \"/x\"\n[[page]]\npath = \"/x\"",
                "twice",
            ),
        ];
        for (text, needle) in cases {
            let e = site(text).validate().unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn a_generated_body_has_its_declared_size() {
        let s = site("host = \"a.test\"\n[[page]]\npath = \"/big\"\nsize = 12345\n");
        assert_eq!(s.pages[0].body_bytes().len(), 12345);
    }
}
