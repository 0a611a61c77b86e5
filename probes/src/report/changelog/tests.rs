use super::*;

fn outcome(name: &str, ok: bool, detail: &str, expected: Option<&str>) -> CheckOutcome {
    let mut c = CheckOutcome::new(name, ok, detail);
    c.expected_difference = expected.map(str::to_owned);
    c
}

fn report(id: &str, target: &str, checks: Vec<CheckOutcome>) -> Report {
    Report::from_checks(id, target, checks, 1)
}

fn kinds(before: Vec<CheckOutcome>, after: Vec<CheckOutcome>) -> Vec<(String, ChangeKind)> {
    let a = report("s", "claude@1.0.0", before);
    let b = report("s", "claude@1.0.1", after);
    check_changes(&a, &b)
        .into_iter()
        .map(|c| (c.check, c.change))
        .collect()
}

#[test]
fn each_transition_of_a_check_is_named() {
    let pass = |n: &str| outcome(n, true, "", None);
    let fail = |n: &str, d: &str| outcome(n, false, d, None);
    let diff = |n: &str, r: &str| outcome(n, true, "", Some(r));
    let mut persisting = fail("d", "expected 1, seen 2");
    persisting.named_for_other_versions = Some("claude@1.0.0".into());
    let got = kinds(
        vec![
            pass("a"),
            fail("b", "x"),
            diff("c", "r"),
            diff("d", "r"),
            diff("e", "r"),
            pass("f"),
            fail("g", "x"),
            pass("h"),
            diff("i", "r"),
            pass("trace matches snapshot"),
        ],
        vec![
            fail("a", "expected 1, seen 2"),
            pass("b"),
            fail(
                "c",
                "expected difference no longer observed: now as the seed says",
            ),
            persisting,
            pass("e"),
            diff("f", "r2"),
            fail("g", "y"),
            pass("h"),
            diff("i", "other reason"),
            fail("trace matches snapshot", "differs"),
        ],
    );
    use ChangeKind::*;
    assert_eq!(
        got,
        [
            ("a".to_owned(), Regression),
            ("b".to_owned(), Fixed),
            ("c".to_owned(), DifferenceGone),
            ("d".to_owned(), DifferenceNotNamedForThisVersion),
            ("e".to_owned(), DifferenceGone),
            ("f".to_owned(), NewDifference),
            ("g".to_owned(), FailureChanged),
            ("i".to_owned(), DifferenceChanged),
        ],
        "h is unchanged and the trace check belongs to the trace part"
    );
}

#[test]
fn a_difference_that_turns_into_another_failure_is_a_regression() {
    let got = kinds(
        vec![outcome("c", true, "", Some("r"))],
        vec![outcome("c", false, "neither holds", None)],
    );
    assert_eq!(got, [("c".to_owned(), ChangeKind::Regression)]);
}

const BEFORE: &str = "\
exit: 0
stdout: system/init ×1, result/success ×1
  system/init keys: cwd, model, tools
  result/success keys: is_error, result{text}
  system/init model: \"m\"
  system/init claude_code_version: \"1.0.0\"
other requests: HEAD /api/hello
mcp probe (Stdio): received initialize ×1, tools/list ×1
request 1:
  POST /v1/messages?beta=true
  body max_tokens: 32000
  user: text(prompt)
tool schemas (request 1):
  Bash(command*: string)
  CronList()
  Old(x*: string)
  Read(file_path*: string)
";

const AFTER: &str = "\
exit: 0
stdout: system/init ×1, result/success ×1
  system/init keys: model, tools, skills
  result/success keys: is_error, result{text}
  system/init model: \"n\"
  system/init claude_code_version: \"1.0.1\"
other requests: HEAD /api/hello, GET /api/bootstrap
mcp probe (Stdio): received initialize ×1, tools/list ×2
request 1:
  POST /v1/messages?beta=true
  body max_tokens: 64000
  user: text(prompt)
tool schemas (request 1):
  Bash(command*: string, timeout: number)
  New(x*: string)
  Placeholder()
  Read(file_path*: string)
  Sync(method*: string)
";

#[test]
fn trace_changes_are_grouped_by_what_a_host_sees() {
    let got = trace_changes(BEFORE, AFTER);
    let has = |group: &str, what: &str| got.iter().any(|(g, w)| g == group && w == what);
    assert!(has("tool renamed", "Old → New"), "{got:#?}");
    assert!(has("tool added", "Sync(method*: string)"), "{got:#?}");
    assert!(
        has("tool removed", "CronList"),
        "two parameterless tools are no rename: {got:#?}"
    );
    assert!(has("tool added", "Placeholder()"), "{got:#?}");
    assert!(has(
        "schema changed",
        "Bash(command*: string) → Bash(command*: string, timeout: number)"
    ));
    assert!(has("event keys removed", "system/init: cwd"));
    assert!(has("event keys added", "system/init: skills"));
    assert!(has(
        "event value changed",
        "system/init model: \"m\" → \"n\""
    ));
    assert!(
        !got.iter().any(|(_, w)| w.contains("claude_code_version")),
        "the version itself is no change"
    );
    assert!(has("request removed", "- other requests: HEAD /api/hello"));
    assert!(has(
        "request added",
        "+ other requests: HEAD /api/hello, GET /api/bootstrap"
    ));
    assert!(has("request body changed", "- body max_tokens: 32000"));
    assert!(has("request body changed", "+ body max_tokens: 64000"));
    assert!(has(
        "MCP traffic changed",
        "+ mcp probe (Stdio): received initialize ×1, tools/list ×2"
    ));
    assert!(
        !got.iter().any(|(g, _)| g == "other"),
        "the conversation is unchanged: {got:#?}"
    );
    assert!(trace_changes(BEFORE, BEFORE).is_empty());
}

#[test]
fn one_change_seen_in_many_scenarios_is_listed_once_with_them() {
    let pass = || vec![outcome("exit", true, "", None)];
    let (a1, a2, b1, b2) = (
        report("one", "claude@1.0.0", pass()),
        report("two", "claude@1.0.0", pass()),
        report("one", "claude@1.0.1", pass()),
        report("two", "claude@1.0.1", pass()),
    );
    let skipped = Report::skipped("three", "claude@1.0.1", "not on this target");
    let before = [
        Run {
            report: &a1,
            trace: BEFORE,
        },
        Run {
            report: &a2,
            trace: BEFORE,
        },
    ];
    let after = [
        Run {
            report: &b1,
            trace: AFTER,
        },
        Run {
            report: &b2,
            trace: AFTER,
        },
        Run {
            report: &skipped,
            trace: "",
        },
    ];
    let log = between("claude@1.0.0", "claude@1.0.1", &before, &after);
    assert_eq!(log.compared, 2);
    assert!(log.checks.is_empty());
    let sync = log.trace.iter().find(|t| t.group == "tool added").unwrap();
    assert_eq!(sync.scenarios, ["one", "two"]);
}
