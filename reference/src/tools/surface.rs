//! Who decides which built-ins a session offers besides `Offer`'s own switches: the command
//! line's `--tools` and blanket `--disallowedTools` rules, and the two environment gates that
//! reshape the Agent tool's schema. Recorded on 2.1.235 (recon parity15, tools.surface*).

use super::Tool;

/// The names of `rules` that deny a tool whole.
pub fn blanket_rules(rules: &[String]) -> Vec<String> {
    rules
        .iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty() && !r.contains('('))
        .map(str::to_owned)
        .collect()
}

/// `--tools` as an allow list: `None` when absent or `default`; empty names are dropped, so an
/// empty value offers no built-in at all.
pub fn only_list(flag: Option<&[String]>) -> Option<Vec<String>> {
    let names = flag?;
    if names.len() == 1 && names[0].trim() == "default" {
        return None;
    }
    Some(
        names
            .iter()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect(),
    )
}

pub(super) fn named(tool: &dyn Tool, names: &[String]) -> bool {
    names
        .iter()
        .any(|n| n == tool.name() || tool.aliases().contains(&n.as_str()))
}

/// Whether 2.1.235's fork-subagent mode is on (bundle, recon parity15): a falsy
/// `CLAUDE_CODE_FORK_SUBAGENT` or coordinator mode turns it off, a truthy one on, and otherwise
/// it is on exactly in interactive sessions (not `-p`: recorded, the pty runs' Agent lacks
/// `run_in_background`, the print and control runs' has it).
pub fn fork_subagent(interactive: bool) -> bool {
    let var = |name: &str| {
        std::env::var(name)
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    if std::env::var("CLAUDE_CODE_COORDINATOR_MODE").is_ok_and(|v| !v.is_empty()) {
        return false;
    }
    match var("CLAUDE_CODE_FORK_SUBAGENT").as_str() {
        v if crate::environment::falsy(v) => false,
        v if crate::environment::truthy(v) => true,
        _ => interactive,
    }
}

/// `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` leaves background tasks on.
pub fn background_tasks() -> bool {
    !crate::environment::switched_on("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn only_rules_without_a_pattern_deny_a_tool_whole() {
        let rules = strings(&["WebSearch", " NotebookEdit ", "Bash(rm:*)", ""]);
        assert_eq!(blanket_rules(&rules), ["WebSearch", "NotebookEdit"]);
    }

    #[test]
    fn tools_flag_default_is_everything_and_empty_is_nothing() {
        assert_eq!(only_list(None), None);
        assert_eq!(only_list(Some(&strings(&["default"]))), None);
        assert_eq!(only_list(Some(&strings(&[""]))), Some(vec![]));
        assert_eq!(
            only_list(Some(&strings(&["Bash", " Read"]))),
            Some(strings(&["Bash", "Read"]))
        );
    }

    #[test]
    fn a_tool_is_named_by_its_name_or_an_alias() {
        let agent = crate::tools::agent::AGENT;
        assert!(named(&agent, &strings(&["Task"])));
        assert!(named(&agent, &strings(&["Agent"])));
        assert!(!named(&agent, &strings(&["Bash"])));
    }
}
