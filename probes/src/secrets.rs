//! The secrets one run hands out (API key, OAuth tokens, the session JWT) and the one redaction
//! step that keeps them out of everything the harness writes or shows.
//!
//! A run redacts its outcome in memory as soon as the target has
//! exited, and the error chain of a run that could not finish, before any check, trace, record,
//! snapshot or report reads them. Serializing afterwards (JSON, JUnit XML, the HTML page) cannot
//! re-create a secret: every occurrence was replaced by its name (`[api key]`), and a name holds
//! nothing any of those formats escapes.
//!
//! A secret is matched in the forms a text can hold it in: raw, JSON-escaped (as serde_json,
//! Node and Python write it, `/` escaped or not, `<>&` as `\u003c…` as HTML-safe encoders write
//! them), those escaped once more (JSON inside a JSON string), and XML/HTML-escaped. A secret a
//! target transforms otherwise (base64, split across lines, wrapped by a terminal) is not
//! recognised.
//!
//! Limits: an empty secret is never matched; a secret that is ordinary text (a word the harness
//! itself writes) would be replaced there too, so real secrets should be long and random. The
//! defaults are fixed fakes (see [`Secrets::default`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// The fake key every target gets by default ([`Secrets::default`]); real keys are never passed
/// through.
pub const FAKE_API_KEY: &str = "sk-ant-conformance-fake-key";
/// The fake claude.ai OAuth token of `oauth = true` scenarios, by default.
pub const FAKE_OAUTH_TOKEN: &str = "sk-ant-oat01-conformance-fake-token";
/// The access token of the planted login, by default.
pub const ACCESS_TOKEN: &str = "sk-ant-oat01-conformance-account-access";
/// Its refresh token; the mock's token endpoint accepts only this one.
pub const REFRESH_TOKEN: &str = "sk-ant-ort01-conformance-account-refresh";
/// The session access token of a remote session (`CLAUDE_CODE_SESSION_ACCESS_TOKEN`), shaped
/// like the JWT it stands for; Projects then calls the session route.
pub const SESSION_TOKEN: &str =
    "eyJhbGciOiJFUzI1NiJ9.eyJjb25mb3JtYW5jZSI6InNlc3Npb24ifQ.c2Vzc2lvbg";

/// The credentials a run gives its target and its fakes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secrets {
    /// `ANTHROPIC_API_KEY` (the Messages API key).
    pub api_key: String,
    /// `CLAUDE_CODE_OAUTH_TOKEN` of an `oauth = true` scenario.
    pub oauth_token: String,
    /// The planted claude.ai login's access token (credentials file, mock claude.ai's bearer).
    pub access_token: String,
    /// Its refresh token (credentials file, the mock's token endpoint).
    pub refresh_token: String,
    /// A remote session's access token (`CLAUDE_CODE_SESSION_ACCESS_TOKEN`), JWT-shaped.
    pub session_token: String,
}

impl Default for Secrets {
    /// Today's fixed fakes. Fixed rather than random per run: the real binary checks some shapes
    /// (an `sk-ant-` key, a session token that decodes as a JWT), records of two runs stay
    /// comparable byte for byte, and what a run writes no longer depends on the values anyway,
    /// since every one of them is redacted by name. Tests that must not rely on the values being
    /// known pass their own (`Target::with_secrets`).
    fn default() -> Self {
        Secrets {
            api_key: FAKE_API_KEY.into(),
            oauth_token: FAKE_OAUTH_TOKEN.into(),
            access_token: ACCESS_TOKEN.into(),
            refresh_token: REFRESH_TOKEN.into(),
            session_token: SESSION_TOKEN.into(),
        }
    }
}

impl Secrets {
    /// The bearers the mock's routes tell apart: the planted login's and the remote session's.
    pub fn tokens(&self) -> stubs::claude_ai::Tokens {
        stubs::claude_ai::Tokens {
            account: Some(self.access_token.clone()),
            session: Some(self.session_token.clone()),
        }
    }

