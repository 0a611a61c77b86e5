//! Thresholds stated by the seeds, one constant each, with file and line.

use super::{Kind, Limit, Source, Unit};

pub const DESIGN_HANDSHAKE_SHARED_INITIALIZE: Limit = Limit {
    name: "design.handshake.shared_initialize",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 69 },
    what: "Concurrent first ClaudeDesign calls share exactly one initialize (then one tools/list) via in-flight promises.",
};

pub const DESIGN_SESSION_REINIT_RETRIES: Limit = Limit {
    name: "design.session.reinit_retries",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 79 },
    what: "On 404 with a stale Mcp-Session-Id the client clears session state, re-initializes and retries the request once.",
};

pub const DESIGN_MCP_REQUEST_TIMEOUT: Limit = Limit {
    name: "design.mcp.request_timeout",
    value: 60_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 103 },
    what: "Timeout of every POST /v1/design/mcp request (initialize, tools/list, tools/call share it); written 60,000 ms.",
};

pub const DESIGN_MCP_MAX_CONTENT_LENGTH: Limit = Limit {
    name: "design.mcp.max_content_length",
    value: 2_080_000,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 104 },
    what: "Axios maxContentLength (transport response cap) for Design MCP responses; written 16 * 130,000 = 2,080,000 bytes.",
};

pub const DESIGN_AUTH_REFRESH_RACE: Limit = Limit {
    name: "design.auth.refresh_race",
    value: 5_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 106 },
    what: "After a 401 the wait for a refreshed token is raced against 5,000 ms (also written as 5 秒 in the recovery table).",
};

pub const DESIGN_AUTH_MAX_TOKEN_RETRIES: Limit = Limit {
    name: "design.auth.max_token_retries",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 106 },
    what: "After a 401 the request is retried at most once with the new token; a second 401 becomes an explicit auth error.",
};

pub const DESIGN_CONSENT_RETRY_AFTER_APPROVAL: Limit = Limit {
    name: "design.consent.retry_after_approval",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 117 },
    what: "After the user approves the consent card and consent is POSTed, the original operation is retried once.",
};

pub const DESIGN_GRANT_RETRY_AFTER_POST: Limit = Limit {
    name: "design.grant.retry_after_post",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 143 },
    what: "On needs_project_grant with an approved card the client POSTs /v1/design/grants and retries the operation once.",
};

pub const DESIGN_INPUT_OPERATION_NAME_MAX: Limit = Limit {
    name: "design.input.operation_name_max",
    value: 64,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 89,
    },
    what: "Maximum length of the operation name (pattern ^[\\w.-]+$); the table writes 1-64 chars.",
};

pub const DESIGN_INPUT_OPERATION_NAME_MIN: Limit = Limit {
    name: "design.input.operation_name_min",
    value: 1,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 264,
    },
    what: "Minimum length of the operation name.",
};

pub const DESIGN_INPUT_STRING_MAX: Limit = Limit {
    name: "design.input.string_max",
    value: 4_096,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 89 },
    what: "Cap on ordinary top-level strings and non-body array/entry fields, in UTF-8 bytes (4096 here, 4,096 in the table).",
};

pub const DESIGN_INPUT_PLAN_TOKEN_MAX: Limit = Limit {
    name: "design.input.plan_token_max",
    value: 65_536,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 89,
    },
    what: "Separate cap on the plan_token argument (65536 here, 65,536 in the table).",
};

pub const DESIGN_PLAN_MAX_WRITES: Limit = Limit {
    name: "design.plan.max_writes",
    value: 20,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 126 },
    what: "finalize_plan may list at most 20 write paths for the plan to be registered for silent allow.",
};

pub const DESIGN_PLAN_MAX_DELETES: Limit = Limit {
    name: "design.plan.max_deletes",
    value: 20,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 126 },
    what: "finalize_plan may list at most 20 delete paths for the plan to be registered for silent allow.",
};

pub const DESIGN_PLAN_PATH_MAX: Limit = Limit {
    name: "design.plan.path_max",
    value: 80,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 127,
    },
    what: "A single plan path longer than 80 chars prevents registration / silent allow.",
};

pub const DESIGN_PLAN_RENDER_BUDGET: Limit = Limit {
    name: "design.plan.render_budget",
    value: 2_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: true,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 128 },
    what: "Approximate total display budget of the plan approval card payload (written 约 2,000, i.e. about 2,000).",
};

pub const DESIGN_PLAN_MAX_TARGETS: Limit = Limit {
    name: "design.plan.max_targets",
    value: 256,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 130 },
    what: "A later operation may enumerate at most 256 targets to be matched against a plan token; more falls back to ask.",
};

pub const DESIGN_PLAN_TOKEN_TTL: Limit = Limit {
    name: "design.plan.token_ttl",
    value: 900_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 7 },
    what: "Client-side lifetime of an approved plan token: min(server expires_at, now + 900,000 ms), i.e. at most 15 minutes (900,000 ms written on lines 132/279).",
};

