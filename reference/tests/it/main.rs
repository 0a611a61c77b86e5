//! Integration tests of `claude-reference` as a program: its command line and its SSE decoding.

mod cli;
mod python_sdk;
mod rg_mode;
mod sse_roundtrip;
mod upload;
