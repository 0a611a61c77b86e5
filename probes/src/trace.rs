//! The normalized trace of a run: what the target sent and printed, with volatile values redacted
//! and long texts reduced to their length, so two targets or two versions can be diffed line by
//! line. It never holds a real binary's system prompt, reminders or tool descriptions.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use stubs::messages::{RecordedRequest, RequestKind};

use crate::outcome::RunOutcome;
use crate::wire::{self, Request};

/// Texts up to this many chars appear verbatim (our own script, fixtures, short tool messages).
const VERBATIM_MAX: usize = 200;

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
        .unwrap()
});
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-\d{2}-\d{2}([T ][0-9:.]+Z?)?").unwrap());
/// A run of letters and digits long enough to be random (a multipart boundary's tail).
static RANDOM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[0-9A-Za-z]{12,}").unwrap());
static TMP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"/tmp/[^\s\x22'`]+").unwrap());
/// The plan file 2.1.235 names at random for each session (`~/.claude/plans/<words>.md`).
static PLAN_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\.claude/plans/[a-z]+(?:-[a-z]+)*\.md").unwrap());
/// A cron job's id (8 random hex digits) where the cron tools print one: CronCreate's and
/// CronDelete's sentences, and the start of each CronList line.
static CRON_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(recurring job|one-shot task|Cancelled job) [0-9a-f]{8}\b").unwrap()
});
static CRON_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[0-9a-f]{8} \x{2014} ").unwrap());
/// The name EnterWorktree generates when given none (three words, `serene-imagining-wombat`), in
/// the worktree's directory and its branch.
static WORKTREE_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\.claude/worktrees/|worktree-)[a-z]+-[a-z]+-[a-z]+\b").unwrap());

/// An agent id (`a` and 16 hex digits), its 8-digit worktree name, and the random `ref` of a
/// SendMessage pin: fresh every run.
static AGENT_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\ba[0-9a-f]{16}\b").unwrap());
static AGENT_WORKTREE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bagent-[0-9a-f]{8}\b").unwrap());
/// A workflow task id (`w` and 8 of [0-9a-z]) where a text names a task, and a workflow run id
/// (`wf_` and a UUID's first 12 characters): fresh every run. An id alone could be a word.
static WORKFLOW_TASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(Task ID: |\(task |taskId: \\?"|task_id\\?":\\?"|stopped task: |<task-id>)w[0-9a-z]{8}\b"#).unwrap()
});
static WORKFLOW_RUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bwf_[0-9a-f]{8}-[0-9a-f]{3}\b").unwrap());
/// A task's measured duration, in its result and notification texts.
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(duration_ms(?::\s*|>))\d+").unwrap());
/// The file ReadMcpResourceTool saves a binary resource to: the time in ms, the content's index
/// and 6 random characters.
static MCP_BLOB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bmcp-resource-\d+-(\d+)-[0-9a-z]+\b").unwrap());
static PIN_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(ref\\?":\\?")[0-9a-f]{6}"#).unwrap());

/// Event keys whose values change from run to run (ids, clocks, a racy sum), or are traced on a
/// line of their own (`result`).
const VOLATILE_EVENT_KEYS: &[&str] = &[
    "session_id",
    "uuid",
    "type",
    "subtype",
    "cwd",
    "result",
    "duration_ms",
    "duration_api_ms",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    // Summed when the result prints: an agent's last request may land before or after that
    // (`agents.loop`); `modelUsage` carries each model's cost.
    "total_cost_usd",
    // A remote session's init reports how long each start-up phase took.
    "startup_timing",
];

/// Replaces run paths, UUIDs, dates, temp paths and agent ids with placeholders.
pub fn redact(run: &RunOutcome, s: &str) -> String {
    let s = crate::account::redact(&run.places.redact(s));
    let s = AGENT_ID.replace_all(&s, "{agent_id}");
    let s = AGENT_WORKTREE.replace_all(&s, "agent-{id}");
    let s = WORKFLOW_TASK.replace_all(&s, "${1}{task_id}");
    let s = WORKFLOW_RUN.replace_all(&s, "wf_{run_id}");
    let s = PIN_REF.replace_all(&s, "${1}{ref}");
    let s = MCP_BLOB.replace_all(&s, "mcp-resource-{ms}-${1}-{rand}");
    let s = DURATION.replace_all(&s, "${1}{ms}");
    let s = UUID.replace_all(&s, "{uuid}");
    let s = DATE.replace_all(&s, "{date}");
    let s = PLAN_FILE.replace_all(&s, ".claude/plans/{slug}.md");
    let s = CRON_ID.replace_all(&s, "$1 {cron-id}");
    let s = CRON_LINE.replace_all(&s, "{cron-id} \u{2014} ");
    let s = WORKTREE_NAME.replace_all(&s, "${1}{worktree-name}");
    TMP.replace_all(&s, "{tmp}").into_owned()
}

