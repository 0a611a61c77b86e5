//! `-p`: the prompt on the command line, nothing on stdin, stdout and stderr read whole.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Result;

use super::driven::{wind_down, Driven};
use crate::mcp::McpSetup;
use crate::process::{collect, read_capped, wait_or_kill};

/// `-p`: nothing on stdin, stdout and stderr read whole.
pub async fn drive(
    command: std::process::Command,
    timeout: Duration,
    mcp: &McpSetup,
) -> Result<Driven> {
    let (mut child, pid) = crate::process::spawn(command, Stdio::null())?;
    let stdout_task = read_capped(child.stdout.take().expect("piped"));
    let stderr_task = read_capped(child.stderr.take().expect("piped"));
    let exited = wait_or_kill(pid, timeout).await;
    // Reaped by `wait_or_kill`, so tokio's handle must not wait for it again.
    drop(child);
    let mcp_survivors = wind_down(&exited, pid, mcp).await;
    let (stdout, stderr) = (collect(stdout_task).await, collect(stderr_task).await);
    Ok(Driven {
        mcp_survivors,
        ..Driven::piped(exited, (stdout, stderr), Vec::new())
    })
}
