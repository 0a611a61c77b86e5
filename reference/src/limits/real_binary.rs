//! Thresholds the seeds do not state, recorded from the real 2.1.235 binary against the stubs
//! (where the seeds are silent, the real binary is the contract). `case` names the recording.

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

pub const ALL_REAL_BINARY: &[&Limit] = &[
    &API_MAX_RETRIES_DEFAULT,
    &API_RETRY_BASE_DELAY,
    &API_RETRY_MAX_DELAY,
    &API_RETRY_JITTER,
    &API_MAX_TOKENS,
    &TOOL_RESULT_PREVIEW,
    &READ_MAX_FILE_BYTES,
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
    &TOOL_RESULT_PERSIST_CEILING,
    &PROJECTS_CONTEXT_FETCH_TIMEOUT,
    &PROJECTS_CONTEXT_LIST_MAX,
    &PROJECTS_CONTEXT_CONFIG_CHARS,
    &PROJECTS_ERROR_BODY_CHARS,
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

pub const BASH_DEFAULT_TIMEOUT: Limit = Limit {
    name: "bash.default_timeout",
    value: 120_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "not yet recorded; the CLI documentation's two-minute default",
    },
    what: "Bash command timeout when the input gives none.",
};

pub const BASH_MAX_TIMEOUT: Limit = Limit {
    name: "bash.max_timeout",
    value: 600_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "not yet recorded; the CLI documentation's ten-minute maximum",
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
