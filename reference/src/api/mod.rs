//! The Messages API client: request bodies, SSE decoding, message assembly, retries.

pub mod assemble;
pub mod client;
pub mod error;
pub mod first_party;
pub mod rate_limit;
pub mod sse;
pub mod startup;
pub mod tally;
pub mod usage;
pub mod vertex;
pub mod wire;

pub use assemble::{Assembler, Message};
pub use client::{Client, Retry};
pub use error::ApiError;
pub use usage::Usage;
