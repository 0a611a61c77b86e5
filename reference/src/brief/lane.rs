//! The upload lane: which host situation a Brief attachment is delivered from. A lane is a label
//! for selection and telemetry, not a transport: every lane that uploads uses the one
//! [`Uploader`](crate::upload::Uploader). `none` and `sdk_hosted_disabled` upload nothing.

use std::fmt;

use crate::environment::truthy;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Repl,
    EnvBriefUpload,
    EnvCcr,
    EnvByoc,
    SdkHosted,
    SdkHostedDisabled,
    None,
}

impl Lane {
    pub fn uploads(self) -> bool {
        !matches!(self, Lane::None | Lane::SdkHostedDisabled)
    }

    pub fn name(self) -> &'static str {
        match self {
            Lane::Repl => "repl",
            Lane::EnvBriefUpload => "env_brief_upload",
            Lane::EnvCcr => "env_ccr",
            Lane::EnvByoc => "env_byoc",
            Lane::SdkHosted => "sdk_hosted",
            Lane::SdkHostedDisabled => "sdk_hosted_disabled",
            Lane::None => "none",
        }
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The state a lane is chosen from.
#[derive(Debug, Clone, Default)]
pub struct LaneInputs {
    /// A REPL bridge is connected (never in `-p` on its own).
    pub repl_bridge: bool,
    /// `CLAUDE_CODE_BRIEF_UPLOAD`.
    pub brief_upload_env: bool,
    /// `CLAUDE_CODE_REMOTE_ENVIRONMENT_TYPE` is set: a remote (CCR) environment.
    pub remote_environment: bool,
    /// `CLAUDE_CODE_REMOTE`: a remote, bring-your-own-compute session.
    pub remote: bool,
    /// A hosted SDK session with its bridge active, and whether its upload feature is on.
    pub sdk_hosted: Option<bool>,
}

/// The host state the real binary gets from its embedding (a REPL bridge, a hosted SDK handle)
/// cannot be set from the command line; this agent reads it from an explicit test setting.
pub const HOST_SETTING: &str = "CLAUDE_REFERENCE_HOST";

/// The values [`HOST_SETTING`] accepts; unset or empty is no host. Any other value is an error
/// the binary reports at startup ([`host_setting`]), never a silent "no host".
pub const HOST_VALUES: &[&str] = &["repl-bridge", "sdk-hosted", "sdk-hosted-disabled"];

/// [`HOST_SETTING`]'s value: `None` when unset or empty, an error naming the variable, the value
/// and the accepted values when it is none of [`HOST_VALUES`].
pub fn host_setting() -> Result<Option<&'static str>, String> {
    setting(HOST_SETTING, HOST_VALUES)
}

/// A reference-only test setting that takes one of `accepted` (unset or empty: `None`).
pub(crate) fn setting(
    name: &str,
    accepted: &[&'static str],
) -> Result<Option<&'static str>, String> {
    let value = match std::env::var(name) {
        Ok(v) if v.is_empty() => return Ok(None),
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => v.to_string_lossy().into_owned(),
    };
    match accepted.iter().find(|a| **a == value) {
        Some(a) => Ok(Some(a)),
        None => Err(format!(
            "Error: {name}={value:?} is not a value of this test setting; accepted: {} (or unset)",
            accepted.join(", ")
        )),
    }
}

impl LaneInputs {
    /// The inputs as this process's environment sets them. An unknown [`HOST_SETTING`] is
    /// refused at startup (`main`), so reaching one here is a bug, not a default.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let host = host_setting().unwrap_or_else(|e| panic!("{e} (refused at startup)"));
        LaneInputs {
            repl_bridge: host == Some("repl-bridge"),
            brief_upload_env: var("CLAUDE_CODE_BRIEF_UPLOAD").is_some_and(|v| truthy(&v)),
            remote_environment: var("CLAUDE_CODE_REMOTE_ENVIRONMENT_TYPE").is_some(),
            remote: var("CLAUDE_CODE_REMOTE").is_some_and(|v| truthy(&v)),
            sdk_hosted: match host {
                Some("sdk-hosted") => Some(true),
                Some("sdk-hosted-disabled") => Some(false),
                _ => None,
            },
        }
    }
}

/// The first lane whose condition holds, in the documented priority.
pub fn select(inputs: &LaneInputs) -> Lane {
    if inputs.repl_bridge {
        Lane::Repl
    } else if inputs.brief_upload_env {
        Lane::EnvBriefUpload
    } else if inputs.remote_environment {
        Lane::EnvCcr
    } else if inputs.remote {
        Lane::EnvByoc
    } else {
        match inputs.sdk_hosted {
            Some(true) => Lane::SdkHosted,
            Some(false) => Lane::SdkHostedDisabled,
            None => Lane::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_go_by_priority() {
        let mut inputs = LaneInputs {
            repl_bridge: true,
            brief_upload_env: true,
            remote_environment: true,
            remote: true,
            sdk_hosted: Some(true),
        };
        assert_eq!(select(&inputs), Lane::Repl);
        inputs.repl_bridge = false;
        assert_eq!(select(&inputs), Lane::EnvBriefUpload);
        inputs.brief_upload_env = false;
        assert_eq!(select(&inputs), Lane::EnvCcr);
        inputs.remote_environment = false;
        assert_eq!(select(&inputs), Lane::EnvByoc);
        inputs.remote = false;
        assert_eq!(select(&inputs), Lane::SdkHosted);
        inputs.sdk_hosted = Some(false);
        assert_eq!(select(&inputs), Lane::SdkHostedDisabled);
        assert!(!Lane::SdkHostedDisabled.uploads() && !Lane::None.uploads());
        inputs.sdk_hosted = None;
        assert_eq!(select(&inputs), Lane::None);
    }
}
