//! Compaction (matrix `compact.*`): the conversation so far is summarized by the model and goes
//! on from that summary. Automatic before a request once the context crosses the threshold of
//! the limits table (`limits::compaction`), or `/compact [instructions]` from the user.
//!
//! What 2.1.235 was recorded doing, and this does the same:
//! - the conversation is cut into groups, one per answer (a prompt joins the answer after it);
//!   fewer than two and nothing is compacted. The newest group is kept as it is; the ones
//!   before it are summarized;
//! - the summary request is an ordinary main-loop request (same system, tools, model) of the
//!   summarized messages, with the instructions to summarize as a last text block;
//! - then PreCompact → the request → SessionStart (`compact`) → PostCompact; the host hears
//!   `status: compacting`, the outcome, and a `compact_boundary` with its metadata;
//! - the conversation becomes: the context block and the summary in one user message, then the
//!   kept group; the agent listing is made again and the files read before are read again.
//!
//! The words of the summary instructions and of the summary's wrapping are ours.

use std::time::Instant;

use serde_json::{json, Value};

use super::session::Session;
use crate::context::restored::{Restored, Skill};
use crate::limits;

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    Manual,
    Auto,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Manual => "manual",
            Trigger::Auto => "auto",
        }
    }
}

/// The models whose window 2.1.235 knows, and compacts automatically without being told one.
const KNOWN_WINDOW_MODELS: &[&str] = &[
    "claude-sonnet-4-6",
    "claude-opus-4-6",
    "claude-opus-4-8",
    "claude-opus-5",
];

/// Where a conversation of some size stops being sent as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Compact automatically from this many tokens on; none when nothing compacts on its own.
    pub auto: Option<u64>,
    /// Send no request from this many tokens on; none while the client leaves that to the API.
    pub blocking: Option<u64>,
}

/// The thresholds for `model` under the environment's switches (recorded: compact.auto and its
/// variants). `env` reads one variable.
pub fn thresholds(model: &str, env: impl Fn(&str) -> Option<String>) -> Thresholds {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let auto_off = set("DISABLE_COMPACT").is_some() || set("DISABLE_AUTO_COMPACT").is_some();
    let model_window = limits::COMPACT_MODEL_WINDOW.get();
    let reserve = limits::COMPACT_OUTPUT_RESERVE.get();
    let window = set("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|w| {
            w.clamp(
                limits::COMPACT_WINDOW_OVERRIDE_MIN.get(),
                limits::COMPACT_WINDOW_OVERRIDE_MAX.get(),
            )
            .min(model_window)
        })
        .or_else(|| knows_window(model).then_some(model_window));
    let blocking = model_window - reserve - limits::COMPACT_BLOCKING_BUFFER.get();
    match (auto_off, window) {
        // A window 2.1.235 does not know and was not told: it leaves the size to the API.
        (false, None) => Thresholds {
            auto: None,
            blocking: None,
        },
        (false, Some(window)) => {
            let effective = window - reserve;
            let mut at = effective - limits::COMPACT_AUTO_BUFFER.get();
            if let Some(pct) = set("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|p| *p > 0.0 && *p <= 100.0)
            {
                at = at.min((effective as f64 * pct / 100.0).floor() as u64);
            }
            Thresholds {
                auto: Some(at),
                blocking: Some(blocking),
            }
        }
        (true, _) => Thresholds {
            auto: None,
            blocking: Some(blocking),
        },
    }
}

fn knows_window(model: &str) -> bool {
    KNOWN_WINDOW_MODELS
        .iter()
        .any(|m| crate::api::wire::is_model(model, m))
}

/// The conversation's size as the client counts it: the newest answer's reported total, and an
/// estimate (four characters a token) of what was added after it.
pub fn context_tokens(messages: &[Value], last_total: u64) -> u64 {
    let after = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .map_or(0, |i| i + 1);
    last_total + estimate(&messages[after..])
}

