//! A fake language server for the LSP tool: stdio with `Content-Length` framing, answers scripted
//! per method, every message logged (the same JSON-lines log as the fake MCP servers). Run as the
//! `fake-lsp` binary, which a target starts from a plugin's language-server config.

mod framing;
mod script;
pub mod server;

pub use framing::{read_message, write_message, MAX_CONTENT_LENGTH};
pub use script::LspScript;
