//! `cargo xtask bisect ID[/CHECK] --good V --bad W`: the first published version between V and W
//! where a scenario's outcome (or one check's) differs from V's, installing only the versions
//! the search probes. Each probed version runs twice; two runs that disagree make that version
//! flaky, which is reported instead of being bisected into a wrong answer.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use probes::report::changelog::{self, Run};
use probes::report::Report;
use probes::{Scenario, Target};
use semver::Version;

#[derive(Args)]
pub struct BisectArgs {
    /// The scenario id, optionally followed by `/` and the name of one of its checks (as reports
    /// print it, e.g. `mcp.refresh-third-request/tools request 3`).
    what: String,
    /// A version where the outcome is the old one.
    #[arg(long)]
    good: String,
    /// A later version where it changed.
    #[arg(long)]
    bad: String,
}

/// One version's outcome: each check's state (the trace checks left out).
type Outcome = Vec<(String, String)>;

struct Probed {
    version: Version,
    outcome: Outcome,
    report: Report,
    trace: String,
}

pub fn run(args: BisectArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let scenarios =
        probes::load_dir(&root.join("scenarios")).map_err(|e| anyhow::anyhow!("{e}"))?;
    let (scenario, check) = pick(&scenarios, &args.what)?;
    let good = Version::parse(&args.good).context("--good is not a version")?;
    let bad = Version::parse(&args.bad).context("--bad is not a version")?;
    if good >= bad {
        bail!("--good {good} must be older than --bad {bad}");
    }
    let published = probes::registry::published()?;
    let versions: Vec<Version> = published
        .into_iter()
        .filter(|v| *v >= good && *v <= bad)
        .collect();
    for end in [&good, &bad] {
        if !versions.contains(end) {
            bail!(
                "{end} is not a published version of {}",
                probes::registry::PACKAGE
            );
        }
    }
    let what = match &check {
        Some(c) => format!("`{c}` of {}", scenario.id),
        None => format!("the checks of {}", scenario.id),
    };
    eprintln!(
        "bisecting {what} over {} published versions ({good} .. {bad})",
        versions.len()
    );
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let (mut installed, mut probed_count) = (0, 0);
    let mut probe = |v: &Version| -> Result<Result<Probed, String>> {
        probed_count += 1;
        let cache = probes::target::default_cache();
        if !cache.join(format!("claude@{v}")).is_dir() {
            installed += 1;
        }
        let target = Target::resolve_claude(&format!("claude@{v}"), &cache)?;
        let (a, b) = runtime.block_on(async {
            tokio::join!(
                probes::probe(scenario, &target, None),
                probes::probe(scenario, &target, None)
            )
        });
        let (x, y) = (
            outcome(&a.report, check.as_deref()),
            outcome(&b.report, check.as_deref()),
        );
        eprintln!("  {v}: {}", describe(&x));
        if x != y {
            return Ok(Err(format!(
                "{v} is flaky: two runs disagree ({} / {}); not bisecting further",
                describe(&x),
                describe(&y)
            )));
        }
        Ok(Ok(Probed {
            version: v.clone(),
            outcome: x,
            report: a.report,
            trace: a.trace,
        }))
    };

    let mut low = match probe(&good)? {
        Ok(p) => p,
        Err(flaky) => return report_flaky(&flaky),
    };
    if check.is_some() && low.outcome.is_empty() {
        bail!(
            "{} has no check named `{}`",
            scenario.id,
            check.unwrap_or_default()
        );
    }
    let mut high = match probe(&bad)? {
        Ok(p) => p,
        Err(flaky) => return report_flaky(&flaky),
    };
    if high.outcome == low.outcome {
        println!(
            "{what}: the same on {good} and {bad} ({}); nothing to bisect",
            describe(&low.outcome)
        );
        return Ok(true);
    }
    let index = |v: &Version| {
        versions
            .iter()
            .position(|x| x == v)
            .expect("probed versions are in the range")
    };
    while index(&high.version) - index(&low.version) > 1 {
        let mid = versions[(index(&low.version) + index(&high.version)) / 2].clone();
        let probed = match probe(&mid)? {
            Ok(p) => p,
            Err(flaky) => return report_flaky(&flaky),
        };
        if probed.outcome == low.outcome {
            low = probed;
        } else {
            high = probed;
        }
    }
    println!(
        "\nfirst version where {what} changed: {} (after {}); {} versions probed, {installed} installed, {:.0}s",
        high.version,
        low.version,
        probed_count,
        started.elapsed().as_secs_f64()
    );
    println!("  {}: {}", low.version, describe(&low.outcome));
    println!("  {}: {}", high.version, describe(&high.outcome));
    let log = changelog::between(
        &format!("claude@{}", low.version),
        &format!("claude@{}", high.version),
        &[Run {
            report: &low.report,
            trace: &low.trace,
        }],
        &[Run {
            report: &high.report,
            trace: &high.trace,
        }],
    );
    crate::changes::print(&log);
    Ok(true)
}