/// Four characters a token, over the messages' JSON.
pub fn estimate(messages: &[Value]) -> u64 {
    let chars: usize = messages
        .iter()
        .map(|m| m["content"].to_string().len())
        .sum();
    (chars as u64).div_ceil(4)
}

/// Where the kept group starts: the newest answer. `None` when there are fewer groups than the
/// limit (each answer starts one; a prompt belongs to the answer after it).
fn kept_from(messages: &[Value]) -> Option<usize> {
    let answers: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant")
        .map(|(i, _)| i)
        .collect();
    (answers.len() as u64 >= limits::COMPACT_MIN_GROUPS.get()).then(|| *answers.last().unwrap())
}

/// Our words: how the model is asked for the summary.
const INSTRUCTIONS: &str = "Stop here and write a summary of the conversation so far, so that it \
can go on from the summary alone. Answer with text only; do not call tools. Keep every fact the \
task depends on: what the user asked for, in their words where it matters; files read and \
changed, with the paths and the code that matters; commands run and what they showed; errors and \
how they were fixed; decisions taken; what is done and what is left, and the next step.";

/// The last block of the summary request: the instructions, and the user's own when given.
fn instructions_block(extra: Option<&str>) -> Value {
    let text = match extra {
        Some(extra) => format!("{INSTRUCTIONS}\n\nThe user adds: {extra}"),
        None => INSTRUCTIONS.to_owned(),
    };
    json!({"type": "text", "text": text})
}

/// How the summary opens the conversation again (our words; the summary and where the whole
/// earlier conversation is kept are the facts).
fn summary_text(summary: &str, transcript: &str) -> String {
    let summary = summary_of_reply(summary);
    format!(
        "The conversation so far was summarized to make room; it goes on from this summary.\n\n\
         {summary}\n\n\
         Everything said before the summary is in the session file: {transcript}\n\
         Go on with the task where it stopped, without asking the user anything first and \
         without restating the summary."
    )
}

/// The summary a model's reply holds, as 2.1.235 takes it: its `<analysis>` dropped, its
/// `<summary>` block's text under a `Summary:` line, blank runs cut to one blank line. A reply
/// without the tags is taken whole. (The PostCompact hook is given the reply as it came.)
fn summary_of_reply(reply: &str) -> String {
    let mut text = reply.to_owned();
    if let Some(start) = text.find("<analysis>") {
        if let Some(len) = text[start..].find("</analysis>") {
            text.replace_range(start..start + len + "</analysis>".len(), "");
        }
    }
    if let Some(start) = text.find("<summary>") {
        if let Some(len) = text[start..].find("</summary>") {
            let inner = text[start + "<summary>".len()..start + len]
                .trim()
                .to_owned();
            text.replace_range(
                start..start + len + "</summary>".len(),
                &format!("Summary:\n{inner}"),
            );
        }
    }
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    text.trim().to_owned()
}

/// What a failed compaction reports (`compact_error`).
pub const NOT_ENOUGH: &str = "Not enough messages to compact.";
const TOO_FEW_GROUPS: &str = "too_few_groups";
const EMPTY_SUMMARY: &str = "summarization produced empty response";

/// A compaction that happened: the hooks' report lines (what `/compact` prints after
/// `Compacted`).
pub struct Compacted {
    pub hook_lines: Vec<String>,
    /// The files the conversation read before it was compacted (`files_read`).
    pub read_before: Vec<String>,
}

/// A compaction that did not happen: the `compact_error` the host was told, and whether
/// `/compact` reports it on its stderr (a hook refused, the summary failed) rather than as what
/// it printed (too little to compact).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub error: String,
    pub stderr: bool,
    /// The summary request failed or said nothing (what counts toward the breaker).
    pub summary: bool,
}

impl Failed {
    fn because(error: impl Into<String>) -> Failed {
        Failed {
            error: error.into(),
            stderr: false,
            summary: false,
        }
    }

