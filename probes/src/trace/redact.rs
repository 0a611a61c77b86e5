//! Volatile values of a run replaced by placeholders: its paths, ids, dates, random names and
//! durations, so two runs of one scenario give the same trace.

use std::sync::LazyLock;

use regex::Regex;

use crate::outcome::RunOutcome;

pub(super) static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
        .unwrap()
});

static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-\d{2}-\d{2}([T ][0-9:.]+Z?)?").unwrap());

/// A run of letters and digits long enough to be random (a multipart boundary's tail).
pub(super) static RANDOM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[0-9A-Za-z]{12,}").unwrap());

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

/// When a scheduled task runs next (2.1.332's CronCreate and CronList say): the clock's, and a
/// one-shot's minute is jittered.
static NEXT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(next run:? )[A-Z][a-z]{2} \d{1,2} \d{1,2}:\d{2}(am|pm)").unwrap()
});

/// A file's identity as `device:inode:size:mtime-ns` (2.1.235 pins an approved Artifact upload's
/// file by it, in the input it asks the host about): the machine's and the clock's.
static FILE_IDENTITY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+:\d+:\d+:\d{12,}\b").unwrap());

/// A task's measured duration, in its result and notification texts.
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(duration_ms(?::\s*|>))\d+").unwrap());

/// The file ReadMcpResourceTool saves a binary resource to: the time in ms, the content's index
/// and 6 random characters.
static MCP_BLOB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bmcp-resource-\d+-(\d+)-[0-9a-z]+\b").unwrap());

/// A background shell's task id (`b` and 8 characters) where a result or event names one: a
/// bare pattern would take words such as `bootstrap`.
static SHELL_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(ID: |task: |task_id\\?":\\?"|tasks/)b[0-9a-z]{8}\b"#).unwrap());

/// The id NotebookEdit makes up for an inserted cell (8 hex digits), where a result names it.
static NOTEBOOK_CELL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(Inserted cell |cell id=\\?"|cell_id\\?":\\?")[0-9a-f]{8}\b"#).unwrap()
});

/// The random tail of a DesignSync plan id (`plan_<project>_` and 12 hex digits), where a
/// result names it.
static SYNC_PLAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(planId\\?":\\?"plan_[0-9a-z]+_)[0-9a-f]{12}\b"#).unwrap());

static PIN_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(ref\\?":\\?")[0-9a-f]{6}"#).unwrap());

/// Replaces the run's paths and other temp paths only: for values where a date or an id is a
/// constant of the protocol (a request body's `anthropic_version: "vertex-2023-10-16"`).
pub fn paths(run: &RunOutcome, s: &str) -> String {
    TMP.replace_all(&run.places.redact(s), "{tmp}").into_owned()
}

/// Replaces run paths, UUIDs, dates, temp paths and agent ids with placeholders.
pub fn redact(run: &RunOutcome, s: &str) -> String {
    let s = crate::account::redact(&run.places.redact(s));
    let s = AGENT_ID.replace_all(&s, "{agent_id}");
    let s = AGENT_WORKTREE.replace_all(&s, "agent-{id}");
    let s = WORKFLOW_TASK.replace_all(&s, "${1}{task_id}");
    let s = SHELL_ID.replace_all(&s, "${1}{shell_id}");
    let s = NOTEBOOK_CELL.replace_all(&s, "${1}{cell_id}");
    let s = SYNC_PLAN.replace_all(&s, "${1}{plan}");
    let s = WORKFLOW_RUN.replace_all(&s, "wf_{run_id}");
    let s = PIN_REF.replace_all(&s, "${1}{ref}");
    let s = MCP_BLOB.replace_all(&s, "mcp-resource-{ms}-${1}-{rand}");
    let s = DURATION.replace_all(&s, "${1}{ms}");
    let s = NEXT_RUN.replace_all(&s, "${1}{when}");
    let s = FILE_IDENTITY.replace_all(&s, "{file-identity}");
    let s = UUID.replace_all(&s, "{uuid}");
    let s = DATE.replace_all(&s, "{date}");
    let s = PLAN_FILE.replace_all(&s, ".claude/plans/{slug}.md");
    let s = CRON_ID.replace_all(&s, "$1 {cron-id}");
    let s = CRON_LINE.replace_all(&s, "{cron-id} \u{2014} ");
    let s = WORKTREE_NAME.replace_all(&s, "${1}{worktree-name}");
    TMP.replace_all(&s, "{tmp}").into_owned()
}

#[cfg(test)]
mod next_run_tests {
    use super::*;

    #[test]
    fn a_file_identity_is_the_machine_s_and_goes() {
        assert_eq!(
            FILE_IDENTITY.replace_all("65024:10101521:14:1796452927272824423", "{file-identity}"),
            "{file-identity}"
        );
        assert_eq!(FILE_IDENTITY.replace_all("12:30:45", "x"), "12:30:45");
    }

    #[test]
    fn when_a_task_runs_next_is_the_clock_s_and_goes() {
        let line = "{cron-id} — Every day at 9:00 AM (recurring), next run Dec 5 1:18pm: check";
        assert_eq!(
            NEXT_RUN.replace_all(line, "${1}{when}"),
            "{cron-id} — Every day at 9:00 AM (recurring), next run {when}: check"
        );
        let once =
            "Scheduled one-shot task x (30 14 28 2 *). Next run: Feb 28 2:29pm. Session-only";
        assert!(NEXT_RUN
            .replace_all(once, "${1}{when}")
            .contains("Next run: {when}. Session-only"));
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

#[cfg(test)]
mod shell_id_tests {
    #[test]
    fn a_shell_id_goes_where_a_result_or_event_names_it_and_nowhere_else() {
        let s = r#"with ID: bezikvhw3. tasks/bezikvhw3.output "task_id":"bzpgaj7sb" task: b7q5w6e6t (x) bootstrap"#;
        assert_eq!(
            super::SHELL_ID.replace_all(s, "${1}{shell_id}"),
            r#"with ID: {shell_id}. tasks/{shell_id}.output "task_id":"{shell_id}" task: {shell_id} (x) bootstrap"#
        );
    }

    #[test]
    fn a_design_sync_plan_keeps_its_project_and_loses_its_random_tail() {
        let s = r#"{\"method\":\"finalize_plan\",\"planId\":\"plan_dsacme0001_6545fec57328\"} plan_x_6545fec57328"#;
        assert_eq!(
            super::SYNC_PLAN.replace_all(s, "${1}{plan}"),
            r#"{\"method\":\"finalize_plan\",\"planId\":\"plan_dsacme0001_{plan}\"} plan_x_6545fec57328"#
        );
    }

    #[test]
    fn an_inserted_cells_made_up_id_goes_and_a_named_cell_stays() {
        let s = r#"Inserted cell 58fad369 with x <cell id="19cddd30"> <cell id="cell-a"> "cell_id":"58fad369""#;
        assert_eq!(
            super::NOTEBOOK_CELL.replace_all(s, "${1}{cell_id}"),
            r#"Inserted cell {cell_id} with x <cell id="{cell_id}"> <cell id="cell-a"> "cell_id":"{cell_id}""#
        );
    }
}
