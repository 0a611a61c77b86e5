//! Thresholds the seeds do not state, recorded from the real 2.1.235 binary against the stubs
//! (where the seeds are silent, the real binary is the contract). `case` names the recording.
//! The few taken from the CLI's documentation and not yet recorded say so (`Source::Documented`).

use super::{Kind, Limit, Source, Unit};

pub const API_MAX_RETRIES_DEFAULT: Limit = Limit {
    name: "api.retry.max_retries_default",
    value: 10,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "529 forever: api_retry events report max_retries 10; CLAUDE_CODE_MAX_RETRIES overrides" },
    what: "Retries of a retryable Messages API failure (401, 429, 5xx, 529) before the run ends in an API error.",
};

pub const API_OVERLOADED_BEFORE_FALLBACK: Limit = Limit {
    name: "api.fallback.overloaded_in_a_row",
    value: 3,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "sdk.invocation/fallback-model: with --fallback-model, the third 529 in a row ends the retries (two api_retry events) and the request goes again on the fallback model",
    },
    what: "Overloaded answers in a row after which the main loop goes on, for the rest of the turn, on `--fallback-model`.",
};

pub const HOOK_COMMAND_TIMEOUT_DEFAULT: Limit = Limit {
    name: "hooks.command.timeout_default",
    value: 600_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Documented {
        note: "a command hook's default timeout, ten minutes; a recording would wait that long",
    },
    what: "How long a command hook may run when its `timeout` (seconds) does not say.",
};

pub const PRECONNECT_TIMEOUT: Limit = Limit {
    name: "api.preconnect.timeout",
    value: 10_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon parity15/request: the start-up HEAD /api/hello is aborted after 10 s",
    },
    what: "How long the start-up connection warm-up may take; its answer is never read.",
};

pub const SESSION_TITLE_MIN_PROMPT: Limit = Limit {
    name: "session.title.min_prompt",
    value: 10,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon parity15/request: `go` and `hello` get no title request; the title function returns early below 10",
    },
    what: "Shortest first prompt (trimmed) the session title is asked for.",
};

pub const API_RETRY_BASE_DELAY: Limit = Limit {
    name: "api.retry.base_delay",
    value: 500,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "529 forever: delays 574, 1018, 2477, 4273, 8011 ms",
    },
    what: "First retry delay; doubled per attempt.",
};

pub const API_RETRY_MAX_DELAY: Limit = Limit {
    name: "api.retry.max_delay",
    value: 32_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "529 forever: delays level off at 32-40 s",
    },
    what: "Cap of the doubled retry delay, before jitter.",
};

pub const API_RETRY_JITTER: Limit = Limit {
    name: "api.retry.jitter",
    value: 25,
    unit: Unit::Percent,
    kind: Kind::Limit,
    approx: true,
    source: Source::RealBinary { case: "529 forever: every delay within +25% of its base" },
    what: "Random extra delay, at most this share of the base delay; a retry-after header replaces both.",
};

pub const API_MAX_TOKENS_CLAUDE_5: Limit = Limit {
    name: "api.request.max_tokens_claude_5",
    value: 64_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "core.parameter-coverage/agent-model: the opus and fable agents' requests, max_tokens 64000 (their modelUsage maxOutputTokens too)",
    },
    what: "max_tokens of a request on a Claude 5 model (opus-5, fable-5).",
};

pub const API_MAX_TOKENS: Limit = Limit {
    name: "api.request.max_tokens",
    value: 32_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "every main-loop request body: max_tokens 32000",
    },
    what: "max_tokens of a main-loop request.",
};

pub const TOOL_RESULT_PREVIEW: Limit = Limit {
    name: "tools.result.persisted_preview",
    value: 2_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "Bash printing 40,001 bytes: `Preview (first 2KB)` of 2,000 chars" },
    what: "A tool result over its budget is saved to a file; the model sees this many chars, cut back to a line end.",
};

pub const CRON_MAX_JOBS: Limit = Limit {
    name: "cron.max_jobs",
    value: 50,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "exp.cron-7: the 51st CronCreate → `Too many scheduled jobs (max 50). Cancel one first.`",
    },
    what: "CronCreate refuses a job when this many (durable and session-only together) are visible.",
};

pub const CRON_NEXT_MATCH_STEPS: Limit = Limit {
    name: "cron.next_match_steps",
    value: 527_040,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle MBr: the next-match walk gives up after 527040 (366 × 1440) steps; exp.cron-2 `0 0 30 2 *`",
    },
    what: "Steps of the next-match walk (a step skips an unmatched month, day, hour or minute) before an expression counts as never matching.",
};

pub const CRON_LIST_PROMPT_WIDTH: Limit = Limit {
    name: "cron.list.prompt_width",
    value: 80,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "exp.cron-3: a 100-char prompt listed as 79 chars and `…`, an 80-char one whole",
    },
    what: "CronList shows each prompt's first line cut to this many columns.",
};

pub const CRON_ONE_SHOT_MIN_EARLY: Limit = Limit {
    name: "cron.one_shot.min_early",
    value: 0,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle STe (the local fallback config): oneShotFloorMs 0",
    },
    what: "The least a :00/:30 one-shot fires early; the job's id share spreads it up to the 90 s maximum.",
};

pub const CRON_CACHE_LEAD: Limit = Limit {
    name: "cron.cache_lead",
    value: 15_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle STe (the local fallback config): cacheLeadMs 15000, applied by F$n to `*/N * * * *`",
    },
    what: "An every-N-minutes job whose period is the cache window fires this long before the period has passed since its last fire, instead of the id-based delay.",
};

pub const CRON_CACHE_LEAD_PERIOD: Limit = Limit {
    name: "cron.cache_lead.period",
    value: 300_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle N$n = 300000: the cache lead applies when period ≥ 5 min and period − lead < 5 min",
    },
    what: "The period (5 minutes) the cache lead is for.",
};

pub const AGENTS_MAX_SPAWN_DEPTH: Limit = Limit {
    name: "agents.max_spawn_depth",
    value: 3,
    unit: Unit::Levels,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "agents.launch-checks: a loop at this depth no longer gets the Agent tool (bundle default 3; CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH=1 withdraws it from the first child)",
    },
    what: "Nesting depth of agent loops (the session's own is 0) from which the Agent tool is withdrawn.",
};

pub const AGENTS_MAX_CONCURRENT: Limit = Limit {
    name: "agents.max_concurrent",
    value: 20,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "agents.launch-checks: bundle default 20; CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS=1 refuses a second running agent",
    },
    what: "Background agents running at once before a launch is refused.",
};

pub const TOOL_HEARTBEAT_INTERVAL: Limit = Limit {
    name: "tools.heartbeat.interval",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.upload-reasons__timeout, projects.transports__timeout-org: one tool_progress heartbeat, elapsed_time_seconds 30",
    },
    what: "How often a tool still running tells the host it is alive (`tool_progress` with `heartbeat`); the Agent tool does not.",
};

pub const TASK_OUTPUT_TIMEOUT_DEFAULT: Limit = Limit {
    name: "agents.task_output.timeout_default",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "TaskOutput schema in tools[]: timeout default 30000",
    },
    what: "How long a blocking TaskOutput waits for the task to end by default.",
};

pub const TASK_OUTPUT_TIMEOUT_MAX: Limit = Limit {
    name: "agents.task_output.timeout_max",
    value: 600_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "TaskOutput schema in tools[]: timeout maximum 600000",
    },
    what: "Longest wait a TaskOutput may ask for.",
};

pub const SEND_MESSAGE_SUMMARY_MAX: Limit = Limit {
    name: "agents.send_message.summary_max",
    value: 200,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "SendMessage schema in tools[]: summary maxLength 200",
    },
    what: "Longest summary a SendMessage may carry.",
};

