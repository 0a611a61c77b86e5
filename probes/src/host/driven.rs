//! What driving a target through one channel produced, and what follows its exit on every
//! channel: fake servers it left behind are noted and ended, and its process group goes.

use std::time::Duration;

use crate::mcp::McpSetup;
use crate::process::interrupt::Group;
use crate::process::{kill_group, Exited, Kept};

/// How long a fake MCP server may take to finish exiting after the target did.
const SERVER_EXIT_GRACE: Duration = Duration::from_millis(500);

/// What driving a target through one channel produced.
pub struct Driven {
    pub exited: Exited,
    pub stdout: String,
    pub stderr: String,
    pub stdin: Vec<String>,
    pub screens: Vec<String>,
    pub mcp_survivors: Vec<(String, u32)>,
    /// The streams that went past `process::OUTPUT_CAP_BYTES`, each with what was dropped.
    pub flooded: Vec<String>,
}

impl Driven {
    /// A run whose stdout and stderr were pipes: their texts, and which of them flooded.
    pub fn piped(exited: Exited, (stdout, stderr): (Kept, Kept), stdin: Vec<String>) -> Driven {
        Driven {
            exited,
            stdout: stdout.text(),
            stderr: stderr.text(),
            stdin,
            screens: Vec::new(),
            mcp_survivors: Vec::new(),
            flooded: [stdout.overflow("stdout"), stderr.overflow("stderr")]
                .into_iter()
                .flatten()
                .collect(),
        }
    }
}

/// Once the target has exited, before its pipes are drained: a fake server still running was
/// left behind (noted, then ended by pid), and whatever else the target left in its group goes
/// with it, which also closes pipes a grandchild held open.
pub async fn wind_down(exited: &Exited, pid: Option<i32>, mcp: &McpSetup) -> Vec<(String, u32)> {
    // Until its group is killed below, an interrupt must still find it.
    let _group = pid.map(Group::register);
    let survivors = if exited.timed_out {
        Vec::new()
    } else {
        mcp.survivors(SERVER_EXIT_GRACE).await
    };
    mcp.kill(&survivors);
    kill_group(pid);
    survivors
}
