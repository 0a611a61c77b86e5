//! JUnit XML (`--junit`): one `<testsuite>` per target, one `<testcase>` per scenario on it.
//!
//! Written to Jenkins' junit-10 schema (the one its xUnit plugin validates, and pytest tests its
//! own output against), which CI systems' readers accept. A failed scenario carries its failed
//! checks' diffs; a skip its reason; expected differences are not failures: each is a
//! `<property>` of its target's suite and a line of the case's `<system-out>`.

use std::fmt::Write as _;
use std::time::Duration;

use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

use super::{Doc, Report, Status};

pub fn render(doc: &Doc) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    write_doc(&mut w, doc).expect("writing into a Vec cannot fail");
    String::from_utf8(w.into_inner()).expect("quick-xml writes UTF-8")
}

fn write_doc(w: &mut Writer<Vec<u8>>, doc: &Doc) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let total: Duration = doc.runs.iter().map(duration).sum();
    let failures = doc.runs.iter().filter(|r| r.status == Status::Fail).count();
    w.create_element("testsuites")
        .with_attributes([
            ("name", "claude-conformance"),
            ("tests", doc.runs.len().to_string().as_str()),
            ("failures", failures.to_string().as_str()),
            ("errors", "0"),
            ("time", seconds(total).as_str()),
        ])
        .write_inner_content(|w| {
            for target in doc.targets() {
                write_suite(w, doc, target)?;
            }
            Ok(())
        })?;
    Ok(())
}

fn write_suite(w: &mut Writer<Vec<u8>>, doc: &Doc, target: &str) -> std::io::Result<()> {
    let runs: Vec<&Report> = doc.runs.iter().filter(|r| r.target == target).collect();
    let counts = doc.counts(target);
    let time: Duration = runs.iter().copied().map(duration).sum();
    w.create_element("testsuite")
        .with_attributes([
            ("name", target),
            ("tests", runs.len().to_string().as_str()),
            ("failures", counts.fail.to_string().as_str()),
            ("errors", "0"),
            ("skipped", counts.skip.to_string().as_str()),
            ("time", seconds(time).as_str()),
        ])
        .write_inner_content(|w| {
            let differences: Vec<(String, String)> = runs
                .iter()
                .flat_map(|r| expected_differences(r).map(move |(c, why)| (r, c, why)))
                .map(|(r, check, why)| (format!("expected difference: {}: {check}", r.id), why))
                .collect();
            if !differences.is_empty() {
                w.create_element("properties").write_inner_content(|w| {
                    for (name, value) in &differences {
                        w.create_element("property")
                            .with_attributes([
                                ("name", xml_safe(name).as_str()),
                                ("value", xml_safe(value).as_str()),
                            ])
                            .write_empty()?;
                    }
                    Ok(())
                })?;
            }
            for run in runs {
                write_case(w, run)?;
            }
            Ok(())
        })?;
    Ok(())
}

fn write_case(w: &mut Writer<Vec<u8>>, run: &Report) -> std::io::Result<()> {
    // Jenkins reads dots in a classname as packages: the version's dots would split the target.
    let area = run.id.split('.').next().unwrap_or(&run.id);
    let classname = format!("{}.{area}", run.target.replace('.', "_"));
    w.create_element("testcase")
        .with_attributes([
            ("name", run.id.as_str()),
            ("classname", classname.as_str()),
            ("time", seconds(duration(run)).as_str()),
        ])
        .write_inner_content(|w| {
            match run.status {
                Status::Pass => {}
                Status::Fail => {
                    let failed: Vec<&str> = run
                        .checks
                        .iter()
                        .filter(|c| !c.ok)
                        .map(|c| c.name.as_str())
                        .collect();
                    let message = format!("failed: {}", failed.join("; "));
                    w.create_element("failure")
                        .with_attributes([
                            ("message", xml_safe(&message).as_str()),
                            ("type", "check failed"),
                        ])
                        .write_text_content(BytesText::new(&xml_safe(&run.failure_text())))?;
                }
                Status::Skip => {
                    let why = run.checks.first().map_or("", |c| c.detail.as_str());
                    w.create_element("skipped")
                        .with_attribute(("message", xml_safe(why).as_str()))
                        .write_empty()?;
                }
            }
            let out = system_out(run);
            if !out.is_empty() {
                w.create_element("system-out")
                    .write_text_content(BytesText::new(&xml_safe(&out)))?;
            }
            Ok(())
        })?;
    Ok(())
}

