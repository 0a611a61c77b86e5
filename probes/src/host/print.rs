//! `-p`: the prompt on the command line, nothing on stdin, stdout and stderr read whole.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Result;

use super::driven::{wind_down, Driven};
use crate::mcp::McpSetup;
use stubs::cues::{Cues, Event};

use crate::process::{collect, read_capped, read_capped_lines, wait_or_kill};

/// `-p`: nothing on stdin, stdout and stderr read whole.
pub async fn drive(
    command: std::process::Command,
    timeout: Duration,
    mcp: &McpSetup,
    cues: &Cues,
    kill: Option<super::Kill>,
) -> Result<Driven> {
    let (mut child, pid) = crate::process::spawn(command, Stdio::null())?;
    let killer = kill.map(|k| k.arm(pid, cues.clone()));
    let cues = cues.clone();
    let stdout_task = read_capped_lines(child.stdout.take().expect("piped"), move |line| {
        cues.publish(Event::Stdout { line })
    });
    let stderr_task = read_capped(child.stderr.take().expect("piped"));
    let exited = wait_or_kill(pid, timeout).await;
    if let Some(killer) = killer {
        // Ended by itself first: the wait is over either way.
        killer.abort();
    }
    // Reaped by `wait_or_kill`, so tokio's handle must not wait for it again.
    drop(child);
    let mcp_survivors = wind_down(&exited, pid, mcp).await;
    let (stdout, stderr) = (collect(stdout_task).await, collect(stderr_task).await);
    Ok(Driven {
        mcp_survivors,
        ..Driven::piped(exited, (stdout, stderr), Vec::new())
    })
}
