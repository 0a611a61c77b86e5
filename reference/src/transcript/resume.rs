//! Reading a session file back: which file (`--resume ID`, `--continue`), the conversation's
//! chain from its last record to its first, and the messages it stands for, rebuilt as the
//! requests carried them (reminders before a prompt, a round's reminders inside its last
//! result). The file is only read, never rewritten.

use std::path::Path;

use serde_json::{json, Value};

/// A conversation read back.
#[derive(Debug, Default)]
pub struct Resumed {
    /// The file it was read from: where a resume (not a fork) goes on writing.
    pub path: std::path::PathBuf,
    /// Its records from the first to the last, as the chain links them.
    pub chain: Vec<Value>,
    /// The messages the chain stands for.
    pub messages: Vec<Value>,
    /// Where the session's context block goes in the first message's content: after the
    /// reminders that opened it.
    pub context_at: usize,
    /// The last record of the chain, the next one's parent.
    pub tip: Option<String>,
    /// The conversation stopped before an answer (the process ended mid-turn): the messages end
    /// with 2.1.235's repair, which the file is owed (`Writer::owe_interruption`).
    pub interrupted: Option<Interrupted>,
    /// The attachment kinds the conversation has already carried (its listings are not made
    /// again unless it has none).
    pub announced: std::collections::BTreeSet<String>,
}

/// Where a conversation the process left stopped (recorded on 2.1.235).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// On the user's prompt itself: a synthetic answer follows it.
    Prompt,
    /// Later in the turn (a result, a reminder): the meta note to continue joins the last
    /// message, then the synthetic answer.
    Turn,
}

/// What 2.1.235 adds to a conversation that stopped before an answer, as a meta user message,
/// and the synthetic answer that closes it.
pub const CONTINUE: &str = "Continue from where you left off.";
pub const NO_RESPONSE: &str = "No response requested.";

/// Why a session cannot be resumed, in 2.1.235's words.
#[derive(Debug, PartialEq)]
pub enum ResumeError {
    NotFound(String),
    NotAnId(String),
}

impl std::fmt::Display for ResumeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResumeError::NotFound(id) => write!(f, "No conversation found with session ID: {id}"),
            ResumeError::NotAnId(value) => write!(
                f,
                "Error: --resume requires a valid session ID or session title when used with --print. \
                 Usage: claude -p --resume <session-id|title>. Provided value \"{value}\" is not a UUID \
                 and does not match any session title."
            ),
        }
    }
}

/// The conversation of session `id` in `cwd`'s project folder.
pub fn load(home: &Path, cwd: &Path, id: &str) -> Result<Resumed, ResumeError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ResumeError::NotAnId(id.to_owned()));
    }
    let path = find(home, cwd, id).ok_or_else(|| ResumeError::NotFound(id.to_owned()))?;
    let text = std::fs::read_to_string(&path).map_err(|_| ResumeError::NotFound(id.to_owned()))?;
    let records: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let chain = chain(&records);
    if chain.is_empty() {
        return Err(ResumeError::NotFound(id.to_owned()));
    }
    let (messages, context_at) = messages(&chain);
    let last = last_kept(&chain);
    let (messages, interrupted) = repaired(messages, last.is_some_and(is_prompt));
    let tip = last.and_then(|r| r["uuid"].as_str()).map(str::to_owned);
    let announced = chain
        .iter()
        .filter_map(|r| r["attachment"]["type"].as_str().map(str::to_owned))
        .collect();
    Ok(Resumed {
        path,
        announced,
        tip,
        chain,
        messages,
        context_at,
        interrupted,
    })
}

/// Where session `id` is kept: this project's folder first, then any other project's (recorded:
/// 2.1.235 resumes a session another folder holds, and goes on writing there).
fn find(home: &Path, cwd: &Path, id: &str) -> Option<std::path::PathBuf> {
    let here = crate::environment::session_file(home, cwd, id);
    if here.is_file() {
        return Some(here);
    }
    let projects = home.join(".claude/projects");
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .map(|e| e.path().join(format!("{id}.jsonl")))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The last conversational record of the file at `path`, which the next record chains to.
pub fn tip(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|r| r["uuid"].as_str().map(str::to_owned))
}

