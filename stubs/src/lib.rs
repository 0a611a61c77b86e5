//! Fake backends that the harness starts on 127.0.0.1 for one scenario run.
//!
//! Each stub records everything that crossed its socket so checks can be written against the wire,
//! never against a target's internals. Stubs never import the reference agent.

pub mod claude_ai;
pub mod cues;
pub mod jsonlog;
mod loopback;
pub mod lsp;
pub mod mcp;
pub mod messages;
pub mod redact;
pub mod site;
pub mod tls;