pub const DESIGN_CATALOG_LRU_ENTRIES: Limit = Limit {
    name: "design.catalog.lru_entries",
    value: 64,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 34 },
    what: "Served-catalog-hash memory keyed by agent id is an LRU of at most 64 entries; the oldest is evicted beyond 64.",
};

pub const DESIGN_RESULT_PREVIEW_IMAGE_MAX: Limit = Limit {
    name: "design.result.preview_image_max",
    value: 130_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 150 },
    what: "A render_preview base64 image block whose string length exceeds 130,000 chars is replaced by omitted text.",
};

pub const DESIGN_RESULT_AGGREGATE_MAX: Limit = Limit {
    name: "design.result.aggregate_max",
    value: 130_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 151 },
    what: "Aggregate character budget for mapped text/image blocks; blocks beyond it are dropped and a truncation notice appended.",
};

pub const DESIGN_TOOL_MAX_RESULT: Limit = Limit {
    name: "design.tool.max_result",
    value: 100_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 152,
    },
    what: "Tool-framework maxResultSizeChars registered for the ClaudeDesign tool.",
};

pub const PROJECTS_METHODS: Limit = Limit {
    name: "projects.methods",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Fact,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 6,
    },
    what: "Projects exposes exactly five fixed methods (info/read/search/write/delete).",
};

pub const PROJECTS_SEARCH_DEFAULT_N: Limit = Limit {
    name: "projects.search.default_n",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 169,
    },
    what: "Default number of RAG hits requested by project_search when n is omitted.",
};

pub const PROJECTS_SEARCH_MIN_N: Limit = Limit {
    name: "projects.search.min_n",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 169,
    },
    what: "Lower bound of project_search n.",
};

pub const PROJECTS_SEARCH_MAX_N: Limit = Limit {
    name: "projects.search.max_n",
    value: 15,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 169,
    },
    what: "Upper bound of project_search n.",
};

pub const PROJECTS_API_TIMEOUT: Limit = Limit {
    name: "projects.api.timeout",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 196 },
    what: "Timeout of Projects API calls on both transports (org API and remote-session chat-project).",
};

pub const PROJECTS_READ_MISSING_SUGGESTIONS_MAX: Limit = Limit {
    name: "projects.read.missing_suggestions_max",
    value: 30,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 206,
    },
    what:
        "When project_read finds no exact path it lists at most 30 available paths as suggestions.",
};

pub const PROJECTS_READ_INLINE_MAX: Limit = Limit {
    name: "projects.read.inline_max",
    value: 262_144,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 209 },
    what: "Text/extracted content up to this UTF-8 size is returned inline, larger goes to a 0600 project-doc-*.txt; written 256 KB here and 262,144 bytes in the table.",
};

pub const PROJECTS_READ_RAW_MAX: Limit = Limit {
    name: "projects.read.raw_max",
    value: 20_971_520,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 210 },
    what: "Maximum raw file-upload download size; written 20 MB on lines 210/214 and 20,971,520 bytes / 20 MiB in the table.",
};

pub const PROJECTS_READ_RAW_SIZE_MISMATCH_RETRIES: Limit = Limit {
    name: "projects.read.raw_size_mismatch_retries",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 210 },
    what: "If reported file_size_bytes differs from the decoded base64 length, the whole download is retried once, then it errors.",
};

pub const PROJECTS_READ_RAW_FILENAME_TAIL: Limit = Limit {
    name: "projects.read.raw_filename_tail",
    value: 64,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 210,
    },
    what: "Downloaded raw file names keep only safe characters and the last 64 characters.",
};

pub const PROJECTS_READ_DOWNLOAD_FILE_MODE: Limit = Limit {
    name: "projects.read.download_file_mode",
    value: 384,
    unit: Unit::PosixMode,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 53 },
    what: "Downloaded text extracts and raw files are written with owner-only mode 0600 (value is octal 0600).",
};

pub const PROJECTS_TOOL_MAX_RESULT: Limit = Limit {
    name: "projects.tool.max_result",
    value: 300_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 212,
    },
    what: "Projects tool max result size.",
};

pub const PROJECTS_TOOL_PERSISTENCE_CEILING: Limit = Limit {
    name: "projects.tool.persistence_ceiling",
    value: 300_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 212,
    },
    what:
        "Projects tool result persistence ceiling (same value as the max result, stated together).",
};

pub const PROJECTS_WRITE_LOCAL_PATH_MAX: Limit = Limit {
    name: "projects.write.local_path_max",
    value: 26_214_400,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 7 },
    what: "Hard cap on a local_path regular file uploaded by project_write; written 25 MiB and 26,214,400 bytes.",
};

pub const PROJECTS_WRITE_KNOWLEDGE_BYTES_PER_TOKEN: Limit = Limit {
    name: "projects.write.knowledge_bytes_per_token",
    value: 4,
    unit: Unit::BytesPerToken,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "000_714d699df4e9513e.txt", line: 237 },
    what: "Knowledge-budget pre-check estimates tokens as ceil(UTF-8 bytes / 4); refused if knowledge_size + estimate > max_knowledge_size.",
};