    /// The summary request failed or said nothing: the user's `/compact` names it an error
    /// during compaction (recorded: compact.manual/summary-fails); an automatic one does not.
    fn summary(error: &str, trigger: Trigger) -> Failed {
        Failed {
            error: match trigger {
                Trigger::Manual => format!("Error during compaction: {error}"),
                Trigger::Auto => error.to_owned(),
            },
            stderr: true,
            summary: true,
        }
    }
}

/// Compacts the session's conversation, telling the host as 2.1.235 does. On `Err` the
/// conversation is as it was.
pub async fn compact(
    s: &mut Session<'_>,
    trigger: Trigger,
    instructions: Option<&str>,
) -> Result<Compacted, Failed> {
    let started = Instant::now();
    let pre_tokens = context_tokens(&s.messages, s.last_total);
    s.out.event(&status(s, json!({"status": "compacting"})));
    let outcome = summarize(s, trigger, instructions).await;
    let (summary, mut hook_lines, kept_from) = match outcome {
        Ok(done) => done,
        Err(failed) => {
            s.out.event(&status(
                s,
                json!({"status": null, "compact_result": "failed", "compact_error": failed.error}),
            ));
            return Err(failed);
        }
    };
    let session = s.ctx.hook_session();
    s.ctx.hooks.session_start_compact(&session, &s.config.model);
    hook_lines.extend(
        s.ctx
            .hooks
            .post_compact(&session, trigger.as_str(), &summary),
    );
    s.out.event(&status(
        s,
        json!({"status": null, "compact_result": "success"}),
    ));
    // The user's `/compact` is a prompt of its own: announced once it compacted (2.1.235's order).
    if trigger == Trigger::Manual {
        s.announce();
    }
    if let Some(terminal) = &s.out.terminal {
        // 2.1.235's words at a terminal, either way (recorded: compact.auto/terminal).
        terminal.line("✻ Conversation compacted (ctrl+o for history)");
    }
    let transcript = session.transcript_path().display().to_string();
    let summary = summary_text(&summary, &transcript);
    let first = vec![
        s.user_context.clone(),
        json!({"type": "text", "text": summary}),
    ];
    let mut messages = vec![json!({"role": "user", "content": first})];
    let read_before = files_read(&s.messages);
    messages.extend(s.messages.drain(kept_from..));
    let post_tokens = estimate(&messages);
    let metadata = json!({
        "trigger": trigger.as_str(),
        "pre_tokens": pre_tokens,
        "post_tokens": post_tokens,
        "cumulative_dropped_tokens": pre_tokens.saturating_sub(post_tokens),
        "duration_ms": started.elapsed().as_millis() as u64,
    });
    boundary(s, metadata, &summary, trigger);
    s.messages = messages;
    s.last_total = 0;
    Ok(Compacted {
        hook_lines,
        read_before,
    })
}

/// PreCompact, then the summary request. The summary, PreCompact's report lines, and where
/// the kept group starts.
async fn summarize(
    s: &mut Session<'_>,
    trigger: Trigger,
    instructions: Option<&str>,
) -> Result<(String, Vec<String>, usize), Failed> {
    let Some(kept_from) = kept_from(&s.messages) else {
        return Err(Failed::because(match trigger {
            Trigger::Manual => NOT_ENOUGH,
            Trigger::Auto => TOO_FEW_GROUPS,
        }));
    };
    let lines = s
        .ctx
        .hooks
        .pre_compact(&s.ctx.hook_session(), trigger.as_str(), instructions)
        .map_err(|error| Failed {
            error,
            stderr: true,
            summary: false,
        })?;
    let mut summarized = s.messages[..kept_from].to_vec();
    if let Some(last) = summarized.last_mut() {
        as_blocks(last).push(instructions_block(instructions));
    }
    let offered = crate::tools::builtin(s.offer(false));
    let mcp_tools = s.mcp.current_tools();
    let tools = s.ctx.tool_search.request_tools(&offered, &mcp_tools);
    let body = super::turn::request_body(&s.effective_config(), tools, &summarized);
    let answer = s
        .client
        .send(&body, |_, _, _| {}, |_| {})
        .await
        .map_err(|e| Failed::summary(&e.user_text(&s.client.gateway()), trigger))?;
    let summary = answer.message.text();
    if summary.trim().is_empty() {
        return Err(Failed::summary(EMPTY_SUMMARY, trigger));
    }
    Ok((summary, lines, kept_from))
}

