//! One run of one scenario against one target: fixtures, stub, process, timeout, and everything
//! recorded. Nothing here interprets the target; checks and traces read the [`RunOutcome`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::Value;
use stubs::claude_ai::{ClaudeAi, RecordedUpload};
use stubs::messages::{Block, FileWrite, MessagesStub, RecordedRequest, Split, StubConfig, Turn};
use tokio::io::AsyncReadExt;

use crate::mcp::ServerRecord;
use crate::placeholders::Places;
use crate::scenario::{Fixture, Scenario};
use crate::target::Target;

/// The fake key every target gets; real keys are never passed through.
pub const FAKE_API_KEY: &str = "sk-ant-conformance-fake-key";
/// The fake claude.ai OAuth token of `oauth = true` scenarios.
pub const FAKE_OAUTH_TOKEN: &str = "sk-ant-oat01-conformance-fake-token";

/// Environment variables that may carry secrets; their values never reach a record.
const SECRET_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
];

/// How long a fake MCP server may take to finish exiting after the target did.
const SERVER_EXIT_GRACE: Duration = Duration::from_millis(500);

pub struct RunOutcome {
    pub target: String,
    pub split: Split,
    /// argv as started; the program path is the target's.
    pub command: Vec<String>,
    /// The environment given to the process, secrets redacted.
    pub env: BTreeMap<String, String>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The target's peak resident set size (sampled VmHWM), when it exited by itself.
    pub peak_rss_kib: Option<u64>,
    pub stdout: String,
    pub stderr: String,
    pub requests: Vec<RecordedRequest>,
    pub exhausted_at: Option<usize>,
    pub turns_left: usize,
    pub duration: Duration,
    pub places: Places,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// What each fake MCP server saw, by its config name.
    pub mcp: BTreeMap<String, ServerRecord>,
    /// Fake MCP server processes still running after the target exited, `(name, pid)`.
    pub mcp_survivors: Vec<(String, u32)>,
    /// What the mock claude.ai's upload endpoint received, in arrival order.
    pub uploads: Vec<RecordedUpload>,
    /// Keeps the run's directories alive until checks have read them.
    _root: tempfile::TempDir,
}

impl RunOutcome {
    /// Main-loop request bodies, in order.
    pub fn main_requests(&self) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| r.main_index().is_some())
            .map(|r| &r.body)
            .collect()
    }
}

pub async fn run_scenario(
    scenario: &Scenario,
    target: &Target,
    split: Split,
) -> Result<RunOutcome> {
    let root = tempfile::Builder::new().prefix("conformance-").tempdir()?;
    let base = root.path().canonicalize()?;
    let home = base.join("home");
    let cwd = base.join("work");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&cwd)?;
    let places = Places {
        cwd: cwd.display().to_string(),
        home: home.display().to_string(),
        mcp_config: base.join("mcp-config.json").display().to_string(),
        fake_lsp: if scenario.source.contains("{fake_lsp}") {
            crate::mcp::fake_lsp_binary()?.display().to_string()
        } else {
            String::new()
        },
    };
    for fixture in &scenario.files {
        write_fixture(fixture, &places, &cwd, &home)
            .with_context(|| format!("{}: fixture `{}`", scenario.path.display(), fixture.path))?;
    }
    let mcp = crate::mcp::setup(&scenario.mcp_servers, &base, &places, &cwd, &home)
        .await
        .with_context(|| format!("{}: MCP servers", scenario.path.display()))?;

    let turns = scenario
        .turns
        .iter()
        .map(|t| expand_turn(t, &places, &cwd))
        .collect();
    let claude_ai = ClaudeAi::new(scenario.uploads.clone());
    let stub = MessagesStub::start_with(
        StubConfig {
            main_model: scenario.model().to_owned(),
            turns,
            split,
        },
        claude_ai.router(),
    )
    .await?;

    let default_args: Vec<String> = vec![
        "-p".into(),
        places.expand(&scenario.prompt),
        "--output-format".into(),
        "stream-json".into(),
        "--verbose".into(),
        "--model".into(),
        scenario.model().into(),
    ];
    let mut args = match &scenario.argv {
        Some(argv) => argv.iter().map(|a| places.expand(a)).collect(),
        None => default_args,
    };
    args.extend(scenario.args.iter().map(|a| places.expand(a)));

    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert(
        "PATH".into(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
    );
    env.insert("HOME".into(), places.home.clone());
    env.insert("LANG".into(), "C.UTF-8".into());
    env.insert("SHELL".into(), "/bin/bash".into());
    env.insert("TERM".into(), "dumb".into());
    env.insert("ANTHROPIC_BASE_URL".into(), stub.base_url());
    if scenario.oauth {
        // real-binary.md: with an API key set there is no OAuth token, and the nonessential
        // traffic switch also turns every claude.ai path off.
        env.insert("CLAUDE_CODE_OAUTH_TOKEN".into(), FAKE_OAUTH_TOKEN.into());
        for key in ["DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING"] {
            env.insert(key.into(), "1".into());
        }
    } else {
        env.insert("ANTHROPIC_API_KEY".into(), FAKE_API_KEY.into());
        env.insert(
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        );
    }
    env.insert("DISABLE_AUTOUPDATER".into(), "1".into());
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

    let mut command = tokio::process::Command::new(&target.program);
    if let Some(argv0) = &scenario.argv0 {
        // The same program under another name (`rg`: the embedded ripgrep).
        command.arg0(argv0);
    }
    command
        .args(&args)
        .env_clear()
        .envs(&env)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout ends the target and every child it started.
        .process_group(0)
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start {}", target.program.display()))?;
    let pid = child.id().map(|p| p as i32);
    let mut stdout_pipe = child.stdout.take().expect("piped");
    let mut stderr_pipe = child.stderr.take().expect("piped");
    let stdout_task = tokio::spawn(async move {
        let mut buf = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut buf).await;
        buf
    });
    let stderr_task = tokio::spawn(async move {
        let mut buf = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut buf).await;
        buf
    });
    let reaped = match pid {
        Some(pid) => tokio::time::timeout(scenario.timeout(), reap(pid))
            .await
            .ok(),
        None => None,
    };
    let (exit_code, timed_out, peak_rss_kib) = match reaped {
        Some(r) => (r.code, false, Some(r.max_rss_kib)),
        None => {
            kill_group(pid);
            if let Some(pid) = pid {
                let _ = reap(pid).await;
            }
            (None, true, None)
        }
    };
    // Reaped here, so tokio's handle must not wait for it again.
    drop(child);
    // A server still running once the target is gone was left behind (checked, then ended).
    let mcp_survivors = if timed_out {
        Vec::new()
    } else {
        mcp.survivors(SERVER_EXIT_GRACE).await
    };
    mcp.kill(&mcp_survivors);
    // Whatever the target left running in its group goes with it.
    kill_group(pid);
    let duration = started.elapsed();
    let stdout = collect(stdout_task).await;
    let stderr = collect(stderr_task).await;

    let mut shown_env = env.clone();
    for key in SECRET_ENV {
        if let Some(v) = shown_env.get_mut(*key) {
            *v = "[redacted]".into();
        }
    }
    let mut command_line = vec![match &scenario.argv0 {
        Some(argv0) => format!("{} (as {argv0})", target.program.display()),
        None => target.program.display().to_string(),
    }];
    command_line.extend(args);
    Ok(RunOutcome {
        target: target.name.clone(),
        split,
        command: command_line,
        env: shown_env,
        exit_code,
        timed_out,
        peak_rss_kib,
        stdout,
        stderr,
        requests: stub.requests(),
        exhausted_at: stub.exhausted_at(),
        turns_left: stub.turns_left(),
        duration,
        places,
        cwd,
        home,
        mcp: mcp.records(),
        mcp_survivors,
        uploads: claude_ai.uploads(),
        _root: root,
    })
}

