//! The reference agent's system prompt, in our own words (never the real binary's).

use serde_json::{json, Value};

const IDENTITY: &str =
    "You are the reference agent of a conformance harness for coding-agent command-line tools.";

const GUIDANCE: &str = "\
Work in the user's project through the tools you are given. Read a file before you change it; \
change files with Edit for small changes and Write for whole files; run commands with Bash. \
Every tool call gets a result; read it before deciding the next step. When the task is done, \
answer with a short plain-text summary.";

/// The `system` blocks of every main-loop request; the last carries the cache breakpoint.
pub fn system_blocks(cwd: &str, brief: bool) -> Value {
    let mut guidance = format!("{GUIDANCE}\nWorking directory: {cwd}");
    if brief {
        guidance.push_str("\n\n");
        guidance.push_str(crate::brief::PROMPT_SECTION);
    }
    json!([
        {"type": "text", "text": IDENTITY},
        {"type": "text", "text": guidance, "cache_control": {"type": "ephemeral"}},
    ])
}

/// Server instructions (already cut to the documented length) as a system reminder in the first
/// user message, where the real binary puts them; the wording is ours.
pub fn mcp_instructions(servers: &[(String, String)]) -> Option<String> {
    if servers.is_empty() {
        return None;
    }
    let mut text = String::from(
        "<system-reminder>\n# Instructions from MCP servers\n\nConnected MCP servers sent these notes on using their tools:\n",
    );
    for (name, instructions) in servers {
        text.push_str(&format!("\n## {name}\n{instructions}\n"));
    }
    text.push_str("</system-reminder>");
    Some(text)
}
