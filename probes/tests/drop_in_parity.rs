//! Drop-in parity of the stored traces: on every scenario that runs on both targets, 2.1.235's
//! accepted snapshot equals the reference's except where a named difference (in the scenario or in
//! `scenarios/trace-differences.toml`) says why, and no named difference outlives what it named.
//! Both snapshots are asserted against real runs elsewhere (the reference suite, the CI's probe of
//! the real binary), so comparing them here compares the runs.

use std::path::Path;

use probes::parity;

#[test]
fn the_reference_traces_equal_the_real_binarys_except_where_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = root.join("scenarios");
    let scenarios = probes::load_dir(&dir).unwrap();
    let suite = probes::scenario::load_suite(&dir).unwrap();
    let target = "claude@2.1.235";
    let compared =
        parity::compare_snapshots(&scenarios, &suite, &root.join("snapshots"), target, target);
    assert!(
        compared.iter().filter(|(_, c)| c.is_some()).count() > 100,
        "most scenarios on both targets have both snapshots"
    );
    let mut problems = Vec::new();
    for (id, c) in &compared {
        let Some(c) = c else { continue };
        for line in &c.unexplained {
            problems.push(format!("{id}: no named difference accepts {line}"));
        }
        for gone in &c.gone {
            problems.push(format!("{id}: named difference no longer observed: {gone}"));
        }
    }
    let all: Vec<&parity::Comparison> = compared.iter().filter_map(|(_, c)| c.as_ref()).collect();
    for d in parity::unused_suite_differences(&suite, target, &all) {
        problems.push(format!(
            "suite difference /{}/ matches nothing: remove it ({})",
            d.lines, d.reason
        ));
    }
    assert!(
        problems.is_empty(),
        "{} parity problems (see `cargo xtask parity`):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