/// A message's content as a list of blocks, a string turned into one text block.
fn as_blocks(message: &mut Value) -> &mut Vec<Value> {
    let content = message["content"].take();
    message["content"] = Value::Array(super::session::blocks_of(content));
    message["content"].as_array_mut().expect("made an array")
}

/// The boundary as the session file and the host see it, then the summary's message.
fn boundary(s: &Session, mut metadata: Value, summary_text: &str, trigger: Trigger) {
    let mut logical_parent = None;
    if let Some(file) = &s.out.transcript {
        let kept = file.kept_since_last_answer();
        let written = file.compact_boundary(&metadata, summary_text, &kept);
        logical_parent = kept.last().cloned();
        metadata["preserved_segment"] = json!({
            "head_uuid": kept.first(), "anchor_uuid": written.summary, "tail_uuid": kept.last(),
        });
        metadata["preserved_messages"] = json!({
            "anchor_uuid": written.summary, "uuids": kept, "all_uuids": kept,
        });
    }
    s.out.event(&json!({
        "type": "system", "subtype": "compact_boundary", "session_id": s.out.session_id,
        "uuid": crate::vocab::uuid(), "compact_metadata": metadata,
        "logical_parent_uuid": logical_parent,
    }));
    // A manual compaction's summary is told as the user's text; an automatic one's as blocks.
    let content = match trigger {
        Trigger::Manual => json!(summary_text),
        Trigger::Auto => json!([{"type": "text", "text": summary_text}]),
    };
    let mut event = s.out.synthetic_user("");
    event["message"]["content"] = content;
    if trigger == Trigger::Manual {
        event["isReplay"] = json!(false);
    }
    s.out.event(&event);
}

fn status(s: &Session, fields: Value) -> Value {
    let mut event = json!({"type": "system", "subtype": "status"});
    if let (Some(event), Some(fields)) = (event.as_object_mut(), fields.as_object()) {
        event.extend(fields.clone());
        event.insert("session_id".into(), json!(s.out.session_id));
        event.insert("uuid".into(), json!(crate::vocab::uuid()));
    }
    event
}

/// What the loop does before a request, for the conversation's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// Send it as it is.
    Send,
    /// Send it: the conversation was compacted first (the summary is a message of the turn).
    Compacted,
    /// Past the blocking limit with nothing compacted: no request.
    Blocked,
}

/// Compacts automatically when the conversation crossed the threshold (or the blocking limit,
/// where something compacts); says whether the request may go out.
pub async fn before_request(s: &mut Session<'_>) -> Before {
    let limits = thresholds(&s.config.model, |name| std::env::var(name).ok());
    let tokens = context_tokens(&s.messages, s.last_total);
    let blocked = limits.blocking.is_some_and(|at| tokens >= at);
    let due = limits.auto.is_some_and(|at| tokens >= at) || (limits.auto.is_some() && blocked);
    // After this many summaries failed in a row it stops trying (recorded: compact.auto/breaker).
    let broken = s.compact_failures >= limits::COMPACT_FAILURE_BREAKER.get();
    if due && !broken {
        match compact(s, Trigger::Auto, None).await {
            Ok(done) => {
                s.compact_failures = 0;
                reattach(s, done.read_before);
                return Before::Compacted;
            }
            Err(failed) if failed.summary => s.compact_failures += 1,
            Err(_) => {}
        }
    }
    if blocked {
        Before::Blocked
    } else {
        Before::Send
    }
}

