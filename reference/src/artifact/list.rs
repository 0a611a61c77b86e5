//! Artifact `list` (seed 004 §Artifact; 2.1.235's listing, recon artifact-assets): one window of
//! the account's artifacts (`GET /api/frame/frames?limit=200`, sent once more after a network
//! error or a 5xx), the user's own by default, or those shared with them, or both, most recent
//! first as the service orders them. A read-only action: it never asks.

use std::time::Duration;

use serde_json::{json, Value};

use super::api::Api;
use super::text;
use crate::limits;

/// Which artifacts a listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Mine,
    Shared,
    All,
}

impl Scope {
    pub fn of(input: &Value) -> Scope {
        match input["scope"].as_str() {
            Some("shared") => Scope::Shared,
            Some("all") => Scope::All,
            _ => Scope::Mine,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scope::Mine => "mine",
            Scope::Shared => "shared",
            Scope::All => "all",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub title: String,
    pub url: String,
    pub updated_at: Option<String>,
    /// Whose it is, shown unless the listing is the user's own.
    pub rel: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub rows: Vec<Row>,
    pub truncated: bool,
    pub scope: Scope,
}

impl Listing {
    /// The tool's structured result.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut v = json!({"title": r.title, "url": r.url});
                if let Some(at) = &r.updated_at {
                    v["updatedAt"] = json!(at);
                }
                if let Some(rel) = &r.rel {
                    v["rel"] = json!(rel);
                }
                v
            })
            .collect();
        let mut v = json!({"artifacts": rows});
        if self.truncated {
            v["truncated"] = json!(true);
        }
        if self.scope != Scope::Mine {
            v["scope"] = json!(self.scope.name());
        }
        v
    }
}

/// Fetches the window and keeps at most `limit` rows of `scope`.
pub async fn list(api: &Api, limit: usize, scope: Scope) -> Result<Listing, String> {
    let window = limits::ARTIFACT_LIST_WINDOW.usize();
    let path = format!("/api/frame/frames?limit={window}");
    let mut retried = false;
    let (status, body) = loop {
        let sent = api
            .request(reqwest::Method::GET, &path)
            .timeout(limits::ARTIFACT_READ_TIMEOUT.duration())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_server_error() && !retried => {}
            Ok(r) => {
                let status = r.status().as_u16();
                break (status, r.text().await.unwrap_or_default());
            }
            Err(e) if retried => return Err(format!("artifact listing failed: {e}")),
            Err(_) => {}
        }
        retried = true;
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    if !(200..300).contains(&status) {
        return Err(format!("artifact listing failed (HTTP {status})"));
    }
    let malformed = || "artifact listing failed: malformed response".to_owned();
    let parsed: Value = serde_json::from_str(&body).map_err(|_| malformed())?;
    let frames = match &parsed["frames"] {
        Value::Null if parsed.get("frames").is_some() => Vec::new(),
        Value::Array(a) => a.clone(),
        _ => return Err(malformed()),
    };
    let (mut rows, mut looked, mut unreadable) = (Vec::new(), 0, 0);
    for frame in &frames {
        if rows.len() >= limit {
            break;
        }
        looked += 1;
        let (Some(slug), Some(rel)) = (frame["slug"].as_str(), frame["rel"].as_str()) else {
            unreadable += 1;
            continue;
        };
        if !text::is_slug(slug) {
            unreadable += 1;
            continue;
        }
        if frame["softDeleted"] == json!(true) || !["mine", "shared"].contains(&rel) {
            continue;
        }
        if scope != Scope::All && rel != scope.name() {
            continue;
        }
        rows.push(Row {
            title: listed_title(frame["title"].as_str().unwrap_or_default()),
            url: text::viewer_url(slug),
            updated_at: frame["updatedAt"]
                .as_str()
                .filter(|t| is_timestamp(t))
                .map(str::to_owned),
            rel: (scope != Scope::Mine).then(|| rel.to_owned()),
        });
    }
    if !frames.is_empty() && rows.is_empty() && unreadable == frames.len() {
        return Err("artifact listing failed: response rows were unreadable".into());
    }
    let truncated = (rows.len() >= limit && looked < frames.len()) || frames.len() >= window;
    Ok(Listing {
        rows,
        truncated,
        scope,
    })
}

/// A title as the listing shows it: cleaned, cut to 100 characters, and with `://` broken so a
/// title cannot pass for a link.
fn listed_title(raw: &str) -> String {
    let Some(clean) = text::clean_title(raw) else {
        return "Untitled".into();
    };
    let cut: String = clean.chars().take(100).collect();
    let shown = if cut.len() < clean.len() {
        format!("{cut}\u{2026}")
    } else {
        cut
    };
    shown.replace("://", ":\u{2215}\u{2215}")
}

