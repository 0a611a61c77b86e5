//! The reference agent's system prompt, in our own words (never the real binary's).

use serde_json::{json, Value};

use crate::api::wire::{self, Role, IDENTITY};
use crate::config::SystemPrompt;

const GUIDANCE: &str = "\
Work in the user's project through the tools you are given. Read a file before you change it; \
change files with Edit for small changes and Write for whole files; run commands with Bash. \
Every tool call gets a result; read it before deciding the next step. When the task is done, \
answer with a short plain-text summary.";

/// The `system` blocks of every main-loop request (the client puts the attribution line first).
/// On Anthropic's own host 2.1.235 splits its prompt in two: the part every session shares, cached
/// for all (`scope: global`), and this session's part; the identity line is then left uncached.
///
/// A host's own prompt (recorded on 2.1.235, sdk.invocation) replaces everything after the
/// identity line, an empty one leaving the identity line alone; an appended prompt ends the
/// last block after a blank line.
pub fn system_blocks(cwd: &str, brief: bool, host: &SystemPrompt) -> Value {
    let cache = wire::cache_control(Role::Main);
    if let Some(replace) = &host.replace {
        let text = match &host.append {
            Some(append) if replace.is_empty() => append.clone(),
            Some(append) => format!("{replace}\n\n{append}"),
            None => replace.clone(),
        };
        let mut blocks = vec![json!({"type": "text", "text": IDENTITY, "cache_control": cache})];
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text, "cache_control": cache}));
        }
        return Value::Array(blocks);
    }
    let mut session = format!("Working directory: {cwd}");
    if brief {
        session.push_str("\n\n");
        session.push_str(crate::brief::PROMPT_SECTION);
    }
    if let Some(append) = &host.append {
        session.push_str("\n\n");
        session.push_str(append);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(blocks: &Value) -> Vec<String> {
        blocks
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["text"].as_str().unwrap().to_owned())
            .collect()
    }

    /// As 2.1.235 builds `system` (sdk.invocation): the identity line, then the host's prompt.
    #[test]
    fn a_hosts_prompt_replaces_ours_and_an_appended_one_ends_the_last_block() {
        let host = |replace: Option<&str>, append: Option<&str>| SystemPrompt {
            replace: replace.map(Into::into),
            append: append.map(Into::into),
        };
        let ours = texts(&system_blocks("/w", false, &host(None, None)));
        let replaced = texts(&system_blocks("/w", false, &host(Some("Be brief."), None)));
        assert_eq!(replaced, [IDENTITY, "Be brief."]);
        let both = texts(&system_blocks(
            "/w",
            false,
            &host(Some("Be brief."), Some("Also X.")),
        ));
        assert_eq!(both, [IDENTITY, "Be brief.\n\nAlso X."]);
        assert_eq!(
            texts(&system_blocks("/w", false, &host(Some(""), None))),
            [IDENTITY]
        );
        let appended = texts(&system_blocks("/w", false, &host(None, Some("Also X."))));
        assert_eq!(appended.len(), ours.len());
        assert_eq!(
            appended.last().unwrap(),
            &format!("{}\n\nAlso X.", ours.last().unwrap())
        );
    }
}