pub fn normalize(run: &RunOutcome, prompt: &str) -> String {
    let mut out = String::new();
    let events = wire::stdout_events(&run.stdout);
    match (run.exit_code, run.timed_out) {
        (Some(code), _) => writeln!(out, "exit: {code}").unwrap(),
        (None, true) => writeln!(out, "exit: killed after timeout").unwrap(),
        (None, false) => writeln!(out, "exit: killed by signal").unwrap(),
    }
    match wire::result_event(&events) {
        Some(r) => writeln!(
            out,
            "result: {} is_error={} {}",
            r["subtype"].as_str().unwrap_or("?"),
            r["is_error"].as_bool().unwrap_or(false),
            text(run, r["result"].as_str().unwrap_or(""))
        )
        .unwrap(),
        None => writeln!(out, "result: none").unwrap(),
    }
    if run.channel == crate::scenario::Channel::Pty {
        // A terminal has a screen, not events; what it asked is below, the screens are in the record.
        writeln!(out, "stdout: a terminal").unwrap();
    } else {
        stream_events(run, &events, &mut out);
    }
    asked(run, &mut out);
    if !run.stderr.trim().is_empty() {
        writeln!(out, "stderr: {}", text(run, run.stderr.trim_end())).unwrap();
    }
    requests(run, prompt, &mut out);
    out
}

/// What the target asked the user, each with the answer: the card as a terminal showed it, or
/// the input a control request carried.
fn asked(run: &RunOutcome, out: &mut String) {
    if run.asked.is_empty() {
        return;
    }
    writeln!(out, "asked:").unwrap();
    for ask in &run.asked {
        writeln!(out, "  {} → {}", ask.tool, ask.outcome).unwrap();
        for line in without_description(&redact(run, &ask.text)).lines() {
            writeln!(out, "    | {}", line.trim_end()).unwrap();
        }
    }
}

/// A generic tool card quotes the tool's own description (its prose, not a fact a check names):
/// the quoted lines above `(ctrl+o to expand description)` are kept as one placeholder.
fn without_description(card: &str) -> String {
    let lines: Vec<&str> = card.lines().collect();
    let Some(end) = lines
        .iter()
        .position(|l| l.trim() == "(ctrl+o to expand description)")
    else {
        return card.to_owned();
    };
    let start = (0..end)
        .rev()
        .take_while(|&i| lines[i].trim_start().starts_with('│'))
        .last()
        .unwrap_or(end);
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.push("   │ {tool description}".into());
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    out.join("\n")
}