pub const PROJECTS_PATH_MIN_LEN: Limit = Limit {
    name: "projects.path.min_len",
    value: 1,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 313,
    },
    what: "Minimum length of the path argument of read/write/delete.",
};

pub const PROJECTS_PATH_MAX_LEN: Limit = Limit {
    name: "projects.path.max_len",
    value: 255,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "000_714d699df4e9513e.txt",
        line: 313,
    },
    what: "Maximum length of the path argument of read/write/delete.",
};

pub const BRIEF_ENTITLEMENT_CACHE_TTL: Limit = Limit {
    name: "brief.entitlement.cache_ttl",
    value: 300_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "001_577f39cd433b8507.txt",
        line: 182,
    },
    what:
        "Cache parameter of the tengu_kairos_brief dynamic entitlement check (written 300000 ms).",
};

pub const UPLOAD_MAX_SIZE: Limit = Limit {
    name: "upload.max_size",
    value: 31_457_280,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "001_577f39cd433b8507.txt", line: 249 },
    what: "Upload size cap of /api/oauth/file_upload, checked on stat size before reading and again on the buffer length; written 31,457,280 bytes = 30 MiB; over it -> too_large.",
};

pub const UPLOAD_MULTIPART_PARTS: Limit = Limit {
    name: "upload.multipart_parts",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "001_577f39cd433b8507.txt",
        line: 251,
    },
    what: "The upload body is a single-file multipart/form-data body (one part).",
};

pub const UPLOAD_HTTP_TIMEOUT: Limit = Limit {
    name: "upload.http_timeout",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "001_577f39cd433b8507.txt",
        line: 259,
    },
    what: "Per-request HTTP timeout of the file upload.",
};

pub const UPLOAD_RETRIES: Limit = Limit {
    name: "upload.retries",
    value: 0,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "001_577f39cd433b8507.txt",
        line: 259,
    },
    what: "There is no upload retry loop; a failure is handed back in the tool result.",
};

pub const BRIEF_TURN_END_MAX_SENTINELS: Limit = Limit {
    name: "brief.turn_end.max_sentinels",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "001_577f39cd433b8507.txt", line: 322 },
    what: "The turn-end enforcement injects the 'You ended the turn without calling SendUserMessage.' meta message at most once per turn (sentinel guard).",
};

pub const BRIEF_WORKSPACE_POLICY_ENUM_ENTRIES: Limit = Limit {
    name: "brief.workspace_policy_enum_entries",
    value: 22,
    unit: Unit::Count,
    kind: Kind::Fact,
    approx: false,
    source: Source::Seed { file: "001_577f39cd433b8507.txt", line: 379 },
    what: "The workspace policy enumeration that includes SendUserMessage has 22 entries (evidence index).",
};

pub const MCP_STDIO_MAX_LINE_BYTES: Limit = Limit {
    name: "mcp.stdio.max_line_bytes",
    value: 16_777_216,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 122 },
    what: "Cap on stdout protocol data without a newline for stdio servers; exceeding it closes the connection with an error blaming non-protocol stdout data.",
};

pub const MCP_HTTP_MAX_BODY_BYTES: Limit = Limit {
    name: "mcp.http.max_body_bytes",
    value: 16_777_216,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: true,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 124 },
    what: "Guard on HTTP/SSE bodies without an event boundary; the seed only says 'of the 16 MiB order' (16 MiB 级), the matrix says 16 MiB.",
};

pub const MCP_CONNECT_TIMEOUT: Limit = Limit {
    name: "mcp.connect.timeout",
    value: 5_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 126 },
    what: "Default connect timeout per MCP server (env-overridable; positive values clamped to the JS timer range).",
};

pub const MCP_REQUEST_TIMEOUT: Limit = Limit {
    name: "mcp.request.timeout",
    value: 30_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 126,
    },
    what: "Default ordinary MCP request / list timeout (also written 30 s for tools/list).",
};

pub const MCP_CONNECT_LOCAL_BATCH_SIZE: Limit = Limit {
    name: "mcp.connect.local_batch_size",
    value: 3,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 126,
    },
    what: "Local (stdio) servers are connected in batches of 3 by default (env-overridable).",
};

pub const MCP_CONNECT_REMOTE_BATCH_SIZE: Limit = Limit {
    name: "mcp.connect.remote_batch_size",
    value: 20,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 126,
    },
    what: "Remote servers are connected in batches of 20 by default (env-overridable).",
};

pub const MCP_AUTH_FIRST_PARTY_REFRESH_RETRIES: Limit = Limit {
    name: "mcp.auth.first_party_refresh_retries",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 134 },
    what: "A rejected first-party claude.ai token gets one refresh-and-retry; a second failure asks for /login.",
};

pub const MCP_OAUTH_CALLBACK_TIMEOUT: Limit = Limit {
    name: "mcp.oauth.callback_timeout",
    value: 300_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 139,
    },
    what: "Default timeout of the 127.0.0.1 OAuth authorization-code callback listener.",
};

pub const MCP_OAUTH_PROACTIVE_REFRESH_LEAD: Limit = Limit {
    name: "mcp.oauth.proactive_refresh_lead",
    value: 300_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 141 },
    what: "Stored tokens are proactively refreshed 300 s before expiry (written 300 s); concurrent callers share one refresh promise.",
};

