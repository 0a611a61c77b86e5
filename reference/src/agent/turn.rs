//! One prompt's loop: the request is assembled from the current state every time (the MCP
//! catalog a request carries is the one applied when the answer before it ended, so a catalog
//! that changes during a tool round applies from the request after next), streamed, its
//! tool_uses run through the pipeline, their results paired back, until the model ends its turn,
//! the user stops it at a question, or a limit ends it.

use std::time::Instant;

use serde_json::{json, Value};

use super::prompt;
use super::session::Session;
use crate::api::wire::{self, Role};
use crate::api::{tally, ApiError, Usage};
use crate::brief;
use crate::config::Config;
use crate::context;
use crate::events::Output;
use crate::hooks::tool::Verdict;
use crate::mcp::{self, McpRuntime, McpTool};
use crate::permissions::Decision;
use crate::tools::{self, Tool, ToolContext, ToolResult};
use crate::vocab::{uuid, Access, Mode, INTERRUPTED_FOR_TOOL};

/// The counters of one prompt.
pub struct Turn<'s, 'a> {
    session: &'s mut Session<'a>,
    usage: Usage,
    api_ms: u64,
    turns: u64,
    /// User messages this prompt added (each tool result is one, as is each note the client
    /// adds): 2.1.235's `num_turns` is one more than this.
    users: u64,
    denials: Vec<Value>,
    /// The index of this prompt's user message (Brief's turn-end check looks after it).
    since: usize,
    /// The MCP catalogs the next request carries, taken when the last answer ended.
    next_mcp_tools: Option<Vec<McpTool>>,
    /// A Stop hook sent the model back to work in this prompt (`stop_hook_active`).
    stop_hook_active: bool,
    /// This round's MCP calls' hook notes, for the round's reminders.
    hook_notes: Vec<String>,
    /// The newest answer's stop reason (an interrupted turn's result reports it).
    last_stop: Option<String>,
    /// `--json-schema`: the turn was told once to call StructuredOutput; its calls refused.
    structured_nudged: bool,
    structured_misses: u64,
    /// The answer StructuredOutput took, for the result's `structured_output`.
    structured_output: Option<Value>,
    /// The model this turn went on after overload (`--fallback-model`); the next prompt starts
    /// on the session's own again (recorded: sdk.invocation/fallback-next-prompt).
    fallen_back: Option<String>,
    /// When the prompt's first request went out (ms since the epoch).
    first_sent_ms: Option<u64>,
}

/// How the result event ends a prompt.
struct ResultFields {
    subtype: &'static str,
    is_error: bool,
    terminal_reason: &'static str,
    stop_reason: Option<String>,
    text: Option<String>,
    errors: Option<String>,
}

impl<'s, 'a> Turn<'s, 'a> {
    pub fn new(session: &'s mut Session<'a>) -> Self {
        let since = session.messages.len().saturating_sub(1);
        Turn {
            session,
            usage: Usage::default(),
            api_ms: 0,
            turns: 0,
            users: 0,
            denials: Vec::new(),
            since,
            next_mcp_tools: None,
            stop_hook_active: false,
            hook_notes: Vec::new(),
            last_stop: None,
            structured_nudged: false,
            structured_misses: 0,
            structured_output: None,
            fallen_back: None,
            first_sent_ms: None,
        }
    }