pub const REMINDER_TOKEN_BUDGET: Limit = Limit {
    name: "reminders.total_tokens.budget",
    value: 15_000_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "core.text-turn: first message `<total_tokens>15000000 tokens left`; core.tool-error-pairing: 14999975 after a 25-token turn",
    },
    what: "The `<total_tokens>` reminder's budget: at each prompt it is whole again, after each tool round less the last answer's input, cache and output tokens since the prompt.",
};

pub const TASK_REMINDER_TURNS_SINCE_USE: Limit = Limit {
    name: "reminders.task_tools.turns_since_use",
    value: 10,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "workflow.validation, tools.read-media__pdf: the task-tools reminder rides on the 10th tool round's result",
    },
    what: "Assistant turns without TaskCreate or TaskUpdate before the task-tools reminder is due.",
};

pub const TASK_REMINDER_TURNS_BETWEEN: Limit = Limit {
    name: "reminders.task_tools.turns_between",
    value: 10,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.read-media__pdf: one reminder in 11 tool rounds",
    },
    what: "Assistant turns between two task-tools reminders.",
};

pub const PLAN_REMINDER_PROMPTS_BETWEEN: Limit = Limit {
    name: "reminders.plan_mode.prompts_between",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.plan-mode: one plan-mode reminder, on the round of EnterPlanMode; the bundle's TURNS_BETWEEN_ATTACHMENTS",
    },
    what: "User prompts after a plan-mode reminder before the next one is due, while plan mode lasts.",
};

pub const PLAN_REMINDER_FULL_EVERY: Limit = Limit {
    name: "reminders.plan_mode.full_every",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "the bundle's FULL_REMINDER_EVERY_N_ATTACHMENTS: the 1st, 6th, 11th … plan-mode reminder is the full one",
    },
    what: "Every how many plan-mode reminders the full text comes again (the others are short).",
};

pub const STRUCTURED_OUTPUT_ATTEMPTS: Limit = Limit {
    name: "structured_output.attempts",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "sdk.invocation/json-schema: five StructuredOutput calls that miss the schema end the run (error_max_structured_output_retries)",
    },
    what: "How many refused StructuredOutput calls a turn may make before it ends as an error.",
};

pub const ALL_REAL_BINARY: &[&Limit] = &[
    &STRUCTURED_OUTPUT_ATTEMPTS,
    &HOOK_COMMAND_TIMEOUT_DEFAULT,
    &REMOTE_AUTOCOMPACT_EFFECTIVE_WINDOW,
    &REMOTE_AUTOCOMPACT_THRESHOLD,
    &PLAN_REMINDER_PROMPTS_BETWEEN,
    &PLAN_REMINDER_FULL_EVERY,
    &REMINDER_TOKEN_BUDGET,
    &TASK_REMINDER_TURNS_SINCE_USE,
    &TASK_REMINDER_TURNS_BETWEEN,
    &AGENTS_MAX_SPAWN_DEPTH,
    &AGENTS_MAX_CONCURRENT,
    &TOOL_HEARTBEAT_INTERVAL,
    &TASK_OUTPUT_TIMEOUT_DEFAULT,
    &TASK_OUTPUT_TIMEOUT_MAX,
    &SEND_MESSAGE_SUMMARY_MAX,
    &API_MAX_RETRIES_DEFAULT,
    &API_OVERLOADED_BEFORE_FALLBACK,
    &API_RETRY_BASE_DELAY,
    &API_RETRY_MAX_DELAY,
    &API_RETRY_JITTER,
    &API_MAX_TOKENS,
    &API_MAX_TOKENS_CLAUDE_5,
    &PRECONNECT_TIMEOUT,
    &SESSION_TITLE_MIN_PROMPT,
    &TOOL_RESULT_PREVIEW,
    &READ_MAX_FILE_BYTES,
    &READ_MAX_TOKENS,
    &READ_TOKEN_COUNT_SHARE,
    &READ_MAX_CHARS_PER_TOKEN,
    &BASH_DEFAULT_TIMEOUT,
    &BASH_MAX_TIMEOUT,
    &MCP_STDIO_EXIT_WAIT,
    &MCP_STDIO_KILL_WAIT,
    &JS_TIMER_MAX_MS,
    &MCP_TOOL_CALL_TIMEOUT,
    &MCP_TOOL_CALL_TIMEOUT_MIN,
    &GREP_DEFAULT_HEAD_LIMIT,
    &GLOB_MAX_RESULTS,
    &GLOB_RESULT_BUDGET,
    &TOOLS_ASK_USER_QUESTIONS_MIN,
    &TOOLS_ASK_USER_QUESTIONS_MAX,
    &DESIGN_CATALOG_SUMMARY_MAX,
    &DESIGN_VALIDATE_ECHO_MAX,
    &DESIGN_GRANT_NAME_MAX,
    &DESIGN_GRANT_URL_MAX,
    &DESIGN_HTTP_DEFAULT_TIMEOUT,
    &DESIGN_SYNC_LIST_MAX_ITEMS,
    &DESIGN_SYNC_PATH_MAX_LEN,
    &DESIGN_SYNC_NAME_MAX_LEN,
    &DESIGN_SYNC_CARD_TEXT_MAX_LEN,
    &DESIGN_SYNC_GROUP_MAX_LEN,
    &DESIGN_SYNC_COUNT_MAX,
    &DESIGN_SYNC_RESULT_BUDGET,
    &DESIGN_SYNC_RPC_TIMEOUT,
    &DESIGN_SYNC_GET_FILE_CAP,
    &DESIGN_SYNC_LOCAL_FILE_MAX,
    &DESIGN_SYNC_LIST_FILES_MAX_PAGES,
    &DESIGN_SYNC_GLOB_MAX_WILDCARDS,
    &TOOL_RESULT_PERSIST_CEILING,
    &PROJECTS_CONTEXT_FETCH_TIMEOUT,
    &PROJECTS_CONTEXT_LIST_MAX,
    &PROJECTS_CONTEXT_CONFIG_CHARS,
    &PROJECTS_ERROR_BODY_CHARS,
    &TASKS_RESULT_BUDGET,
    &TASKS_SUBJECT_BACKFILL_MAX,
    &TASKS_SUBJECT_WORD_CUT_MIN,
    &TASKS_LOCK_RETRIES,
    &TASKS_LOCK_MIN_WAIT,
    &TASKS_LOCK_MAX_WAIT,
    &TASKS_LOCK_STALE,
    &WORKTREE_NAME_MAX,
    &WORKTREE_GIT_TIMEOUT,
    &CRON_MAX_JOBS,
    &CRON_NEXT_MATCH_STEPS,
    &CRON_LIST_PROMPT_WIDTH,
    &CRON_ONE_SHOT_MIN_EARLY,
    &CRON_CACHE_LEAD,
    &CRON_CACHE_LEAD_PERIOD,
    &WORKFLOW_SCRIPT_MAX_CHARS,
    &WORKFLOW_SYNC_TIMEOUT,
    &WORKFLOW_AGENT_CAP,
    &WORKFLOW_VM_ARRAY_MAX,
    &WORKFLOW_CONCURRENCY_MAX,
    &WORKFLOW_CONCURRENCY_MIN,
    &WORKFLOW_NOTIFY_RESULT_MAX,
    &READ_IMAGE_MAX_WIDTH,
    &READ_IMAGE_MAX_HEIGHT,
    &READ_IMAGE_MAX_BASE64_BYTES,
    &READ_IMAGE_TARGET_RAW_BYTES,
    &READ_IMAGE_BUDGET_BYTES,
    &READ_PDF_MAX_BYTES,
    &READ_PDF_EXTRACT_MAX_BYTES,
    &READ_PDF_MAX_PAGES_PER_READ,
    &READ_PDF_MAX_PAGES_WHOLE,
    &READ_PDF_RENDER_DPI,
    &READ_PDFTOPPM_TIMEOUT,
    &READ_PDFTOPPM_PROBE_TIMEOUT,
    &READ_PDFINFO_TIMEOUT,
    &TOOL_SEARCH_MAX_RESULTS_DEFAULT,
    &TOOL_SEARCH_RESULT_BUDGET,
    &MCP_RESOURCE_RESULT_BUDGET,
    &MCP_RESOURCE_BLOB_MAX_BYTES,
    &WEB_FETCH_MAX_URL_CHARS,
    &WEB_FETCH_MAX_CONTENT_BYTES,
    &WEB_FETCH_TIMEOUT,
    &WEB_FETCH_PREFLIGHT_TIMEOUT,
    &WEB_FETCH_MAX_REDIRECTS,
    &WEB_FETCH_MAX_MARKDOWN_CHARS,
    &WEB_FETCH_HTML_MAX_CHARS,
    &WEB_FETCH_CACHE_TTL,
    &WEB_FETCH_DOMAIN_CHECK_TTL,
    &WEB_FETCH_RESULT_BUDGET,
    &WEB_SEARCH_QUERY_MIN_CHARS,
    &WEB_SEARCH_MAX_USES,
    &WEB_SEARCH_SESSION_CAP_DEFAULT,
    &WEB_SEARCH_RESULT_BUDGET,
    &ARTIFACT_TITLE_MAX_CHARS,
    &ARTIFACT_TITLE_SCAN_BYTES,
    &ARTIFACT_REPLY_MAX_BYTES,
    &ARTIFACT_READ_TIMEOUT,
    &ARTIFACT_DEPLOY_TIMEOUT,
    &ARTIFACT_LIST_DEFAULT,
    &ARTIFACT_LIST_MAX,
    &ARTIFACT_LIST_WINDOW,
    &ARTIFACT_ASSET_MAX_BYTES,
    &ARTIFACT_ASSET_SVG_MAX_BYTES,
    &ARTIFACT_ASSET_LIST_PAGE,
    &REPORT_FINDINGS_MAX_ITEMS,
    &REPORT_FINDINGS_SHORT_SUMMARY_MAX,
    &REPORT_FINDINGS_CATEGORY_MAX,
    &REPORT_FINDINGS_RESULT_BUDGET,
    &SCHEDULE_WAKEUP_MIN_DELAY,
    &SCHEDULE_WAKEUP_MAX_DELAY,
    &SCHEDULE_WAKEUP_RESULT_BUDGET,
    &DIRECTORY_REQUEST_TIMEOUT,
    &DIRECTORY_PLUGIN_PAGE_TIMEOUT,
    &DIRECTORY_SKILLS_LIST_TIMEOUT,
    &DIRECTORY_PLUGIN_PAGE_SIZE,
    &DIRECTORY_PLUGIN_PAGE_CAP,
    &DIRECTORY_PLUGIN_RETRY_DELAY,
    &DIRECTORY_SCOPE_WAIT,
    &DIRECTORY_KEYWORDS_MAX,
    &DIRECTORY_KEYWORD_MAX_LEN,
    &SUGGEST_CONNECTORS_MAX,
    &SUGGEST_PLUGINS_MAX,
    &SUGGEST_PLUGIN_SKILLS_MAX,
    &SUGGEST_PLUGIN_NAME_MAX,
    &SUGGEST_DESCRIPTION_MAX,
    &SUGGEST_CONTEXT_LABEL_MAX,
    &DIRECTORY_RESULT_BUDGET,
    &LIST_CONNECTORS_RESULT_BUDGET,
    &READ_NOTIFICATIONS_RESULT_BUDGET,
    &ROLE_PICKER_RESULT_BUDGET,
    &NOTIFICATION_CONTENT_MAX,
    &NOTIFICATIONS_PENDING_MAX,
    &NOTIFICATIONS_DRAINED_KEPT,
    &NOTIFICATIONS_DRAIN_BASE,
    &NOTIFICATION_OVERHEAD,
    &NOTIFICATIONS_DRAIN_BUDGET,
    &NOTIFICATION_NUDGE_REARMS,
];