pub const MCP_INITIALIZE_INSTRUCTIONS_MAX: Limit = Limit {
    name: "mcp.initialize.instructions_max",
    value: 2_048,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 161 },
    what: "Server instructions from initialize are cut to at most 2,048 chars before entering context.",
};

pub const MCP_TOOLS_LIST_MAX_RETRIES: Limit = Limit {
    name: "mcp.tools_list.max_retries",
    value: 3,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 169 },
    what: "A retryable tools/list failure is retried at most three more times (not for 4xx, invalid params, method not found, explicit timeout, page overflow).",
};

pub const MCP_TOOLS_LIST_RETRY_DELAY_1: Limit = Limit {
    name: "mcp.tools_list.retry_delay_1",
    value: 250,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 169,
    },
    what: "Delay before the first tools/list retry.",
};

pub const MCP_TOOLS_LIST_RETRY_DELAY_2: Limit = Limit {
    name: "mcp.tools_list.retry_delay_2",
    value: 500,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 169,
    },
    what: "Delay before the second tools/list retry.",
};

pub const MCP_TOOLS_LIST_RETRY_DELAY_3: Limit = Limit {
    name: "mcp.tools_list.retry_delay_3",
    value: 1_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 169,
    },
    what: "Delay before the third tools/list retry.",
};

pub const MCP_TOOLS_LIST_MAX_PAGES: Limit = Limit {
    name: "mcp.tools_list.max_pages",
    value: 20,
    unit: Unit::Pages,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 169 },
    what: "tools/list cursor pagination is followed for at most 20 pages; beyond that the result is capped/errored, never presented as complete.",
};

pub const MCP_TOOLS_DESCRIPTION_MAX: Limit = Limit {
    name: "mcp.tools.description_max",
    value: 2_048,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 177 },
    what: "Tool description / prompt text longer than 2,048 chars is truncated during schema conversion.",
};

pub const MCP_RECONNECT_BACKOFF_1: Limit = Limit {
    name: "mcp.reconnect.backoff_1",
    value: 1_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 213,
    },
    what: "First reopen interval for connections supporting subscriptions/listen.",
};

pub const MCP_RECONNECT_BACKOFF_2: Limit = Limit {
    name: "mcp.reconnect.backoff_2",
    value: 2_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "002_d01d43de1204e467.txt",
        line: 213,
    },
    what: "Second reopen interval.",
};

pub const MCP_RECONNECT_BACKOFF_3: Limit = Limit {
    name: "mcp.reconnect.backoff_3",
    value: 4_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 213 },
    what: "Third reopen interval; after the budget is exhausted reopening stops (the seed does not state an attempt count beyond these three intervals).",
};

pub const MCP_RECONNECT_GRACEFUL_REDEPLOY_WINDOW: Limit = Limit {
    name: "mcp.reconnect.graceful_redeploy_window",
    value: 5_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "002_d01d43de1204e467.txt", line: 213 },
    what: "On a graceful server close the client first leaves a 5,000 ms redeploy window before reopening.",
};

pub const MCP_HTTP_SESSION_404_RETRIES: Limit = Limit {
    name: "mcp.http.session_404_retries",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Matrix { line: 32 },
    what: "Matrix-only (not in seed 002): after a 404 for a stale Mcp-Session-Id, one fresh initialize then the request is retried once (MCP spec).",
};

pub const CTX_INCLUDE_MAX_DEPTH: Limit = Limit {
    name: "ctx.include.max_depth",
    value: 5,
    unit: Unit::Levels,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 31,
    },
    what: "@include recursion in CLAUDE.md/rules stops at five levels (cycle protection).",
};

pub const CTX_INSTRUCTIONS_MAX_FILE: Limit = Limit {
    name: "ctx.instructions.max_file",
    value: 4_194_304,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 36 },
    what: "Hard per-file read cap for CLAUDE.md/rules; special files, directories and files over 4 MiB are skipped (written 4 MiB).",
};

pub const CTX_INSTRUCTIONS_WARN_MIN: Limit = Limit {
    name: "ctx.instructions.warn_min",
    value: 40_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 36 },
    what: "Oversize-instructions warning threshold is at least 40,000 chars; it only warns (/memory, status), never truncates.",
};

pub const CTX_INSTRUCTIONS_WARN_CONTEXT_RATIO: Limit = Limit {
    name: "ctx.instructions.warn_context_ratio",
    value: 5,
    unit: Unit::Percent,
    kind: Kind::Limit,
    approx: true,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 36 },
    what: "The warning threshold scales with the model context at about 5% (max(40,000, ~5% of context)); seed writes 约 5%.",
};

pub const MEMORY_INDEX_MAX_LINES: Limit = Limit {
    name: "memory.index.max_lines",
    value: 200,
    unit: Unit::Lines,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 37 },
    what: "Resident view of MEMORY.md is cut at 200 lines (whichever of lines/units comes first), with a truncation warning appended.",
};