/// The stream-json events: counts per kind and the key shapes each kind showed.
fn stream_events(run: &RunOutcome, events: &[Value], out: &mut String) {
    // Counts, not the interleaving: the real binary emits a tool's result while later blocks still
    // stream, so the order of assistant and user events depends on timing. Scenarios that document
    // an order check it with an `events` check. Keys are shown for each kind's first event.
    // Every key shape a kind showed, sorted: parallel results arrive in any order, and a failed
    // tool's event has a differently shaped `tool_use_result` than a successful one.
    let mut kinds: Vec<(String, usize, Vec<String>)> = Vec::new();
    for event in events {
        let kind = wire::event_kind(event);
        // A heartbeat every 30 s of a running tool: whether one fires before a tool that takes
        // about that long ends is timing, so it never enters the trace.
        if kind == "tool_progress" {
            continue;
        }
        let shape = keys(event, 2);
        match kinds.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, n, shapes)) => {
                *n += 1;
                if !shapes.contains(&shape) {
                    shapes.push(shape);
                }
            }
            None => kinds.push((kind, 1, vec![shape])),
        }
    }
    if run.network == crate::scenario::Network::Isolated {
        // In a first-party session the rate-limit event races the init event.
        kinds.sort_by_key(|(k, _, _)| k == "rate_limit_event");
    }
    let counts: Vec<String> = kinds.iter().map(|(k, n, _)| format!("{k} ×{n}")).collect();
    writeln!(out, "stdout: {}", counts.join(", ")).unwrap();
    for (kind, _, shapes) in &mut kinds {
        shapes.sort();
        writeln!(out, "  {kind} keys: {}", shapes.join(" | ")).unwrap();
    }
    // What a host reads from the session's bookends: init's declarations and the result's outcome.
    // In the order of the counts line (which is stable where the events race), each kind's first.
    for (kind, _, _) in &kinds {
        if !(kind == "system/init" || kind.starts_with("result/") || kind == "rate_limit_event") {
            continue;
        }
        let Some(event) = events.iter().find(|e| wire::event_kind(e) == *kind) else {
            continue;
        };
        // A line per key, so a difference in one value is one line of a diff.
        for (key, value) in sorted_entries(event) {
            // Any `*_ms` value is a clock reading (2.1.304 adds `first_content_frame_ms`).
            if !VOLATILE_EVENT_KEYS.contains(&key) && !key.ends_with("_ms") {
                let value = redact(run, &keys_and_values(value));
                writeln!(out, "  {kind} {key}: {value}").unwrap();
            }
        }
    }

    // `stdout_events` keeps a line that is not JSON as a string.
    let plain: Vec<&str> = events.iter().filter_map(Value::as_str).collect();
    if !plain.is_empty() {
        writeln!(out, "stdout text:").unwrap();
        for line in plain {
            writeln!(out, "  {}", redact(run, line)).unwrap();
        }
    }
}

/// The other requests, the fake servers and uploads, then each main-loop request.
fn requests(run: &RunOutcome, prompt: &str, out: &mut String) {
    let mut helpers: Vec<String> = run
        .requests
        .iter()
        .filter_map(|r| match &r.kind {
            RequestKind::Main(_) | RequestKind::Agent { .. } => None,
            RequestKind::Side(why) => Some(format!("{} {} ({why})", r.method, r.path)),
            RequestKind::Other => Some(format!("{} {}", r.method, r.path)),
        })
        .collect();
    helpers.sort();
    helpers.dedup();
    if run.network == crate::scenario::Network::Isolated {
        // A first-party session's start-up calls and side requests run in the background; which
        // of them arrive before the target exits is timing (they stay in the record).
        helpers = vec!["not traced in an isolated run (see the record)".into()];
    }
    writeln!(
        out,
        "other requests: {}",
        if helpers.is_empty() {
            "none".into()
        } else {
            helpers.join(", ")
        }
    )
    .unwrap();

    mcp_servers(run, out);
    uploads(run, out);
    design(run, out);
    site(run, out);
    project(run, out);
    token_requests(run, out);

    let requests: Vec<&RecordedRequest> = run
        .requests
        .iter()
        .filter(|r| r.main_index().is_some())
        .collect();
    conversation(run, "request", &requests, prompt, out);
    // Each second loop as a conversation of its own, in the order the loops first asked.
    let mut labels: Vec<&str> = Vec::new();
    for r in &run.requests {
        if let RequestKind::Agent { agent, .. } = &r.kind {
            if !labels.contains(&agent.as_str()) {
                labels.push(agent);
            }
        }
    }
    for label in labels {
        let loop_requests: Vec<&RecordedRequest> = run
            .requests
            .iter()
            .filter(|r| matches!(&r.kind, RequestKind::Agent { agent, .. } if agent == label))
            .collect();
        conversation(
            run,
            &format!("agent `{label}` request"),
            &loop_requests,
            prompt,
            out,
        );
    }

    if let Some(first) = requests.first() {
        writeln!(out, "tool schemas (request 1):").unwrap();
        for tool in first.body["tools"].as_array().into_iter().flatten() {
            writeln!(out, "  {}", signature(tool)).unwrap();
        }
    }
}