pub const DESIGN_CATALOG_SUMMARY_MAX: Limit = Limit {
    name: "design.catalog.summary_max",
    value: 140,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "bundle woS: a catalog_unchanged summary is the first sentence, cut to 140 with an ellipsis" },
    what: "ClaudeDesign catalog_unchanged: each operation's summary (first sentence of its description) is at most this long, then `…`.",
};

pub const DESIGN_VALIDATE_ECHO_MAX: Limit = Limit {
    name: "design.validate.echo_max",
    value: 60,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle M0f: an unrecognized argument or field name is echoed cut to 60 with `…`",
    },
    what:
        "ClaudeDesign input validation: an unknown argument name is quoted back at most this long.",
};

pub const DESIGN_GRANT_NAME_MAX: Limit = Limit {
    name: "design.grant.project_name_max",
    value: 60,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle moS/poS: the durable-grant card names the project cut to 60 with `…`",
    },
    what:
        "ClaudeDesign durable-grant card: the project's verified name is shown at most this long.",
};

pub const DESIGN_GRANT_URL_MAX: Limit = Limit {
    name: "design.grant.project_url_max",
    value: 200,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "bundle moS: a project URL longer than 200 fails identity verification" },
    what: "ClaudeDesign durable-grant card: a longer project URL makes the identity unverifiable (no card, per-batch plans).",
};

pub const DESIGN_HTTP_DEFAULT_TIMEOUT: Limit = Limit {
    name: "design.http.default_timeout",
    value: 15_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "bundle TXt: first-party API requests without their own timeout (design consent and grants) use 15000 ms" },
    what: "Timeout of the Design consent and grants requests (GET/POST/DELETE /v1/design/consent, /v1/design/grants).",
};

pub const TOOLS_ASK_USER_QUESTIONS_MIN: Limit = Limit {
    name: "tools.ask_user.questions_min",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon askplan ask_q0: 0 questions is refused before any prompt (zod too_small, minimum 1)",
    },
    what: "AskUserQuestion: at least this many questions in one call.",
};

pub const TOOLS_ASK_USER_QUESTIONS_MAX: Limit = Limit {
    name: "tools.ask_user.questions_max",
    value: 4,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon askplan ask_q5: 5 questions is refused before any prompt (zod too_big, maximum 4)",
    },
    what: "AskUserQuestion: at most this many questions in one call.",
};

pub const GREP_DEFAULT_HEAD_LIMIT: Limit = Limit {
    name: "grep.head_limit_default",
    value: 250,
    unit: Unit::Lines,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "recon grep/D: Grep pages content, counts and files at 250 unless head_limit says otherwise (0 = all)" },
    what: "Lines or entries a Grep result carries when head_limit is absent.",
};

pub const GLOB_MAX_RESULTS: Limit = Limit {
    name: "glob.max_results",
    value: 100,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon grep/D: Glob output schema 'truncated (limited to 100 files)'",
    },
    what: "Paths a Glob result lists before it says how many more matched.",
};

pub const GLOB_RESULT_BUDGET: Limit = Limit {
    name: "glob.result_budget",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon grep/D: Glob maxResultSizeChars 1e5",
    },
    what: "Glob result size before it is persisted and previewed.",
};

