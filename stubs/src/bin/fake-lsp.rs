//! `fake-lsp --script SCRIPT.json --log LOG.jsonl`: the fake language server a target starts from a
//! plugin's language-server config.

use std::path::PathBuf;

use stubs::lsp::{server, LspScript};
use stubs::mcp::McpLog;

fn main() {
    if let Err(e) = real_main() {
        eprintln!("fake-lsp: {e:#}");
        std::process::exit(2);
    }
}

fn real_main() -> anyhow::Result<()> {
    let mut script = None;
    let mut log = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = args.next().map(PathBuf::from),
            "--log" => log = args.next().map(PathBuf::from),
            "--stdio" => {} // what clients commonly pass
            other => anyhow::bail!(
                "unknown argument `{other}` (usage: fake-lsp --script PATH --log PATH)"
            ),
        }
    }
    let script_path = script.ok_or_else(|| anyhow::anyhow!("--script PATH is required"))?;
    let log = McpLog::create(&log.ok_or_else(|| anyhow::anyhow!("--log PATH is required"))?)?;
    let script: LspScript = serde_json::from_str(&std::fs::read_to_string(&script_path)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", script_path.display()))?;
    server::serve(&script, &log)?;
    Ok(())
}
