//! Longest first. A suite's wall time on N slots is at least its longest scenario and at least
//! its total over N; started last, one scenario that waits out a documented 30 s timeout adds
//! its 30 s to the end of the run. Started first, it runs beside everything else.
//!
//! How long a scenario takes is known from its last run on the target (its probe record) when
//! there is one; on a fresh checkout, from the waits its file declares (a stub's `delay_ms`, a
//! `wait_ms`), which are what make a scenario long.

use std::collections::HashMap;
use std::path::Path;

use crate::scenario::Scenario;

/// How many runs go at once unless asked otherwise: twice the CPUs. A run mostly waits (on a
/// stub's scripted delay, a timeout, a target's startup), so one per CPU left the CPUs idle more
/// than half the time: the reference suite used 134 s of CPU in 162 s on 2 CPUs with 2 at once,
/// and finished in 96 s with 4; 2.1.235's in 210 s with 4, using 1.8 of the 2 CPUs.
pub fn default_jobs() -> usize {
    2 * std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The indices of `scenarios` in the order to start them: the longest expected first, ties in
/// suite order.
pub fn longest_first(scenarios: &[Scenario], records: Option<&Path>, target: &str) -> Vec<usize> {
    let last = records
        .map(|dir| last_durations_ms(dir, target))
        .unwrap_or_default();
    let expected: Vec<u64> = scenarios
        .iter()
        .map(|s| {
            let recorded = last.get(&s.id.replace('/', "__")).copied().unwrap_or(0);
            recorded.max(declared_waits_ms(&s.source))
        })
        .collect();
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(expected[i]));
    order
}

/// The duration of each scenario's last run on `target`, from its probe records: one record per
/// run, `ID.json`, or `ID[CHANNEL].json` per channel (which run one after another, so they add
/// up). The split runs (`ID@SPLIT.json`) run beside the whole one and are left out.
fn last_durations_ms(records: &Path, target: &str) -> HashMap<String, u64> {
    #[derive(serde::Deserialize)]
    struct Duration {
        duration_ms: u64,
    }
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(records.join(target.replace(['/', ':'], "_"))) else {
        return out;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".json").filter(|s| !s.contains('@')) else {
            continue;
        };
        let id = stem.split('[').next().unwrap_or(stem);
        let ms = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|text| serde_json::from_str::<Duration>(&text).ok())
            .map_or(0, |d| d.duration_ms);
        *out.entry(id.to_owned()).or_default() += ms;
    }
    out
}

/// The sum of every `…delay_ms` and `…wait_ms` value in a scenario file.
fn declared_waits_ms(source: &str) -> u64 {
    fn walk(value: &toml::Value, key: &str) -> u64 {
        match value {
            toml::Value::Integer(n) if key.ends_with("delay_ms") || key.ends_with("wait_ms") => {
                u64::try_from(*n).unwrap_or(0)
            }
            toml::Value::Table(t) => t.iter().map(|(k, v)| walk(v, k)).sum(),
            toml::Value::Array(a) => a.iter().map(|v| walk(v, key)).sum(),
            _ => 0,
        }
    }
    source
        .parse::<toml::Table>()
        .map(|t| walk(&toml::Value::Table(t), ""))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario whose one turn is served after `delay_ms`.
    fn scenario(id: &str, delay_ms: u64) -> Scenario {
        let source = format!(
            "id = \"{id}\"\ntitle = \"t\"\ntargets = [\"reference\"]\nprompt = \"p\"\n\
             [[turn]]\ndelay_ms = {delay_ms}\ntext = \"done\"\n\n\
             [[check]]\nkind = \"result\"\ncontains = \"done\"\n"
        );
        Scenario::parse(Path::new(&format!("{id}.toml")), &source).unwrap()
    }

    #[test]
    fn declared_waits_put_a_slow_scenario_first() {
        let suite = [
            scenario("a.quick", 0),
            scenario("b.slow", 31_000),
            scenario("c.quick", 10),
        ];
        assert_eq!(longest_first(&suite, None, "reference"), vec![1, 2, 0]);
    }

    #[test]
    fn the_last_recorded_run_counts_when_longer() {
        let records = tempfile::tempdir().unwrap();
        let dir = records.path().join("claude@2.1.235");
        std::fs::create_dir_all(&dir).unwrap();
        // Channels add up; a split ran beside the whole run and does not.
        for (file, ms) in [
            ("c.quick[pty].json", 5000),
            ("c.quick[control].json", 4000),
            ("a.quick.json", 8000),
            ("a.quick@every-byte.json", 9000),
        ] {
            std::fs::write(
                dir.join(file),
                format!(r#"{{"duration_ms": {ms}, "stdout": ""}}"#),
            )
            .unwrap();
        }
        let suite = [scenario("a.quick", 0), scenario("c.quick", 0)];
        let order = longest_first(&suite, Some(records.path()), "claude@2.1.235");
        assert_eq!(order, vec![1, 0]);
        // Another target's records say nothing about this one.
        assert_eq!(
            longest_first(&suite, Some(records.path()), "reference"),
            vec![0, 1]
        );
    }
}