pub const MCP_STDIO_KILL_WAIT: Limit = Limit {
    name: "mcp.stdio.kill_wait",
    value: 400,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon mcp/A refresh_ignsig: SIGKILL 400 ms after SIGTERM",
    },
    what: "How long a stdio server gets after SIGTERM before SIGKILL.",
};

pub const MCP_TOOL_CALL_TIMEOUT: Limit = Limit {
    name: "mcp.tool_call.timeout",
    value: 100_000_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon mcp/A strings: MCP_TOOL_TIMEOUT default 1e8 ms",
    },
    what: "Default wall-clock limit of one tools/call (MCP_TOOL_TIMEOUT overrides).",
};

pub const MCP_TOOL_CALL_TIMEOUT_MIN: Limit = Limit {
    name: "mcp.tool_call.timeout_min",
    value: 1_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon mcp/A strings: values below 1000 ms are ignored",
    },
    what: "Smallest tools/call timeout an override can set.",
};

pub const MCP_STDIO_EXIT_WAIT: Limit = Limit {
    name: "mcp.stdio.exit_wait",
    value: 100,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "mcp.stdio-shutdown: SIGINT, then SIGTERM 101 ms later, to a server that ignores both" },
    what: "How long a stdio server gets to exit after each shutdown step (stdin closed, SIGTERM) before the next one; the seed gives the order, not the wait.",
};

pub const JS_TIMER_MAX_MS: Limit = Limit {
    name: "mcp.env_timeout.max",
    value: 2_147_483_647,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "the JavaScript timer range (2^31-1 ms) that 002:126 says positive overrides are clamped to" },
    what: "Largest MCP timeout an environment override can set.",
};

pub const READ_MAX_FILE_BYTES: Limit = Limit {
    name: "tools.read.max_file_bytes",
    value: 262_144,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "Read of a 300 KB file: `exceeds maximum allowed size (256KB)`; 262,144 bytes pass" },
    what: "Largest file Read returns without a limit; larger ones are refused (the check is skipped when limit is given).",
};

pub const READ_MAX_TOKENS: Limit = Limit {
    name: "tools.read.max_tokens",
    value: 25_000,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon read-tokens): Oqb=25000, dmt().maxTokens; MaxFileReadTokenExceededError",
    },
    what: "Most tokens a Read returns: a whole-file read past it shows a first page, a ranged one is refused.",
};

pub const READ_TOKEN_COUNT_SHARE: Limit = Limit {
    name: "tools.read.token_count_share",
    value: 4,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon read-tokens): aOf returns when the estimate <= maxTokens/4, else counts with count_tokens (recorded: compact.restore/large-file, 28,000 chars)",
    },
    what: "A Read whose estimate (4 characters a token, 2 for JSON) passes this share of the cap asks the API to count it.",
};

pub const READ_MAX_CHARS_PER_TOKEN: Limit = Limit {
    name: "tools.read.max_chars_per_token",
    value: 128,
    unit: Unit::CharsPerToken,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon read-tokens): u_a=128; a ranged read longer than maxTokens*128 chars is refused on the estimate",
    },
    what: "A ranged Read longer than the cap times this many characters is refused without counting.",
};

pub const BASH_DEFAULT_TIMEOUT: Limit = Limit {
    name: "bash.default_timeout",
    value: 120_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Documented {
        note: "the two-minute default",
    },
    what: "Bash command timeout when the input gives none.",
};

pub const BASH_MAX_TIMEOUT: Limit = Limit {
    name: "bash.max_timeout",
    value: 600_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Documented {
        note: "the ten-minute maximum",
    },
    what: "Largest Bash timeout honoured.",
};

pub const TOOL_RESULT_PERSIST_CEILING: Limit = Limit {
    name: "tool.result.persist_ceiling",
    value: 50_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "design.result-caps: a 95,000-char ClaudeDesign result (tool cap 100,000) was persisted as `<persisted-output>` (93KB); 40,095 chars were not",
    },
    what: "The ceiling on a tool's declared result cap before its result is persisted and previewed (2.1.235 takes the smaller): ClaudeDesign's 100,000 becomes 50,000.",
};

pub const PROJECTS_CONTEXT_FETCH_TIMEOUT: Limit = Limit {
    name: "projects.context.fetch_timeout",
    value: 5000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "bundle gEv: the attached-project context fetch races a 5000 ms timer; recorded exp.info: a detail request at start" },
    what: "The start-up fetch of the attached Project's detail for the context block is given this long; on failure the block is left out.",
};

pub const PROJECTS_CONTEXT_LIST_MAX: Limit = Limit {
    name: "projects.context.list_max",
    value: 50,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "bundle MNp/BNp: ONp = 50 entries per list, then an `… and N more` line" },
    what: "The attached-project block lists at most this many docs, files or synced sources per section.",
};

pub const PROJECTS_CONTEXT_CONFIG_CHARS: Limit = Limit {
    name: "projects.context.config_chars",
    value: 200,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle NNp: $Np = 200, a synced source's config cut with an ellipsis",
    },
    what: "A synced source's config is shown in the attached-project block up to this many chars.",
};

pub const PROJECTS_ERROR_BODY_CHARS: Limit = Limit {
    name: "projects.api.error_body_chars",
    value: 200,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case:
            "bundle fEv: a failed Projects API call's body sliced to 200; recorded exp2.search-500",
    },
    what: "A Projects API failure quotes the answer's body up to this many chars.",
};

pub const WORKTREE_NAME_MAX: Limit = Limit {
    name: "worktree.name_max",
    value: 64,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case:
            "EnterWorktree name of 65 chars: `must be 64 characters or fewer (got 65)`; 64 passes",
    },
    what: "EnterWorktree: the longest `name` of a new worktree.",
};

pub const WORKTREE_GIT_TIMEOUT: Limit = Limit {
    name: "worktree.git_timeout",
    value: 10_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle aWe: `git worktree list --porcelain` runs with timeout 1e4",
    },
    what: "EnterWorktree/ExitWorktree: the bound on each git command they run.",
};

pub const TASKS_RESULT_BUDGET: Limit = Limit {
    name: "tasks.result_budget",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13: TaskCreate, TaskGet, TaskList, TaskUpdate objects all have maxResultSizeChars 1e5",
    },
    what: "Task tool result size before it is persisted and previewed.",
};

pub const TASKS_SUBJECT_BACKFILL_MAX: Limit = Limit {
    name: "tasks.create.subject_backfill_max",
    value: 80,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13 exp.tasks-3 c_long: a 104-char description alone gives the subject cut at the last space within 80",
    },
    what: "TaskCreate without a subject: the subject is the description's first line, at most this many code points.",
};

pub const TASKS_SUBJECT_WORD_CUT_MIN: Limit = Limit {
    name: "tasks.create.subject_word_cut_min",
    value: 40,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13: bundle gtS cuts the 80-char head at its last space only when that space is past 40",
    },
    what: "A backfilled subject is cut at a word boundary only past this position; else at the hard cap.",
};

pub const TASKS_LOCK_RETRIES: Limit = Limit {
    name: "tasks.lock.retries",
    value: 30,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13 exp.tasks-2 edge_locked: a held `3.json.lock` fails the edge with `Lock file is already being held`; bundle vor retries 30",
    },
    what: "Retries to take a task file's (or the list's) lock directory before the write fails.",
};

pub const TASKS_LOCK_MIN_WAIT: Limit = Limit {
    name: "tasks.lock.min_wait",
    value: 5,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13: bundle vor minTimeout 5, doubled per retry",
    },
    what: "First wait between lock attempts; doubled each retry up to the max wait.",
};

pub const TASKS_LOCK_MAX_WAIT: Limit = Limit {
    name: "tasks.lock.max_wait",
    value: 100,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13: bundle vor maxTimeout 100",
    },
    what: "Longest wait between two lock attempts.",
};