/// What a reader of a passing case still needs: the differences it passed with, and how its
/// trace compares with the reference's.
fn system_out(run: &Report) -> String {
    let mut out = String::new();
    for (check, why) in expected_differences(run) {
        writeln!(out, "expected difference: {check}: {why}").unwrap();
    }
    if let Some(parity) = &run.parity {
        writeln!(out, "{}", parity.summary()).unwrap();
    }
    out
}

fn expected_differences(run: &Report) -> impl Iterator<Item = (&str, String)> {
    run.checks.iter().filter_map(|c| {
        c.expected_difference
            .as_ref()
            .map(|why| (c.name.as_str(), why.clone()))
    })
}

fn duration(run: &Report) -> Duration {
    Duration::from_millis(run.duration_ms)
}

/// Surefire's time format, which the schema's pattern admits: seconds with three decimals.
fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// XML 1.0 cannot carry most control characters, even escaped; a target's output may hold them
/// (a terminal escape in stderr). Each is written as `\u{..}` so nothing is silently dropped.
fn xml_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                write!(out, "\\u{{{:x}}}", c as u32).unwrap();
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::CheckOutcome;

    fn run(id: &str, target: &str, checks: Vec<CheckOutcome>) -> Report {
        Report::from_checks(id, target, checks, 1500)
    }

    #[test]
    fn a_failure_carries_its_checks_and_a_difference_is_a_property_not_a_failure() {
        let mut differs = CheckOutcome::new("tool listed", true, "");
        differs.expected_difference = Some("2.1.235 lists it <late> & \"twice\"".into());
        let doc = Doc {
            runs: vec![
                run(
                    "core.a",
                    "reference",
                    vec![CheckOutcome::new("ok", true, "")],
                ),
                run(
                    "core.b",
                    "reference",
                    vec![CheckOutcome::new("result", false, "-want\n+got\u{1b}[0m")],
                ),
                run("mcp.c", "claude@2.1.235", vec![differs]),
                Report::skipped("mcp.d", "claude@2.1.235", "isolation unavailable"),
            ],
            changelogs: vec![],
            unsteady: vec![],
            coverage: Default::default(),
        };
        let xml = render(&doc);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
        assert!(xml.contains(r#"<testsuites name="claude-conformance" tests="4" failures="1" errors="0" time="4.500">"#), "{xml}");
        assert!(xml.contains(r#"<testsuite name="claude@2.1.235" tests="2" failures="0" errors="0" skipped="1" time="1.500">"#), "{xml}");
        assert!(
            xml.contains(
                r#"<failure message="failed: result" type="check failed">  ✗ result
      -want
      +got\u{1b}[0m"#
            ),
            "{xml}"
        );
        assert!(xml.contains(r#"<property name="expected difference: mcp.c: tool listed" value="2.1.235 lists it &lt;late&gt; &amp; &quot;twice&quot;"/>"#), "{xml}");
        assert!(
            xml.contains(r#"<testcase name="mcp.c" classname="claude@2_1_235.mcp" time="1.500">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<skipped message="isolation unavailable"/>"#),
            "{xml}"
        );
        assert_eq!(xml.matches("<failure").count(), 1);
    }

    #[test]
    fn control_characters_are_spelled_out() {
        assert_eq!(xml_safe("a\u{1b}b\u{0}\tc"), "a\\u{1b}b\\u{0}\tc");
    }
}
