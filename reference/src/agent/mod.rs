//! The agent loop and what it prints.

pub mod events;
mod heartbeat;
mod local_command;
pub mod prompt;
mod remote;
mod session;
mod turn;
pub mod usage;

pub use session::{run, Config, HostKind};
pub use turn::request_frame;
