//! Appending records to the session file as the conversation goes, keys in 2.1.235's order,
//! each conversational record chained to the one before it by `parentUuid`.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::vocab::{timestamp, uuid};

/// What a turn the user (or a shutdown) stopped says in its place.
pub const INTERRUPTED: &str = "[Request interrupted by user]";

/// Who writes: the fields every conversational record ends with.
#[derive(Debug, Clone)]
pub struct Identity {
    pub session_id: String,
    pub cwd: String,
    pub version: String,
    pub git_branch: String,
    pub entrypoint: String,
}

/// A session file: the main loop's, or a sub-agent's sidechain. Nothing is written with
/// persistence off (`None` path).
pub struct Writer {
    path: Option<PathBuf>,
    who: Identity,
    /// A sub-agent's sidechain: its id and its agent type (`attributionAgent`).
    agent: Option<(String, String)>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The newest conversational record, the next one's parent.
    tip: Option<String>,
    /// The assistant record that carried each tool_use, by its id.
    tool_uses: std::collections::HashMap<String, String>,
    prompt_id: Option<String>,
    last_prompt: Option<String>,
    /// A fork's copied conversation, written once the first prompt is queued (2.1.235's order).
    copied: Vec<Value>,
    /// The resumed conversation stopped mid-turn: its repair is written after the next
    /// prompt's queue records.
    owes_interruption: Option<super::Interrupted>,
    /// SIGTERM arrived: what the turn writes from now on says it was ended by a shutdown.
    shutting_down: bool,
    /// The conversational records from the newest answer's first on: what a compaction keeps.
    since_answer: Vec<String>,
}

/// The records a compaction wrote.
pub struct Compaction {
    /// The summary's record, the anchor the kept records hang from.
    pub summary: String,
}

impl Writer {
    pub fn new(path: Option<PathBuf>, who: Identity) -> Writer {
        Writer {
            path,
            who,
            agent: None,
            state: Mutex::new(State::default()),
        }
    }

    /// A sub-agent's sidechain (`<session>/subagents/agent-<id>.jsonl`): records marked
    /// `isSidechain` with the agent's id, its answers attributed to its type, its prompt under
    /// the launching prompt's id; it goes on from the file's last record when there is one (a
    /// resumed agent).
    pub fn sidechain(
        path: Option<PathBuf>,
        who: Identity,
        (agent_id, agent_type): (&str, &str),
        prompt_id: Option<String>,
    ) -> Writer {
        let tip = path.as_deref().and_then(super::resume::tip);
        Writer {
            path,
            who,
            agent: Some((agent_id.to_owned(), agent_type.to_owned())),
            state: Mutex::new(State {
                tip,
                prompt_id,
                ..State::default()
            }),
        }
    }

    /// Continues the chain of a resumed or forked conversation from its last record.
    pub fn continue_from(&self, tip: Option<String>, records: &[Value]) {
        let mut state = self.state();
        state.tip = tip;
        for r in records.iter().filter(|r| r["type"] == "assistant") {
            for block in r["message"]["content"].as_array().into_iter().flatten() {
                if let (Some(id), Some(uuid)) = (block["id"].as_str(), r["uuid"].as_str()) {
                    state.tool_uses.insert(id.to_owned(), uuid.to_owned());
                }
            }
        }
        // What a compaction would keep: from the first record of the newest answer on.
        let answer = |r: &Value| (r["type"] == "assistant").then(|| r["message"]["id"].clone());
        if let Some(last) = records.iter().rposition(|r| answer(r).is_some()) {
            let id = answer(&records[last]);
            let mut first = last;
            while first > 0 && answer(&records[first - 1]) == id {
                first -= 1;
            }
            state.since_answer = records[first..]
                .iter()
                .filter_map(|r| r["uuid"].as_str().map(str::to_owned))
                .collect();
        }
    }