pub const MEMORY_INDEX_MAX_UTF16_UNITS: Limit = Limit {
    name: "memory.index.max_utf16_units",
    value: 25_000,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 37 },
    what: "Resident view of MEMORY.md is cut at 25,000 JS UTF-16 code units; the generated directory index is bound by the same 25,000 units (later on line 37).",
};

pub const MEMORY_SCAN_MAX_DEPTH: Limit = Limit {
    name: "memory.scan.max_depth",
    value: 8,
    unit: Unit::Levels,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "Automatic memory directory index recurses at most 8 levels.",
};

pub const MEMORY_SCAN_MAX_ENTRIES: Limit = Limit {
    name: "memory.scan.max_entries",
    value: 5_000,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "Automatic memory directory index scans at most 5,000 directory entries.",
};

pub const MEMORY_SCAN_MAX_FILE: Limit = Limit {
    name: "memory.scan.max_file",
    value: 1_048_576,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "Only Markdown files no larger than 1 MiB are considered for the index (written 1 MiB).",
};

pub const MEMORY_SCAN_READ_CONCURRENCY: Limit = Limit {
    name: "memory.scan.read_concurrency",
    value: 16,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "Index candidate files are read 16 at a time.",
};

pub const MEMORY_SCAN_RECENT_ENTRIES: Limit = Limit {
    name: "memory.scan.recent_entries",
    value: 200,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "By default the index lists the 200 most recently modified entries.",
};

pub const MEMORY_SCAN_HEAD_LINES: Limit = Limit {
    name: "memory.scan.head_lines",
    value: 30,
    unit: Unit::Lines,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what:
        "Each index candidate is read only for its first 30 lines to extract a title/frontmatter.",
};

pub const MEMORY_SCAN_HEAD_BYTES: Limit = Limit {
    name: "memory.scan.head_bytes",
    value: 65_536,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 37,
    },
    what: "Each index candidate is read for at most 65,536 bytes.",
};

pub const MEMORY_PINNED_MAX_FILES: Limit = Limit {
    name: "memory.pinned.max_files",
    value: 4,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 38 },
    what: "At most four pinned topic files are injected eagerly, chosen by modification time (newest first).",
};

pub const MEMORY_PINNED_MAX_LINES: Limit = Limit {
    name: "memory.pinned.max_lines",
    value: 200,
    unit: Unit::Lines,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 38,
    },
    what: "Each pinned topic body is cut at 200 lines (same truncation as MEMORY.md).",
};

pub const MEMORY_PINNED_MAX_UTF16_UNITS: Limit = Limit {
    name: "memory.pinned.max_utf16_units",
    value: 25_000,
    unit: Unit::Utf16Units,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 38,
    },
    what:
        "Each pinned topic body is cut at 25,000 UTF-16 code units (same truncation as MEMORY.md).",
};

pub const SKILL_LISTING_DESCRIPTION_MAX: Limit = Limit {
    name: "skill.listing.description_max",
    value: 1_536,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 39,
    },
    what: "Each skill description in the listing is capped at 1,536 chars by default.",
};

pub const SKILL_LISTING_BUDGET_CONTEXT_RATIO: Limit = Limit {
    name: "skill.listing.budget_context_ratio",
    value: 1,
    unit: Unit::Percent,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 39 },
    what: "Total skill listing budget is 1% of the model context window (in tokens, converted to chars).",
};

pub const SKILL_LISTING_CHARS_PER_TOKEN: Limit = Limit {
    name: "skill.listing.chars_per_token",
    value: 4,
    unit: Unit::CharsPerToken,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 39,
    },
    what: "Default chars-per-token factor used to convert the 1% listing budget to chars.",
};

pub const SKILL_LISTING_BUDGET_AT_200K: Limit = Limit {
    name: "skill.listing.budget_at_200k",
    value: 8_000,
    unit: Unit::Chars,
    kind: Kind::Derived,
    approx: false,
    source: Source::Seed {
        file: "003_1bcba3f4b7441295.txt",
        line: 39,
    },
    what:
        "Derived example: listing budget for a 200k-token window is 200000 * 4 * 0.01 = 8000 chars.",
};

pub const SKILL_COMPACT_RESTORE_PER_SKILL: Limit = Limit {
    name: "skill.compact.restore_per_skill",
    value: 5_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: true,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 40 },
    what: "On compact restore, each invoked skill is restored up to about 5,000 chars (written 约, approximate).",
};

pub const SKILL_COMPACT_RESTORE_TOTAL: Limit = Limit {
    name: "skill.compact.restore_total",
    value: 25_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: true,
    source: Source::Seed { file: "003_1bcba3f4b7441295.txt", line: 40 },
    what: "On compact restore, invoked skills are restored up to about 25,000 chars in total (written 约, approximate).",
};

pub const TOOLS_REFERENCE_COUNT: Limit = Limit {
    name: "tools.reference_count",
    value: 29,
    unit: Unit::Count,
    kind: Kind::Fact,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 3,
    },
    what: "The reference set of built-in tools documented is 29 tools.",
};