/// One loop's requests: tools, the system shape of the first, and each message not already shown
/// by the request before.
fn conversation(
    run: &RunOutcome,
    title: &str,
    requests: &[&RecordedRequest],
    prompt: &str,
    out: &mut String,
) {
    let mut previous: Option<(Vec<String>, &[Value])> = None;
    let mut previous_body: Vec<String> = Vec::new();
    for (i, recorded) in requests.iter().enumerate() {
        let body = &recorded.body;
        let request = Request(body);
        writeln!(out, "{title} {}:", i + 1).unwrap();
        let tools = request.tool_labels();
        match &previous {
            Some((prev_tools, _)) if *prev_tools == tools => {
                writeln!(out, "  tools: as {title} {i}").unwrap()
            }
            _ => writeln!(out, "  tools: {}", tools.join(", ")).unwrap(),
        }
        if let Some(system) = body.get("system").filter(|_| i == 0) {
            writeln!(out, "  system: {}", system_shape(system)).unwrap();
        }
        // The request line, the betas and each body key on a line of its own; from the second
        // request on, only those that changed.
        let mut shape = vec![
            format!("{} {}", recorded.method, recorded.path),
            format!(
                "betas: {}",
                recorded
                    .headers
                    .get("anthropic-beta")
                    .map_or("none", String::as_str)
            ),
        ];
        shape.extend(body_shape(body));
        for line in &shape {
            if !previous_body.contains(line) {
                writeln!(out, "  {line}").unwrap();
            }
        }
        previous_body = shape;
        let messages = request.messages();
        let skip = match &previous {
            Some((_, prev))
                if messages.len() >= prev.len() && same_history(&messages[..prev.len()], prev) =>
            {
                writeln!(out, "  messages 1-{} as {title} {i}", prev.len()).unwrap();
                prev.len()
            }
            _ => 0,
        };
        let mut tool_uses: Vec<&str> = Vec::new();
        for (m, message) in messages.iter().enumerate() {
            let role = message["role"].as_str().unwrap_or("?");
            let mut blocks = wire::blocks(message);
            if role == "assistant" {
                tool_uses = blocks.iter().filter_map(|b| b["id"].as_str()).collect();
            } else {
                // The real binary lists parallel results as they complete; order them by their
                // tool_use so a race does not change the trace (`pairing` checks the answer set).
                blocks.sort_by_key(|b| {
                    let id = b["tool_use_id"].as_str();
                    tool_uses
                        .iter()
                        .position(|u| Some(*u) == id)
                        .unwrap_or(usize::MAX)
                });
            }
            if m < skip {
                continue;
            }
            let mut rendered: Vec<String> = blocks.iter().map(|b| block(run, b, prompt)).collect();
            let appended = blocks
                .iter()
                .flat_map(|b| wire::split_appended_reminder(b["content"].as_str().unwrap_or("")).1);
            for note in appended {
                rendered.push(format!(
                    "{} appended to the last result",
                    crate::reminders::label(&redact(run, note))
                ));
            }
            writeln!(out, "  {role}: {}", rendered.join(" | ")).unwrap();
        }
        previous = Some((tools, messages));
    }
}

/// The system blocks in order: what each is (the billing header, which carries a per-build hash,
/// is a protocol line; every other block is prose) and whether it marks a cache breakpoint. Never
/// the text.
fn system_shape(system: &Value) -> String {
    let Value::Array(blocks) = system else {
        return if system.is_string() {
            "a string".into()
        } else {
            "other".into()
        };
    };
    let shapes: Vec<String> = blocks
        .iter()
        .map(|b| {
            let text = b["text"].as_str().unwrap_or("");
            let what = if text.starts_with("x-anthropic-billing-header:") {
                "billing-header"
            } else {
                "text"
            };
            match b.get("cache_control") {
                Some(c) => format!("{what} cached({})", keys_and_values(c)),
                None => what.to_owned(),
            }
        })
        .collect();
    format!("{} blocks: {}", blocks.len(), shapes.join(", "))
}

/// A request body without its messages, system and tools (traced on their own lines): a line per
/// top-level key with its value, `metadata.user_id` (a JSON string of ids) by its keys.
fn body_shape(body: &Value) -> Vec<String> {
    if !body.is_object() {
        return vec!["body: not an object".into()];
    }
    sorted_entries(body)
        .into_iter()
        .filter(|(k, _)| !matches!(*k, "messages" | "system" | "tools"))
        .map(|(k, v)| {
            let mut v = v.clone();
            if let Some(id) = v.get_mut("user_id").filter(|_| k == "metadata") {
                *id = user_id_shape(id);
            }
            format!("body {k}: {}", keys_and_values(&v))
        })
        .collect()
}

/// An object's entries sorted by key (none for anything else).
fn sorted_entries(v: &Value) -> Vec<(&str, &Value)> {
    let mut entries: Vec<(&str, &Value)> = v
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    entries.sort_by_key(|(k, _)| *k);
    entries
}

