//! The scripted Anthropic Messages API: plays a scenario's assistant turns in order over SSE or
//! JSON, and records every request.

mod capture;
mod record;
mod script;
mod server;
mod sse;

pub use record::{RecordedRequest, RequestKind};
pub use script::{
    AgentScript, Block, FileWrite, HttpError, SearchHit, SearchOutcome, Split, Turn,
    WebSearchResult,
};
pub use server::{MessagesStub, StubConfig};
pub use sse::{encode_turn, split_chunks, SseEvent};
