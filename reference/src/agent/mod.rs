//! The agent loop and what it prints.

mod child;
mod heartbeat;
mod local_command;
pub mod prompt;
mod remote;
mod session;
mod turn;

pub use session::run;
pub use turn::request_frame;
