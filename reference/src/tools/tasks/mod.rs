//! The task list tools (TaskCreate, TaskGet, TaskList, TaskUpdate) over one registry on disk
//! (`store`), shared with any other session given the same list id. 2.1.235 offers them instead of
//! TodoWrite.

mod coerce;
mod create;
mod get;
mod list;
mod lock;
mod store;
mod update;

pub use create::TaskCreate;
pub use get::TaskGet;
pub use list::TaskList;
pub use update::TaskUpdate;

use super::{ToolContext, ToolError};

fn registry(ctx: &ToolContext) -> store::Registry {
    store::Registry::for_session(&ctx.home, &ctx.session_id)
}

/// The session's tasks as the task-tools reminder lists them (`#id. [status] subject`); an
/// unreadable registry lists none.
pub fn reminder_lines(ctx: &ToolContext) -> Vec<String> {
    registry(ctx)
        .list()
        .unwrap_or_default()
        .iter()
        .map(|t| {
            format!(
                "#{}. [{}] {}",
                t.id(),
                t.status(),
                t.text("subject").unwrap_or_default()
            )
        })
        .collect()
}

/// A registry failure as the tool error the model sees: plain text, as 2.1.235 shows a thrown
/// error.
fn failed(e: store::StoreError) -> ToolError {
    ToolError::plain(e.to_string())
}
