//! The Messages API client: request bodies, SSE decoding, message assembly, retries.

pub mod assemble;
pub mod client;
pub mod error;
pub mod sse;

pub use assemble::{Assembler, Message};
pub use client::{Client, Retry};
pub use error::ApiError;