pub const TASKS_LOCK_STALE: Limit = Limit {
    name: "tasks.lock.stale",
    value: 10_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon tasks13 exp.tasks-7: a lock directory 20 s old is taken over, a fresh one is not (proper-lockfile's default stale)",
    },
    what: "A lock directory whose mtime is older than this is abandoned and taken over.",
};

pub const WORKFLOW_SCRIPT_MAX_CHARS: Limit = Limit {
    name: "workflow.script.max_chars",
    value: 524_288,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13 exp.wf-val: tools[] Workflow.script maxLength 524288; the bundle's \"Script exceeds 524288 bytes\" for a scriptPath file",
    },
    what: "Longest workflow script, inline (the schema's maxLength) or read from scriptPath.",
};

pub const WORKFLOW_SYNC_TIMEOUT: Limit = Limit {
    name: "workflow.sync_timeout",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary { case: "recon workflow13: bundle constant for the script VM's run timeout" },
    what: "Longest stretch a workflow script may compute without awaiting (an endless loop fails the run).",
};

pub const WORKFLOW_AGENT_CAP: Limit = Limit {
    name: "workflow.agent_cap",
    value: 1000,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13: tools[] Workflow description (\"capped at 1000\") and the bundle's agent() call cap error",
    },
    what: "agent() calls one workflow run may make; the next one throws.",
};

pub const WORKFLOW_VM_ARRAY_MAX: Limit = Limit {
    name: "workflow.vm_array_max",
    value: 4096,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13: tools[] Workflow description (\"at most 4096 items\"), bundle array cap error",
    },
    what: "Items one parallel()/pipeline() call accepts; more is an error, never a silent cut.",
};

pub const WORKFLOW_CONCURRENCY_MAX: Limit = Limit {
    name: "workflow.concurrency.max",
    value: 16,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13: tools[] Workflow description (\"min(16, available CPUs - 2)\"), bundle clamp to [2, 16]",
    },
    what: "Most agent() calls of one run at once; CPUs - 2 when fewer.",
};

pub const WORKFLOW_CONCURRENCY_MIN: Limit = Limit {
    name: "workflow.concurrency.min",
    value: 2,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13: bundle clamp of CPUs - 2 to at least 2",
    },
    what: "Fewest agent() calls of one run at once, however few CPUs there are.",
};

pub const WORKFLOW_NOTIFY_RESULT_MAX: Limit = Limit {
    name: "workflow.notify.result_max",
    value: 8000,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon workflow13: bundle cut of the completion notification's <result> (the rest named in the output file)",
    },
    what: "Longest return value a workflow's completion notification carries inline.",
};

pub const READ_IMAGE_MAX_WIDTH: Limit = Limit {
    name: "tools.read.image.max_width",
    value: 2_000,
    unit: Unit::Pixels,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `maxWidth:2000`; a 3000x1500 PNG is displayed at 2000x1000",
    },
    what: "Widest picture Read hands the model; wider ones are scaled down, aspect kept, with a coordinate note.",
};

pub const READ_IMAGE_MAX_HEIGHT: Limit = Limit {
    name: "tools.read.image.max_height",
    value: 2_000,
    unit: Unit::Pixels,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `maxHeight:2000`; a 1000x2500 JPEG is displayed at 800x2000",
    },
    what: "Tallest picture Read hands the model; taller ones are scaled down, aspect kept.",
};

pub const READ_IMAGE_MAX_BASE64_BYTES: Limit = Limit {
    name: "tools.read.image.max_base64_bytes",
    value: 5_242_880,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `maxBase64Size:5242880`",
    },
    what:
        "Largest base64 of a picture passed through when it cannot be decoded; larger is an error.",
};

pub const READ_IMAGE_TARGET_RAW_BYTES: Limit = Limit {
    name: "tools.read.image.target_raw_bytes",
    value: 3_932_160,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `targetRawSize:3932160` (3/4 of the base64 limit); a 4.3 MB 1200x1200 PNG comes back as JPEG",
    },
    what: "Picture bytes above which Read recompresses (PNG, then JPEG at quality 80, 60, 40, 20).",
};

pub const READ_IMAGE_BUDGET_BYTES: Limit = Limit {
    name: "tools.read.image.budget_bytes",
    value: 512_000,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `vBr=512000`; a 1.7 MB JPEG comes back as 511,177 bytes of JPEG, a 1 MB PNG as 481,424",
    },
    what: "Per-picture byte budget after fitting: a larger picture is re-encoded as JPEG, quality searched down from 90.",
};

pub const READ_PDF_MAX_BYTES: Limit = Limit {
    name: "tools.read.pdf.max_bytes",
    value: 20_971_520,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): a 20 MiB + 1 byte PDF: `PDF file exceeds maximum allowed size of 20MB.`",
    },
    what: "Largest PDF Read sends whole as a document block.",
};

pub const READ_PDF_EXTRACT_MAX_BYTES: Limit = Limit {
    name: "tools.read.pdf.extract_max_bytes",
    value: 104_857_600,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle `k$n=104857600`: `PDF file exceeds maximum allowed size for text extraction (100MB).`",
    },
    what: "Largest PDF whose pages Read renders as pictures.",
};

pub const READ_PDF_MAX_PAGES_PER_READ: Limit = Limit {
    name: "tools.read.pdf.max_pages_per_read",
    value: 20,
    unit: Unit::Pages,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): pages \"1-21\" and \"3-\": `exceeds maximum of 20 pages per request`",
    },
    what: "Most pages one Read with `pages` may ask for; an open range counts as over it.",
};

pub const READ_PDF_MAX_PAGES_WHOLE: Limit = Limit {
    name: "tools.read.pdf.max_pages_whole",
    value: 10,
    unit: Unit::Pages,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): a 12-page PDF without pages, pdfinfo on PATH: `This PDF has 12 pages, which is too many to read at once.`",
    },
    what: "Most pages of a PDF read whole, when pdfinfo can count them (without pdfinfo there is no check).",
};

pub const READ_PDF_RENDER_DPI: Limit = Limit {
    name: "tools.read.pdf.render_dpi",
    value: 100,
    unit: Unit::Count,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle: pdftoppm -jpeg -r 100 [-f F] [-l L] FILE DIR/page",
    },
    what: "Resolution pdftoppm renders PDF pages at.",
};

pub const READ_PDFTOPPM_TIMEOUT: Limit = Limit {
    name: "tools.read.pdf.pdftoppm_timeout",
    value: 120_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle: pdftoppm run with timeout 120000",
    },
    what: "Longest a page rendering may take.",
};

pub const READ_PDFTOPPM_PROBE_TIMEOUT: Limit = Limit {
    name: "tools.read.pdf.pdftoppm_probe_timeout",
    value: 5_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle: `pdftoppm -v` with timeout 5000",
    },
    what: "Longest the check that pdftoppm is installed may take.",
};

pub const READ_PDFINFO_TIMEOUT: Limit = Limit {
    name: "tools.read.pdf.pdfinfo_timeout",
    value: 10_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon media14 (tools.read-media): bundle: pdfinfo with timeout 10000",
    },
    what: "Longest counting a PDF's pages may take.",
};

pub const TOOL_SEARCH_MAX_RESULTS_DEFAULT: Limit = Limit {
    name: "tools.tool_search.max_results_default",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon toolsearch14 exp.ts-2: ToolSearch schema `max_results` default 5; a query without it answers",
    },
    what: "Matches a keyword ToolSearch returns when max_results is not given (select ignores it).",
};