pub const GREP_RESULT_BUDGET: Limit = Limit {
    name: "grep.result_budget",
    value: 20_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 75 },
    what: "Grep tool result is capped at 20,000 chars; totals (files/matches/lines), limit and offset are recorded.",
};

pub const GREP_RUNNER_DEADLINE: Limit = Limit {
    name: "grep.runner.deadline",
    value: 20_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 81,
    },
    what: "Default deadline of the CLI ripgrep runner subprocess (written 20 秒).",
};

pub const GREP_RUNNER_MAX_BUFFER: Limit = Limit {
    name: "grep.runner.max_buffer",
    value: 20_000_000,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 81,
    },
    what: "stdout/stderr buffer of the ripgrep runner (written 20,000,000-byte, decimal).",
};

pub const GREP_RUNNER_ERROR_EXIT_CODE: Limit = Limit {
    name: "grep.runner.error_exit_code",
    value: 2,
    unit: Unit::ExitCode,
    kind: Kind::Fact,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 81,
    },
    what: "ripgrep input errors exit with code 2, mapped to a diagnosable tool error.",
};

pub const GREP_ENGINE_REGEX_SIZE_LIMIT: Limit = Limit {
    name: "grep.engine.regex_size_limit",
    value: 104_857_600,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 101 },
    what: "Compiled-regex size limit of the embedded ripgrep; exceeded -> exit 2 with the size-limit message.",
};

pub const GREP_MAX_COLUMNS: Limit = Limit {
    name: "grep.max_columns",
    value: 500,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 105,
    },
    what: "Tool-level --max-columns; longer matching lines print as [Omitted long matching line].",
};

pub const GREP_PROBE_DEADLINE: Limit = Limit {
    name: "grep.probe.deadline",
    value: 3_000,
    unit: Unit::Millis,
    kind: Kind::Acceptance,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 103,
    },
    what: "Acceptance: the pathological-regex probe must finish within an external 3 s deadline.",
};

pub const GREP_PROBE_MAX_RSS: Limit = Limit {
    name: "grep.probe.max_rss",
    value: 536_870_912,
    unit: Unit::Bytes,
    kind: Kind::Acceptance,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 103 },
    what: "Acceptance: peak RSS of the pathological-regex probe stays below 512 MiB (written 512 MiB).",
};

pub const LSP_OPERATIONS: Limit = Limit {
    name: "lsp.operations",
    value: 9,
    unit: Unit::Count,
    kind: Kind::Fact,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 111,
    },
    what: "The LSP tool supports nine operations.",
};

pub const LSP_POSITION_BASE_OFFSET: Limit = Limit {
    name: "lsp.position.base_offset",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 123 },
    what: "User-facing line/character are 1-based; one is subtracted before sending to the LSP server (1:1 -> 0:0).",
};

pub const LSP_SYMBOL_EXTRACT_MAX_READ: Limit = Limit {
    name: "lsp.symbol_extract.max_read",
    value: 65_536,
    unit: Unit::Bytes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 123,
    },
    what: "A single local symbol extraction reads at most 65,536 bytes first.",
};

pub const BASH_RESULT_BUDGET: Limit = Limit {
    name: "bash.result_budget",
    value: 30_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 155,
    },
    what: "Bash tool result budget.",
};

pub const TOOLS_ASK_USER_HEADER_MAX: Limit = Limit {
    name: "tools.ask_user.header_max",
    value: 12,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 173,
    },
    what: "AskUserQuestion: each question header is at most 12 chars.",
};

pub const TOOLS_ASK_USER_OPTIONS_MIN: Limit = Limit {
    name: "tools.ask_user.options_min",
    value: 2,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 173,
    },
    what: "AskUserQuestion: at least 2 options per question (Other is added by the client).",
};

pub const TOOLS_ASK_USER_OPTIONS_MAX: Limit = Limit {
    name: "tools.ask_user.options_max",
    value: 4,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 173,
    },
    what: "AskUserQuestion: at most 4 options per question.",
};

pub const TASKS_UPDATE_MAIN_PATCH_WRITES: Limit = Limit {
    name: "tasks.update.main_patch_writes",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 210 },
    what: "TaskUpdate writes the main-field patch in one write, then writes addBlocks/addBlockedBy edges one by one (no transaction).",
};

pub const WORKFLOW_INPUT_MIN_SOURCES: Limit = Limit {
    name: "workflow.input.min_sources",
    value: 1,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 240 },
    what: "Workflow needs at least one of inline script / named workflow / scriptPath (scriptPath wins).",
};

pub const TOOLS_ARTIFACT_RESULT_BUDGET: Limit = Limit {
    name: "tools.artifact.result_budget",
    value: 16_000,
    unit: Unit::Chars,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 257,
    },
    what: "Artifact tool result budget.",
};

pub const CRON_EXPRESSION_FIELDS: Limit = Limit {
    name: "cron.expression_fields",
    value: 5,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 276,
    },
    what: "CronCreate uses standard 5-field cron in the user's local time zone.",
};

pub const CRON_JITTER_MAX_PERIOD_RATIO: Limit = Limit {
    name: "cron.jitter.max_period_ratio",
    value: 50,
    unit: Unit::Percent,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 280 },
    what: "Local fallback config: recurring jobs get a deterministic delay of at most 50% of the period.",
};

