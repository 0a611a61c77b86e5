//! `[[step]]`: one start of the target in a scenario that runs it several times in the same HOME
//! and workspace (a session, then its resume). Each step has its own prompt and arguments; a
//! later step's may name what an earlier step printed (`{session_id:NAME}`), and a check may read
//! one step's process (`step = "NAME"`).

use serde::Deserialize;

/// One start of the target.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// How checks, placeholders and the trace name it; unique in the scenario.
    pub name: String,
    /// The prompt of this start (the scenario's `prompt` when absent).
    #[serde(default)]
    pub prompt: Option<String>,
    /// Arguments after the scenario's own `args`.
    #[serde(default)]
    pub args: Vec<String>,
    /// The harness ends the process with a signal once an event has happened: a crash at a
    /// known point (`-p` only).
    #[serde(default)]
    pub kill: Option<Kill>,
}

/// `kill = { signal = "KILL", after = { request = 2 } }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kill {
    /// `KILL`, `TERM` or `INT`.
    pub signal: String,
    pub after: stubs::cues::After,
}

impl Kill {
    /// The signal's number.
    pub fn number(&self) -> Option<i32> {
        match self.signal.as_str() {
            "KILL" => Some(libc::SIGKILL),
            "TERM" => Some(libc::SIGTERM),
            "INT" => Some(libc::SIGINT),
            _ => None,
        }
    }
}

/// `{session_id:NAME}`: the session id step `NAME` reported (its first event that carries one).
pub const SESSION_ID: &str = "{session_id:";

/// The step names a text refers to with [`SESSION_ID`].
pub fn referenced(text: &str) -> Vec<&str> {
    text.match_indices(SESSION_ID)
        .filter_map(|(at, _)| {
            let rest = &text[at + SESSION_ID.len()..];
            rest.find('}').map(|end| &rest[..end])
        })
        .collect()
}

/// `text` with each `{session_id:NAME}` replaced by `lookup(NAME)` (left as it is when unknown).
pub fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = text.to_owned();
    for name in referenced(text) {
        if let Some(id) = lookup(name) {
            out = out.replace(&format!("{SESSION_ID}{name}}}"), &id);
        }
    }
    out
}

/// Each step named once, each `{session_id:NAME}` naming an earlier step, and each check's
/// `step` a declared one; the error names the step or check.
pub fn validate(steps: &[Step], check_steps: &[Option<&str>]) -> Result<(), String> {
    for (i, step) in steps.iter().enumerate() {
        if step.name.is_empty() || steps[..i].iter().any(|s| s.name == step.name) {
            return Err(format!(
                "`[[step]]` {}: needs a `name`, unique in the scenario (`{}`)",
                i + 1,
                step.name
            ));
        }
        if step.kill.as_ref().is_some_and(|k| k.number().is_none()) {
            return Err(format!(
                "`[[step]]` `{}`: `kill.signal` is one of KILL, TERM, INT",
                step.name
            ));
        }
        let texts = step.args.iter().chain(step.prompt.iter());
        for name in texts.flat_map(|t| referenced(t)) {
            if !steps[..i].iter().any(|s| s.name == name) {
                return Err(format!(
                    "`[[step]]` `{}`: `{SESSION_ID}{name}}}` names no earlier step",
                    step.name
                ));
            }
        }
    }
    for name in check_steps.iter().flatten() {
        if !steps.iter().any(|s| s.name == *name) {
            return Err(format!(
                "check field `step`: no `[[step]]` is named `{name}` (known: {})",
                steps
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(name: &str, args: &[&str]) -> Step {
        Step {
            name: name.into(),
            prompt: None,
            args: args.iter().map(|a| a.to_string()).collect(),
            kill: None,
        }
    }

    #[test]
    fn expands_an_earlier_steps_session_id() {
        let text = "--resume {session_id:first} --x {session_id:gone}";
        let out = expand(text, |n| (n == "first").then(|| "abc".to_owned()));
        assert_eq!(out, "--resume abc --x {session_id:gone}");
    }

    #[test]
    fn a_later_step_or_unknown_name_is_refused() {
        let steps = [step("a", &["{session_id:b}"]), step("b", &[])];
        let err = validate(&steps, &[]).unwrap_err();
        assert!(
            err.contains("`a`") && err.contains("names no earlier step"),
            "{err}"
        );
        let steps = [step("a", &[]), step("b", &["--resume", "{session_id:a}"])];
        assert!(validate(&steps, &[Some("b")]).is_ok());
        let err = validate(&steps, &[Some("c")]).unwrap_err();
        assert!(err.contains("no `[[step]]` is named `c`"), "{err}");
        let err = validate(&[step("a", &[]), step("a", &[])], &[]).unwrap_err();
        assert!(err.contains("unique"), "{err}");
    }

    #[test]
    fn a_kill_names_a_signal_the_harness_sends() {
        let mut s = step("a", &[]);
        s.kill = Some(toml::from_str("signal = \"HUP\"\nafter = { request = 2 }").unwrap());
        let err = validate(&[s.clone()], &[]).unwrap_err();
        assert!(
            err.contains("`kill.signal` is one of KILL, TERM, INT"),
            "{err}"
        );
        s.kill = Some(toml::from_str("signal = \"TERM\"\nafter = { killed = \"a\" }").unwrap());
        assert!(validate(&[s.clone()], &[]).is_ok());
        assert_eq!(s.kill.unwrap().number(), Some(libc::SIGTERM));
    }
}