    /// Each secret with the name that replaces it.
    pub fn named(&self) -> [(&str, &'static str); 5] {
        [
            (&self.api_key, "[api key]"),
            (&self.oauth_token, "[oauth token]"),
            (&self.access_token, "[account access token]"),
            (&self.refresh_token, "[account refresh token]"),
            (&self.session_token, "[session token]"),
        ]
    }

    pub fn redactor(&self) -> Redactor {
        Redactor::new(self)
    }
}

/// Replaces every known form of every secret by the secret's name, in one left-to-right pass
/// that prefers the longest form at each position (so a secret that contains another is named
/// as itself, and a replacement is never scanned again).
#[derive(Debug, Clone)]
pub struct Redactor {
    /// The name of each form, in the automaton's pattern order.
    names: Vec<&'static str>,
    /// Every form of every secret; `None` when there is no secret to find.
    forms: Option<aho_corasick::AhoCorasick>,
}

impl Redactor {
    pub fn new(secrets: &Secrets) -> Self {
        let mut forms: Vec<(String, &'static str)> = Vec::new();
        for (secret, name) in secrets.named() {
            if secret.is_empty() {
                continue;
            }
            for form in forms_of(secret) {
                // Two secrets with one value (or one form): the first name keeps it.
                if !forms.iter().any(|(f, _)| *f == form) {
                    forms.push((form, name));
                }
            }
        }
        // Leftmost-longest: at the first position where any form starts, the longest form there
        // wins, so a secret that contains another is named as itself.
        let automaton = (!forms.is_empty()).then(|| {
            aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .build(forms.iter().map(|(f, _)| f))
                .expect("a few short patterns always build")
        });
        Redactor {
            names: forms.iter().map(|(_, n)| *n).collect(),
            forms: automaton,
        }
    }

    /// `text` with every form of every secret replaced by its name.
    pub fn text(&self, text: &str) -> String {
        self.cow(text).into_owned()
    }

    /// Like [`text`](Self::text), borrowing when there is nothing to replace (the usual case).
    fn cow<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let Some(forms) = &self.forms else {
            return text.into();
        };
        let mut hits = forms.find_iter(text).peekable();
        if hits.peek().is_none() {
            return text.into();
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for hit in hits {
            out.push_str(&text[copied..hit.start()]);
            out.push_str(self.names[hit.pattern().as_usize()]);
            copied = hit.end();
        }
        out.push_str(&text[copied..]);
        out.into()
    }

    /// The same for an error: its whole chain as one message (`{e:#}`), redacted.
    pub fn error(&self, e: anyhow::Error) -> anyhow::Error {
        let text = format!("{e:#}");
        let redacted = self.text(&text);
        if redacted == text {
            e
        } else {
            anyhow::Error::msg(redacted)
        }
    }
}

/// Values that may hold a secret somewhere in their text, redacted in place.
pub trait Redact {
    fn redact(&mut self, r: &Redactor);
}

impl Redact for String {
    fn redact(&mut self, r: &Redactor) {
        if let std::borrow::Cow::Owned(redacted) = r.cow(self) {
            *self = redacted;
        }
    }
}

impl Redact for Value {
    fn redact(&mut self, r: &Redactor) {
        match self {
            Value::String(s) => s.redact(r),
            Value::Array(items) => items.iter_mut().for_each(|v| v.redact(r)),
            Value::Object(map) => {
                // Keys are rebuilt (in order) only when one holds a secret: most never do.
                if map
                    .keys()
                    .any(|k| matches!(r.cow(k), std::borrow::Cow::Owned(_)))
                {
                    let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                    map.extend(entries.into_iter().map(|(mut k, v)| {
                        k.redact(r);
                        (k, v)
                    }));
                }
                map.values_mut().for_each(|v| v.redact(r));
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

impl<T: Redact> Redact for Option<T> {
    fn redact(&mut self, r: &Redactor) {
        if let Some(v) = self {
            v.redact(r);
        }
    }
}

impl<T: Redact> Redact for Vec<T> {
    fn redact(&mut self, r: &Redactor) {
        self.iter_mut().for_each(|v| v.redact(r));
    }
}

impl<V: Redact> Redact for BTreeMap<String, V> {
    fn redact(&mut self, r: &Redactor) {
        for (mut k, mut v) in std::mem::take(self) {
            k.redact(r);
            v.redact(r);
            self.insert(k, v);
        }
    }
}

impl<A: Redact, B: Redact> Redact for (A, B) {
    fn redact(&mut self, r: &Redactor) {
        self.0.redact(r);
        self.1.redact(r);
    }
}

impl<T: Redact, E: Redact> Redact for Result<T, E> {
    fn redact(&mut self, r: &Redactor) {
        match self {
            Ok(v) => v.redact(r),
            Err(e) => e.redact(r),
        }
    }
}

/// Numbers, flags and the like: nothing to redact.
macro_rules! opaque {
    ($($t:ty),*) => { $(impl Redact for $t { fn redact(&mut self, _: &Redactor) {} })* };
}
opaque!(
    (),
    u16,
    u32,
    u64,
    usize,
    bool,
    &'static str,
    stubs::claude_ai::Bearer,
    stubs::claude_ai::DesignEndpoint,
    stubs::claude_ai::Transport,
    stubs::claude_ai::Op,
    stubs::claude_ai::ArtifactOp,
    stubs::mcp::Transport
);

// The records of the fakes, field by field. Each destructures its struct without `..`, so a field
// added later does not compile until it is redacted (or named opaque) here.

impl Redact for stubs::messages::RecordedRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            at_ms: _,
            at_unix_ms: _,
            method,
            path,
            headers,
            body,
            kind,
            status: _,
        } = self;
        method.redact(r);
        path.redact(r);
        headers.redact(r);
        body.redact(r);
        kind.redact(r);
    }
}

impl Redact for stubs::messages::RequestKind {
    fn redact(&mut self, r: &Redactor) {
        use stubs::messages::RequestKind;
        match self {
            RequestKind::Main(_) | RequestKind::Other => {}
            RequestKind::Agent { agent, n: _ } => agent.redact(r),
            RequestKind::Side(why) => why.redact(r),
        }
    }
}

impl Redact for stubs::jsonlog::LogEntry {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            t_ms: _,
            pid: _,
            dir,
            msg,
            note,
        } = self;
        dir.redact(r);
        msg.redact(r);
        note.redact(r);
    }
}

impl Redact for stubs::claude_ai::RecordedUpload {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            filename,
            disposition,
            content_type,
            size: _,
            sha256: _,
            boundary,
            length_declared: _,
            bearer: _,
            error,
            status: _,
        } = self;
        filename.redact(r);
        disposition.redact(r);
        content_type.redact(r);
        boundary.redact(r);
        error.redact(r);
    }
}

