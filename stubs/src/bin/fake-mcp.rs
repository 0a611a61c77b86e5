//! `fake-mcp --script SCRIPT.json --log LOG.jsonl [--cues SOCKET]`: the fake stdio MCP server a
//! target spawns from its MCP config. Its behaviour is the scenario's `[[mcp_server]]` script;
//! `--cues` is the run's board (`stubs::cues`), where it announces what it sees and waits for
//! what its script's `after` names.

use std::path::PathBuf;
use std::sync::Arc;

use stubs::cues::{Link, Waiter};
use stubs::mcp::{read_log, stdio, McpLog, McpScript};

fn main() {
    if let Err(e) = real_main() {
        eprintln!("fake-mcp: {e:#}");
        std::process::exit(2);
    }
}

fn real_main() -> anyhow::Result<()> {
    let mut script = None;
    let mut log = None;
    let mut cues = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = args.next().map(PathBuf::from),
            "--log" => log = args.next().map(PathBuf::from),
            "--cues" => cues = args.next().map(PathBuf::from),
            // The rest is the scenario's own, for the log only.
            "--" => break,
            other => anyhow::bail!(
                "unknown argument `{other}` (usage: fake-mcp --script PATH --log PATH [--cues PATH])"
            ),
        }
    }
    let script = script.ok_or_else(|| anyhow::anyhow!("--script PATH is required"))?;
    let log = log.ok_or_else(|| anyhow::anyhow!("--log PATH is required"))?;
    let text = std::fs::read_to_string(&script)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", script.display()))?;
    let script: McpScript =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", script.display()))?;
    // A log the harness cannot read fails its checks when it reads it; the restart state is
    // then moot.
    let earlier = read_log(&log).unwrap_or_default();
    let log = McpLog::create(&log)?;
    let waiter = match cues {
        Some(path) => Waiter::Remote(Arc::new(Link::new(path))),
        None => Waiter::Unboarded,
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(stdio::serve(script, log, &earlier, waiter))
}