/// `metadata.user_id`: the keys of the JSON it holds, and which of them are empty.
fn user_id_shape(id: &Value) -> Value {
    match id.as_str().map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Object(ids))) => Value::String(
            ids.iter()
                .map(|(k, v)| {
                    if v.as_str() == Some("") {
                        format!("{k}=\"\"")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Some(_) => Value::String("a string".into()),
        None => Value::String(json_type(id).into()),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Sorted keys with their values, long strings by their length: `a=1 b{c="x"}`.
fn keys_and_values(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            names
                .iter()
                .map(|k| match &map[k.as_str()] {
                    inner @ Value::Object(_) => format!("{k}{{{}}}", keys_and_values(inner)),
                    inner => format!("{k}={}", keys_and_values(inner)),
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| match i {
                    Value::Object(_) => format!("{{{}}}", keys_and_values(i)),
                    _ => keys_and_values(i),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::String(s) if s.chars().count() > VERBATIM_MAX => {
            format!("({} chars)", s.chars().count())
        }
        other => other.to_string(),
    }
}

/// Histories compared without `cache_control`, whose breakpoint moves to the newest message.
fn same_history(a: &[Value], b: &[Value]) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| *k != "cache_control")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| strip(x) == strip(y))
}

fn block(run: &RunOutcome, b: &Value, prompt: &str) -> String {
    match b["type"].as_str() {
        Some("text") | None => {
            let t = b["text"].as_str().or(b.as_str()).unwrap_or("");
            if t == run.places.expand(prompt) {
                "text(prompt)".into()
            } else if t.trim_start().starts_with("<system-reminder>") {
                crate::reminders::label(&redact(run, t))
            } else {
                format!("text {}", text(run, t))
            }
        }
        Some("tool_use") => format!(
            "tool_use {} {}",
            b["id"].as_str().unwrap_or("?"),
            b["name"].as_str().unwrap_or("?")
        ),
        Some("tool_result") => {
            let mut line = format!(
                "tool_result {} {} {}",
                b["tool_use_id"].as_str().unwrap_or("?"),
                if wire::is_error(b) { "error" } else { "ok" },
                text(run, &wire::tool_result_own_text(b))
            );
            // Pictures in the result as their summaries, never their base64.
            let media = crate::media::in_result(b);
            if !media.is_empty() {
                write!(line, " [{}]", media.join(", ")).unwrap();
            }
            line
        }
        Some(other) => crate::media::summarize(b)
            .map(|m| format!("{other}({m})"))
            .unwrap_or_else(|| other.to_owned()),
    }
}

/// A short text verbatim (quoted), a long one as its length.
fn text(run: &RunOutcome, t: &str) -> String {
    let t = redact(run, t);
    if t.chars().count() <= VERBATIM_MAX {
        format!("{t:?}")
    } else {
        format!("({} chars)", t.chars().count())
    }
}

/// Sorted keys, objects expanded `depth` levels: `message{content,id}, type`.
fn keys(v: &Value, depth: usize) -> String {
    let Some(map) = v.as_object() else {
        return String::new();
    };
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    names
        .iter()
        .map(|k| match &map[k.as_str()] {
            Value::Object(inner) if depth > 1 && !inner.is_empty() => {
                format!("{k}{{{}}}", keys(&map[k.as_str()], depth - 1))
            }
            _ => k.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Name(prop*: type, …)`, `*` marking required properties: the schema's shape, never its prose.
fn signature(tool: &Value) -> String {
    let name = tool["name"].as_str().unwrap_or("?");
    let schema = &tool["input_schema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let props = schema["properties"].as_object().map(|props| {
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        names
            .iter()
            .map(|p| {
                let star = if required.contains(&p.as_str()) {
                    "*"
                } else {
                    ""
                };
                format!("{p}{star}: {}", type_of(&props[p.as_str()]))
            })
            .collect::<Vec<_>>()
            .join(", ")
    });
    format!("{name}({})", props.unwrap_or_default())
}

fn type_of(schema: &Value) -> String {
    if let Some(values) = schema["enum"].as_array() {
        return values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("|");
    }
    match &schema["type"] {
        Value::String(t) if t == "array" => format!("{}[]", type_of(&schema["items"])),
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("anyOf").is_some() => "anyOf".into(),
        _ => "any".into(),
    }
}

/// Per fake MCP server: the methods it received with their counts (sorted: concurrent messages
/// may interleave, counts do not), and the client's initialize params.
fn mcp_servers(run: &RunOutcome, out: &mut String) {
    for (name, record) in &run.mcp {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for method in record.received().filter_map(|e| e.method()) {
            match counts.iter_mut().find(|(m, _)| *m == method) {
                Some((_, n)) => *n += 1,
                None => counts.push((method, 1)),
            }
        }
        counts.sort_unstable();
        let received = if counts.is_empty() {
            "nothing".to_owned()
        } else {
            counts
                .iter()
                .map(|(m, n)| format!("{m} ×{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            out,
            "mcp {name} ({:?}): received {received}",
            record.transport
        )
        .unwrap();
        if let Some(init) = record.received().find(|e| e.method() == Some("initialize")) {
            let params = &init.msg["params"];
            writeln!(
                out,
                "  initialize: protocolVersion {} capabilities {} clientInfo {}",
                params["protocolVersion"],
                params["capabilities"],
                keys(&params["clientInfo"], 1)
            )
            .unwrap();
        }
    }
    if !run.mcp_survivors.is_empty() {
        let names: Vec<&str> = run.mcp_survivors.iter().map(|(n, _)| n.as_str()).collect();
        writeln!(out, "mcp processes left behind: {}", names.join(", ")).unwrap();
    }
}

/// The Design endpoints' requests in arrival order (the handshake's order is the behaviour), and
/// each distinct set of request headers once.
fn design(run: &RunOutcome, out: &mut String) {
    let mut header_sets: Vec<String> = Vec::new();
    // By endpoint, each in arrival order: the consent prefetch races the handshake.
    let mut ordered: Vec<&stubs::claude_ai::DesignRequest> = run.design.iter().collect();
    ordered.sort_by_key(|r| r.endpoint as u8);
    for r in ordered {
        let headers = format!(
            "accept {}, content-type {}, x-anthropic-client {}, anthropic-version {}, client-platform {}",
            r.accept.as_deref().unwrap_or("none"),
            r.content_type.as_deref().unwrap_or("none"),
            r.client.as_deref().unwrap_or("none"),
            r.anthropic_version.as_deref().unwrap_or("none"),
            if r.platform { "sent" } else { "none" },
        );
        if !header_sets.contains(&headers) {
            writeln!(out, "design headers: {headers}").unwrap();
            header_sets.push(headers);
        }
        let what = match (&r.rpc, &r.tool) {
            (Some(rpc), Some(tool)) => format!("{rpc} {tool} {}", compact(&r.arguments)),
            (Some(rpc), None) if rpc == "initialize" => format!("{rpc} {}", compact(&r.params)),
            (Some(rpc), None) => rpc.clone(),
            (None, _) => compact(&r.body),
        };
        writeln!(
            out,
            "design {:?} {} {} session={} bearer={:?} → {}",
            r.endpoint,
            r.http_method,
            // Not `redact`: a protocol version is a date that must show.
            crate::account::redact(&run.places.redact(&what)),
            r.session.as_deref().unwrap_or("none"),
            r.bearer,
            r.status
        )
        .unwrap();
    }
}

/// What the `[[site]]` hosts and the domain preflight received, in arrival order, and each
/// distinct pair of client headers once.
fn site(run: &RunOutcome, out: &mut String) {
    let mut header_sets: Vec<String> = Vec::new();
    for r in &run.site {
        let headers = format!(
            "user-agent {}, accept {}",
            r.user_agent.as_deref().unwrap_or("none"),
            r.accept.as_deref().unwrap_or("none")
        );
        if !header_sets.contains(&headers) {
            writeln!(out, "site headers: {headers}").unwrap();
            header_sets.push(headers);
        }
        writeln!(
            out,
            "site {} {} {}://{}{} → {}",
            r.kind, r.method, r.scheme, r.host, r.path, r.status
        )
        .unwrap();
    }
}

/// The Projects API's requests in arrival order (the start-up detail fetch, then the tool's), and
/// the Project afterwards when it changed: its docs by path, size and a digest prefix.
fn project(run: &RunOutcome, out: &mut String) {
    for r in &run.project {
        let mut what = vec![r.op.map_or("unknown".into(), |op| {
            serde_json::to_value(op)
                .unwrap_or_default()
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })];
        if let Some(name) = &r.names {
            what.push(name.clone());
        }
        if let Some(name) = &r.file_name {
            what.push(format!("file_name={name}"));
        }
        if let (Some(bytes), Some(sha)) = (r.content_bytes, &r.content_sha256) {
            what.push(format!("content={bytes}B sha256:{}", &sha[..12]));
        }
        if let Some(q) = &r.query {
            what.push(format!(
                "query={q:?} n={}",
                r.n.map_or("none".into(), |n| n.to_string())
            ));
        }
        let scoped = match r.scoped {
            Some(true) => " org+project ok",
            Some(false) => " WRONG org or project",
            None => "",
        };
        writeln!(
            out,
            "project {:?} {} {}{scoped} bearer={:?} → {}",
            r.transport,
            r.http_method,
            crate::account::redact(&run.places.redact(&what.join(" "))),
            r.bearer,
            r.status
        )
        .unwrap();
    }
    if let (Some(before), Some(after)) = (&run.project_seeded, &run.project_state) {
        if before != after {
            for d in &after.docs {
                writeln!(
                    out,
                    "project after: {} {}B sha256:{}",
                    d.path,
                    d.bytes,
                    &d.sha256[..12]
                )
                .unwrap();
            }
            writeln!(
                out,
                "project after: knowledge_size {}",
                after.knowledge_size
            )
            .unwrap();
        }
    }
}

/// The token endpoint's requests, in order (their shape; token values are never recorded).
fn token_requests(run: &RunOutcome, out: &mut String) {
    for t in &run.token_requests {
        writeln!(
            out,
            "oauth token: grant {} scopes [{}] refresh token {} → {}",
            t.grant_type.as_deref().unwrap_or("none"),
            t.scopes.join(" "),
            if t.refresh_token_matched {
                "the account's"
            } else if t.refresh_token_rotated {
                "a rotated one"
            } else {
                "unknown"
            },
            t.status
        )
        .unwrap();
    }
}

/// A JSON value on one line, long strings by their length.
fn compact(v: &Option<Value>) -> String {
    fn shorten(v: &Value) -> Value {
        match v {
            Value::String(s) if s.chars().count() > VERBATIM_MAX => {
                Value::String(format!("({} chars)", s.chars().count()))
            }
            Value::Array(a) => Value::Array(a.iter().map(shorten).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
            }
            other => other.clone(),
        }
    }
    v.as_ref().map_or(String::new(), |v| shorten(v).to_string())
}

/// The uploads the mock claude.ai received, sorted (parallel uploads arrive in any order), with
/// the random boundary reduced to its shape.
fn uploads(run: &RunOutcome, out: &mut String) {
    let mut lines: Vec<String> =
        run.uploads
            .iter()
            .map(|u| {
                let boundary = u.boundary.as_deref().map(|b| {
                    let b = UUID.replace_all(b, "{uuid}");
                    // Only runs with a digit: a fixed word such as `FormBoundary` stays readable.
                    RANDOM
                        .replace_all(&b, |c: &regex::Captures| {
                            if c[0].bytes().any(|b| b.is_ascii_digit()) {
                                "{random}".to_owned()
                            } else {
                                c[0].to_owned()
                            }
                        })
                        .into_owned()
                });
                format!(
                "upload {} → {}: {} bytes, part {}, type {}, boundary {}, content-length {}{}{}",
                u.filename.as_deref().map_or("?".into(), |f| format!("{f:?}")),
                u.status,
                u.size,
                u.disposition.as_deref().unwrap_or("?"),
                u.content_type.as_deref().unwrap_or("none"),
                boundary.as_deref().unwrap_or("none"),
                if u.length_declared { "declared" } else { "absent" },
                if u.bearer { "" } else { ", no bearer" },
                u.error.as_deref().map(|e| format!(", refused: {e}")).unwrap_or_default(),
            )
            })
            .collect();
    lines.sort();
    for line in lines {
        writeln!(out, "{line}").unwrap();
    }
}

#[cfg(test)]
mod mcp_blob_tests {
    #[test]
    fn a_saved_resource_file_name_loses_its_time_and_random_tail() {
        let s = "tool-results/mcp-resource-1796167740698-0-y7h8mt.png saved";
        assert_eq!(
            super::MCP_BLOB.replace_all(s, "mcp-resource-{ms}-${1}-{rand}"),
            "tool-results/mcp-resource-{ms}-0-{rand}.png saved"
        );
    }
}