impl Redact for stubs::claude_ai::DesignRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            endpoint: _,
            http_method,
            rpc,
            id,
            tool,
            arguments,
            params,
            session,
            accept,
            client,
            anthropic_version,
            platform: _,
            content_type,
            bearer: _,
            body,
            status: _,
        } = self;
        http_method.redact(r);
        rpc.redact(r);
        id.redact(r);
        tool.redact(r);
        arguments.redact(r);
        params.redact(r);
        session.redact(r);
        accept.redact(r);
        client.redact(r);
        anthropic_version.redact(r);
        content_type.redact(r);
        body.redact(r);
    }
}

impl Redact for stubs::claude_ai::ProjectRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            transport: _,
            http_method,
            op: _,
            path,
            scoped: _,
            bearer: _,
            file_name,
            content_bytes: _,
            content_sha256: _,
            query,
            n: _,
            names,
            status: _,
            at_unix_ms: _,
        } = self;
        http_method.redact(r);
        path.redact(r);
        file_name.redact(r);
        query.redact(r);
        names.redact(r);
    }
}

impl Redact for stubs::claude_ai::ProjectState {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            docs,
            uploads,
            knowledge_size: _,
        } = self;
        docs.redact(r);
        uploads.redact(r);
    }
}

impl Redact for stubs::claude_ai::DocState {
    fn redact(&mut self, r: &Redactor) {
        // `bytes` and `sha256` stay those of the content as stored: a digest is no secret.
        let Self {
            path,
            content,
            bytes: _,
            sha256: _,
        } = self;
        path.redact(r);
        content.redact(r);
    }
}

