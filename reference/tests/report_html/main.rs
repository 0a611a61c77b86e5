//! The HTML report in a real browser. A few small scenarios run through `probes::probe` on the
//! reference and on two targets named like releases (the same binary), the runs become a report
//! (`Doc::assemble`: trace comparisons and a changelog), and Debian's Chromium opens the page from
//! `file://`: its counts must be what the JSON report holds, the matrix one cell per run, a click
//! on a failing cell must open that run's checks with the failure's diff, the status filter must
//! leave only failing rows, and a `#run=` link must open its run on load.
//!
//! Chromium is driven over `--remote-debugging-pipe` (CDP as NUL-separated JSON on fds 3 and 4)
//! rather than with the `headless_chrome` crate: that crate added 3½ minutes to a clean build of
//! this test on a 2-core machine (its CDP bindings are generated as one large module and it
//! brings ureq/rustls as build dependencies), for the dozen commands used here.
//!
//! Needs Chromium: `apt-get install chromium`, or `CHROMIUM=/path/to/chromium`. Without it the
//! test fails. The page, the JSON and screenshots are left in `target/tmp/report_html/`.

mod cdp;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cdp::Browser;
use probes::report::Doc;
use probes::{Scenario, Target};
use serde_json::{json, Value};

const SCENARIOS: [(&str, &str); 4] = [
    (
        "core.hello",
        r#"id = "core.hello"
title = "One text turn; passes everywhere"
targets = ["reference", "claude"]
prompt = "Say hello."

[[turn]]
text = "HELLO_OK"

[[check]]
kind = "requests"
equals = 1

[[check]]
kind = "result"
subtype = "success"
equals = "HELLO_OK"

[[check]]
kind = "exit"
equals = 0
"#,
    ),
    (
        "core.wrong-answer",
        r#"id = "core.wrong-answer"
title = "A check that expects another answer than the script gives: fails everywhere"
targets = ["reference", "claude"]
prompt = "Say goodbye."

[[turn]]
text = "GOODBYE_OK\nsee you"

[[check]]
kind = "exit"
equals = 0

[[check]]
name = "result is the farewell"
kind = "result"
equals = "something else\nsee you"
"#,
    ),
    (
        "tools.read-notes",
        r#"id = "tools.read-notes"
title = "A Read of a fixture, then the answer"
targets = ["reference", "claude"]
prompt = "Read notes.txt and summarize it."

[[file]]
path = "notes.txt"
content = "ship on the 4th\n"

[[turn]]
[[turn.block]]
type = "tool_use"
id = "toolu_read_01"
name = "Read"
input = { file_path = "{cwd}/notes.txt" }

[[turn]]
text = "The notes say: ship on the 4th."

[[check]]
kind = "tool_result"
tool_use_id = "toolu_read_01"
request = 2
contains = "ship on the 4th"

[[check]]
kind = "exit"
equals = 0
"#,
    ),
    (
        "tools.named-difference",
        r#"id = "tools.named-difference"
title = "A difference named for claude@9.9.9 only; the reference skips it"
targets = ["claude"]
prompt = "Say hello."

[[turn]]
text = "HELLO_OK"

[[check]]
kind = "result"
equals = "HELLO"
differs."claude@9.9.9" = { reason = "9.9.9 answers with the whole scripted text", equals = "HELLO_OK" }

[[check]]
kind = "exit"
equals = 0
"#,
    ),
];

const FAILING: (&str, &str) = ("core.wrong-answer", "claude@9.9.9");
const FAILING_CHECK: &str = "result is the farewell";
const DIFFERENCE: (&str, &str) = ("tools.named-difference", "claude@9.9.9");