pub const TOOL_SEARCH_RESULT_BUDGET: Limit = Limit {
    name: "tools.tool_search.result_budget",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon toolsearch14: bundle: ToolSearch maxResultSizeChars 1e5",
    },
    what: "ToolSearch result size before it is persisted and previewed.",
};

pub const MCP_RESOURCE_BLOB_MAX_BYTES: Limit = Limit {
    name: "mcp.resource_tools.blob_max_bytes",
    value: 104_857_600,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon toolsearch14: bundle: persistBinaryContent refuses more than MAX_PERSIST_BINARY_BYTES (k$n=104857600) with `content is N bytes, over the M byte persist limit`",
    },
    what: "Largest binary resource ReadMcpResourceTool saves to a file; a larger one is reported, not saved.",
};

pub const MCP_RESOURCE_RESULT_BUDGET: Limit = Limit {
    name: "mcp.resource_tools.result_budget",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon toolsearch14: bundle: ListMcpResourcesTool / ReadMcpResourceTool / ReadMcpResourceDirTool maxResultSizeChars 1e5",
    },
    what: "A resource tool's result size before it is persisted and previewed.",
};

pub const WEB_FETCH_MAX_URL_CHARS: Limit = Limit {
    name: "tools.web_fetch.max_url_chars",
    value: 2_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: validateURL refuses e.length > 2000 (OBv=2000)",
    },
    what: "Longest URL WebFetch fetches; a longer one is an invalid URL.",
};

pub const WEB_FETCH_MAX_CONTENT_BYTES: Limit = Limit {
    name: "tools.web_fetch.max_content_bytes",
    value: 10_485_760,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon webfetch14 exp.webf-1: an 11,000,000-byte page is is_error `maxContentLength size of 10485760 exceeded` (bundle NBv=10485760)",
    },
    what: "Largest response body WebFetch reads.",
};

pub const WEB_FETCH_TIMEOUT: Limit = Limit {
    name: "tools.web_fetch.timeout",
    value: 60_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: the page GET's axios timeout BBv=60000; recon webfetch14 exp.webf-timeout: a page held 75 s is is_error `timeout of 60000ms exceeded` after 60 s",
    },
    what: "How long one page request may take.",
};

pub const WEB_FETCH_PREFLIGHT_TIMEOUT: Limit = Limit {
    name: "tools.web_fetch.preflight_timeout",
    value: 10_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: domain_info GET timeout FBv=1e4",
    },
    what: "How long the domain preflight may take before the check counts as failed.",
};

pub const WEB_FETCH_MAX_REDIRECTS: Limit = Limit {
    name: "tools.web_fetch.max_redirects",
    value: 10,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: getWithPermittedRedirects throws `Too many redirects (exceeded 10)` past DQp=10",
    },
    what: "Same-host redirects followed for one fetch.",
};

pub const WEB_FETCH_MAX_MARKDOWN_CHARS: Limit = Limit {
    name: "tools.web_fetch.max_markdown_chars",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: MAX_MARKDOWN_LENGTH Ysr=1e5; the page is cut with `[Content truncated due to length...]` before the helper request",
    },
    what: "Page text handed to the helper model.",
};

pub const WEB_FETCH_HTML_MAX_CHARS: Limit = Limit {
    name: "tools.web_fetch.html_max_chars",
    value: 1_048_576,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: convertHtmlToMarkdown converts e.slice(0, PQp=1048576)",
    },
    what: "HTML converted to markdown; the rest is dropped with the truncation note.",
};

pub const WEB_FETCH_CACHE_TTL: Limit = Limit {
    name: "tools.web_fetch.cache_ttl",
    value: 900_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: WebFetchCache ttl CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS ?? 900000; recon webfetch14 exp.webf-1: a second fetch of a URL sends no page request",
    },
    what: "How long a fetched page is reused without a new request.",
};

pub const WEB_FETCH_DOMAIN_CHECK_TTL: Limit = Limit {
    name: "tools.web_fetch.domain_check_ttl",
    value: 300_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: domainChecks LRU max 128, ttl 300000; recon webfetch14 exp.webf-1: one preflight for four fetches of a host",
    },
    what: "How long an allowed domain preflight is reused.",
};

pub const WEB_FETCH_RESULT_BUDGET: Limit = Limit {
    name: "tools.web_fetch.result_budget",
    value: 50_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: WebFetch maxResultSizeChars CNr=50000",
    },
    what: "WebFetch result size before it is persisted and previewed.",
};

pub const WEB_SEARCH_QUERY_MIN_CHARS: Limit = Limit {
    name: "tools.web_search.query_min_chars",
    value: 2,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon websearch14 exp.ws-1: tools[] WebSearch.query minLength 2; exp.ws-2: `a` and `` refused as zod too_small",
    },
    what: "Shortest WebSearch query; a shorter one is an InputValidationError and nothing is searched.",
};

pub const WEB_SEARCH_MAX_USES: Limit = Limit {
    name: "tools.web_search.max_uses",
    value: 8,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon websearch14 exp.ws-1: the helper request's web_search_20250305 tool has max_uses 8",
    },
    what: "Searches the API may run for one WebSearch call (the server tool's max_uses).",
};

pub const WEB_SEARCH_SESSION_CAP_DEFAULT: Limit = Limit {
    name: "tools.web_search.session_cap_default",
    value: 200,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon websearch14: bundle `CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION??200` (int, min 1, digits only); exp.ws-cap-1 refuses the 2nd call, exp.ws-cap-0 and -abc fall back",
    },
    what: "WebSearch calls one session may start (failed ones count); later calls return the budget note instead of searching.",
};

pub const WEB_SEARCH_RESULT_BUDGET: Limit = Limit {
    name: "tools.web_search.result_budget",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon websearch14: bundle WebSearch tool object maxResultSizeChars 1e5",
    },
    what: "WebSearch result size before it is persisted and previewed.",
};

pub const ARTIFACT_TITLE_MAX_CHARS: Limit = Limit {
    name: "tools.artifact.title_max",
    value: 280,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact14): Artifact title cleaner sse(), bud=280 code points",
    },
    what: "Longest artifact title, in code points, after control characters become spaces.",
};

pub const ARTIFACT_TITLE_SCAN_BYTES: Limit = Limit {
    name: "tools.artifact.title_scan",
    value: 8192,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact14): Sud=8192, the head searched for <title>",
    },
    what: "How much of the page's start is searched for its <title>.",
};

pub const ARTIFACT_REPLY_MAX_BYTES: Limit = Limit {
    name: "tools.artifact.reply_max",
    value: 4096,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact14): Artifact `text` describe: at most 4096 bytes of UTF-8",
    },
    what: "Longest comment reply, in UTF-8 bytes.",
};

pub const ARTIFACT_READ_TIMEOUT: Limit = Limit {
    name: "tools.artifact.read_timeout",
    value: 15000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact14): GET /api/frame/{slug} and comments, timeout 15000",
    },
    what: "Timeout of the artifact boot read and the comment list.",
};

pub const ARTIFACT_DEPLOY_TIMEOUT: Limit = Limit {
    name: "tools.artifact.deploy_timeout",
    value: 60000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact14): POST /api/frame/deploy/direct, timeout 60000",
    },
    what: "Timeout of an artifact publish.",
};

pub const ARTIFACT_LIST_DEFAULT: Limit = Limit {
    name: "tools.artifact.list_default",
    value: 25,
    unit: Unit::Entries,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): Artifact `limit` describe \"default 25\", WdS=25",
    },
    what: "Artifacts an Artifact `list` returns when no `limit` is given.",
};

pub const ARTIFACT_LIST_MAX: Limit = Limit {
    name: "tools.artifact.list_max",
    value: 50,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): Artifact input schema limit int min 1 max 50",
    },
    what: "Largest `limit` an Artifact `list` takes.",
};