    /// Runs the prompt to its result and returns the exit status it stands for.
    pub async fn run(mut self) -> i32 {
        loop {
            let s = &mut *self.session;
            match super::compact::before_request(s).await {
                super::compact::Before::Blocked => return self.blocked(),
                super::compact::Before::Compacted => self.users += 1,
                super::compact::Before::Send => {}
            }
            let s = &mut *self.session;
            // Seed 002 line 207: the loop rebuilds tools at the request boundary, and the boundary
            // of a request that carries tool results is the end of the answer that asked for
            // them. A `list_changed` a tool call sets off therefore never reaches the request
            // carrying that call's result, whatever the timing (2.1.235 reads its table after
            // the tool round instead, so there the refresh races the read).
            let mcp_tools = self
                .next_mcp_tools
                .take()
                .unwrap_or_else(|| s.mcp.current_tools());
            // LSP registers once a language server does: it is offered from the second request on.
            let offered = tools::builtin(s.offer(self.turns >= 1 && s.ctx.lsp.has_servers()));
            s.ctx.tool_search.refresh(&offered, &mcp_tools, &s.messages);
            let tools = s.ctx.tool_search.request_tools(&offered, &mcp_tools);
            let mut config = s.effective_config();
            if let Some(model) = &self.fallen_back {
                config.to_mut().model.clone_from(model);
            }
            let body = request_body(&config, tools, &s.messages);
            let out = &s.out;
            let mcp = s.mcp;
            let term = s.term.clone();
            let streaming = term.streaming();
            let partials = s.config.include_partial_messages;
            if partials {
                out.event(&out.requesting());
            }
            let asked_at = std::time::Instant::now();
            self.first_sent_ms.get_or_insert_with(crate::vocab::now_ms);
            let mut first_event = true;
            let send = s.client.send_streaming(
                &body,
                |message, index, request_id| {
                    let event = out.assistant(message, index, request_id);
                    out.event(&Output::with_mcp_meta(event, |name| {
                        let tool = mcp_tools.iter().find(|t| t.wire_name == name)?;
                        let server = mcp.server_display_name(&tool.server)?;
                        Some((crate::events::display_tool_name(&tool.name), server))
                    }))
                },
                |event| {
                    // 2.1.235 passes on every event but the keep-alive `ping`.
                    if partials && event["type"] != "ping" {
                        let ttft = std::mem::take(&mut first_event)
                            .then(|| asked_at.elapsed().as_millis() as u64);
                        out.event(&out.stream_event(event, ttft));
                    }
                },
                |retry| out.event(&out.api_retry(retry)),
            );
            let answer = tokio::select! {
                answer = send => answer,
                () = term.asked() => {
                    drop(streaming);
                    return self.terminated(crate::transcript::write::INTERRUPTED, "aborted_streaming");
                }
            };
            drop(streaming);
            let s = &mut *self.session;
            s.out.rate_limits();
            if let (Err(ApiError::FallBack), Some(fallback)) = (&answer, &s.config.fallback_model) {
                let original = body["model"].as_str().unwrap_or_default();
                s.out.event(&s.out.model_fallback(original, fallback));
                self.fallen_back = Some(fallback.clone());
                continue;
            }
            self.turns += 1;
            let answer = match answer {
                Ok(answer) => answer,
                Err(error) => {
                    return api_failure(s, &error, self.users + 1);
                }
            };
            self.next_mcp_tools = Some(s.mcp.current_tools());
            self.api_ms += answer.api_ms;
            self.usage.add(&answer.message);
            s.last_total = context::reminders::answer_total(&answer.message);
            if let Some(budget) = s.config.max_budget_usd {
                // Recorded on 2.1.235 (sdk.invocation/budget): checked as each answer arrives,
                // before its tools run; reached at cost == budget.
                if crate::api::tally::total_cost() >= budget {
                    let stop_reason = answer.message.stop_reason.clone();
                    s.messages.push(answer.message.as_history());
                    return self.finish(ResultFields {
                        subtype: "error_max_budget_usd",
                        is_error: true,
                        terminal_reason: "budget_exhausted",
                        stop_reason,
                        text: None,
                        errors: Some(format!(
                            "Reached maximum budget (${})",
                            crate::json::js_number(budget)
                        )),
                    });
                }
            }
            s.messages.push(answer.message.as_history());
            if let Some(file) = &s.out.transcript {
                file.assistant(
                    &crate::transcript::write::kept(&answer.message),
                    answer.request_id.as_deref(),
                );
            }
            let stop_reason = answer.message.stop_reason.clone();
            self.last_stop.clone_from(&stop_reason);
            let tool_uses: Vec<Value> = answer.message.tool_uses().cloned().collect();
            // Brief mode: a turn that ends without SendUserMessage gets one meta message and goes on.
            if tool_uses.is_empty()
                && s.enforce_brief
                && !brief::turn_answered_or_reminded(&s.messages, self.since + 1)
            {
                let text = brief::turn_end_message();
                s.out.event(&s.out.synthetic_user(&text));
                self.users += 1;
                s.messages
                    .push(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
                continue;
            }
            // `--json-schema`: a turn that ends without StructuredOutput is told to call it,
            // once (recorded: 2.1.235 then accepts a second text answer as it is).
            if tool_uses.is_empty()
                && s.config.json_schema.is_some()
                && !std::mem::replace(&mut self.structured_nudged, true)
            {
                let text = crate::tools::structured_output::ENFORCE;
                s.out.event(&s.out.synthetic_user(text));
                self.users += 1;
                s.messages
                    .push(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
                continue;
            }
            if tool_uses.is_empty() {
                let text = answer.message.text();
                s.ctx.hooks.message_display(&s.ctx.hook_session(), &text);
                if let Some(feedback) = self.stop_hooks(&text) {
                    // A Stop hook blocked the stop: its feedback is the next user message, and
                    // the host hears once per prompt that a Stop hook answered so.
                    let s = &mut *self.session;
                    let feedback = format!("Stop hook feedback:\n{feedback}");
                    s.out.event(&s.out.synthetic_user(&feedback));
                    if !std::mem::replace(&mut self.stop_hook_active, true) {
                        s.out.event(&s.out.notification(
                            "stop-hook-error",
                            "Stop hook error occurred \u{b7} ctrl+o to see",
                        ));
                    }
                    self.users += 1;
                    s.messages.push(
                        json!({"role": "user", "content": [{"type": "text", "text": feedback}]}),
                    );
                    continue;
                }
                return self.finish(ResultFields {
                    subtype: "success",
                    is_error: false,
                    terminal_reason: "completed",
                    stop_reason,
                    text: Some(answer.message.text()),
                    errors: None,
                });
            }
            let term = self.session.term.clone();
            let tools_running = term.tools(self.session.ctx.cancel.clone());
            let denials_before = self.denials.len();
            let (mut blocks, interrupted) = self.run_tools(&tool_uses, &offered, &mcp_tools).await;
            drop(tools_running);
            let s = &mut *self.session;
            if interrupted && term.requested() {
                // A call the shutdown stopped is no permission denial (2.1.235 reports none).
                self.denials.truncate(denials_before);
                // The answer's stop reason is the turn's newest (`last_stop`).
                return self.terminated(INTERRUPTED_FOR_TOOL, "aborted_tools");
            }
            if interrupted {
                // The user stopped the turn: the results wait for the next prompt, with a note.
                s.out.event(&s.out.synthetic_text(INTERRUPTED_FOR_TOOL));
                self.users += 1;
                s.pending = blocks;
                s.pending
                    .push(json!({"type": "text", "text": INTERRUPTED_FOR_TOOL}));
                if let Some(terminal) = &s.out.terminal {
                    terminal.line("  ⎿  Interrupted · tell the agent what to do instead");
                }
                return self.finish(ResultFields {
                    subtype: "error_during_execution",
                    is_error: true,
                    terminal_reason: "aborted_tools",
                    stop_reason,
                    text: None,
                    errors: Some("[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use".into()),
                });
            }
            if let Some(end) = self.structured_round(&tool_uses, &blocks, stop_reason.clone()) {
                let s = &mut *self.session;
                s.messages.push(json!({"role": "user", "content": blocks}));
                return self.finish(end);
            }
            let notes = std::mem::take(&mut self.hook_notes);
            let s = &mut *self.session;
            let reminders = round_reminders(s, &offered, notes, &mut blocks);
            if let Some(file) = &s.out.transcript {
                file.reminders(&reminders);
            }
            s.messages.push(json!({"role": "user", "content": blocks}));
            if std::mem::take(&mut s.ctx.hook_stop) {
                // A hook answered `continue: false`: the calls ran, and the session ends here.
                return self.finish(ResultFields {
                    subtype: "success",
                    is_error: false,
                    terminal_reason: "hook_stopped",
                    stop_reason,
                    text: Some(String::new()),
                    errors: None,
                });
            }
            let max_turns = s.config.max_turns;
            if max_turns.is_some_and(|max| self.turns + 1 > max) {
                self.turns += 1;
                return self.finish(ResultFields {
                    subtype: "error_max_turns",
                    is_error: true,
                    terminal_reason: "max_turns",
                    stop_reason,
                    text: None,
                    errors: Some(format!(
                        "Reached maximum number of turns ({})",
                        max_turns.unwrap_or_default()
                    )),
                });
            }
        }
    }

    /// A round with StructuredOutput calls: one that succeeded ends the turn with its input as
    /// the answer (no further request, as 2.1.235); the 5th refused one ends it as an error.
    fn structured_round(
        &mut self,
        tool_uses: &[Value],
        results: &[Value],
        stop_reason: Option<String>,
    ) -> Option<ResultFields> {
        use crate::tools::structured_output::NAME;
        for call in tool_uses.iter().filter(|t| t["name"] == NAME) {
            let result = results.iter().find(|r| r["tool_use_id"] == call["id"])?;
            if result["is_error"] == true {
                self.structured_misses += 1;
                continue;
            }
            let answer = call["input"].clone();
            let text = answer.to_string();
            self.structured_output = Some(answer);
            return Some(ResultFields {
                subtype: "success",
                is_error: false,
                terminal_reason: "completed",
                stop_reason,
                text: Some(text),
                errors: None,
            });
        }
        let limit = crate::limits::STRUCTURED_OUTPUT_ATTEMPTS.get();
        (self.structured_misses >= limit).then(|| ResultFields {
            subtype: "error_max_structured_output_retries",
            is_error: true,
            terminal_reason: "structured_output_retry_exhausted",
            stop_reason,
            text: None,
            errors: Some(format!(
                "Failed to provide valid structured output after {limit} attempts"
            )),
        })
    }

    /// The conversation is past the size a request may have and nothing compacted it: no request
    /// goes out, and the turn ends as 2.1.235 ends it (compact.auto/disabled).
    fn blocked(self) -> i32 {
        let s = &*self.session;
        let text = "Prompt is too long";
        let mut shown = s.out.synthetic_answer(text, "stop_sequence");
        shown["error"] = json!("invalid_request");
        shown["is_api_error_message"] = json!(true);
        s.out.event(&shown);
        self.finish(ResultFields {
            subtype: "success",
            is_error: true,
            terminal_reason: "blocking_limit",
            stop_reason: Some("stop_sequence".into()),
            text: Some(text.into()),
            errors: None,
        })
    }

    /// The Stop hooks when the model ends its turn: the feedback of a hook that blocks the stop.
    fn stop_hooks(&self, last_message: &str) -> Option<String> {
        let ctx = &self.session.ctx;
        ctx.hooks.stop(
            &ctx.hook_session(),
            ctx.permissions.mode.as_str(),
            self.stop_hook_active,
            last_message,
        )
    }

    /// Runs this turn's tool_uses in order; their result blocks (what tools added after them
    /// included), and whether the user stopped the turn at one of them.
    async fn run_tools(
        &mut self,
        tool_uses: &[Value],
        offered: &[&'static dyn Tool],
        mcp_tools: &[McpTool],
    ) -> (Vec<Value>, bool) {
        let s = &mut *self.session;
        let mut blocks = Vec::new();
        let mut batch = Vec::new();
        let mut interrupted = false;
        for tool_use in tool_uses {
            let name = tool_use["name"].as_str().unwrap_or_default();
            let id = tool_use["id"].as_str().unwrap_or_default();
            if interrupted {
                // Calls after the one the user stopped at do not run.
                let result = rejected(id);
                s.out.event(&s.out.user_tool_result(
                    &result.block(),
                    &result.structured,
                    result.meta,
                ));
                self.users += 1;
                blocks.push(result.block());
                continue;
            }
            if let Some(tool) = mcp_tools.iter().find(|t| t.wire_name == name) {
                let McpCall {
                    block,
                    structured,
                    denied,
                    notes,
                } = mcp_call(s.mcp, tool, tool_use, &mut s.ctx).await;
                // A hook's refusal has no event, and its result says why the call did not run.
                let mut meta = None;
                if let Some(event) = &denied {
                    match event {
                        Some(message) => s
                            .out
                            .event(&s.out.permission_denied(name, id, message, None)),
                        None => meta = Some("permission-rule"),
                    }
                    self.denials.push(denial(tool_use));
                }
                for message in std::mem::take(&mut s.ctx.hook_messages) {
                    s.out.event(&s.out.informational(&message, "notice"));
                }
                s.out
                    .event(&s.out.user_tool_result(&block, &structured, meta));
                self.users += 1;
                batch.push(crate::hooks::tool::batch_entry(tool_use, &block["content"]));
                blocks.push(block);
                // What its PostToolUse hooks add joins the round's reminders, first (2.1.235 puts
                // it right after a result made of blocks, before the budget).
                self.hook_notes
                    .extend(notes.iter().map(|n| crate::hooks::session::reminder(n)));
                continue;
            }
            // The pipeline blocks on files, processes and the user; let the runtime know.
            let mut result = tokio::task::block_in_place(|| {
                super::heartbeat::during(&s.out, id, name, || {
                    tools::run_tool(offered, tool_use, &mut s.ctx)
                })
            });
            // A file read can bring in rules whose paths match it, appended to its result.
            if name == "Read" && result.is_error.is_none() && result.blocks.is_none() {
                let file = s
                    .ctx
                    .resolve(tool_use["input"]["file_path"].as_str().unwrap_or_default());
                for reminder in context::instructions::activate(&mut s.conditional_rules, &file) {
                    // Appended after the text without its trailing whitespace, as 2.1.235 does.
                    result.content.truncate(result.content.trim_end().len());
                    result.content.push_str("\n\n");
                    result.content.push_str(&reminder);
                }
            }
            if let Some(denied) = &result.denied {
                if let Some((message, reason)) = &denied.event {
                    let reason = reason.as_ref().map(|(kind, text)| (*kind, text.as_deref()));
                    s.out
                        .event(&s.out.permission_denied(name, id, message, reason));
                }
                let mut entry = denial(tool_use);
                entry["tool_input"] = match s.ctx.hook_input.take() {
                    Some(rewritten) => rewritten,
                    None => tools::parsed_input(offered, tool_use),
                };
                self.denials.push(entry);
            }
            if let Some(mode) = s.ctx.mode_changed.take() {
                s.out.event(&s.out.status(mode.as_str()));
            }
            for message in std::mem::take(&mut s.ctx.hook_messages) {
                s.out.event(&s.out.informational(&message, "notice"));
            }
            let host_interrupted = s
                .interrupt_probe
                .as_ref()
                .is_some_and(|control| control.take_interrupt());
            if host_interrupted && !result.interrupted {
                result = rejected(id);
                let mut entry = denial(tool_use);
                entry["tool_input"] = tools::parsed_input(offered, tool_use);
                self.denials.push(entry);
            }
            interrupted |= result.interrupted || host_interrupted;
            s.out.event(
                &s.out
                    .user_tool_result(&result.block(), &result.structured, result.meta),
            );
            self.users += 1;
            batch.push(crate::hooks::tool::batch_entry(
                tool_use,
                &result.block()["content"],
            ));
            blocks.push(result.model_block());
            // What the call adds after its result (a Read's picture note, PDF, pages) follows it
            // in the same message: one synthetic event per block, one turn in the count.
            let after = std::mem::take(&mut s.ctx.after_result);
            if !after.is_empty() {
                self.turns += 1;
                self.users += 1;
            }
            for block in after {
                let mut event = s.out.synthetic_user("");
                event["message"]["content"] = json!([block]);
                s.out.event(&event);
                blocks.push(block);
            }
        }
        if !interrupted {
            let mode = s.ctx.permissions.mode.as_str();
            s.ctx
                .hooks
                .post_tool_batch(&s.ctx.hook_session(), mode, batch);
        }
        // Task ends owed when the round's results are in, those that ended during the round
        // included, ride on its last result, as 2.1.235 drains its queue then.
        let owed = s
            .ctx
            .agents
            .as_ref()
            .map(|a| a.registry.take_notices())
            .unwrap_or_default();
        if let Some(content) = blocks.last_mut().map(|b| &mut b["content"]) {
            for notice in &owed {
                let note = crate::agents::notification_text(&notice.task);
                match content {
                    Value::Array(parts) => parts.push(json!({"type": "text", "text": note})),
                    Value::String(text) => {
                        text.push_str("\n\n");
                        text.push_str(&note);
                    }
                    _ => {}
                }
            }
        }
        // What tools added for the model after their results (a skill's body) follows them in the
        // same message; each is a turn of its own in the count.
        for text in std::mem::take(&mut s.ctx.follow_up) {
            s.out.event(&s.out.synthetic_user(&text));
            blocks.push(json!({"type": "text", "text": text}));
            self.turns += 1;
            self.users += 1;
        }
        (blocks, interrupted)
    }

    /// SIGTERM while the turn was in flight: it ends as one the user interrupted (`note` says
    /// where: the streaming request, or the round's tools, which were stopped and their calls
    /// rejected), its result is printed, the file closed, and the process exits as terminated.
    fn terminated(mut self, note: &str, terminal_reason: &'static str) -> i32 {
        let s = &mut *self.session;
        s.out.event(&s.out.synthetic_text(note));
        let file = s.out.transcript.clone();
        if let Some(file) = &file {
            file.interrupted_by_shutdown(note);
        }
        self.users += 1;
        let stop = self.last_stop.clone();
        let errors = format!(
            "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason={}",
            stop.as_deref().unwrap_or("null")
        );
        self.finish(ResultFields {
            subtype: "error_during_execution",
            is_error: true,
            terminal_reason,
            stop_reason: stop,
            text: None,
            errors: Some(errors),
        });
        if let Some(file) = file {
            file.close();
        }
        std::process::exit(super::termination::TERMINATED)
    }

    fn finish(self, f: ResultFields) -> i32 {
        let s = self.session;
        let config = s.config;
        // A loop stopped at its limit reports the requests it made; any other end the messages.
        let num_turns = if f.terminal_reason == "max_turns" {
            self.turns
        } else {
            self.users + 1
        };
        let mut r = json!({
            "is_error": f.is_error, "duration_api_ms": self.api_ms, "num_turns": num_turns, "stop_reason": f.stop_reason,
            "session_id": s.out.session_id, "total_cost_usd": self.usage.cost(&config.model), "usage": self.usage.json(),
            "modelUsage": tally::model_usage_now(), "permission_denials": self.denials,
            "terminal_reason": f.terminal_reason, "fast_mode_state": "off",
            "fast_mode_disabled_reason": crate::events::fast_mode_disabled_reason(),
        });
        if let Some(origin) = &s.origin {
            r["origin"] = origin.clone();
        }
        r["subtype"] = json!(f.subtype);
        match (&f.text, &f.errors) {
            (_, Some(error)) => r["errors"] = json!([error]),
            (Some(text), None) => {
                r["api_error_status"] = Value::Null;
                r["result"] = json!(text);
                if let Some(answer) = &self.structured_output {
                    r["structured_output"] = answer.clone();
                }
                // Latency figures the real binary reports; this agent does not measure them apart.
                // A turn the blocking limit ended sent no last request to time (2.1.235: none).
                if f.terminal_reason != "blocking_limit" {
                    r["ttft_ms"] = json!(self.api_ms);
                    r["ttft_stream_ms"] = json!(self.api_ms);
                    r["time_to_request_ms"] = json!(0);
                    // A host's message with a uuid: the result names it and when its request
                    // went out (recorded: sdk.control/cancel-message).
                    if let Some(id) = &s.prompt_uuid {
                        r["user_message_uuid"] = json!(id);
                        r["request_sent_wall_ms"] = json!(self.first_sent_ms.unwrap_or_default());
                    }
                }
            }
            (None, None) => {}
        }
        r["type"] = json!("result");
        r["duration_ms"] = json!(s.started.elapsed().as_millis() as u64);
        r["uuid"] = json!(uuid());
        s.out.finish(&r);
        if s.term.requested() {
            // The process ends after this result (SIGTERM): nothing held may stay unprinted.
            s.out.release();
        }
        if f.is_error {
            crate::exit::FAILURE
        } else {
            crate::exit::SUCCESS
        }
    }
}

/// What closes a tool round besides its results, in 2.1.235's order: MCP calls' hook notes,
/// planning mode's reminder or its end, the task-tools nudge when due, then the budget.
fn round_reminders(
    s: &mut Session,
    offered: &[&'static dyn Tool],
    hook_notes: Vec<String>,
    blocks: &mut Vec<Value>,
) -> Vec<String> {
    let planning = s.ctx.permissions.mode == Mode::Plan;
    let mut reminders = hook_notes;
    reminders.extend(context::reminders::plan_mode(&s.messages, planning));
    if context::reminders::task_nudge_on(offered.iter().map(|t| t.name())) {
        let tasks = tools::task_reminder_lines(&s.ctx);
        reminders.extend(context::reminders::task_nudge(&s.messages, &tasks));
    }
    reminders.push(s.budget.after_round(s.last_total));
    context::reminders::append_to_round(blocks, &reminders);
    tools::tool_search::note_loaded(blocks);
    reminders
}

fn denial(tool_use: &Value) -> Value {
    json!({"tool_name": tool_use["name"], "tool_use_id": tool_use["id"], "tool_input": tool_use["input"]})
}

/// The result of a call the user stopped the turn at (or that came after it).
fn rejected(id: &str) -> ToolResult {
    ToolResult::rejected(id)
}

/// An MCP call as the round reports it.
struct McpCall {
    /// The tool_result block.
    block: Value,
    /// The stream-json `tool_use_result`.
    structured: Value,
    /// A denial: with the message of its `permission_denied` event when it has one (a hook's
    /// refusal has none).
    denied: Option<Option<String>>,
    /// What the call's PostToolUse hooks add for the model.
    notes: Vec<String>,
}

/// An MCP tool call through the same stages as a built-in one: its PreToolUse hooks, the
/// permission decision, the server, its PostToolUse or PostToolUseFailure hooks.
async fn mcp_call(
    mcp: &McpRuntime,
    tool: &McpTool,
    tool_use: &Value,
    ctx: &mut ToolContext,
) -> McpCall {
    let id = tool_use["id"].as_str().unwrap_or_default();
    let error_block = |text: String| json!({"type": "tool_result", "content": text, "is_error": true, "tool_use_id": id});
    let pre =
        tokio::task::block_in_place(|| ctx.pre_tool_use(&tool.wire_name, &tool_use["input"], id));
    let input = pre.input.unwrap_or_else(|| tool_use["input"].clone());
    let access = Access::Mcp(tool.wire_name.clone());
    let decision = match pre.verdict {
        Verdict::Block(message) => {
            return McpCall {
                block: error_block(message.clone()),
                structured: json!(format!("Error: {message}")),
                denied: Some(None),
                notes: Vec::new(),
            }
        }
        Verdict::Allow => ctx.permissions.hook_allowed(&tool.wire_name, &access),
        Verdict::Ask(reason) => Decision::Ask(crate::vocab::Prompt {
            unanswered: reason,
            ..Default::default()
        }),
        Verdict::Undecided => ctx.permissions.decide(&tool.wire_name, &access),
    };
    let refused = match decision {
        Decision::Allow => None,
        Decision::Ask(prompt) => Some(prompt.unanswered),
        Decision::Refuse(refusal) => Some(refusal.message),
    };
    if let Some(message) = refused {
        return McpCall {
            block: error_block(message.clone()),
            structured: json!(format!("Error: {message}")),
            denied: Some(Some(message)),
            notes: Vec::new(),
        };
    }
    let started = Instant::now();
    let out = match mcp.call(tool, id, &input).await {
        Ok(result) => mcp::map_result(&tool.server, &tool.wire_name, &result),
        Err(e) => mcp::map_error(&e),
    };
    // The call ran: its PostToolUse or PostToolUseFailure hooks, as a built-in's.
    let took = started.elapsed();
    let name = &tool.wire_name;
    let notes = tokio::task::block_in_place(|| match out.content.as_str() {
        Some(error) if out.is_error => {
            ctx.post_tool_use_failure(name, &input, id, error, false, took)
        }
        _ => ctx.post_tool_use(name, &input, id, &out.content, took),
    });
    let block = if out.is_error {
        json!({"type": "tool_result", "content": out.content, "is_error": true, "tool_use_id": id})
    } else {
        json!({"tool_use_id": id, "type": "tool_result", "content": out.content})
    };
    McpCall {
        block,
        structured: out.structured,
        denied: None,
        notes,
    }
}

/// The request as of now: the catalog and history are read here, at assembly, and nowhere else.
pub(super) fn request_body(config: &Config, tools: Vec<Value>, messages: &[Value]) -> Value {
    let system = prompt::system_blocks(
        &config.cwd.display().to_string(),
        config.brief == brief::State::On,
        &config.system_prompt,
    );
    request_frame(config, Role::Main, system, tools, messages)
}

/// A Messages request of any loop of the session: its system blocks, tools and history, with one
/// cache breakpoint on the last block of the last message, as the real binary places it.
pub fn request_frame(
    config: &Config,
    role: Role,
    system: Value,
    tools: Vec<Value>,
    messages: &[Value],
) -> Value {
    let mut messages = messages.to_vec();
    if let Some(last) = messages
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|c| c.last_mut())
    {
        last["cache_control"] = wire::cache_control(role);
    }
    let max_tokens = wire::max_tokens(&config.model);
    let adaptive = wire::adaptive_thinking(&config.model);
    let mut body = json!({
        "model": config.model,
        "messages": messages,
        "system": system,
        "tools": tools,
        "metadata": wire::metadata(&config.session_id),
        "max_tokens": max_tokens,
        "thinking": thinking(&config.thinking, adaptive, max_tokens),
    });
    if config.thinking.disabled {
        // Recorded: without thinking the request sets temperature 1 and manages no context.
        body["temperature"] = json!(1);
    } else {
        body["context_management"] =
            json!({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]});
    }
    if adaptive {
        let effort = config.thinking.effort.as_deref().unwrap_or("high");
        body["output_config"] = json!({"effort": effort});
    }
    // Recorded on 2.1.235 (sdk.invocation/task-budget): the main loop's requests only.
    if let (Some(total), Role::Main) = (config.task_budget, role) {
        body["output_config"]["task_budget"] = json!({"type": "tokens", "total": total});
    }
    body["stream"] = json!(true);
    body
}

/// The request's `thinking`: by default all of the answer's budget but the one token it must
/// leave, or, on a model that decides for itself, `adaptive` (which a token budget does not
/// change); what the host asked for over that (recorded on 2.1.235, sdk.invocation/thinking).
fn thinking(asked: &crate::config::Thinking, adaptive: bool, max_tokens: u64) -> Value {
    let mut thinking = match (asked.disabled, adaptive) {
        (true, _) => return json!({"type": "disabled"}),
        (false, true) => json!({"type": "adaptive"}),
        (false, false) => {
            json!({"budget_tokens": asked.budget.unwrap_or(max_tokens - 1), "type": "enabled"})
        }
    };
    if let Some(display) = &asked.display {
        thinking["display"] = json!(display);
    }
    thinking
}

/// The API failed for good: a synthetic assistant message, then a result that is a `success`
/// subtype with `is_error` set, exit 1 (as the real binary ends such runs).
fn api_failure(s: &Session, error: &ApiError, turns: u64) -> i32 {
    let (out, started) = (&s.out, s.started);
    let text = error.user_text(&s.client.gateway());
    let shown = out.api_error_message(error, &text);
    out.event(&shown);
    let kind = shown["error"].as_str().unwrap_or("unknown");
    s.ctx.hooks.stop_failure(&s.ctx.hook_session(), kind, &text);
    let result = json!({
        "is_error": true, "duration_api_ms": 0, "num_turns": turns, "stop_reason": "stop_sequence",
        "session_id": out.session_id, "total_cost_usd": 0, "usage": Usage::default().json(),
        "modelUsage": tally::model_usage_now(), "permission_denials": [], "terminal_reason": "api_error",
        "fast_mode_state": "off", "fast_mode_disabled_reason": crate::events::fast_mode_disabled_reason(),
        "subtype": "success", "api_error_status": error.status(),
        "result": text, "type": "result", "duration_ms": started.elapsed().as_millis() as u64, "uuid": uuid(),
    });
    out.finish(&result);
    crate::exit::FAILURE
}
