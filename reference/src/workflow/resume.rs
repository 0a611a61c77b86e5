//! Which agent() calls a resumed run answers from the journal (seed 004: "恢复按调用顺序复用最长
//! 未变化的 agent() 前缀，首个 prompt/options 变化或新增调用以及它之后的调用都重新执行，不是每个
//! 相同调用各自独立命中").
//!
//! Each call's key hashes the key before it with its own prompt and options, as 2.1.235's
//! journal keys do (`v2:` + SHA-256 of previous key, NUL, prompt, NUL, canonical options), so a
//! key names a whole prefix; and the first call that misses ends all reuse for the run, even
//! when a later call's key happens to be in the journal.

use std::collections::HashMap;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The journal key format 2.1.235 writes.
const VERSION: &str = "v2";

/// The key of a call whose predecessor's key is `previous` ("" for the first call).
/// `options` is the canonical JSON of the options that change what the agent does.
pub fn key(previous: &str, prompt: &str, options: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(previous.as_bytes());
    hash.update([0]);
    hash.update(prompt.as_bytes());
    hash.update([0]);
    hash.update(options.as_bytes());
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("{VERSION}:{digest}")
}

/// The walk through one run's calls, in call order.
#[derive(Debug, Default)]
pub struct Replay {
    previous: String,
    diverged: bool,
    /// Results of the run being resumed, by key.
    cached: HashMap<String, Cached>,
}

/// A result the journal holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Cached {
    pub agent_id: String,
    pub result: Value,
}

/// What the next call gets: its key, and the journal's answer while the prefix still holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub key: String,
    pub cached: Option<Cached>,
}

impl Replay {
    /// A run that resumes `cached` (empty for a fresh run).
    pub fn new(cached: HashMap<String, Cached>) -> Self {
        Replay {
            cached,
            ..Replay::default()
        }
    }

    pub fn next(&mut self, prompt: &str, options: &str) -> Step {
        let key = key(&self.previous, prompt, options);
        self.previous = key.clone();
        let cached = if self.diverged {
            None
        } else {
            self.cached.get(&key).cloned()
        };
        if cached.is_none() {
            self.diverged = true;
        }
        Step { key, cached }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The journal of a run that made `calls`, each answered with its index.
    fn journal_of(calls: &[(String, String)]) -> HashMap<String, Cached> {
        let mut replay = Replay::default();
        calls
            .iter()
            .enumerate()
            .map(|(i, (prompt, options))| {
                let step = replay.next(prompt, options);
                (
                    step.key,
                    Cached {
                        agent_id: format!("a{i}"),
                        result: json!(i),
                    },
                )
            })
            .collect()
    }

    fn hits(old: &[(String, String)], new: &[(String, String)]) -> Vec<bool> {
        let mut replay = Replay::new(journal_of(old));
        new.iter()
            .map(|(p, o)| replay.next(p, o).cached.is_some())
            .collect()
    }

    fn call(p: &str) -> (String, String) {
        (p.to_owned(), "{}".to_owned())
    }

    #[test]
    fn keys_are_2_1_235s() {
        // Recorded: the journal of exp.wf-run2 (prompts FIRST/SECOND, no options that count).
        let first = key("", "FIRST_PROMPT say alpha", "{}");
        assert_eq!(
            first,
            "v2:ba86c239567597b9e1690b314e8da3153356a259ec683500bba5392c3a429f43"
        );
        assert_eq!(
            key(&first, "SECOND_PROMPT say beta", "{}"),
            "v2:035059aed4816ed9a8a02ffd1c1ec27e967c145c1cf64d99e4cc53b5f844c42a"
        );
        assert_eq!(
            key(&first, "SECOND_PROMPT_V2 say gamma", "{}"),
            "v2:504e57e24efd6a1e60f57b58a0b4cdb190a4e47398b34efd9f5f91c2c2710f59"
        );
    }

    #[test]
    fn a_changed_second_call_reruns_it_and_everything_after() {
        let old = [call("a"), call("b"), call("c")];
        assert_eq!(
            hits(&old, &[call("a"), call("B"), call("c")]),
            [true, false, false]
        );
    }

    #[test]
    fn an_identical_later_call_does_not_hit_on_its_own() {
        // "c" after a changed call has a different key; and even a call whose key is in the
        // journal misses once the run diverged.
        let old = [call("a"), call("x"), call("a")];
        assert_eq!(hits(&old, &[call("x"), call("a")]), [false, false]);
    }

    #[test]
    fn changed_options_count_as_a_change() {
        let old = [
            call("a"),
            ("b".to_owned(), "{\"model\":\"opus\"}".to_owned()),
        ];
        assert_eq!(hits(&old, &[call("a"), call("b")]), [true, false]);
    }

    #[test]
    fn the_same_script_hits_every_call_and_a_fresh_run_none() {
        let old = [call("a"), call("b")];
        assert_eq!(hits(&old, &old), [true, true]);
        assert_eq!(hits(&[], &old), [false, false]);
    }

    fn calls() -> impl Strategy<Value = Vec<(String, String)>> {
        proptest::collection::vec(
            (
                prop::sample::select(vec!["p", "q", "r"]),
                prop::sample::select(vec!["{}", "{\"model\":\"m\"}"]),
            )
                .prop_map(|(p, o)| (p.to_owned(), o.to_owned())),
            0..8,
        )
    }

    proptest! {
        /// Hits are exactly the longest common prefix of the two call sequences.
        #[test]
        fn hits_are_the_longest_unchanged_prefix(old in calls(), new in calls()) {
            let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
            let got = hits(&old, &new);
            let expected: Vec<bool> = (0..new.len()).map(|i| i < prefix).collect();
            prop_assert_eq!(got, expected);
        }

        /// A hit returns what the resumed run's call at the same position returned.
        #[test]
        fn a_hit_replays_the_same_positions_result(old in calls(), new in calls()) {
            let mut replay = Replay::new(journal_of(&old));
            for (i, (p, o)) in new.iter().enumerate() {
                if let Some(cached) = replay.next(p, o).cached {
                    prop_assert_eq!(cached.result, json!(i));
                }
            }
        }
    }
}
