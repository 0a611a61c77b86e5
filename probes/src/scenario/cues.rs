//! The `after` waits a scenario scripts (on a turn, a second loop's turn, an MCP fault): each
//! names a server, a loop and a target the scenario has, and on each target only the waits meant
//! for it are played.

use stubs::cues::{After, Cue};
use stubs::mcp::McpScript;
use stubs::messages::Turn;

use super::Scenario;

impl Scenario {
    /// Every scripted `after`, with where it is written.
    fn afters(&self) -> Vec<(String, &Cue)> {
        let turns = self
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("`[[turn]]` {}", i + 1), t));
        let agent_turns = self.agents.iter().flat_map(|a| {
            a.turns
                .iter()
                .enumerate()
                .map(move |(i, t)| (format!("`[[agent.turn]]` {} of `{}`", i + 1, a.label()), t))
        });
        let faults = self.mcp_servers.iter().flat_map(|s| {
            s.faults.iter().enumerate().filter_map(move |(i, f)| {
                let at = format!("`[[mcp_server.fault]]` {} of `{}`", i + 1, s.name);
                f.after.as_ref().map(|a| (at, a))
            })
        });
        turns
            .chain(agent_turns)
            .filter_map(|(at, t)| t.after.as_ref().map(|a| (at, a)))
            .chain(faults)
            .flat_map(|(at, a)| a.cues().iter().map(move |c| (at.clone(), c)))
            .collect()
    }

    /// A wait on a server or loop the scenario does not have would only ever run out.
    pub(super) fn validate_afters(&self) -> Result<(), String> {
        // The line of the first `after` that names `what` (the file's own words).
        let line = |what: &str| {
            self.source
                .lines()
                .position(|l| l.trim_start().starts_with("after") && l.contains(what))
                .map_or(1, |i| i + 1)
        };
        for (at, after) in self.afters() {
            if let Some(server) = after.server() {
                if !self.mcp_servers.iter().any(|s| s.name == server) {
                    return Err(format!(
                        "line {}: {at}: `after.mcp`: no `[[mcp_server]]` is named `{server}`",
                        line(&format!("\"{server}\""))
                    ));
                }
            }
            if let Some(agent) = after.agent() {
                if !self.agents.iter().any(|a| a.label() == agent) {
                    return Err(format!(
                        "line {}: {at}: `after.agent`: no `[[agent]]` is named `{agent}`",
                        line(&format!("\"{agent}\""))
                    ));
                }
            }
            if let Some(only) = after.only() {
                let key = crate::version::TargetKey::parse(only)
                    .map_err(|e| format!("line {}: {at}: `after.only`: {e}", line(only)))?;
                if !self.applies_to(key.family()) {
                    return Err(format!(
                        "line {}: {at}: `after.only`: `{only}` is none of the scenario's targets {:?}",
                        line(only),
                        self.targets
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `turn` as `target` plays it: without a wait meant for other targets.
pub fn turn_for(turn: &Turn, target: &str) -> Turn {
    Turn {
        after: kept(&turn.after, target),
        end_after: kept(&turn.end_after, target),
        ..turn.clone()
    }
}

/// `script` as `target` meets it: without the waits meant for other targets.
pub fn server_for(script: &McpScript, target: &str) -> McpScript {
    let mut script = script.clone();
    for fault in &mut script.faults {
        fault.after = kept(&fault.after, target);
    }
    script
}

fn kept(after: &Option<After>, target: &str) -> Option<After> {
    after.as_ref()?.keeping(|cue| {
        cue.only()
            .is_none_or(|only| crate::version::names(only, target))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_meant_for_one_target_is_dropped_on_the_others() {
        let turn: Turn = toml::from_str(
            "after = { request = 2, only = \"claude@>=2.1.235, <2.1.300\", reason = \"r\" }\ntext = \"t\"",
        )
        .unwrap();
        assert!(turn_for(&turn, "claude@2.1.235").after.is_some());
        assert!(turn_for(&turn, "claude@2.1.300").after.is_none());
        assert!(turn_for(&turn, "reference").after.is_none());
        assert_eq!(turn_for(&turn, "reference").text.as_deref(), Some("t"));
        let everywhere: Turn = toml::from_str("after = { request = 2 }").unwrap();
        assert!(turn_for(&everywhere, "reference").after.is_some());
        // Of a list, each target keeps its own cues.
        let both: Turn = toml::from_str(
            "after = [{ request = 1 }, { stdout = \"x\", only = \"claude\", reason = \"r\" }]",
        )
        .unwrap();
        assert_eq!(turn_for(&both, "reference").after.unwrap().cues().len(), 1);
        assert_eq!(
            turn_for(&both, "claude@2.1.235")
                .after
                .unwrap()
                .cues()
                .len(),
            2
        );
    }
}