impl Redact for stubs::claude_ai::ArtifactRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            op: _,
            http_method,
            path,
            slug,
            bearer: _,
            body,
            status: _,
            applied: _,
            fault,
        } = self;
        http_method.redact(r);
        path.redact(r);
        slug.redact(r);
        body.redact(r);
        fault.redact(r);
    }
}

impl Redact for stubs::claude_ai::DirectoryRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            route: _,
            http_method,
            query,
            body,
            organization: _,
            bearer: _,
            anthropic_version,
            client_platform,
            beta,
            status: _,
            at_unix_ms: _,
        } = self;
        http_method.redact(r);
        query.redact(r);
        body.redact(r);
        anthropic_version.redact(r);
        client_platform.redact(r);
        beta.redact(r);
    }
}

impl Redact for stubs::claude_ai::RecordedTokenRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            grant_type,
            scopes,
            refresh_token_matched: _,
            refresh_token_rotated: _,
            status: _,
        } = self;
        grant_type.redact(r);
        scopes.redact(r);
    }
}

impl Redact for stubs::site::SiteRequest {
    fn redact(&mut self, r: &Redactor) {
        let Self {
            at_ms: _,
            kind: _,
            scheme: _,
            host,
            method,
            path,
            user_agent,
            accept,
            status: _,
        } = self;
        host.redact(r);
        method.redact(r);
        path.redact(r);
        user_agent.redact(r);
        accept.redact(r);
    }
}

/// Every form of `secret` a text may hold, longest first, without repeats.
pub fn forms_of(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_owned()];
    for once in json_forms(secret) {
        out.extend(json_forms(&once));
        out.push(once);
    }
    out.push(markup_escape(secret));
    out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    out.dedup();
    out
}

/// The ways a JSON encoder writes `s` inside a string (without the quotes).
fn json_forms(s: &str) -> Vec<String> {
    let plain = json_escape(s, Style::default());
    let ascii = json_escape(
        s,
        Style {
            ascii: true,
            ..Style::default()
        },
    );
    let ascii_upper = json_escape(
        s,
        Style {
            ascii: true,
            upper: true,
            ..Style::default()
        },
    );
    let html = json_escape(
        s,
        Style {
            html: true,
            ..Style::default()
        },
    );
    let all = json_escape(
        s,
        Style {
            ascii: true,
            html: true,
            slash: true,
            upper: false,
        },
    );
    let slash = json_escape(
        s,
        Style {
            slash: true,
            ..Style::default()
        },
    );
    // The HTML report: serde_json with `<` written `\u003c`.
    let report = plain.replace('<', "\\u003c");
    vec![plain, ascii, ascii_upper, html, all, slash, report]
}

#[derive(Default, Clone, Copy)]
struct Style {
    /// Non-ASCII as `\uXXXX` (surrogate pairs beyond the BMP).
    ascii: bool,
    /// Hex digits upper-case.
    upper: bool,
    /// `<`, `>`, `&`, `'`, U+2028 and U+2029 as `\uXXXX`.
    html: bool,
    /// `/` as `\/`.
    slash: bool,
}