/// `2026-11-30T12:00:00Z`, with optional fractions and an offset instead of `Z`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
}

/// What the model reads: a header naming what was listed, one line per artifact, and a note when
/// more may exist.
pub fn render(listing: &Listing) -> String {
    let n = listing.rows.len();
    let what = match listing.scope {
        Scope::Shared => "artifacts shared with you",
        Scope::All => "published or shared artifacts",
        Scope::Mine => "published artifacts",
    };
    let caveat = if listing.scope == Scope::Mine {
        ""
    } else {
        " (Artifacts shared org-wide that the user has not opened may not appear \u{2014} an empty listing does not prove nothing was shared.)"
    };
    if n == 0 {
        let none = if listing.truncated {
            format!("No {what} in the most recent listing window \u{2014} older ones may exist in the claude.ai gallery.")
        } else {
            format!("No {what} yet.")
        };
        return format!("{none}{caveat}");
    }
    let noun = match (listing.scope, n) {
        (Scope::Shared, 1) => "artifact shared with you",
        (Scope::Shared, _) => "artifacts shared with you",
        (Scope::All, 1) => "artifact",
        (Scope::All, _) => "artifacts",
        (Scope::Mine, 1) => "published artifact",
        (Scope::Mine, _) => "published artifacts",
    };
    let whose = if listing.scope == Scope::All {
        ", published by you or shared with you"
    } else {
        ""
    };
    let lines: Vec<String> = listing
        .rows
        .iter()
        .map(|r| {
            let rel = r
                .rel
                .as_ref()
                .map(|r| format!("({r}) "))
                .unwrap_or_default();
            let updated = r
                .updated_at
                .as_ref()
                .map(|t| format!(" \u{2014} updated {}", &t[..10]))
                .unwrap_or_default();
            format!("- {rel}{} \u{2014} {}{updated}", r.title, r.url)
        })
        .collect();
    let more = if listing.truncated {
        "\n(More may exist \u{2014} pass a higher `limit` (up to 50); artifacts not updated recently can be beyond the listing window.)"
    } else {
        ""
    };
    format!(
        "{n} {noun}{whose} (most recent first):\n{}{more}",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(title: &str, rel: Option<&str>) -> Row {
        Row {
            title: title.into(),
            url: text::viewer_url("a7f1ac70-0000-4000-8000-000000000001"),
            updated_at: Some("2026-11-30T12:00:00Z".into()),
            rel: rel.map(str::to_owned),
        }
    }

    #[test]
    fn a_listing_names_its_scope_and_marks_each_row_s_owner_outside_the_user_s_own() {
        let mine = Listing {
            rows: vec![row("Plan", None)],
            truncated: false,
            scope: Scope::Mine,
        };
        assert_eq!(
            render(&mine),
            "1 published artifact (most recent first):\n- Plan \u{2014} https://claude.ai/code/artifact/a7f1ac70-0000-4000-8000-000000000001 \u{2014} updated 2026-11-30"
        );
        let all = Listing {
            rows: vec![row("Plan", Some("mine")), row("Deck", Some("shared"))],
            truncated: true,
            scope: Scope::All,
        };
        let shown = render(&all);
        assert!(shown.starts_with("2 artifacts, published by you or shared with you (most recent first):\n- (mine) Plan"), "{shown}");
        assert!(shown.contains("\n- (shared) Deck"), "{shown}");
        assert!(shown.ends_with("beyond the listing window.)"), "{shown}");
        assert_eq!(all.to_json()["scope"], "all");
        assert_eq!(mine.to_json().get("scope"), None);
    }

    #[test]
    fn an_empty_listing_says_whether_older_ones_may_exist() {
        let empty = |scope, truncated| Listing {
            rows: vec![],
            truncated,
            scope,
        };
        assert_eq!(
            render(&empty(Scope::Mine, false)),
            "No published artifacts yet."
        );
        assert!(render(&empty(Scope::Shared, true))
            .starts_with("No artifacts shared with you in the most recent listing window"));
        assert!(render(&empty(Scope::Shared, false)).ends_with("nothing was shared.)"));
    }

    #[test]
    fn a_listed_title_is_cleaned_cut_and_never_a_link() {
        assert_eq!(listed_title("  "), "Untitled");
        assert_eq!(
            listed_title("see https://x.y"),
            "see https:\u{2215}\u{2215}x.y"
        );
        let long = "a".repeat(120);
        assert_eq!(listed_title(&long).chars().count(), 101);
        assert!(is_timestamp("2026-11-30T12:00:00.5+01:00"));
        assert!(!is_timestamp("yesterday"));
    }
}