/// `--continue`: the session of this project whose file changed last.
pub fn latest(home: &Path, cwd: &Path) -> Option<String> {
    let dir = crate::environment::project_dir(home, cwd);
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix(".jsonl")?.to_owned();
            let changed = e.metadata().ok()?.modified().ok()?;
            Some((changed, id))
        })
        .max()
        .map(|(_, id)| id)
}

/// The conversation's records, first to last: from the file's last conversational record back
/// along `parentUuid`.
fn chain(records: &[Value]) -> Vec<Value> {
    let conversational = |r: &&Value| {
        r["uuid"].is_string()
            && matches!(
                r["type"].as_str(),
                Some("user" | "assistant" | "attachment" | "system")
            )
    };
    let by_id: std::collections::HashMap<&str, &Value> = records
        .iter()
        .filter(conversational)
        .filter_map(|r| Some((r["uuid"].as_str()?, r)))
        .collect();
    let mut out = Vec::new();
    let mut at = records.iter().rev().find(conversational);
    while let Some(record) = at {
        if out.len() > records.len() {
            break; // a cycle: no file 2.1.235 writes has one
        }
        out.push(record.clone());
        at = record["parentUuid"]
            .as_str()
            .and_then(|p| by_id.get(p).copied());
    }
    out.reverse();
    splice_kept(&mut out, &by_id);
    out
}