fn json_escape(s: &str, style: Style) -> String {
    let mut out = String::with_capacity(s.len());
    let unicode = |out: &mut String, unit: u16| {
        if style.upper {
            write!(out, "\\u{unit:04X}").unwrap();
        } else {
            write!(out, "\\u{unit:04x}").unwrap();
        }
    };
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '/' if style.slash => out.push_str("\\/"),
            '<' | '>' | '&' | '\'' | '\u{2028}' | '\u{2029}' if style.html => {
                unicode(&mut out, c as u16)
            }
            c if (c as u32) < 0x20 => unicode(&mut out, c as u16),
            c if style.ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    unicode(&mut out, *unit);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as XML or HTML text or attribute value.
fn markup_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn secrets(api_key: &str, access: &str) -> Secrets {
        Secrets {
            api_key: api_key.into(),
            oauth_token: String::new(),
            access_token: access.into(),
            refresh_token: "refresh-Zq81xW".into(),
            session_token: "eyJh.eyJz.c2ln".into(),
        }
    }

    #[test]
    fn raw_and_escaped_forms_are_named() {
        let s = secrets("k\"ey\\<é>\u{1}/", "acc-ess-123");
        let r = s.redactor();
        let raw = format!("a {} b", s.api_key);
        assert_eq!(r.text(&raw), "a [api key] b");
        let json = serde_json::to_string(&raw).unwrap();
        assert_eq!(r.text(&json), "\"a [api key] b\"");
        let twice = serde_json::to_string(&json).unwrap();
        assert_eq!(r.text(&twice), "\"\\\"a [api key] b\\\"\"");
        let html = json.replace('<', "\\u003c");
        assert_eq!(r.text(&html), "\"a [api key] b\"");
        assert_eq!(r.text(&markup_escape(&raw)), "a [api key] b");
        assert_eq!(r.text("no secret here"), "no secret here");
    }

    #[test]
    fn the_longest_secret_wins_and_names_are_not_rescanned() {
        // The API key is inside the access token, and a name's own text is a secret.
        let s = secrets("abcdefgh", "xxabcdefghyy");
        let r = s.redactor();
        assert_eq!(
            r.text("xxabcdefghyy abcdefgh"),
            "[account access token] [api key]"
        );
        let s = secrets("[api key]", "access token]");
        let r = s.redactor();
        assert_eq!(r.text("[api key]"), "[api key]");
    }

    #[test]
    fn values_and_errors_are_redacted() {
        let s = secrets("sk-1234567", "tok-abcdef");
        let r = s.redactor();
        let mut v =
            serde_json::json!({"sk-1234567": ["x sk-1234567", {"t": "tok-abcdef"}], "n": 1});
        v.redact(&r);
        assert_eq!(
            v,
            serde_json::json!({"[api key]": ["x [api key]", {"t": "[account access token]"}], "n": 1})
        );
        let e = anyhow::anyhow!("inner tok-abcdef").context("outer sk-1234567");
        assert_eq!(
            format!("{:#}", r.error(e)),
            "outer [api key]: inner [account access token]"
        );
    }

    fn usable(s: &str) -> bool {
        let mut distinct: Vec<char> = s.chars().collect();
        distinct.sort_unstable();
        distinct.dedup();
        distinct.len() >= 5
            && ["[api key]", "[account access token]"]
                .iter()
                .all(|n| !n.contains(s))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Any characters (controls, NUL, quotes, non-BMP), inside JSON once, twice, in the HTML
        /// report's script form: after redaction no decoding holds the secret, and its name is
        /// where it was.
        #[test]
        fn any_secret_in_any_json_nesting_is_named(
            key in "\\PC{8,40}|[\\x00-\\x7f]{8,40}|.{8,40}",
            access in "[a-z0-9\\\\\"<>&/ ]{8,40}",
        ) {
            prop_assume!(usable(&key) && usable(&access) && !key.contains(access.as_str()) && !access.contains(key.as_str()));
            let r = secrets(&key, &access).redactor();
            let doc = serde_json::json!({"k": [&key, format!("x{key}y {access}")], "t": format!("{access}\n")});
            let once = serde_json::to_string(&doc).unwrap();
            let twice = serde_json::to_string(&serde_json::json!({"inner": once})).unwrap();
            let html = once.replace('<', "\\u003c");
            for text in [once.clone(), twice.clone(), html] {
                let redacted = r.text(&text);
                let mut v: Value = serde_json::from_str(&redacted).expect("still JSON");
                if let Some(inner) = v.get("inner").and_then(Value::as_str) {
                    v = serde_json::from_str(inner).expect("the inner text is still JSON");
                }
                let decoded = v.to_string();
                prop_assert!(!decoded.contains(key.as_str()) && !decoded.contains(access.as_str()), "{decoded}");
                let strings = format!("{} {} {}", v["k"][0], v["k"][1], v["t"]);
                prop_assert_eq!(strings, "\"[api key]\" \"x[api key]y [account access token]\" \"[account access token]\\n\"");
            }
        }
    }
}
