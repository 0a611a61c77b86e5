//! How the target is started: its arguments for the channel, its environment (the stubs'
//! address, the run's credentials, the scenario's settings), and the process itself.

use std::collections::BTreeMap;

use anyhow::Result;

use super::backends::Backends;
use super::fixtures::Dirs;
use crate::placeholders::Places;
use crate::scenario::{Channel, Scenario};
use crate::secrets::Secrets;
use crate::target::Target;

/// Environment variables that may carry secrets; their values never reach a record.
const SECRET_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
];

/// The command line after the program: the channel's flags and the scenario's model and
/// arguments, or the scenario's own `argv`.
pub(super) fn arguments(
    scenario: &Scenario,
    channel: Channel,
    places: &Places,
    prompt: &str,
) -> Vec<String> {
    let mut args = match (&scenario.argv, channel) {
        (Some(argv), _) => argv.iter().map(|a| places.expand(a)).collect(),
        (None, Channel::Print) => vec![
            "-p".into(),
            prompt.to_owned(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ],
        // An SDK host: the prompt arrives on stdin, permission questions come back as control
        // requests (`--permission-prompt-tool stdio`).
        (None, Channel::Control) => [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-prompt-tool",
            "stdio",
        ]
        .map(String::from)
        .to_vec(),
        // A person at a terminal types the prompt; the Agent SDK passes its own flags.
        (None, Channel::Pty | Channel::Sdk) => Vec::new(),
    };
    if scenario.argv.is_none() {
        args.extend(["--model".to_owned(), scenario.model().to_owned()]);
    }
    args.extend(scenario.args.iter().map(|a| places.expand(a)));
    args
}

/// The target's whole environment: nothing is inherited but `PATH`.
pub(super) fn environment(
    scenario: &Scenario,
    channel: Channel,
    places: &Places,
    backends: &Backends,
    secrets: &Secrets,
) -> BTreeMap<String, String> {
    let Backends {
        stub,
        project,
        isolated,
        ..
    } = backends;
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert(
        "PATH".into(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
    );
    env.insert("HOME".into(), places.home.clone());
    env.insert("LANG".into(), "C.UTF-8".into());
    env.insert("SHELL".into(), "/bin/bash".into());
    env.insert(
        "TERM".into(),
        if channel == Channel::Pty {
            "xterm-256color"
        } else {
            "dumb"
        }
        .into(),
    );
    if isolated.is_none() {
        env.insert("ANTHROPIC_BASE_URL".into(), stub.base_url());
    }
    if scenario.oauth {
        // real-binary.md: with an API key set there is no OAuth token, and the nonessential
        // traffic switch also turns every claude.ai path off.
        env.insert(
            "CLAUDE_CODE_OAUTH_TOKEN".into(),
            secrets.oauth_token.clone(),
        );
        for key in ["DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING"] {
            env.insert(key.into(), "1".into());
        }
    } else {
        env.insert("ANTHROPIC_API_KEY".into(), secrets.api_key.clone());
        env.insert(
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        );
    }
    if let Some(account) = &scenario.account {
        for (k, v) in account.env() {
            env.insert(k.into(), v.into());
        }
        env.remove("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC");
    }
    if let Some(project) = &project {
        if project.attached {
            env.insert("CLAUDE_PROJECT_UUID".into(), project.uuid.clone());
        }
        if project.session_token {
            env.insert(
                "CLAUDE_CODE_SESSION_ACCESS_TOKEN".into(),
                secrets.session_token.clone(),
            );
        }
    }
    if let Some(net) = &isolated {
        env.insert("NODE_EXTRA_CA_CERTS".into(), net.ca().display().to_string());
    }
    env.insert("DISABLE_AUTOUPDATER".into(), "1".into());
    if isolated.is_none() {
        // On loopback no tool is deferred behind ToolSearch: 2.1.235's default there, pinned
        // so a scenario about a tool keeps seeing it when a later version defers by default
        // (2.1.304 on). The scenarios about the surface and tool search set it themselves
        // (`ENABLE_TOOL_SEARCH = ""` sees the binary's own default).
        env.insert("ENABLE_TOOL_SEARCH".into(), "false".into());
    }
    // As root the real binary refuses the permission-bypass flags without it.
    env.insert("IS_SANDBOX".into(), "1".into());
    for (k, v) in &scenario.env {
        // `{base_url}`: the stubs' address, for settings that name it under another variable.
        env.insert(
            k.clone(),
            places.expand(v).replace("{base_url}", &stub.base_url()),
        );
    }
    // An empty value in a scenario unsets a default (e.g. no API key for an OAuth run).
    env.retain(|_, v| !v.is_empty());
    if project.as_ref().is_some_and(|p| p.empty_uuid) {
        env.insert("CLAUDE_PROJECT_UUID".into(), String::new());
    }
    env
}

/// The environment as a record shows it: the secrets' values replaced.
pub(super) fn shown(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut shown = env.clone();
    for key in SECRET_ENV {
        if let Some(v) = shown.get_mut(*key) {
            *v = "[redacted]".into();
        }
    }
    shown
}

/// The target's process, ready to spawn: in the run's network when isolated, under the
/// scenario's argv0, with exactly `env`, in the run's cwd.
pub(super) fn command(
    target: &Target,
    (scenario, channel): (&Scenario, Channel),
    (args, env): (&[String], &BTreeMap<String, String>),
    dirs: &Dirs,
    backends: &Backends,
) -> Result<std::process::Command> {
    if channel == Channel::Sdk {
        // The SDK host script starts the target itself, with these arguments after its own.
        let mut command = crate::host::sdk::command(target, args, &dirs.base)?;
        if let Some(net) = &backends.isolated {
            net.enter(&mut command)?;
        }
        command.env_clear().envs(env).current_dir(&dirs.cwd);
        return Ok(command);
    }
    let mut command = std::process::Command::new(&target.program);
    if let Some(net) = &backends.isolated {
        net.enter(&mut command)?;
    }
    if let Some(argv0) = &scenario.argv0 {
        // The same program under another name (`rg`: the embedded ripgrep).
        std::os::unix::process::CommandExt::arg0(&mut command, argv0);
    }
    command
        .args(args)
        .env_clear()
        .envs(env)
        .current_dir(&dirs.cwd);
    Ok(command)
}