pub const CRON_JITTER_CAP: Limit = Limit {
    name: "cron.jitter.cap",
    value: 1_800_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 280,
    },
    what: "Local fallback config: the recurring delay is capped at 30 minutes (written 30 分钟).",
};

pub const CRON_ONE_SHOT_MAX_EARLY: Limit = Limit {
    name: "cron.one_shot.max_early",
    value: 90_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 280 },
    what: "Local fallback config: one-shot jobs landing on :00/:30 may fire up to 90 s early (written 90 秒).",
};

pub const CRON_ONE_SHOT_EARLY_MARK_INTERVAL: Limit = Limit {
    name: "cron.one_shot.early_mark_interval",
    value: 30,
    unit: Unit::Minutes,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed {
        file: "004_55bd47f71eaffc94.txt",
        line: 280,
    },
    what: "The early-fire rule applies to one-shots landing on the half-hour marks :00 and :30.",
};

pub const CRON_RECURRING_MAX_AGE: Limit = Limit {
    name: "cron.recurring.max_age",
    value: 604_800_000,
    unit: Unit::Millis,
    kind: Kind::Limit,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 280 },
    what: "Local fallback config: recurring jobs expire after 7 days (written 7 天); the model-visible prompt interpolates the same 7 days.",
};

pub const CRON_PROMPT_JITTER_RATIO: Limit = Limit {
    name: "cron.prompt.jitter_ratio",
    value: 10,
    unit: Unit::Percent,
    kind: Kind::PromptClaim,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 281 },
    what: "Model-visible CronCreate prompt claims at most 10% of the period; contradicts the 50% local fallback and is not the scheduler constant.",
};

pub const CRON_PROMPT_JITTER_CAP: Limit = Limit {
    name: "cron.prompt.jitter_cap",
    value: 900_000,
    unit: Unit::Millis,
    kind: Kind::PromptClaim,
    approx: false,
    source: Source::Seed { file: "004_55bd47f71eaffc94.txt", line: 281 },
    what: "Model-visible CronCreate prompt claims a 15-minute cap; contradicts the 30-minute local fallback.",
};

pub const MCP_HTTP_GET_STREAM_UNSUPPORTED_STATUS: Limit = Limit {
    name: "mcp.http.get_stream_unsupported_status",
    value: 405,
    unit: Unit::HttpStatus,
    kind: Kind::Limit,
    approx: false,
    source: Source::Matrix { line: 33 },
    what: "Matrix-only (not in seed 002): 405 on the optional GET stream means 'no server stream', not an expired session.",
};

