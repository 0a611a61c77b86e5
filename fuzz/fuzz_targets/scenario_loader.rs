//! `probes::scenario::Scenario::parse` on any UTF-8 text: a scenario or an error naming the
//! file, never a panic; and parsing is deterministic (the same text gives the same answer).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("scenarios/fuzz/input.toml");
    match probes::scenario::Scenario::parse(path, source) {
        Ok(_) => {}
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("input.toml"), "{text}");
        }
    }
});
