//! When a conversation is compacted, recorded from 2.1.235 against the stubs (the seeds say
//! what survives compaction, not when it happens; `compact.*` scenarios lock each number).
//!
//! The threshold, from these: the window W is the model's (200,000 for the models 2.1.235 knows
//! a default for) or `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (clamped to 100,000..=1,000,000, never
//! above the model's); the effective window is W − 20,000 (the reserve for the answer); automatic
//! compaction starts at effective − 13,000, or `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` percent of the
//! effective window when that is lower; and a request of effective − 3,000 tokens is not sent.

use super::{Kind, Limit, Source, Unit};

pub const COMPACT_MODEL_WINDOW: Limit = Limit {
    name: "compact.model_window",
    value: 200_000,
    unit: Unit::Tokens,
    kind: Kind::Fact,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto and compact.auto/below: claude-sonnet-4-6 compacts at 167,000 reported tokens, not at 166,900 (claude-opus-4-8 was recorded doing the same)",
    },
    what: "The context window of the models whose window 2.1.235 knows (sonnet-4-6, opus-4-6, opus-4-8, opus-5); automatic compaction runs only for those or with CLAUDE_CODE_AUTO_COMPACT_WINDOW set.",
};

pub const COMPACT_OUTPUT_RESERVE: Limit = Limit {
    name: "compact.output_reserve",
    value: 20_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto/pct-override: 50% compacts at 90,000 (half of 200,000 − 20,000)",
    },
    what: "Tokens kept free for the answer: the effective window is the window less this.",
};

pub const COMPACT_AUTO_BUFFER: Limit = Limit {
    name: "compact.auto_buffer",
    value: 13_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto and compact.auto/below: 180,000 − 13,000 = 167,000 compacts, 166,900 does not",
    },
    what: "How far below the effective window automatic compaction starts.",
};

pub const COMPACT_BLOCKING_BUFFER: Limit = Limit {
    name: "compact.blocking_buffer",
    value: 3_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto/disabled: with DISABLE_AUTO_COMPACT, 190,000 tokens end the turn with \"Prompt is too long\" (blocking_limit) and no request",
    },
    what: "How far below the effective window a request is not sent at all when nothing compacts.",
};

pub const COMPACT_WINDOW_OVERRIDE_MIN: Limit = Limit {
    name: "compact.window_override.min",
    value: 100_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto/window-override: CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 compacts claude-sonnet-4-5 at 67,000; the bundle clamps the variable to 100,000..=1,000,000",
    },
    what: "The smallest window CLAUDE_CODE_AUTO_COMPACT_WINDOW sets.",
};

pub const COMPACT_WINDOW_OVERRIDE_MAX: Limit = Limit {
    name: "compact.window_override.max",
    value: 1_000_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: CLAUDE_CODE_AUTO_COMPACT_WINDOW is clamped to 100,000..=1,000,000",
    },
    what: "The largest window CLAUDE_CODE_AUTO_COMPACT_WINDOW sets.",
};

pub const COMPACT_MIN_GROUPS: Limit = Limit {
    name: "compact.min_groups",
    value: 2,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.manual/too-early: /compact after one exchange fails \"Not enough messages to compact.\"; automatic compaction after one round fails too_few_groups",
    },
    what: "Answers a conversation must hold to be compacted: the newest is kept as it is, the ones before it are summarized.",
};

pub const COMPACT_RESTORE_MAX_FILES: Limit = Limit {
    name: "compact.restore.max_files",
    value: 5,
    unit: Unit::Entries,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.restore/files: eight files read, the newest kept with its answer; the five before it come back, f1 and f2 do not",
    },
    what: "Most files read before a compaction that come back after it (the newest read first; those the kept answer read are not counted).",
};

pub const COMPACT_RESTORE_FILE_MAX_TOKENS: Limit = Limit {
    name: "compact.restore.file_max_tokens",
    value: 5_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.restore/files: files of about 7,000 tokens come back as a note naming them, not their contents (the bundle reads them with maxTokens 5000)",
    },
    what: "Largest file that comes back whole after a compaction; a larger one is named, to be read again.",
};

pub const COMPACT_RESTORE_FILES_BUDGET: Limit = Limit {
    name: "compact.restore.files_budget",
    value: 50_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle: the restored files are kept, newest first, while their total stays within 50,000 tokens",
    },
    what: "Tokens all the files brought back after a compaction may take together.",
};

pub const COMPACT_RESTORE_SKILL_MAX_TOKENS: Limit = Limit {
    name: "compact.restore.skill_max_tokens",
    value: 5_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (compact.restore records the shape): each invoked skill's body comes back cut to 5,000 tokens",
    },
    what: "How much of one invoked skill's body comes back after a compaction (seed 003 line 40: a retention budget of its own).",
};

pub const COMPACT_RESTORE_SKILLS_BUDGET: Limit = Limit {
    name: "compact.restore.skills_budget",
    value: 25_000,
    unit: Unit::Tokens,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "bundle (compact.restore records the shape): invoked skills come back, newest first, while their total stays within 25,000 tokens",
    },
    what: "Tokens all invoked skills brought back after a compaction may take together.",
};

pub const COMPACT_FAILURE_BREAKER: Limit = Limit {
    name: "compact.failure_breaker",
    value: 3,
    unit: Unit::Count,
    kind: Kind::Limit,
    approx: false,
    source: Source::RealBinary {
        case: "compact.auto/breaker: three summary requests fail in a row; past the threshold again, no fourth is sent",
    },
    what: "Automatic compactions whose summary failed in a row after which the session stops trying.",
};

pub const ALL_COMPACTION: &[&Limit] = &[
    &COMPACT_MODEL_WINDOW,
    &COMPACT_OUTPUT_RESERVE,
    &COMPACT_AUTO_BUFFER,
    &COMPACT_BLOCKING_BUFFER,
    &COMPACT_WINDOW_OVERRIDE_MIN,
    &COMPACT_WINDOW_OVERRIDE_MAX,
    &COMPACT_MIN_GROUPS,
    &COMPACT_RESTORE_MAX_FILES,
    &COMPACT_RESTORE_FILE_MAX_TOKENS,
    &COMPACT_RESTORE_FILES_BUDGET,
    &COMPACT_RESTORE_SKILL_MAX_TOKENS,
    &COMPACT_RESTORE_SKILLS_BUDGET,
    &COMPACT_FAILURE_BREAKER,
];