pub const ALL_SEED: &[&Limit] = &[
    &DESIGN_HANDSHAKE_SHARED_INITIALIZE,
    &DESIGN_SESSION_REINIT_RETRIES,
    &DESIGN_MCP_REQUEST_TIMEOUT,
    &DESIGN_MCP_MAX_CONTENT_LENGTH,
    &DESIGN_AUTH_REFRESH_RACE,
    &DESIGN_AUTH_MAX_TOKEN_RETRIES,
    &DESIGN_CONSENT_RETRY_AFTER_APPROVAL,
    &DESIGN_GRANT_RETRY_AFTER_POST,
    &DESIGN_INPUT_OPERATION_NAME_MAX,
    &DESIGN_INPUT_OPERATION_NAME_MIN,
    &DESIGN_INPUT_STRING_MAX,
    &DESIGN_INPUT_PLAN_TOKEN_MAX,
    &DESIGN_PLAN_MAX_WRITES,
    &DESIGN_PLAN_MAX_DELETES,
    &DESIGN_PLAN_PATH_MAX,
    &DESIGN_PLAN_RENDER_BUDGET,
    &DESIGN_PLAN_MAX_TARGETS,
    &DESIGN_PLAN_TOKEN_TTL,
    &DESIGN_CATALOG_LRU_ENTRIES,
    &DESIGN_RESULT_PREVIEW_IMAGE_MAX,
    &DESIGN_RESULT_AGGREGATE_MAX,
    &DESIGN_TOOL_MAX_RESULT,
    &PROJECTS_SEARCH_DEFAULT_N,
    &PROJECTS_SEARCH_MIN_N,
    &PROJECTS_SEARCH_MAX_N,
    &PROJECTS_READ_MISSING_SUGGESTIONS_MAX,
    &PROJECTS_READ_INLINE_MAX,
    &PROJECTS_READ_RAW_MAX,
    &PROJECTS_READ_RAW_SIZE_MISMATCH_RETRIES,
    &PROJECTS_READ_RAW_FILENAME_TAIL,
    &PROJECTS_READ_DOWNLOAD_FILE_MODE,
    &PROJECTS_TOOL_MAX_RESULT,
    &PROJECTS_TOOL_PERSISTENCE_CEILING,
    &PROJECTS_WRITE_LOCAL_PATH_MAX,
    &PROJECTS_WRITE_KNOWLEDGE_BYTES_PER_TOKEN,
    &PROJECTS_PATH_MIN_LEN,
    &PROJECTS_PATH_MAX_LEN,
    &BRIEF_ENTITLEMENT_CACHE_TTL,
    &UPLOAD_MAX_SIZE,
    &UPLOAD_MULTIPART_PARTS,
    &UPLOAD_HTTP_TIMEOUT,
    &UPLOAD_RETRIES,
    &BRIEF_TURN_END_MAX_SENTINELS,
    &BRIEF_WORKSPACE_POLICY_ENUM_ENTRIES,
    &MCP_STDIO_MAX_LINE_BYTES,
    &MCP_HTTP_MAX_BODY_BYTES,
    &MCP_CONNECT_TIMEOUT,
    &MCP_REQUEST_TIMEOUT,
    &MCP_CONNECT_LOCAL_BATCH_SIZE,
    &MCP_CONNECT_REMOTE_BATCH_SIZE,
    &MCP_AUTH_FIRST_PARTY_REFRESH_RETRIES,
    &MCP_OAUTH_CALLBACK_TIMEOUT,
    &MCP_OAUTH_PROACTIVE_REFRESH_LEAD,
    &MCP_INITIALIZE_INSTRUCTIONS_MAX,
    &MCP_TOOLS_LIST_MAX_RETRIES,
    &MCP_TOOLS_LIST_RETRY_DELAY_1,
    &MCP_TOOLS_LIST_RETRY_DELAY_2,
    &MCP_TOOLS_LIST_RETRY_DELAY_3,
    &MCP_TOOLS_LIST_MAX_PAGES,
    &MCP_TOOLS_DESCRIPTION_MAX,
    &MCP_RECONNECT_BACKOFF_1,
    &MCP_RECONNECT_BACKOFF_2,
    &MCP_RECONNECT_BACKOFF_3,
    &MCP_RECONNECT_GRACEFUL_REDEPLOY_WINDOW,
    &MCP_HTTP_SESSION_404_RETRIES,
    &CTX_INCLUDE_MAX_DEPTH,
    &CTX_INSTRUCTIONS_MAX_FILE,
    &CTX_INSTRUCTIONS_WARN_MIN,
    &CTX_INSTRUCTIONS_WARN_CONTEXT_RATIO,
    &MEMORY_INDEX_MAX_LINES,
    &MEMORY_INDEX_MAX_UTF16_UNITS,
    &MEMORY_SCAN_MAX_DEPTH,
    &MEMORY_SCAN_MAX_ENTRIES,
    &MEMORY_SCAN_MAX_FILE,
    &MEMORY_SCAN_READ_CONCURRENCY,
    &MEMORY_SCAN_RECENT_ENTRIES,
    &MEMORY_SCAN_HEAD_LINES,
    &MEMORY_SCAN_HEAD_BYTES,
    &MEMORY_PINNED_MAX_FILES,
    &MEMORY_PINNED_MAX_LINES,
    &MEMORY_PINNED_MAX_UTF16_UNITS,
    &SKILL_LISTING_DESCRIPTION_MAX,
    &SKILL_LISTING_BUDGET_CONTEXT_RATIO,
    &SKILL_LISTING_CHARS_PER_TOKEN,
    &SKILL_LISTING_BUDGET_AT_200K,
    &SKILL_COMPACT_RESTORE_PER_SKILL,
    &SKILL_COMPACT_RESTORE_TOTAL,
    &TOOLS_REFERENCE_COUNT,
    &GREP_RESULT_BUDGET,
    &GREP_RUNNER_DEADLINE,
    &GREP_RUNNER_MAX_BUFFER,
    &GREP_RUNNER_ERROR_EXIT_CODE,
    &GREP_ENGINE_REGEX_SIZE_LIMIT,
    &GREP_MAX_COLUMNS,
    &GREP_PROBE_DEADLINE,
    &GREP_PROBE_MAX_RSS,
    &LSP_OPERATIONS,
    &LSP_POSITION_BASE_OFFSET,
    &LSP_SYMBOL_EXTRACT_MAX_READ,
    &BASH_RESULT_BUDGET,
    &TOOLS_ASK_USER_HEADER_MAX,
    &TOOLS_ASK_USER_OPTIONS_MIN,
    &TOOLS_ASK_USER_OPTIONS_MAX,
    &TASKS_UPDATE_MAIN_PATCH_WRITES,
    &WORKFLOW_INPUT_MIN_SOURCES,
    &TOOLS_ARTIFACT_RESULT_BUDGET,
    &CRON_EXPRESSION_FIELDS,
    &CRON_JITTER_MAX_PERIOD_RATIO,
    &CRON_JITTER_CAP,
    &CRON_ONE_SHOT_MAX_EARLY,
    &CRON_ONE_SHOT_EARLY_MARK_INTERVAL,
    &CRON_RECURRING_MAX_AGE,
    &CRON_PROMPT_JITTER_RATIO,
    &CRON_PROMPT_JITTER_CAP,
    &MCP_HTTP_GET_STREAM_UNSUPPORTED_STATUS,
    &PROJECTS_METHODS,
    &PROJECTS_API_TIMEOUT,
];