fn report_flaky(message: &str) -> Result<bool> {
    println!("{message}");
    Ok(false)
}

/// `ID` or `ID/CHECK`: scenario ids contain `/` themselves (`mcp.reconnect/stdio-exit`), so the
/// longest prefix that is an id wins.
fn pick<'a>(scenarios: &'a [Scenario], what: &str) -> Result<(&'a Scenario, Option<String>)> {
    if let Some(s) = scenarios.iter().find(|s| s.id == what) {
        return Ok((s, None));
    }
    let mut cuts: Vec<usize> = what.match_indices('/').map(|(i, _)| i).collect();
    cuts.reverse();
    for cut in cuts {
        if let Some(s) = scenarios.iter().find(|s| s.id == what[..cut]) {
            return Ok((s, Some(what[cut + 1..].to_owned())));
        }
    }
    bail!("no scenario `{what}` (cargo xtask probe --list prints the ids)")
}

fn outcome(report: &Report, check: Option<&str>) -> Outcome {
    report
        .checks
        .iter()
        .filter(|c| check.is_none_or(|name| c.name == name))
        .filter(|c| !c.name.starts_with("trace matches"))
        .map(|c| {
            let state = match (&c.expected_difference, c.ok) {
                (Some(_), _) => "expected difference",
                (None, true) => "passed",
                (None, false) => "failed",
            };
            (c.name.clone(), state.to_owned())
        })
        .collect()
}

fn describe(outcome: &Outcome) -> String {
    let failed: Vec<&str> = outcome
        .iter()
        .filter(|(_, s)| s != "passed")
        .map(|(n, s)| {
            if s == "failed" {
                n.as_str()
            } else {
                "an expected difference"
            }
        })
        .collect();
    match (outcome.len(), failed.len()) {
        (0, _) => "no such check".into(),
        (1, 0) => "passed".into(),
        (1, _) => outcome[0].1.clone(),
        (n, 0) => format!("all {n} checks passed"),
        (n, _) => format!(
            "{} of {n} checks not passed: {}",
            failed.len(),
            failed.join("; ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probes::CheckOutcome;

    fn scenario(id: &str) -> Scenario {
        let src = format!(
            "id = \"{id}\"\ntitle = \"t\"\ntargets = [\"claude\"]\nprompt = \"p\"\n\n[[check]]\nkind = \"exit\"\nequals = 0\n"
        );
        let file = format!("{}.toml", id.replace('/', "__"));
        Scenario::parse(std::path::Path::new(&file), &src).unwrap()
    }

    #[test]
    fn the_longest_id_wins_and_the_rest_is_the_check() {
        let all = [
            scenario("mcp.reconnect"),
            scenario("mcp.reconnect/stdio-exit"),
        ];
        let (s, check) = pick(&all, "mcp.reconnect/stdio-exit").unwrap();
        assert_eq!((s.id.as_str(), check), ("mcp.reconnect/stdio-exit", None));
        let (s, check) = pick(&all, "mcp.reconnect/stdio-exit/tools request 3").unwrap();
        assert_eq!(s.id, "mcp.reconnect/stdio-exit");
        assert_eq!(check.as_deref(), Some("tools request 3"));
        let (s, check) = pick(&all, "mcp.reconnect/a/b").unwrap();
        assert_eq!(
            (s.id.as_str(), check.as_deref()),
            ("mcp.reconnect", Some("a/b"))
        );
        assert!(pick(&all, "mcp.nope")
            .unwrap_err()
            .to_string()
            .contains("no scenario `mcp.nope`"));
    }

    #[test]
    fn an_outcome_leaves_the_trace_checks_out_and_can_narrow_to_one_check() {
        let mut diff = CheckOutcome::new("b", true, "");
        diff.expected_difference = Some("r".into());
        let report = Report::from_checks(
            "s",
            "claude@1.0.0",
            vec![
                CheckOutcome::new("a", false, "x"),
                diff,
                CheckOutcome::new("trace matches snapshot", false, "d"),
            ],
            1,
        );
        assert_eq!(
            outcome(&report, None),
            [
                ("a".to_owned(), "failed".to_owned()),
                ("b".to_owned(), "expected difference".to_owned())
            ]
        );
        assert_eq!(outcome(&report, Some("b")).len(), 1);
        assert!(
            outcome(&report, Some("zzz")).is_empty(),
            "an unknown check is refused by the caller"
        );
        assert_eq!(
            describe(&outcome(&report, None)),
            "2 of 2 checks not passed: a; an expected difference"
        );
    }
}