/// A chain that starts at a compaction's boundary goes on from the summary, then the records
/// the compaction kept as they were (written before the boundary: 2.1.235 names them in its
/// `preservedMessages`), then what followed.
fn splice_kept(chain: &mut Vec<Value>, by_id: &std::collections::HashMap<&str, &Value>) {
    let Some(boundary) = chain.first().filter(|r| r["subtype"] == "compact_boundary") else {
        return;
    };
    let kept = &boundary["compactMetadata"]["preservedMessages"];
    let anchor = kept["anchorUuid"].as_str().unwrap_or_default().to_owned();
    let records: Vec<Value> = kept["uuids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|id| by_id.get(id.as_str()?).map(|r| (*r).clone()))
        .collect();
    if let Some(at) = chain.iter().position(|r| r["uuid"] == anchor.as_str()) {
        chain.splice(at + 1..at + 1, records);
    }
}

/// The chain's last record the repair keeps: a call with no result is dropped (what follows
/// chains to the record before it, as in 2.1.235), so an answer that only made such calls is
/// passed over.
fn last_kept(chain: &[Value]) -> Option<&Value> {
    let answered: std::collections::HashSet<&str> = chain
        .iter()
        .filter(|r| r["type"] == "user")
        .flat_map(|r| r["message"]["content"].as_array().into_iter().flatten())
        .filter_map(|b| b["tool_use_id"].as_str())
        .collect();
    let dropped = |r: &Value| {
        r["type"] == "assistant"
            && r["message"]["content"].as_array().is_some_and(|blocks| {
                !blocks.is_empty()
                    && blocks.iter().all(|b| {
                        b["type"] == "tool_use"
                            && !b["id"].as_str().is_some_and(|id| answered.contains(id))
                    })
            })
    };
    chain.iter().rev().find(|r| !dropped(r))
}

/// Whether that record is the user's prompt itself (not a result, a reminder, an answer or an
/// interruption's note: a prompt's record says where it came from).
fn is_prompt(r: &Value) -> bool {
    let text = r["message"]["content"].as_str();
    r["type"] == "user"
        && r["isMeta"] != true
        && (text.is_some_and(|t| !is_local_command(t)) || r.get("promptSource").is_some())
}

/// A local command's record (`/compact`'s): written as the user's, never their prompt.
fn is_local_command(text: &str) -> bool {
    text.starts_with("<local-command-") || text.starts_with("<command-name>")
}

/// A user message being rebuilt: a prompt (its reminders go before it) or a round's results
/// (its reminders go inside the last result).
struct Building {
    prompt: bool,
    blocks: Vec<Value>,
    reminders: Vec<String>,
}

/// The messages of `chain`, and where the context block goes in the first one.
fn messages(chain: &[Value]) -> (Vec<Value>, usize) {
    let mut out: Vec<Value> = Vec::new();
    let mut building: Option<Building> = None;
    let mut context_at = 0;
    let mut last_answer: Option<String> = None;
    for r in chain {
        match r["type"].as_str() {
            Some("user") => {
                let content = &r["message"]["content"];
                let blocks = match content {
                    Value::String(s) => vec![json!({"type": "text", "text": s})],
                    Value::Array(b) => b.clone(),
                    _ => continue,
                };
                let results = blocks.iter().any(|b| b["type"] == "tool_result");
                match &mut building {
                    Some(b) if results && !b.prompt && b.reminders.is_empty() => {
                        b.blocks.extend(blocks)
                    }
                    // Text records one after another (a local command's caveat, command and
                    // output) are one message; what was attached after them goes before it all.
                    Some(b) if !results && b.prompt && b.reminders.is_empty() => {
                        merge_blocks(&mut b.blocks, blocks)
                    }
                    _ => {
                        flush(&mut out, building.take(), &mut context_at);
                        building = Some(Building {
                            prompt: !results,
                            blocks,
                            reminders: Vec::new(),
                        });
                    }
                }
            }
            Some("attachment") => {
                if let (Some(b), Some(text)) =
                    (&mut building, super::attachment::reminder(&r["attachment"]))
                {
                    b.reminders.push(text);
                }
            }
            Some("assistant") => {
                flush(&mut out, building.take(), &mut context_at);
                let id = r["message"]["id"].as_str().map(str::to_owned);
                let content = r["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                match out.last_mut() {
                    Some(m) if m["role"] == "assistant" && id.is_some() && id == last_answer => {
                        if let Some(c) = m["content"].as_array_mut() {
                            c.extend(content);
                        }
                    }
                    _ => out.push(json!({"role": "assistant", "content": content})),
                }
                last_answer = id;
            }
            _ => {}
        }
    }
    flush(&mut out, building, &mut context_at);
    (out, context_at)
}

/// The conversation as 2.1.235 resumes one the process left mid-turn (recorded:
/// `session.recoverable`): a call with no result is dropped, messages of one role that end up
/// side by side are merged, and when it ends with the user's side the meta note to continue
/// joins that message and a synthetic answer closes it.
fn repaired(messages: Vec<Value>, on_prompt: bool) -> (Vec<Value>, Option<Interrupted>) {
    let answered: std::collections::HashSet<String> = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["tool_use_id"].as_str().map(str::to_owned))
        .collect();
    let mut out: Vec<Value> = Vec::new();
    for mut m in messages {
        if m["role"] == "assistant" {
            if let Some(blocks) = m["content"].as_array_mut() {
                blocks.retain(|b| {
                    b["type"] != "tool_use"
                        || b["id"].as_str().is_some_and(|id| answered.contains(id))
                });
                if blocks.is_empty() {
                    continue;
                }
            }
        }
        match out.last_mut() {
            Some(last) if last["role"] == m["role"] => {
                merge_into(last, m["content"].as_array().cloned().unwrap_or_default())
            }
            _ => out.push(m),
        }
    }
    if out.last().is_none_or(|m| m["role"] != "user") || delivered(&out) {
        return (out, None);
    }
    let kind = if on_prompt {
        Interrupted::Prompt
    } else {
        let last = out.last_mut().expect("checked");
        merge_into(last, vec![json!({"type": "text", "text": CONTINUE})]);
        Interrupted::Turn
    };
    out.push(json!({"role": "assistant", "content": [{"type": "text", "text": NO_RESPONSE}]}));
    (out, Some(kind))
}

/// Whether the conversation ends on a Brief delivery's result: `SendUserMessage` is how a Brief
/// turn answers, so a turn that ended on it is not an interrupted one (recorded on 2.1.235: no
/// repair, the next prompt joins that result's message).
fn delivered(messages: &[Value]) -> bool {
    let [.., asked, last] = messages else {
        return false;
    };
    let last_result = last["content"]
        .as_array()
        .and_then(|c| c.iter().rev().find(|b| b["type"] == "tool_result"));
    let Some(id) = last_result.and_then(|b| b["tool_use_id"].as_str()) else {
        return false;
    };
    asked["content"].as_array().is_some_and(|c| {
        c.iter()
            .any(|b| b["id"] == id && b["name"] == "SendUserMessage")
    })
}