/// After an automatic compaction the turn goes on: what comes back joins the kept group's last
/// message (recorded: compact.auto).
fn reattach(s: &mut Session<'_>, read_before: Vec<String>) {
    let notes = restored(s, read_before);
    if let Some(file) = &s.out.transcript {
        file.attachments(&notes.iter().map(|n| n.data.clone()).collect::<Vec<_>>());
    }
    let texts: Vec<String> = notes.into_iter().map(|n| n.text).collect();
    if let Some(last) = s.messages.last_mut().filter(|m| m["role"] == "user") {
        crate::context::reminders::append_to_round(as_blocks(last), &texts);
    }
}

/// One thing a compaction brings back: the reminder the model reads, and the attachment the
/// session file keeps for it.
pub struct Note {
    pub text: String,
    pub data: Value,
}

/// What a compaction brings back, in 2.1.235's order (recorded: compact.restore): the files read
/// before it, newest first, then the skills invoked before it, then the agent listing; each
/// within its budget of the limits table.
pub fn restored(s: &mut Session<'_>, read_before: Vec<String>) -> Vec<Note> {
    let paths = s.reread_paths(read_before);
    let kept = &s.messages;
    let cwd = &s.config.cwd;
    let note = |r: Restored| Note {
        text: r.text(),
        data: r.attachment(cwd),
    };
    let mut notes: Vec<Note> = files_again(paths, kept).into_iter().map(note).collect();
    notes.extend(skills_again(&s.ctx.invoked_skills, kept).map(note));
    notes.extend(s.relisted.iter().filter_map(|b| {
        let text = b["text"].as_str()?.to_owned();
        let data = crate::transcript::attachment::of_reminder(&text);
        Some(Note { text, data })
    }));
    notes
}

/// The files read before, newest first, not those the kept messages read: at most the limit's
/// count, each whole when small enough (else named), all within the files' budget.
fn files_again(paths: Vec<String>, kept: &[Value]) -> Vec<Restored> {
    let read_by_kept = files_read(kept);
    let mut spent = 0;
    paths
        .iter()
        .rev()
        .filter(|p| !read_by_kept.contains(p))
        .take(limits::COMPACT_RESTORE_MAX_FILES.usize())
        .filter_map(|p| reread(p))
        .filter(|r| {
            let cost = tokens(&r.text());
            let fits = spent + cost <= limits::COMPACT_RESTORE_FILES_BUDGET.get();
            if fits {
                spent += cost;
            }
            fits
        })
        .collect()
}

/// The skills invoked before, newest first, not those whose body the kept messages carry: each
/// cut to the limit, all within the skills' budget.
fn skills_again(invoked: &[Skill], kept: &[Value]) -> Option<Restored> {
    let carried = serde_json::to_string(kept).unwrap_or_default();
    let mut spent = 0;
    let mut back = Vec::new();
    for skill in invoked.iter().rev() {
        let encoded = serde_json::to_string(&skill.content).unwrap_or_default();
        if carried.contains(encoded.trim_matches('"')) {
            continue;
        }
        let content = cut(
            &skill.content,
            limits::COMPACT_RESTORE_SKILL_MAX_TOKENS.get(),
        );
        let cost = tokens(&content);
        if spent + cost > limits::COMPACT_RESTORE_SKILLS_BUDGET.get() {
            continue;
        }
        spent += cost;
        back.push(Skill {
            content,
            ..skill.clone()
        });
    }
    (!back.is_empty()).then_some(Restored::Skills(back))
}

/// Four characters a token.
fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// `text` cut to `max` tokens (four characters each), marked when cut.
fn cut(text: &str, max: u64) -> String {
    let limit = (max * 4) as usize;
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let kept: String = text.chars().take(limit).collect();
    format!("{kept}\n\n[cut to fit after the conversation was summarized]")
}