#[test]
fn the_html_report_in_chromium() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let chromium = chromium_path();

    // A real report: the scenarios run on three targets, assembled as `cargo xtask probe` does.
    let doc = build_report();
    let json_path = out.join("report.json");
    let html_path = out.join("report.html");
    std::fs::write(&json_path, doc.to_json().unwrap()).unwrap();
    std::fs::write(&html_path, probes::report::html::render(&doc)).unwrap();
    println!("report: {}", html_path.display());

    // What the page must show, counted from the JSON file (not by the code that made the page).
    let json: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let expected = Expected::from_json(&json);
    assert!(
        expected.cells.values().any(|s| s == "fail")
            && expected.cells.values().any(|s| s == "expected-difference")
            && expected.cells.values().any(|s| s == "skip")
            && expected.cells.values().any(|s| s == "pass"),
        "the fixtures should give every status: {:?}",
        expected.cells
    );
    assert_eq!(
        expected
            .cells
            .get(&(FAILING.0.into(), FAILING.1.into()))
            .map(String::as_str),
        Some("fail")
    );
    assert!(
        json["changelogs"].as_array().is_some_and(|c| !c.is_empty()),
        "9.9.8 → 9.9.9 should give a changelog"
    );

    let mut browser = Browser::launch(&chromium, &out);
    let page = browser.open_page(1280, 800);
    let url = file_url(&html_path);
    browser.navigate(&page, &url);
    browser.assert_no_page_errors();

    // The header's counts, per target.
    let shown = browser.eval(
        &page,
        "[...document.querySelectorAll('[data-target][data-count]')]\
         .map(e => [e.dataset.target, e.dataset.count, e.textContent])",
    );
    let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for item in shown.as_array().unwrap() {
        let n: u64 = item[2]
            .as_str()
            .unwrap()
            .trim()
            .parse()
            .expect("a count is a number");
        let previous = counts
            .entry(item[0].as_str().unwrap().into())
            .or_default()
            .insert(item[1].as_str().unwrap().into(), n);
        assert!(previous.is_none(), "a count shown twice: {item}");
    }
    assert_eq!(counts, expected.counts, "the counts in the header");

    // The matrix: one cell per run, each with the run's status, targets in report order.
    let cells = browser.eval(
        &page,
        "[...document.querySelectorAll('#matrix td[data-id]')]\
         .map(e => [e.dataset.id, e.dataset.target, e.dataset.status])",
    );
    let cells: BTreeMap<(String, String), String> = cells
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |i: usize| c[i].as_str().unwrap().to_owned();
            ((s(0), s(1)), s(2))
        })
        .collect();
    assert_eq!(
        browser.eval(
            &page,
            "document.querySelectorAll('#matrix td[data-id]').length"
        ),
        json!(expected.cells.len()),
        "one cell per run"
    );
    assert_eq!(cells, expected.cells, "each cell's status");
    let columns = browser.eval(
        &page,
        "[...document.querySelectorAll('#matrix thead th[data-target]')].map(e => e.dataset.target)",
    );
    assert_eq!(
        columns,
        json!(["reference", "claude@9.9.8", "claude@9.9.9"])
    );

    // A real click on the failing cell opens its run, and the link to it.
    let cell = format!(
        "#matrix td[data-id=\"{}\"][data-target=\"{}\"]",
        FAILING.0, FAILING.1
    );
    browser.click(&page, &cell);
    browser.wait_for(
        &page,
        "!document.getElementById('detail').hidden",
        "the detail panel to open",
    );
    let panel = browser.eval(
        &page,
        "(() => { const d = document.getElementById('detail'); return {\
           id: d.querySelector('h2').textContent,\
           target: d.querySelector('.meta code').textContent,\
           hash: location.hash,\
           checks: [...d.querySelectorAll('li[data-check]')].map(li => ({\
             name: li.dataset.check,\
             state: li.className,\
             detail: li.querySelector('pre') ? li.querySelector('pre').textContent : null,\
             removed: [...li.querySelectorAll('pre .del')].map(s => s.textContent),\
             added: [...li.querySelectorAll('pre .ins')].map(s => s.textContent),\
           })),\
           text: d.innerText,\
         }; })()",
    );
    assert_eq!(panel["id"], FAILING.0);
    assert_eq!(panel["target"], FAILING.1);
    assert_eq!(
        panel["hash"],
        format!(
            "#run={}",
            claude_reference::net::encode_uri_component(&format!("{}@{}", FAILING.0, FAILING.1))
        )
    );
    let failing_run = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == FAILING.0 && r["target"] == FAILING.1)
        .unwrap();
    let failing_check = failing_run["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == FAILING_CHECK)
        .expect("the failing check is in the JSON");
    let detail = failing_check["detail"].as_str().unwrap();
    assert!(
        detail.contains("-something else") && detail.contains("+GOODBYE_OK"),
        "{detail}"
    );
    let shown_check = panel["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == FAILING_CHECK)
        .unwrap_or_else(|| panic!("the panel shows no `{FAILING_CHECK}`: {panel:#}"));
    assert_eq!(shown_check["state"], "fail");
    assert_eq!(shown_check["detail"], detail, "the check's diff, whole");
    assert_eq!(shown_check["removed"], json!(["-something else"]));
    assert_eq!(shown_check["added"], json!(["+GOODBYE_OK"]));
    assert_eq!(
        panel["checks"].as_array().unwrap().len(),
        failing_run["checks"].as_array().unwrap().len(),
        "every check of the run"
    );
    let text = panel["text"].as_str().unwrap();
    assert!(text.contains(FAILING_CHECK), "{text}");
    assert!(
        text.contains("trace = reference"),
        "the trace comparison: {text}"
    );
    assert!(text.contains("Transcript"), "{text}");
    let shot = out.join("report.png");
    browser.screenshot(&page, &shot);
    println!("screenshot with the detail panel open: {}", shot.display());

    // The status filter: with `fail` alone, only rows with a failing run remain.
    for status in ["pass", "expected-difference", "skip", "trace-differs"] {
        browser.click(&page, &format!("label.toggle[data-status=\"{status}\"]"));
    }
    let filtered = browser.eval(
        &page,
        "({\
           checked: [...document.querySelectorAll('.toggles input:checked')].map(e => e.dataset.status),\
           rows: [...document.querySelectorAll('#matrix tr.run-row')].filter(r => !r.hidden).map(r => r.dataset.id),\
           failing: [...document.querySelectorAll('#matrix tr.run-row')].filter(r => !r.hidden)\
             .map(r => r.querySelectorAll('td[data-status=fail]').length),\
           shown: document.getElementById('shown').textContent,\
         })",
    );
    assert_eq!(filtered["checked"], json!(["fail"]));
    let failing_ids: Vec<&str> = expected.failing_ids.iter().map(String::as_str).collect();
    assert_eq!(
        filtered["rows"],
        json!(failing_ids),
        "only failing rows remain"
    );
    assert!(
        filtered["failing"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n.as_u64() > Some(0)),
        "{filtered}"
    );
    assert_eq!(
        filtered["shown"],
        format!("{} of {} scenarios", failing_ids.len(), expected.ids.len())
    );
    let shot = out.join("report-filtered.png");
    browser.screenshot(&page, &shot);
    println!("screenshot filtered to failures: {}", shot.display());

    // A link into the report opens its run on load.
    browser.navigate(&page, "about:blank");
    let link = format!(
        "{url}#run={}",
        claude_reference::net::encode_uri_component(&format!("{}@{}", DIFFERENCE.0, DIFFERENCE.1))
    );
    browser.navigate(&page, &link);
    browser.wait_for(
        &page,
        "!document.getElementById('detail').hidden",
        "the linked run to open",
    );
    let text = browser.eval(&page, "document.getElementById('detail').innerText");
    let text = text.as_str().unwrap();
    assert!(text.starts_with(DIFFERENCE.0), "{text}");
    assert!(
        text.contains("expected difference: 9.9.9 answers with the whole scripted text"),
        "{text}"
    );
    let changes = browser.eval(
        &page,
        "[...document.querySelectorAll('#changes article')].map(a => a.querySelector('h3').textContent)",
    );
    assert_eq!(changes, json!(["claude@9.9.8 → claude@9.9.9"]));
    browser.assert_no_page_errors();
}

/// Runs the scenarios on the reference, `claude@9.9.8` and `claude@9.9.9` (all the reference
/// binary) and assembles the report.
fn build_report() -> Doc {
    let dir = tempfile::tempdir().unwrap();
    let scenarios: Vec<Scenario> = SCENARIOS
        .iter()
        .map(|(id, text)| {
            let path = dir.path().join(format!("{id}.toml"));
            std::fs::write(&path, text).unwrap();
            Scenario::load(&path).unwrap_or_else(|e| panic!("{id}: {e:?}"))
        })
        .collect();
    let program = PathBuf::from(env!("CARGO_BIN_EXE_claude-reference"));
    let targets = [
        Target::reference(program.clone()),
        Target {
            name: "claude@9.9.8".into(),
            kind: "claude",
            program: program.clone(),
            secrets: Default::default(),
        },
        Target {
            name: "claude@9.9.9".into(),
            kind: "claude",
            program,
            secrets: Default::default(),
        },
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut runs = Vec::new();
    for target in &targets {
        let probes = runtime.block_on(futures_util::future::join_all(
            scenarios.iter().map(|s| probes::probe(s, target, None)),
        ));
        runs.extend(probes.into_iter().map(|p| p.report));
    }
    let (doc, parity_ok) = Doc::assemble(runs, &scenarios, &[]);
    assert!(
        parity_ok,
        "the same binary's traces should match the reference's"
    );
    doc
}

/// What the page should show, from the JSON report.
struct Expected {
    /// target → count name → number.
    counts: BTreeMap<String, BTreeMap<String, u64>>,
    /// (id, target) → the cell's status.
    cells: BTreeMap<(String, String), String>,
    ids: BTreeSet<String>,
    /// Ids with a failing run, in the matrix's order (area, then id).
    failing_ids: Vec<String>,
}

impl Expected {
    fn from_json(json: &Value) -> Expected {
        let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut cells = BTreeMap::new();
        let mut ids = BTreeSet::new();
        let mut failing = BTreeSet::new();
        for run in json["runs"].as_array().expect("runs") {
            let id = run["id"].as_str().unwrap();
            let target = run["target"].as_str().unwrap();
            let status = run["status"].as_str().unwrap();
            let differences = run["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c.get("expected_difference").is_some_and(|d| !d.is_null()))
                .count() as u64;
            let c = counts.entry(target.into()).or_insert_with(|| {
                ["pass", "fail", "skip", "expected_differences"]
                    .into_iter()
                    .map(|k| (k.to_owned(), 0))
                    .collect()
            });
            *c.get_mut(status).expect("a known status") += 1;
            *c.get_mut("expected_differences").unwrap() += differences;
            let cell = match status {
                "pass" if differences > 0 => "expected-difference",
                s => s,
            };
            cells.insert((id.to_owned(), target.to_owned()), cell.to_owned());
            ids.insert(id.to_owned());
            if status == "fail" {
                failing.insert(id.to_owned());
            }
        }
        let area = |id: &str| id.split('.').next().unwrap_or(id).to_owned();
        let mut failing_ids: Vec<String> = failing.into_iter().collect();
        failing_ids.sort_by_key(|id| (area(id), id.clone()));
        Expected {
            counts,
            cells,
            ids,
            failing_ids,
        }
    }
}

fn chromium_path() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.is_file(),
        "Chromium not found at {}: this test needs it (`apt-get install chromium`, or set \
         CHROMIUM=/path/to/chromium)",
        path.display()
    );
    path
}

fn file_url(path: &Path) -> String {
    let path = path.canonicalize().unwrap();
    let path = path.to_str().unwrap();
    assert!(
        path.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+@".contains(&b)),
        "a path that needs escaping in a URL: {path}"
    );
    format!("file://{path}")
}
