//! `--junit` output validates against the JUnit schema CI systems check reports with: Jenkins'
//! junit-10.xsd (from its xUnit plugin). The schema is not ours to commit; it is taken from a
//! published package that ships it (pytest's source distribution, which validates pytest's own
//! JUnit output against it) into the harness's cache once, or read from `$JUNIT_XSD`.
//! Validation is by libxml2's `xmllint` (Debian's libxml2-utils; `cargo xtask test` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use probes::check::CheckOutcome;
use probes::report::{Doc, Report};

const PYTEST: &str = "pytest==8.3.4";
const MEMBER: &str = "pytest-8.3.4/testing/example_scripts/junit-10.xsd";

fn schema() -> PathBuf {
    if let Some(path) = std::env::var_os("JUNIT_XSD") {
        return PathBuf::from(path);
    }
    let dir = probes::target::default_cache().join("schemas");
    let xsd = dir.join("junit-10.xsd");
    if xsd.is_file() {
        return xsd;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let download = tempfile::tempdir().unwrap();
    let pip = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
        ])
        .arg(PYTEST)
        .arg("-d")
        .arg(download.path())
        .status()
        .expect("python3 runs (pip fetches the schema's package)");
    assert!(pip.success(), "pip could not download {PYTEST}");
    let sdist = std::fs::read_dir(download.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .expect("pip downloaded a source distribution");
    let tar = Command::new("tar")
        .arg("xzf")
        .arg(&sdist)
        .arg("-C")
        .arg(download.path())
        .arg(MEMBER)
        .status()
        .unwrap();
    assert!(tar.success(), "{} holds no {MEMBER}", sdist.display());
    // Renamed into place, so a concurrent test never reads half a file.
    let partial = dir.join(format!("junit-10.xsd.{}", std::process::id()));
    std::fs::copy(download.path().join(MEMBER), &partial).unwrap();
    std::fs::rename(&partial, &xsd).unwrap();
    xsd
}

fn validate(xml: &Path) -> (bool, String) {
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(schema())
        .arg(xml)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run xmllint ({e}): install Debian's libxml2-utils (`cargo xtask test` does)")
        });
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every shape a run takes in a report: passed, failed with a diff holding characters XML
/// cannot carry, skipped, passed with an expected difference; two targets.
fn doc() -> Doc {
    let mut differs = CheckOutcome::new("tool listed", true, "");
    differs.expected_difference = Some("2.1.235 lists it <late> & \"twice\" ]]>".into());
    let mut failed = Report::from_checks(
        "core.b",
        "reference",
        vec![
            CheckOutcome::new("exit", true, ""),
            CheckOutcome::new(
                "result",
                false,
                "-want\n+got \u{1b}[31mred\u{1b}[0m ]]> <x>",
            ),
        ],
        2345,
    );
    failed.trace = Some("not in JUnit".into());
    Doc {
        runs: vec![
            Report::from_checks(
                "core.a",
                "reference",
                vec![CheckOutcome::new("ok", true, "")],
                10,
            ),
            failed,
            Report::from_checks("mcp.c", "claude@2.1.235", vec![differs], 1_234_567),
            Report::skipped("mcp.d", "claude@2.1.235", "isolated network unavailable"),
        ],
        changelogs: vec![],
        unsteady: vec![],
        coverage: Default::default(),
    }
}

#[test]
fn junit_output_validates_against_jenkins_junit_10_schema() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("report.xml");
    std::fs::write(&xml, probes::report::junit::render(&doc())).unwrap();
    let (ok, errors) = validate(&xml);
    assert!(ok, "xmllint refused the report:\n{errors}");
}

/// The validator is not a rubber stamp: a report it must refuse is refused.
#[test]
fn the_schema_check_refuses_a_malformed_report() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("report.xml");
    let good = probes::report::junit::render(&doc());
    // A testcase without its required name.
    std::fs::write(
        &xml,
        good.replacen("<testcase name=\"core.a\"", "<testcase", 1),
    )
    .unwrap();
    let (ok, errors) = validate(&xml);
    assert!(!ok, "xmllint accepted a testcase with no name");
    assert!(errors.contains("name"), "{errors}");
}
