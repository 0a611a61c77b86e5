//! Which command prefix an "allow always" for Bash proposes, as 2.1.235 derives it: a command
//! with a subcommand (`git worktree add …`) is proposed as `git worktree *`, a multi-line one by
//! its first line, anything else exactly. At a terminal the editable row starts one step wider:
//! the command word alone (`python3 *`) when there is no subcommand.

/// Command words that only wrap another command: a prefix on them would allow anything.
const WRAPPERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "csh",
    "tcsh",
    "ksh",
    "dash",
    "cmd",
    "powershell",
    "pwsh",
    "env",
    "xargs",
    "command",
    "builtin",
    "noglob",
    "nice",
    "stdbuf",
    "nohup",
    "timeout",
    "time",
    "watch",
    "ionice",
    "chrt",
    "setsid",
    "taskset",
    "strace",
    "ltrace",
    "script",
    "flock",
    "unshare",
    "nsenter",
    "sudo",
    "doas",
    "pkexec",
    "su",
    "runuser",
];

/// A plain lowercase word (`worktree`, `run-script`): what 2.1.235 takes for a subcommand.
fn is_word(token: &str) -> bool {
    let mut parts = token.split('-');
    let first = parts.next().unwrap_or_default();
    first.starts_with(|c: char| c.is_ascii_lowercase())
        && first
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && parts.all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// The command's words; `None` when it starts with a variable assignment (2.1.235 skips only
/// a list of harmless variables there; the reference proposes nothing wider instead).
fn words(command: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let assigns = words.first().is_some_and(|w| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    });
    (!assigns).then_some(words)
}

fn is_wrapper(word: &str) -> bool {
    WRAPPERS.contains(&word.rsplit('/').next().unwrap_or(word))
}

/// `git worktree` for `git worktree add -q side`: a command and its subcommand.
fn with_subcommand(command: &str) -> Option<String> {
    let words = words(command)?;
    match words.as_slice() {
        [first, second, ..] if !is_wrapper(first) && is_word(second) => {
            Some(format!("{first} {second}"))
        }
        _ => None,
    }
}

/// The rule content `permission_suggestions` proposes for `command`.
pub fn suggested_rule(command: &str) -> String {
    let command = command.trim();
    if command.contains('\n') {
        let first = command.lines().next().unwrap_or_default().trim();
        if !first.is_empty() {
            return format!("{first} *");
        }
    }
    match with_subcommand(command) {
        Some(prefix) => format!("{prefix} *"),
        None => command.to_owned(),
    }
}

/// The rule content a terminal's "don't ask again" row starts with.
pub fn editable_prefix(command: &str) -> String {
    let command = command.trim();
    if let Some(prefix) = with_subcommand(command) {
        return format!("{prefix} *");
    }
    let word = words(command).and_then(|w| w.first().copied());
    match word {
        Some(w) if is_word(w) && !is_wrapper(w) => format!("{w} *"),
        _ => command.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subcommand_widens_the_proposal_to_its_prefix() {
        assert_eq!(
            suggested_rule("git worktree add -q side -b side"),
            "git worktree *"
        );
        assert_eq!(suggested_rule("python3 -c pass"), "python3 -c pass");
        assert_eq!(suggested_rule("touch made.txt"), "touch made.txt");
        assert_eq!(suggested_rule("sudo rm -rf x"), "sudo rm -rf x");
        assert_eq!(suggested_rule("echo a\necho b"), "echo a *");
        assert_eq!(suggested_rule("FOO=1 git status"), "FOO=1 git status");
    }

    #[test]
    fn the_terminal_row_starts_from_the_command_word() {
        assert_eq!(editable_prefix("python3 -c pass"), "python3 *");
        assert_eq!(editable_prefix("git worktree add x"), "git worktree *");
        assert_eq!(editable_prefix("./run.sh -x"), "./run.sh -x");
        assert_eq!(editable_prefix("bash -c 'x'"), "bash -c 'x'");
    }
}
