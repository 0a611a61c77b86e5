//! The embedded search engine: ripgrep's behaviour rebuilt on the crates ripgrep 14.1.1 is made
//! of (`grep-regex`, `grep-searcher`, `grep-printer`, `ignore`). Two front ends share it: the
//! binary started as `rg` ([`rg`]), and the Grep tool, which searches in process.

mod capped;
mod engine;
mod output;
pub mod rg;

pub use capped::Capped;
pub use engine::{search, Mode, Outcome, SearchConfig};