/// The files the summarized conversation read (the Read calls' paths, each once, in the order
/// of their last read), read again after an automatic compaction.
pub fn files_read(messages: &[Value]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for block in messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_use" && b["name"] == "Read")
    {
        if let Some(path) = block["input"]["file_path"].as_str() {
            paths.retain(|p| p != path);
            paths.push(path.to_owned());
        }
    }
    paths
}

/// A file read before the summary, as it is now, or only named when its numbered lines are
/// larger than the limit.
fn reread(path: &str) -> Option<Restored> {
    let text = std::fs::read_to_string(path).ok()?;
    let whole = Restored::File {
        path: path.to_owned(),
        text,
    };
    if tokens(&whole.text()) > limits::COMPACT_RESTORE_FILE_MAX_TOKENS.get() {
        return Some(Restored::TooLarge {
            path: path.to_owned(),
        });
    }
    Some(whole)
}

/// The `/compact` command a prompt is, with its instructions (`None` when it is no such
/// command).
pub fn command(prompt: &[Value]) -> Option<Option<String>> {
    let [only] = prompt else { return None };
    let text = only["text"].as_str()?.trim();
    let rest = text.strip_prefix("/compact")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    Some((!rest.is_empty()).then(|| rest.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn a_known_model_compacts_at_the_recorded_threshold_and_blocks_below_its_window() {
        let t = thresholds("claude-sonnet-4-6", env(&[]));
        assert_eq!(t.auto, Some(167_000));
        assert_eq!(t.blocking, Some(177_000));
        // A dated release is the same model; a longer name is another.
        assert_eq!(thresholds("claude-sonnet-4-6-20260101", env(&[])), t);
        assert_eq!(thresholds("claude-sonnet-4-60", env(&[])).auto, None);
    }

    #[test]
    fn an_unknown_window_compacts_only_when_told_one() {
        assert_eq!(
            thresholds("claude-sonnet-4-5", env(&[])),
            Thresholds {
                auto: None,
                blocking: None
            }
        );
        let told = thresholds(
            "claude-sonnet-4-5",
            env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")]),
        );
        assert_eq!(told.auto, Some(67_000));
        // Below the smallest window it is clamped up to it.
        let small = thresholds(
            "claude-sonnet-4-5",
            env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "5000")]),
        );
        assert_eq!(small.auto, Some(67_000));
    }

    #[test]
    fn the_percentage_override_only_lowers_the_threshold() {
        let half = thresholds(
            "claude-opus-4-8",
            env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")]),
        );
        assert_eq!(half.auto, Some(90_000));
        let all = thresholds(
            "claude-opus-4-8",
            env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "100")]),
        );
        assert_eq!(all.auto, Some(167_000));
    }

    #[test]
    fn switched_off_nothing_compacts_but_the_blocking_limit_holds() {
        for switch in ["DISABLE_AUTO_COMPACT", "DISABLE_COMPACT"] {
            let t = thresholds("claude-sonnet-4-6", env(&[(switch, "1")]));
            assert_eq!(t.auto, None, "{switch}");
            assert_eq!(t.blocking, Some(177_000), "{switch}");
        }
    }

    #[test]
    fn the_newest_answer_is_kept_and_one_answer_is_too_few() {
        let user = json!({"role": "user", "content": "q"});
        let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "a"}]});
        assert_eq!(kept_from(&[user.clone(), answer.clone()]), None);
        let two = [user.clone(), answer.clone(), user.clone(), answer.clone()];
        assert_eq!(kept_from(&two), Some(3));
    }

    #[test]
    fn a_reply_s_summary_block_is_what_the_conversation_goes_on_from() {
        assert_eq!(
            summary_of_reply(
                "<analysis>\nthinking\n</analysis>\n\n<summary>\n1. Done\n\n\n2. Next\n</summary>"
            ),
            "Summary:\n1. Done\n\n2. Next"
        );
        assert_eq!(summary_of_reply("  plain words  "), "plain words");
        assert_eq!(summary_of_reply("<summary>unclosed"), "<summary>unclosed");
    }

    #[test]
    fn compact_is_a_command_only_as_the_whole_prompt() {
        let prompt = |t: &str| vec![json!({"type": "text", "text": t})];
        assert_eq!(command(&prompt("/compact")), Some(None));
        assert_eq!(
            command(&prompt("/compact  keep the numbers ")),
            Some(Some("keep the numbers".into()))
        );
        assert_eq!(command(&prompt("/compactly")), None);
        assert_eq!(command(&prompt("please /compact")), None);
    }

    #[test]
    fn the_size_is_the_last_answer_and_an_estimate_of_what_followed() {
        let messages = [
            json!({"role": "assistant", "content": [{"type": "text", "text": "a"}]}),
            json!({"role": "user", "content": "x".repeat(398)}),
        ];
        // The JSON string is 400 characters: 100 tokens.
        assert_eq!(context_tokens(&messages, 1_000), 1_100);
    }

    #[test]
    fn five_files_come_back_newest_first_and_a_large_one_only_named() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<String> = (1..=7)
            .map(|i| {
                let path = dir.path().join(format!("f{i}.txt"));
                let text = if i == 7 {
                    "y".repeat(30_000)
                } else {
                    format!("file {i}\n")
                };
                std::fs::write(&path, text).unwrap();
                path.display().to_string()
            })
            .collect();
        let kept = [json!({"role": "assistant", "content": [
            {"type": "tool_use", "name": "Read", "input": {"file_path": paths[5]}}
        ]})];
        let notes: Vec<String> = files_again(paths.clone(), &kept)
            .iter()
            .map(Restored::text)
            .collect();
        // f6 is read by the kept answer; f7 (too large) is named; then f5, f4, f3, f2.
        assert_eq!(notes.len(), limits::COMPACT_RESTORE_MAX_FILES.usize());
        assert!(
            notes[0].contains("f7.txt") && notes[0].contains("too large"),
            "{}",
            notes[0]
        );
        assert!(!notes[0].contains("yyyy"));
        assert!(notes[1].contains("file 5"), "{}", notes[1]);
        assert!(notes[4].contains("file 2"), "{}", notes[4]);
        assert!(!notes
            .iter()
            .any(|n| n.contains("file 1") || n.contains("file 6")));
    }

    #[test]
    fn skills_come_back_newest_first_cut_to_their_limit_unless_the_kept_messages_carry_them() {
        let skill = |name: &str, content: String| Skill {
            name: name.into(),
            path: format!("userSettings:{name}"),
            content,
        };
        let long = "z".repeat(limits::COMPACT_RESTORE_SKILL_MAX_TOKENS.usize() * 4 + 100);
        let invoked = [
            skill("old", "OLD-BODY".into()),
            skill("long", long),
            skill("shown", "SHOWN-BODY".into()),
        ];
        let kept = [json!({"role": "user", "content": [{"type": "text", "text": "SHOWN-BODY"}]})];
        let note = skills_again(&invoked, &kept).unwrap().text();
        assert!(!note.contains("SHOWN-BODY"), "the kept messages carry it");
        let (long_at, old_at) = (
            note.find("### Skill: long").unwrap(),
            note.find("### Skill: old").unwrap(),
        );
        assert!(long_at < old_at, "newest first");
        assert!(note.contains("Path: userSettings:old\n\nOLD-BODY"));
        assert!(note.contains("[cut to fit"));
        assert!(skills_again(&[], &kept).is_none());
    }

    #[test]
    fn files_read_are_named_once_in_the_order_of_their_last_read() {
        let read = |p: &str| json!({"type": "tool_use", "name": "Read", "input": {"file_path": p}});
        let messages =
            [json!({"role": "assistant", "content": [read("/a"), read("/b"), read("/a")]})];
        assert_eq!(
            files_read(&messages),
            vec!["/b".to_owned(), "/a".to_owned()]
        );
    }
}
