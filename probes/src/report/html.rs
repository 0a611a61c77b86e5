//! The HTML report (`--html`): one static page that holds the whole [`Doc`] and draws it with
//! inline JavaScript, so it opens from `file://`, loads nothing from anywhere (its
//! Content-Security-Policy forbids it) and can be attached to a CI run as a single file.
//!
//! The page shows the targets with their counts (as [`Doc::counts`] counts them), the matrix of
//! scenarios × targets (one status per run: `pass`, `fail`, `expected difference` for a pass that
//! needed a named difference, `skip`; and `trace differs` where the trace differs from the
//! reference's), filters by area and state, a detail panel per run (its checks with their diffs,
//! the trace comparison, the transcript, the Brief main view and the normalized trace), and the
//! changes between versions when the report has changelogs. `#run=<id>@<target>` (URI-encoded)
//! opens a run.
//!
//! What other programs (and `reference/tests/report_html.rs`) may rely on in the drawn page:
//! - the counts: `[data-target=T][data-count=K]`, K one of `pass`, `fail`, `skip`,
//!   `expected_differences` (the field names of [`super::doc::Counts`]), text the number;
//! - the matrix cells: `td.cell` with `data-id`, `data-target`, `data-status` (`pass`, `fail`,
//!   `expected-difference`, `skip`) and `data-trace-differs="true"` where the trace differs;
//!   rows `tr.run-row[data-id]`, hidden by the filters with the `hidden` attribute;
//! - the filters: `#area-filter`, `#id-filter`, `input[data-status=S]` (S a cell status or
//!   `trace-differs`), `#shown` ("N of M scenarios");
//! - the detail panel: `#detail`, each check an `li[data-check=NAME]`;
//! - `<html data-ready="true">` once the page is drawn.

use super::changelog::ChangeKind;
use super::Doc;

const CSS: &str = include_str!("html/report.css");
const JS: &str = include_str!("html/report.js");

