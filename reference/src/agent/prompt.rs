//! The reference agent's system prompt, in our own words (never the real binary's).

use serde_json::{json, Value};

use crate::api::wire::{self, Role, IDENTITY};

const GUIDANCE: &str = "\
Work in the user's project through the tools you are given. Read a file before you change it; \
change files with Edit for small changes and Write for whole files; run commands with Bash. \
Every tool call gets a result; read it before deciding the next step. When the task is done, \
answer with a short plain-text summary.";

/// The `system` blocks of every main-loop request (the client puts the attribution line first).
/// On Anthropic's own host 2.1.235 splits its prompt in two: the part every session shares, cached
/// for all (`scope: global`), and this session's part; the identity line is then left uncached.
pub fn system_blocks(cwd: &str, brief: bool) -> Value {
    let mut session = format!("Working directory: {cwd}");
    if brief {
        session.push_str("\n\n");
        session.push_str(crate::brief::PROMPT_SECTION);
    }
    let cache = wire::cache_control(Role::Main);
    if wire::get().first_party {
        let mut shared = cache.clone();
        shared["scope"] = json!("global");
        return json!([
            {"type": "text", "text": IDENTITY},
            {"type": "text", "text": GUIDANCE, "cache_control": shared},
            {"type": "text", "text": session, "cache_control": cache},
        ]);
    }
    json!([
        {"type": "text", "text": IDENTITY, "cache_control": cache},
        {"type": "text", "text": format!("{GUIDANCE}\n{session}"), "cache_control": cache},
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
