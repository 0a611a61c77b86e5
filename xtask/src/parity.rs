//! Drop-in parity as a result of its own: how many scenarios' traces on a real binary equal the
//! reference's, equal it except where a named difference says why, or still differ. `cargo xtask
//! parity` answers from the stored snapshots in a second; `cargo xtask probe` with the reference
//! and another target answers from the runs themselves, through the same summary.

use std::collections::BTreeMap;

use anyhow::Result;
use clap::Args;
use probes::parity::{self, Comparison, Outcome};
use probes::scenario::{self, TraceDifference};

#[derive(Args)]
pub struct ParityArgs {
    /// The real binary whose snapshots are compared with the reference's.
    #[arg(long, default_value = "claude@2.1.235")]
    target: String,
    /// Only scenarios whose id contains this text (repeatable: any of them).
    #[arg(long)]
    filter: Vec<String>,
    /// List every scenario with its outcome, not only those that still differ.
    #[arg(long)]
    all: bool,
}

pub fn run(args: ParityArgs) -> Result<bool> {
    let root = crate::workspace_root();
    let dir = root.join("scenarios");
    let mut scenarios = probes::load_dir(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let whole = args.filter.is_empty();
    if !whole {
        scenarios.retain(|s| args.filter.iter().any(|f| s.id.contains(f.as_str())));
    }
    let suite = scenario::load_suite(&dir).map_err(anyhow::Error::msg)?;
    let target_dir = args.target.replace(['/', ':'], "_");
    let compared = parity::compare_snapshots(
        &scenarios,
        &suite,
        &root.join("snapshots"),
        &args.target,
        &target_dir,
    );
    let rows: Vec<(&str, Option<&Comparison>)> = compared
        .iter()
        .map(|(id, c)| (id.as_str(), c.as_ref()))
        .collect();
    Ok(print(&args.target, &rows, &suite, whole, args.all))
}

/// Prints the counts, the named differences in use, and every line no named difference accepts;
/// returns whether parity holds (nothing unexplained, no named difference gone).
pub fn print(
    target: &str,
    rows: &[(&str, Option<&Comparison>)],
    suite: &[TraceDifference],
    whole_suite: bool,
    all: bool,
) -> bool {
    let compared: Vec<&Comparison> = rows.iter().filter_map(|(_, c)| *c).collect();
    let count = |o: Outcome| compared.iter().filter(|c| c.outcome == o).count();
    println!(
        "\ndrop-in parity of {target} against the reference ({} scenarios on both, {} compared):",
        rows.len(),
        compared.len()
    );
    println!("  {:<44} {:>4}", "trace equal", count(Outcome::Equal));
    println!(
        "  {:<44} {:>4}",
        "equal except named differences",
        count(Outcome::EqualExceptNamed)
    );
    println!(
        "  {:<44} {:>4}",
        "differs only where named as not built yet",
        count(Outcome::DiffersPending)
    );
    println!(
        "  {:<44} {:>4}",
        "differs (unexplained lines)",
        count(Outcome::Differs)
    );
    let missing = rows.len() - compared.len();
    if missing > 0 {
        println!("  {:<44} {:>4}", "no trace on one side (skipped)", missing);
    }

    // Each named difference once, with how many scenarios it accepted lines in.
    let mut uses: BTreeMap<(bool, bool, &str, &str), usize> = BTreeMap::new();
    for c in &compared {
        for n in &c.named {
            *uses
                .entry((n.pending, n.own, n.lines.as_str(), n.reason.as_str()))
                .or_default() += 1;
        }
    }
    if !uses.is_empty() {
        println!("named differences in use:");
        for ((pending, own, lines, reason), n) in &uses {
            println!(
                "  {} {} /{lines}/ in {n} scenario{}: {reason}",
                if *pending {
                    "[not built]"
                } else {
                    "[accepted] "
                },
                if *own { "scenario" } else { "suite   " },
                if *n == 1 { "" } else { "s" }
            );
        }
    }
    let mut ok = true;
    for (id, c) in rows {
        let Some(c) = c else { continue };
        if all || c.failed() {
            println!("  {id}: {}", c.summary());
        }
        for line in c.unexplained.iter().take(20) {
            println!("      {line}");
        }
        if c.unexplained.len() > 20 {
            println!("      … {} more", c.unexplained.len() - 20);
        }
        for gone in &c.gone {
            println!("      named difference no longer observed: {gone}");
        }
        ok &= !c.failed();
    }
    if whole_suite {
        for d in parity::unused_suite_differences(suite, target, &compared) {
            println!(
                "  suite difference /{}/ matched nothing: remove it from scenarios/{} ({})",
                d.lines,
                scenario::SUITE_FILE,
                d.reason
            );
            ok = false;
        }
    }
    ok
}