struct Reaped {
    code: Option<i32>,
    max_rss_kib: u64,
}

/// Waits for the target with wait4(2), polling without blocking a runtime thread, and samples
/// its peak resident set size (VmHWM) on the way. wait4's own ru_maxrss is not used: Linux carries
/// the high-water mark of the pre-exec memory (a copy of this harness) into the child.
async fn reap(pid: i32) -> Reaped {
    let mut peak = 0;
    loop {
        peak = peak.max(vm_hwm_kib(pid).unwrap_or(0));
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child's pid, with valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let code = if libc::WIFEXITED(status) {
                Some(libc::WEXITSTATUS(status))
            } else {
                None
            };
            return Reaped {
                code,
                max_rss_kib: peak,
            };
        }
        if r < 0 {
            return Reaped {
                code: None,
                max_rss_kib: 0,
            };
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A live process's peak resident set size, from `/proc/<pid>/status`.
pub fn vm_hwm_kib(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

async fn collect(task: tokio::task::JoinHandle<Vec<u8>>) -> String {
    // Pipes held open by a grandchild close when the group is killed; bound the wait regardless.
    match tokio::time::timeout(Duration::from_secs(5), task).await {
        Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => String::new(),
    }
}

fn kill_group(pid: Option<i32>) {
    if let Some(pid) = pid {
        // SAFETY: kill(2) with a negative pid signals the process group we created for the target.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

fn resolve(path: &str, places: &Places, cwd: &Path, home: &Path) -> PathBuf {
    let path = places.expand(path);
    match path.strip_prefix("~/") {
        Some(rel) => home.join(rel),
        None => cwd.join(path),
    }
}

fn write_fixture(fixture: &Fixture, places: &Places, cwd: &Path, home: &Path) -> Result<()> {
    let path = resolve(&fixture.path, places, cwd, home);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, stubs::mcp::expand(&places.expand(&fixture.content)))?;
    if let Some(age) = fixture.age_s {
        let when = std::time::SystemTime::now() - Duration::from_secs(age);
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(when)?;
    }
    if let Some(mode) = fixture.mode {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn expand_turn(turn: &Turn, places: &Places, cwd: &Path) -> Turn {
    let home = Path::new(&places.home);
    Turn {
        text: turn.text.as_deref().map(|t| places.expand(t)),
        blocks: turn
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => Block::Text {
                    text: places.expand(text),
                },
                Block::ToolUse { id, name, input } => Block::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: places.expand_json(input),
                },
            })
            .collect(),
        touch: turn
            .touch
            .iter()
            .map(|w| FileWrite {
                path: resolve(&w.path, places, cwd, home).display().to_string(),
                content: places.expand(&w.content),
            })
            .collect(),
        ..turn.clone()
    }
}