/// `blocks` appended to `message`'s content: text after text gains the newline 2.1.235's merge
/// puts between them.
fn merge_into(message: &mut Value, blocks: Vec<Value>) {
    if let Some(content) = message["content"].as_array_mut() {
        merge_blocks(content, blocks);
    }
}

/// `blocks` after `content`; a text they follow ends its line first (2.1.235 joins them so).
fn merge_blocks(content: &mut Vec<Value>, blocks: Vec<Value>) {
    if blocks.first().is_some_and(|b| b["type"] == "text") {
        if let Some(last) = content.last_mut().filter(|b| b["type"] == "text") {
            let text = last["text"].as_str().unwrap_or_default();
            if !text.ends_with('\n') {
                last["text"] = json!(format!("{text}\n"));
            }
        }
    }
    content.extend(blocks);
}

fn flush(out: &mut Vec<Value>, building: Option<Building>, context_at: &mut usize) {
    let Some(b) = building else { return };
    let content = if b.prompt {
        if out.is_empty() {
            *context_at = b.reminders.len();
        }
        let mut c = crate::context::reminders::before_prompt(b.reminders);
        c.extend(b.blocks);
        c
    } else {
        let mut blocks = b.blocks;
        crate::context::reminders::append_to_round(&mut blocks, &b.reminders);
        blocks
    };
    out.push(json!({"role": "user", "content": content}));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: &str, uuid: &str, parent: Option<&str>, extra: Value) -> Value {
        let mut r = json!({"type": kind, "uuid": uuid, "parentUuid": parent});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    }

    #[test]
    fn a_compacted_chain_goes_on_from_the_summary_with_the_kept_answer_then_the_command() {
        let user = |uuid: &str, parent: Option<&str>, text: &str| {
            rec(
                "user",
                uuid,
                parent,
                json!({"message": {"role": "user", "content": text}}),
            )
        };
        let tokens = json!({"attachment": {"type": "total_tokens_reminder", "text": "<total_tokens>9 tokens left</total_tokens>"}});
        let records = vec![
            user("u1", None, "First."),
            rec(
                "assistant",
                "m1",
                Some("u1"),
                json!({"message": {"id": "msg1", "content": [{"type": "text", "text": "ONE"}]}}),
            ),
            user("u2", Some("m1"), "Second."),
            rec(
                "assistant",
                "m2",
                Some("u2"),
                json!({"message": {"id": "msg2", "content": [{"type": "text", "text": "TWO"}]}}),
            ),
            rec(
                "system",
                "b1",
                None,
                json!({"subtype": "compact_boundary", "compactMetadata": {
                "preservedMessages": {"anchorUuid": "s1", "uuids": ["m2"]}}}),
            ),
            user("s1", Some("b1"), "SUMMARY"),
            user(
                "c1",
                Some("s1"),
                "<local-command-caveat>x</local-command-caveat>",
            ),
            user("c2", Some("c1"), "<command-name>/compact</command-name>"),
            rec("attachment", "a1", Some("c2"), tokens),
        ];
        let chain = chain(&records);
        let ids: Vec<&str> = chain.iter().filter_map(|r| r["uuid"].as_str()).collect();
        assert_eq!(
            ids,
            ["b1", "s1", "m2", "c1", "c2", "a1"],
            "the kept answer after the summary"
        );
        let (messages, _) = messages(&chain);
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"][0]["text"], "TWO");
        let texts: Vec<&str> = messages[2]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect();
        // One message: what was attached after the command's records goes before them all, and
        // each record but the last ends its line.
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].contains("9 tokens left"), "{texts:?}");
        assert_eq!(texts[1], "<local-command-caveat>x</local-command-caveat>\n");
        assert_eq!(texts[2], "<command-name>/compact</command-name>");
        assert!(
            !is_prompt(&chain[4]),
            "a local command's record is not the user's prompt"
        );
    }

    #[test]
    fn a_prompt_a_call_and_its_result_come_back_as_sent() {
        let tokens = |n: u64| json!({"attachment": {"type": "total_tokens_reminder", "text": format!("<total_tokens>{n} tokens left</total_tokens>")}});
        let records = vec![
            json!({"type": "queue-operation", "operation": "enqueue"}),
            rec(
                "user",
                "u1",
                None,
                json!({"message": {"role": "user", "content": "Read it."}}),
            ),
            rec("attachment", "a1", Some("u1"), tokens(15)),
            rec(
                "assistant",
                "m1",
                Some("a1"),
                json!({"message": {"id": "msg1", "content": [{"type": "text", "text": "Reading."}]}}),
            ),
            rec(
                "assistant",
                "m2",
                Some("m1"),
                json!({"message": {"id": "msg1", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}}),
            ),
            rec(
                "user",
                "r1",
                Some("m2"),
                json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1\talpha"}]}}),
            ),
            rec("attachment", "a2", Some("r1"), tokens(9)),
            rec(
                "assistant",
                "m3",
                Some("a2"),
                json!({"message": {"id": "msg2", "content": [{"type": "text", "text": "DONE"}]}}),
            ),
            json!({"type": "last-prompt", "leafUuid": "m3"}),
        ];
        let chain = chain(&records);
        assert_eq!(chain.len(), 7);
        let (messages, context_at) = messages(&chain);
        assert_eq!(context_at, 1);
        assert_eq!(messages.len(), 4);
        assert_eq!(
            messages[0]["content"][0]["text"],
            "<system-reminder>\n<total_tokens>15 tokens left</total_tokens>\n</system-reminder>\n"
        );
        assert_eq!(messages[0]["content"][1]["text"], "Read it.");
        assert_eq!(messages[1]["content"].as_array().unwrap().len(), 2);
        assert_eq!(
            messages[2]["content"][0]["content"],
            "1\talpha\n\n<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>"
        );
        assert_eq!(messages[3]["content"][0]["text"], "DONE");
    }

    #[test]
    fn a_turn_the_process_left_is_repaired_as_2_1_235_repairs_it() {
        let user = |c: Value| json!({"role": "user", "content": c});
        let prompt = || user(json!([{"type": "text", "text": "Log it."}]));
        let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]});
        // Killed while the call ran: the call goes, the prompt's turn is told to continue.
        let (m, interrupted) = repaired(vec![prompt(), call.clone()], false);
        assert_eq!(interrupted, Some(Interrupted::Turn));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0]["content"][0]["text"], "Log it.\n");
        assert_eq!(m[0]["content"][1]["text"], CONTINUE);
        assert_eq!(m[1]["content"][0]["text"], NO_RESPONSE);
        // Killed after the result went out: the result stays, the note joins it.
        let result = user(json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]));
        let (m, interrupted) = repaired(vec![prompt(), call, result], false);
        assert_eq!(interrupted, Some(Interrupted::Turn));
        assert_eq!(m.len(), 4);
        assert_eq!(m[2]["content"][1]["text"], CONTINUE);
        // A finished turn is left alone.
        let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "DONE"}]});
        let (m, interrupted) = repaired(vec![prompt(), answer], false);
        assert_eq!(interrupted, None);
        assert_eq!(m.len(), 2);
        // Stopped on the prompt itself: only the synthetic answer follows it.
        let (m, interrupted) = repaired(vec![prompt()], true);
        assert_eq!(interrupted, Some(Interrupted::Prompt));
        assert_eq!(m[0]["content"].as_array().unwrap().len(), 1);
        assert_eq!(m[1]["content"][0]["text"], NO_RESPONSE);
        // A Brief turn that ended on its delivery answered: nothing to repair.
        let send = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "SendUserMessage", "input": {}}]});
        let delivery = user(
            json!([{"type": "tool_result", "tool_use_id": "s1", "content": "Message delivered to user."}]),
        );
        let (m, interrupted) = repaired(vec![prompt(), send, delivery], false);
        assert_eq!(interrupted, None);
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn an_unknown_or_malformed_id_says_so() {
        let home = tempfile::tempdir().unwrap();
        let err = load(home.path(), home.path(), "not-an-id").unwrap_err();
        assert!(err
            .to_string()
            .contains("Provided value \"not-an-id\" is not a UUID"));
        let id = "00000000-0000-4000-8000-000000000000";
        let err = load(home.path(), home.path(), id).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("No conversation found with session ID: {id}")
        );
    }
}
