//! The LSP client behind the LSP tool: language servers from plugins, started lazily on the first
//! call for a matching file, spoken to over stdio with `Content-Length` framing, shut down with
//! the session (shutdown, SIGTERM, exit, as 2.1.235 does). Results are formatted in `format.rs`.

mod client;
pub mod format;

pub use client::{
    file_uri as format_uri, read_frame, LspManager, ServerConfig, ServerHandle, MAX_FRAME_BYTES,
};