/// The page, data and code inline.
pub fn render(doc: &Doc) -> String {
    let data = script_json(doc);
    let mut page = String::with_capacity(data.len() + CSS.len() + JS.len() + 1024);
    page.push_str(concat!(
        "<!DOCTYPE html>\n",
        "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        // Nothing may load from anywhere: the page is its own data, style and code.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ",
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; ",
        "base-uri 'none'; form-action 'none'\">\n",
        "<title>Conformance report</title>\n<style>\n",
    ));
    page.push_str(CSS);
    page.push_str(concat!(
        "</style>\n</head>\n<body>\n<div id=\"app\">",
        "<noscript><p>This report is drawn by JavaScript. Its data is the JSON in the ",
        "<code>report-data</code> element of this file.</p></noscript></div>\n",
        "<script type=\"application/json\" id=\"report-data\">",
    ));
    page.push_str(&data);
    page.push_str("</script>\n<script type=\"application/json\" id=\"change-kinds\">");
    page.push_str(&change_kinds_json());
    page.push_str("</script>\n<script>\n");
    page.push_str(JS);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

/// The kinds of check change with their labels, `[[kind, label], …]` in report order: the page's
/// one copy of `ChangeKind::label`.
fn change_kinds_json() -> String {
    let kinds: Vec<(ChangeKind, &str)> = ChangeKind::ALL.iter().map(|k| (*k, k.label())).collect();
    serde_json::to_string(&kinds).expect("labels serialize")
}

/// The doc as JSON that can sit inside a `<script>` element: every `<` is written `\u003c` (the
/// same string to a JSON parser), so no text of a run can close the element (`</script>`) or
/// open a comment (`<!--`) that would change how the rest of the page parses. Outside strings,
/// JSON has no `<`.
fn script_json(doc: &Doc) -> String {
    let json = serde_json::to_string(doc).expect("a report always serializes");
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::CheckOutcome;
    use crate::report::changelog::{ChangeKind, Changelog, CheckChange, TraceChange};
    use crate::report::Report;

    /// A doc whose texts try every way out of the data element, and mention network URLs.
    fn hostile_doc() -> Doc {
        let mut pass = Report::from_checks(
            "core.text-turn",
            "reference",
            vec![CheckOutcome::new("exit", true, "")],
            120,
        );
        pass.transcript = Some(
            "</script><script>alert(1)</script> <!-- <script> </SCRIPT > \
             <img src=\"https://example.com/x.png\"> see http://example.com/"
                .into(),
        );
        pass.trace = Some("<a href=\"https://example.com/\">trace</a>".into());
        let mut fail = Report::from_checks(
            "core.text-turn",
            "claude@2.1.235",
            vec![CheckOutcome::new(
                "result </script>",
                false,
                "--- expected\n+++ seen\n@@ -1 +1 @@\n-</script>\n+<style>@import url(https://example.com/a.css)</style>\n",
            )],
            80,
        );
        fail.brief_view =
            Some("<link rel=\"stylesheet\" href=\"http://example.com/s.css\">".into());
        Doc {
            runs: vec![pass, fail],
            changelogs: vec![Changelog {
                from: "claude@2.1.234".into(),
                to: "claude@2.1.235".into(),
                compared: 1,
                checks: vec![CheckChange {
                    scenario: "core.text-turn".into(),
                    check: "result </script>".into(),
                    change: ChangeKind::Regression,
                    before: "passed".into(),
                    after: "failed".into(),
                    detail: "</script>".into(),
                }],
                trace: vec![TraceChange {
                    group: "other".into(),
                    what: "<script src=\"https://example.com/x.js\"></script>".into(),
                    scenarios: vec!["core.text-turn".into()],
                }],
            }],
            unsteady: Vec::new(),
            coverage: Default::default(),
        }
    }

    /// The text of the data element, as a browser would cut it out of the page.
    fn data_element(page: &str) -> &str {
        let open = "<script type=\"application/json\" id=\"report-data\">";
        let start = page.find(open).expect("the data element") + open.len();
        let len = page[start..]
            .to_ascii_lowercase()
            .find("</script")
            .expect("its end");
        &page[start..start + len]
    }

    #[test]
    fn a_runs_text_cannot_close_the_data_element() {
        let doc = hostile_doc();
        let page = render(&doc);
        let data = data_element(&page);
        assert!(!data.contains('<'), "a `<` inside the data element: {data}");
        // Cut where a browser cuts it, the element still holds the whole doc.
        let parsed: serde_json::Value = serde_json::from_str(data).expect("the element is JSON");
        assert_eq!(parsed, serde_json::to_value(&doc).unwrap());
        assert_eq!(
            parsed["runs"][0]["transcript"].as_str().unwrap(),
            doc.runs[0].transcript.as_deref().unwrap()
        );
        // Three scripts (the data, the change kinds' labels and the code), each closed once.
        assert_eq!(page.to_ascii_lowercase().matches("</script").count(), 3);
        assert_eq!(page.to_ascii_lowercase().matches("<script").count(), 3);
    }

    #[test]
    fn the_page_loads_nothing_from_the_network() {
        let page = render(&hostile_doc());
        // The data element holds no markup at all (no `<`, see above): the URLs in the runs'
        // texts are text. The rest of the page is markup, style and code: none of it loads.
        let data = data_element(&page);
        assert!(!data.contains('<'));
        let page = page.replacen(data, "", 1).to_ascii_lowercase();
        assert!(!page.contains("example.com"), "the data was cut out");
        for load in ["src=", "href=", "url(", "@import", "srcset="] {
            for (at, _) in page.match_indices(load) {
                let after = page[at + load.len()..].trim_start_matches(['"', '\'', ' ', '\\']);
                assert!(
                    !after.starts_with("http:")
                        && !after.starts_with("https:")
                        && !after.starts_with("//"),
                    "a network load in the page: {}",
                    &page[at..(at + 80).min(page.len())]
                );
            }
        }
        // The code itself asks for nothing either, and the page forbids any load.
        for call in [
            "fetch(",
            "xmlhttprequest",
            "websocket",
            "eventsource",
            "import(",
        ] {
            assert!(
                !JS.to_ascii_lowercase().contains(call),
                "{call} in the page's code"
            );
        }
        assert!(page.contains("content-security-policy\" content=\"default-src 'none'"));
    }

    #[test]
    fn the_assets_fit_inline() {
        // Inline, the code and the style must not end their own elements.
        assert!(!JS.to_ascii_lowercase().contains("</script"));
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
        // The code builds its DOM from text nodes only.
        for sink in [
            "innerhtml",
            "outerhtml",
            "insertadjacenthtml",
            "document.write",
        ] {
            assert!(
                !JS.to_ascii_lowercase().contains(sink),
                "{sink} in the page's code"
            );
        }
    }

    #[test]
    fn an_empty_doc_is_still_a_page() {
        let page = render(&Doc::default());
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>Conformance report</title>"));
        assert_eq!(
            data_element(&page),
            r#"{"runs":[],"changelogs":[]}"#,
            "the doc's shape is what the page's code reads"
        );
    }
}