pub const ARTIFACT_LIST_WINDOW: Limit = Limit {
    name: "tools.artifact.list_window",
    value: 200,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): GET /api/frame/frames?limit=${Enf}, Enf=200",
    },
    what: "Rows of the account's artifact listing one `list` fetches; a full window marks the result truncated.",
};

pub const ARTIFACT_ASSET_MAX_BYTES: Limit = Limit {
    name: "tools.artifact.asset_max",
    value: 20_971_520,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): hCe=20971520, the per-asset upload and read cap",
    },
    what: "Largest artifact asset uploaded or saved.",
};

pub const ARTIFACT_ASSET_SVG_MAX_BYTES: Limit = Limit {
    name: "tools.artifact.asset_svg_max",
    value: 2_097_152,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): ilS=2097152 for image/svg+xml",
    },
    what: "Largest SVG artifact asset uploaded.",
};

pub const ARTIFACT_ASSET_LIST_PAGE: Limit = Limit {
    name: "tools.artifact.asset_list_page",
    value: 50,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon artifact-assets): agent-list body limit alS=50",
    },
    what: "Assets one list_assets asks for.",
};

pub const REPORT_FINDINGS_MAX_ITEMS: Limit = Limit {
    name: "tools.report_findings.max_items",
    value: 32,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon parity15 exp.rf-1: 33 findings answer zod too_big, maximum 32; schema maxItems 32",
    },
    what: "Most findings one ReportFindings call takes.",
};

pub const REPORT_FINDINGS_SHORT_SUMMARY_MAX: Limit = Limit {
    name: "tools.report_findings.short_summary_max",
    value: 60,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "recon parity15 exp.rf-1: a 61-char short_summary answers zod too_big, maximum 60",
    },
    what: "Longest `short_summary` of a finding.",
};

pub const REPORT_FINDINGS_CATEGORY_MAX: Limit = Limit {
    name: "tools.report_findings.category_max",
    value: 40,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "every 2.1.235 tools[]: ReportFindings finding `category` maxLength 40",
    },
    what: "Longest `category` of a finding.",
};

pub const REPORT_FINDINGS_RESULT_BUDGET: Limit = Limit {
    name: "tools.report_findings.result_budget",
    value: 256,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity15): ReportFindings maxResultSizeChars 256",
    },
    what: "ReportFindings result size before it is persisted and previewed.",
};

pub const SCHEDULE_WAKEUP_MIN_DELAY: Limit = Limit {
    name: "tools.schedule_wakeup.min_delay",
    value: 60_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "every 2.1.235 tools[]: ScheduleWakeup `delaySeconds` is clamped to [60, 3600]",
    },
    what: "Shortest wait before a dynamic /loop's next tick (the tool takes seconds).",
};

pub const SCHEDULE_WAKEUP_MAX_DELAY: Limit = Limit {
    name: "tools.schedule_wakeup.max_delay",
    value: 3_600_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "every 2.1.235 tools[]: ScheduleWakeup `delaySeconds` is clamped to [60, 3600]",
    },
    what: "Longest wait before a dynamic /loop's next tick (the tool takes seconds).",
};

pub const SCHEDULE_WAKEUP_RESULT_BUDGET: Limit = Limit {
    name: "tools.schedule_wakeup.result_budget",
    value: 1000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity15): ScheduleWakeup maxResultSizeChars 1000",
    },
    what: "ScheduleWakeup result size before it is persisted and previewed.",
};

pub const DESIGN_SYNC_LIST_MAX_ITEMS: Limit = Limit {
    name: "tools.design_sync.list_max_items",
    value: 256,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.all-success tools[]: DesignSync's input_schema maxItems 256 on writes, deletes, files, paths, assets",
    },
    what: "Most entries in one DesignSync call's list (files, paths, plan patterns, asset cards).",
};

pub const DESIGN_SYNC_PATH_MAX_LEN: Limit = Limit {
    name: "tools.design_sync.path_max_len",
    value: 256,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.all-success tools[]: DesignSync's input_schema maxLength 256 on every project path; the plan check refuses longer paths",
    },
    what: "Longest project path DesignSync takes.",
};

pub const DESIGN_SYNC_NAME_MAX_LEN: Limit = Limit {
    name: "tools.design_sync.name_max_len",
    value: 200,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "designsync.write: a 201-character create_project name is refused by the schema (maximum 200)",
    },
    what: "Longest name of a new design-system project.",
};

pub const DESIGN_SYNC_CARD_TEXT_MAX_LEN: Limit = Limit {
    name: "tools.design_sync.card_text_max_len",
    value: 255,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.all-success tools[]: DesignSync's input_schema maxLength 255 on an asset card's name and subtitle",
    },
    what: "Longest name or subtitle of a Design System pane card.",
};

pub const DESIGN_SYNC_GROUP_MAX_LEN: Limit = Limit {
    name: "tools.design_sync.group_max_len",
    value: 64,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.all-success tools[]: DesignSync's input_schema maxLength 64 on an asset card's group",
    },
    what: "Longest section label of a Design System pane card.",
};

pub const DESIGN_SYNC_COUNT_MAX: Limit = Limit {
    name: "tools.design_sync.count_max",
    value: 9_007_199_254_740_991,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "brief.all-success tools[]: DesignSync's input_schema: integers bounded by JavaScript's largest safe integer",
    },
    what: "Largest integer DesignSync takes (viewport sizes, report_validate counts).",
};

pub const DESIGN_SYNC_RESULT_BUDGET: Limit = Limit {
    name: "tools.design_sync.result_budget",
    value: 300_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync maxResultSizeChars 300000",
    },
    what: "DesignSync result size before it is persisted and previewed.",
};

pub const DESIGN_SYNC_RPC_TIMEOUT: Limit = Limit {
    name: "tools.design_sync.rpc_timeout",
    value: 60_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync's RPC client: timeout 60000",
    },
    what: "How long one DesignSync RPC may take.",
};

pub const DESIGN_SYNC_GET_FILE_CAP: Limit = Limit {
    name: "tools.design_sync.get_file_cap",
    value: 262_144,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync get_file: content past 262144 bytes is cut and `truncated` set",
    },
    what: "Most bytes of one file get_file returns.",
};

pub const DESIGN_SYNC_LOCAL_FILE_MAX: Limit = Limit {
    name: "tools.design_sync.local_file_max",
    value: 12_582_912,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync write_files: a localPath file over 12582912 bytes is refused",
    },
    what: "Largest file write_files reads from disk.",
};

pub const DESIGN_SYNC_LIST_FILES_MAX_PAGES: Limit = Limit {
    name: "tools.design_sync.list_files_max_pages",
    value: 50,
    unit: Unit::Pages,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync list_files: pagination stops with an error after 50 pages",
    },
    what: "Most ListFiles pages one list_files call reads.",
};

pub const DESIGN_SYNC_GLOB_MAX_WILDCARDS: Limit = Limit {
    name: "tools.design_sync.glob_max_wildcards",
    value: 3,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon parity16/designsync): DesignSync finalize_plan: a pattern with more than 3 `*`/`**` wildcards matches nothing",
    },
    what: "Most wildcards in one plan pattern.",
};

pub const REMOTE_AUTOCOMPACT_EFFECTIVE_WINDOW: Limit = Limit {
    name: "remote.autocompact_state.effective_window",
    value: 180_000,
    unit: Unit::Tokens,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "brief.lanes/env-byoc: a remote session's autocompact_state event, claude-sonnet-4-5",
    },
    what: "The context window a remote session's opening autocompact_state reports for a 200,000-token model.",
};