    /// Records of another session copied in as they are but for their session id (a fork),
    /// after the next prompt's queue records.
    pub fn copy(&self, records: &[Value]) {
        self.state().copied = records
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if r.get("sessionId").is_some() {
                    r["sessionId"] = json!(self.who.session_id);
                }
                r
            })
            .collect();
    }

    /// The resumed conversation stopped mid-turn: the next prompt is preceded by the meta note
    /// to continue and the synthetic answer to it, as 2.1.235 records its repair.
    pub fn owe_interruption(&self, kind: super::Interrupted) {
        self.state().owes_interruption = Some(kind);
    }

    /// The repair itself, under the prompt that follows it: the note to continue (a turn, not
    /// a bare prompt, was left), then the synthetic answer.
    fn interruption(&self, kind: super::Interrupted, prompt_id: &Option<String>) {
        if kind == super::Interrupted::Turn {
            self.continue_note(prompt_id);
        }
        self.synthetic_answer();
    }

    fn continue_note(&self, prompt_id: &Option<String>) {
        let mut head = self.user_head(
            prompt_id,
            json!([{"type": "text", "text": super::resume::CONTINUE}]),
        );
        head.insert("isMeta".into(), json!(true));
        self.chained(head, Map::new());
    }

    fn synthetic_answer(&self) {
        let mut head = Map::new();
        head.insert("type".into(), json!("assistant"));
        let mut tail = Map::new();
        tail.insert("message".into(), json!({
            "diagnostics": null, "id": uuid(), "container": null, "model": "<synthetic>", "role": "assistant",
            "stop_details": null, "stop_reason": "stop_sequence", "stop_sequence": "", "type": "message",
            "usage": {"output_tokens_details": null, "input_tokens": 0, "output_tokens": 0,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                      "service_tier": null, "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
                      "inference_geo": null, "iterations": null, "speed": null},
            "content": [{"type": "text", "text": super::resume::NO_RESPONSE}], "context_management": null,
        }));
        tail.insert("isApiErrorMessage".into(), json!(false));
        self.chained(head, tail);
    }

    /// A prompt: queued and taken, the user record, then each reminder it went with. A
    /// sidechain's prompt is its first message: not queued, under the launching prompt's id.
    pub fn prompt(&self, content: &[Value], reminders: &[String], mode: &str) {
        let text = content
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let message_content = match content {
            [only] if only["type"] == "text" => json!(only["text"]),
            _ => json!(content),
        };
        let mut tail = Map::new();
        if self.agent.is_none() {
            self.queued(&text);
            let copied = std::mem::take(&mut self.state().copied);
            for r in &copied {
                self.append(r);
            }
            let owed = {
                let mut state = self.state();
                state.prompt_id = Some(uuid());
                state.last_prompt = Some(text);
                state
                    .owes_interruption
                    .take()
                    .map(|kind| (kind, state.prompt_id.clone()))
            };
            if let Some((kind, prompt_id)) = owed {
                self.interruption(kind, &prompt_id);
            }
            tail.insert("permissionMode".into(), json!(mode));
            tail.insert("promptSource".into(), json!("sdk"));
        }
        let prompt_id = self.state().prompt_id.clone();
        let head = self.user_head(&prompt_id, json!(message_content));
        self.chained(head, tail);
        self.reminders(reminders);
    }

    /// The opening keys of a user record: its prompt, its agent (a sidechain's), its message.
    fn user_head(&self, prompt_id: &Option<String>, content: Value) -> Map<String, Value> {
        let mut head = Map::new();
        head.insert("promptId".into(), json!(prompt_id));
        self.agent_id(&mut head);
        head.insert("type".into(), json!("user"));
        head.insert(
            "message".into(),
            json!({"role": "user", "content": content}),
        );
        head
    }

    /// A sidechain's records name their agent right after the keys that open them.
    fn agent_id(&self, head: &mut Map<String, Value>) {
        if let Some((id, _)) = &self.agent {
            head.insert("agentId".into(), json!(id));
        }
    }

    /// Each reminder as an attachment record, after what it went with.
    pub fn reminders(&self, reminders: &[String]) {
        let data: Vec<Value> = reminders
            .iter()
            .map(|r| super::attachment::of_reminder(r))
            .collect();
        self.attachments(&data);
    }

    /// Attachment records of the data given (2.1.235's kinds), after what they went with.
    pub fn attachments(&self, data: &[Value]) {
        for attachment in data {
            let mut head = Map::new();
            self.agent_id(&mut head);
            head.insert("attachment".into(), attachment.clone());
            head.insert("type".into(), json!("attachment"));
            self.chained(head, Map::new());
        }
    }

    /// An answer: one record a content block, as 2.1.235 keeps them.
    pub fn assistant(&self, message: &Value, request_id: Option<&str>) {
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        self.state().since_answer.clear();
        for block in blocks {
            let mut m = message.clone();
            m["content"] = json!([block]);
            let mut head = Map::new();
            self.agent_id(&mut head);
            head.insert("message".into(), m);
            head.insert("requestId".into(), json!(request_id));
            if let Some((_, agent_type)) = &self.agent {
                head.insert("attributionAgent".into(), json!(agent_type));
            }
            head.insert("type".into(), json!("assistant"));
            // A model that thinks at an effort has it kept with each answer (recorded).
            let mut tail = Map::new();
            if crate::api::wire::adaptive_thinking(message["model"].as_str().unwrap_or_default()) {
                tail.insert("effort".into(), json!("high"));
            }
            let uuid = self.chained(head, tail);
            if let (Some(id), Some(uuid)) = (block["id"].as_str(), uuid) {
                self.state().tool_uses.insert(id.to_owned(), uuid);
            }
        }
    }

    /// The records from the newest answer on, which a compaction keeps as they are.
    pub fn kept_since_last_answer(&self) -> Vec<String> {
        self.state().since_answer.clone()
    }

    /// A compaction: the boundary (no parent; its logical parent the newest record) with
    /// `metadata` in 2.1.235's keys, then the summary's user record, the conversation's new root.
    pub fn compact_boundary(&self, metadata: &Value, summary: &str, kept: &[String]) -> Compaction {
        let summary_id = uuid();
        let boundary_id = uuid();
        let tip = self.state().tip.clone();
        let kept_json = json!(kept);
        let meta = json!({
            "trigger": metadata["trigger"], "preTokens": metadata["pre_tokens"],
            "durationMs": metadata["duration_ms"],
            "preservedSegment": {"headUuid": kept.first(), "anchorUuid": summary_id, "tailUuid": kept.last()},
            "preservedMessages": {"anchorUuid": summary_id, "uuids": kept_json, "allUuids": kept_json},
            "postTokens": metadata["post_tokens"],
            "cumulativeDroppedTokens": metadata["cumulative_dropped_tokens"],
        });
        let mut record = Map::new();
        record.insert("parentUuid".into(), Value::Null);
        record.insert("logicalParentUuid".into(), json!(tip));
        record.insert("isSidechain".into(), json!(self.agent.is_some()));
        record.insert("type".into(), json!("system"));
        record.insert("subtype".into(), json!("compact_boundary"));
        record.insert("content".into(), json!("Conversation compacted"));
        record.insert("isMeta".into(), json!(false));
        record.insert("timestamp".into(), json!(timestamp()));
        record.insert("uuid".into(), json!(boundary_id));
        record.insert("level".into(), json!("info"));
        record.insert("compactMetadata".into(), meta);
        self.who(&mut record);
        self.append(&Value::Object(record));
        self.state().tip = Some(boundary_id);
        let prompt_id = self.state().prompt_id.clone();
        let mut head = self.user_head(&prompt_id, json!(summary));
        head.insert("isVisibleInTranscriptOnly".into(), json!(true));
        head.insert("isCompactSummary".into(), json!(true));
        self.chained_as(summary_id.clone(), head, Map::new());
        Compaction {
            summary: summary_id,
        }
    }

    /// A line the user sent, queued and taken (before its records, as 2.1.235 writes them); the
    /// session's last prompt from now on.
    pub fn queued(&self, line: &str) {
        self.state().last_prompt = Some(line.to_owned());
        self.append(
            &json!({"type": "queue-operation", "operation": "enqueue", "timestamp": timestamp(),
                            "sessionId": self.who.session_id, "content": line}),
        );
        self.append(
            &json!({"type": "queue-operation", "operation": "dequeue", "timestamp": timestamp(),
                            "sessionId": self.who.session_id}),
        );
    }

    /// A command the user ran that the model did not see being run (`/compact`): its caveat,
    /// the command and what it printed, as user records.
    pub fn local_command(&self, records: &[Value]) {
        let prompt_id = self.state().prompt_id.clone();
        for (i, block) in records.iter().enumerate() {
            let text = block["text"].as_str().unwrap_or_default().trim_end();
            let mut head = self.user_head(&prompt_id, json!(text));
            if i == 0 {
                head.insert("isMeta".into(), json!(true));
            }
            self.chained(head, Map::new());
        }
    }

    /// SIGTERM arrived: the records the ending turn still writes are marked so.
    pub fn shutting_down(&self) {
        self.state().shutting_down = true;
    }

    /// The note a turn SIGTERM ended leaves (`text`: while its request streamed, or while a
    /// tool ran), as 2.1.235 records it.
    pub fn interrupted_by_shutdown(&self, text: &str) {
        let prompt_id = self.state().prompt_id.clone();
        let head = self.user_head(&prompt_id, json!([{"type": "text", "text": text}]));
        let mut tail = Map::new();
        tail.insert("interruptedByShutdown".into(), json!(true));
        self.chained(head, tail);
    }

    /// A tool's result: its block and the structured result a host was told (none in a
    /// sidechain, as 2.1.235 keeps it), and why it did not run when it did not (`denial`: the
    /// event's `non_execution_kind`).
    pub fn tool_result(&self, block: &Value, structured: Option<&Value>, denial: Option<&str>) {
        let id = block["tool_use_id"].as_str().unwrap_or_default();
        let (prompt_id, source, shutting_down) = {
            let state = self.state();
            (
                state.prompt_id.clone(),
                state.tool_uses.get(id).cloned(),
                state.shutting_down,
            )
        };
        let head = self.user_head(&prompt_id, json!([block]));
        let mut tail = Map::new();
        if let Some(structured) = structured {
            tail.insert("toolUseResult".into(), structured.clone());
        }
        if let Some(kind) = denial {
            tail.insert("toolDenialKind".into(), json!(kind));
        }
        tail.insert("sourceToolAssistantUUID".into(), json!(source));
        if shutting_down {
            tail.insert("interruptedByShutdown".into(), json!(true));
        }
        self.chained(head, tail);
    }

    /// The session's title, as the small model named it.
    pub fn ai_title(&self, title: &str) {
        self.append(
            &json!({"type": "ai-title", "aiTitle": title, "sessionId": self.who.session_id}),
        );
    }

    /// The session's last prompt and where its conversation ends, as the session closes (a
    /// sidechain has no such record).
    pub fn close(&self) {
        let (last, tip) = {
            let state = self.state();
            (state.last_prompt.clone(), state.tip.clone())
        };
        let Some(last) = last else { return };
        self.append(
            &json!({"type": "last-prompt", "lastPrompt": last, "leafUuid": tip,
                            "sessionId": self.who.session_id}),
        );
    }

    /// A conversational record: chained to the tip, `head`'s keys, then the record's own
    /// `uuid` and `timestamp`, `tail`'s keys, and who wrote it. Returns its uuid.
    fn chained(&self, head: Map<String, Value>, tail: Map<String, Value>) -> Option<String> {
        self.chained_as(uuid(), head, tail)
    }

    /// [`Self::chained`] under an id chosen before.
    fn chained_as(
        &self,
        id: String,
        head: Map<String, Value>,
        tail: Map<String, Value>,
    ) -> Option<String> {
        let mut record = Map::new();
        {
            let mut state = self.state();
            record.insert("parentUuid".into(), json!(state.tip));
            state.tip = Some(id.clone());
            state.since_answer.push(id.clone());
        }
        record.insert("isSidechain".into(), json!(self.agent.is_some()));
        record.extend(head);
        record.insert("uuid".into(), json!(id));
        record.insert("timestamp".into(), json!(timestamp()));
        record.extend(tail);
        self.who(&mut record);
        self.append(&Value::Object(record));
        Some(id)
    }

    /// The keys that close every conversational record: who wrote it, where.
    fn who(&self, record: &mut Map<String, Value>) {
        record.insert("userType".into(), json!("external"));
        record.insert("entrypoint".into(), json!(self.who.entrypoint));
        record.insert("cwd".into(), json!(self.who.cwd));
        record.insert("sessionId".into(), json!(self.who.session_id));
        record.insert("version".into(), json!(self.who.version));
        record.insert("gitBranch".into(), json!(self.who.git_branch));
    }

    /// One line at the end of the file; a file that cannot be written loses the record, never
    /// the session (2.1.235 goes on likewise).
    fn append(&self, record: &Value) {
        let Some(path) = &self.path else { return };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let line = format!("{record}\n");
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An answer as the session file keeps it: the whole message with its final stop reason and
/// its own usage, in 2.1.235's key order.
pub fn kept(m: &crate::api::Message) -> Value {
    let mut usage = crate::api::Usage::default();
    usage.add(m);
    json!({
        "id": m.id, "type": "message", "role": "assistant", "model": m.model, "content": m.content,
        "stop_reason": m.stop_reason, "stop_sequence": null, "usage": usage.json(), "stop_details": null,
    })
}

/// The branch 2.1.235 names: the current one, or `HEAD` when there is none (not a repository,
/// a detached head).
pub fn git_branch(cwd: &std::path::Path) -> String {
    match crate::worktree::git::run(cwd, &["rev-parse", "--abbrev-ref", "HEAD"]) {
        Ok(out) if out.ok() && !out.stdout.trim().is_empty() => out.stdout.trim().to_owned(),
        _ => "HEAD".into(),
    }
}
