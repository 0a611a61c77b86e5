//! The session file: `~/.claude/projects/<cwd slug>/<session id>.jsonl`, one record a line, in
//! 2.1.235's format (recorded: `session.transcript`). The writer appends as the conversation
//! goes (`write.rs`); `--resume`, `--continue` and `--fork-session` read a file back into the
//! messages the next request carries (`resume.rs`); a reminder is kept as an `attachment` record
//! of 2.1.235's kind where there is one (`attachment.rs`), so a file either target wrote resumes
//! on the other.

pub mod attachment;
pub mod resume;
pub mod write;

pub use resume::{Interrupted, ResumeError, Resumed};
pub use write::Writer;
