//! The words every layer speaks: what a tool call does to the world and how it failed, the
//! permission modes, a question put to the user and the answer, ids and times. The bottom layer:
//! nothing here imports another module of the crate, so tools, permissions, hosts and the agent
//! loops can all name these types without naming each other.

mod ids;
mod mode;
mod question;
mod tool;

pub use ids::{now_ms, timestamp, today, uuid};
pub use mode::Mode;
pub use question::{Ask, Prompt, Reply, INTERRUPTED_FOR_TOOL, REJECTED};
pub use tool::{Access, Failure, ToolError};