pub const REMOTE_AUTOCOMPACT_THRESHOLD: Limit = Limit {
    name: "remote.autocompact_state.threshold",
    value: 167_000,
    unit: Unit::Tokens,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "brief.lanes/env-byoc: a remote session's autocompact_state event, claude-sonnet-4-5",
    },
    what: "The token count at which that autocompact_state says compaction starts.",
};

pub const DIRECTORY_REQUEST_TIMEOUT: Limit = Limit {
    name: "directories.request_timeout",
    value: 15000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): connector routes CrS=15000, plugin/skill search VrS=15000",
    },
    what: "Timeout of a connector request and of a plugin or skill search.",
};

pub const DIRECTORY_PLUGIN_PAGE_TIMEOUT: Limit = Limit {
    name: "directories.plugin_page_timeout",
    value: 10000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): list-plugins page KrS=1e4",
    },
    what: "Timeout of one list-plugins page.",
};

pub const DIRECTORY_SKILLS_LIST_TIMEOUT: Limit = Limit {
    name: "directories.skills_list_timeout",
    value: 30000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): list-skills enS=30000",
    },
    what: "Timeout of the skills listing.",
};

pub const DIRECTORY_PLUGIN_PAGE_SIZE: Limit = Limit {
    name: "directories.plugin_page_size",
    value: 100,
    unit: Unit::Entries,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): list-plugins rHf=100, `limit=100&offset=...` (tools.surface/remote-directories)",
    },
    what: "Plugins asked for per list-plugins page; the next page's offset is this much further.",
};

pub const DIRECTORY_PLUGIN_PAGE_CAP: Limit = Limit {
    name: "directories.plugin_page_cap",
    value: 20,
    unit: Unit::Pages,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): list-plugins P6a=20, 'list-plugins page cap (20) exceeded'",
    },
    what: "Most list-plugins pages one listing reads.",
};

pub const DIRECTORY_PLUGIN_RETRY_DELAY: Limit = Limit {
    name: "directories.plugin_retry_delay",
    value: 500,
    unit: Unit::Millis,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): H6n waits aHf=500 before its one repeat (tools.surface/remote-directories-faults)",
    },
    what: "Wait before a failed plugin listing is read once more.",
};

pub const DIRECTORY_SCOPE_WAIT: Limit = Limit {
    name: "directories.scope_wait",
    value: 10000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): bAi races the user:plugins expansion against WrS=1e4",
    },
    what: "Longest a plugin request waits for the login to gain user:plugins.",
};

pub const DIRECTORY_KEYWORDS_MAX: Limit = Limit {
    name: "directories.keywords_max",
    value: 8,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: every directory tool's keywords maxItems 8",
    },
    what: "Keywords one directory call takes.",
};

pub const DIRECTORY_KEYWORD_MAX_LEN: Limit = Limit {
    name: "directories.keyword_max_len",
    value: 64,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: keywords items maxLength 64 (SuggestConnectors uuids too)",
    },
    what: "Length of one keyword or connector id.",
};

pub const SUGGEST_CONNECTORS_MAX: Limit = Limit {
    name: "directories.suggest_connectors_max",
    value: 32,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: SuggestConnectors uuids maxItems 32",
    },
    what: "Connector ids one SuggestConnectors resolves.",
};

pub const SUGGEST_PLUGINS_MAX: Limit = Limit {
    name: "directories.suggest_plugins_max",
    value: 16,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: SuggestPluginInstall plugins maxItems 16",
    },
    what: "Plugins on one install card.",
};

pub const SUGGEST_PLUGIN_SKILLS_MAX: Limit = Limit {
    name: "directories.suggest_plugin_skills_max",
    value: 32,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: SuggestPluginInstall plugins[].skills maxItems 32",
    },
    what: "Skills listed for one plugin on an install card.",
};

pub const SUGGEST_PLUGIN_NAME_MAX: Limit = Limit {
    name: "directories.suggest_plugin_name_max",
    value: 256,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: pluginId, pluginName, skills[].name maxLength 256",
    },
    what: "Length of a plugin id, plugin name or skill name on an install card.",
};

pub const SUGGEST_DESCRIPTION_MAX: Limit = Limit {
    name: "directories.suggest_description_max",
    value: 1024,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: description maxLength 1024 (plugins and their skills)",
    },
    what: "Length of a description on an install card.",
};

pub const SUGGEST_CONTEXT_LABEL_MAX: Limit = Limit {
    name: "directories.suggest_context_label_max",
    value: 128,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "tools.surface/remote-directories: contextLabel maxLength 128",
    },
    what: "Length of a suggestion card's header.",
};

pub const DIRECTORY_RESULT_BUDGET: Limit = Limit {
    name: "directories.result_budget",
    value: 50000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): maxResultSizeChars 5e4 (searches, plugin and skill tools, SuggestConnectors)",
    },
    what: "Directory tool result size before it is persisted and previewed.",
};

pub const LIST_CONNECTORS_RESULT_BUDGET: Limit = Limit {
    name: "directories.list_connectors_result_budget",
    value: 300000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): ListConnectors maxResultSizeChars 3e5",
    },
    what: "ListConnectors result size before it is persisted and previewed.",
};

pub const READ_NOTIFICATIONS_RESULT_BUDGET: Limit = Limit {
    name: "onboarding.read_notifications_result_budget",
    value: 100000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): ReadNotifications maxResultSizeChars 1e5",
    },
    what: "ReadNotifications result size before it is persisted and previewed.",
};

pub const ROLE_PICKER_RESULT_BUDGET: Limit = Limit {
    name: "onboarding.role_picker_result_budget",
    value: 10000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): ShowOnboardingRolePicker maxResultSizeChars 1e4",
    },
    what: "ShowOnboardingRolePicker result size before it is persisted and previewed.",
};

pub const NOTIFICATION_CONTENT_MAX: Limit = Limit {
    name: "notifications.content_max",
    value: 87488,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): Sbf = 90000-512-2000, a larger queued_notification is refused",
    },
    what: "Longest body a queued notification may have.",
};

pub const NOTIFICATIONS_PENDING_MAX: Limit = Limit {
    name: "notifications.pending_max",
    value: 100,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): 'pending buffer full (100)'",
    },
    what: "Notifications held unread at once; more are refused.",
};

pub const NOTIFICATIONS_DRAINED_KEPT: Limit = Limit {
    name: "notifications.drained_kept",
    value: 1000,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): drainedIds keeps the last 1000 (TJv)",
    },
    what: "Read notification ids remembered, so a repeat is passed over.",
};

pub const NOTIFICATIONS_DRAIN_BASE: Limit = Limit {
    name: "notifications.drain_base",
    value: 2000,
    unit: Unit::Chars,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): a drain's budget starts used by Hbf=2000",
    },
    what: "What a drain's budget counts as used before any notification.",
};

pub const NOTIFICATION_OVERHEAD: Limit = Limit {
    name: "notifications.overhead",
    value: 512,
    unit: Unit::Chars,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): each drained notification counts its body plus Abf=512",
    },
    what: "What each notification adds to a drain's budget beyond its body.",
};

pub const NOTIFICATIONS_DRAIN_BUDGET: Limit = Limit {
    name: "notifications.drain_budget",
    value: 90000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): Tbf = 1e5-1e4; at least one is always taken",
    },
    what: "How much one ReadNotifications drains before it leaves the rest queued.",
};

pub const NOTIFICATION_NUDGE_REARMS: Limit = Limit {
    name: "notifications.nudge_rearms",
    value: 2,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (recon remote-directories): the nudge is re-armed after a turn at most kJv=2 times",
    },
    what: "Times the session is told again of notifications still unread after a turn.",
};
