//! A shell command that runs on in the background: Bash with `run_in_background`, or a command
//! still running at its timeout (2.1.235 moves it to the background rather than killing it). It
//! is a task of the registry (`local_bash`, id `b` and 8 characters), its output goes to the
//! task's output file, and a thread of its own waits for it to end or be stopped.
//!
//! Recorded on 2.1.235 (`core.parameter-coverage/bash-background`, `…/bash-timeout`): the launch
//! prints `background_tasks_changed` and `task_started` before the call's result; TaskStop ends it
//! before its own result (the running set, `task_updated` killed, `task_notification` stopped);
//! a stopped shell is not told to the model; `-p` does not wait for a shell: the ones still
//! running at the end are stopped after the result is printed.

use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::agents::registry::Ending;
use crate::agents::{Agents, Status};

pub use crate::agents::registry::SHELL as KIND;

/// How often the watcher looks at the command and at its stop switch.
const LOOK: Duration = Duration::from_millis(10);

/// How long TaskStop and the session's end wait for a stopped command's group to be gone.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// A new shell task id: `b` and 8 lower-case letters or digits, the shape 2.1.235 gives.
pub fn new_id() -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let seed = crate::vocab::uuid().replace('-', "");
    let mut n = u128::from_str_radix(&seed, 16).unwrap_or_default();
    let mut id = String::from("b");
    for _ in 0..8 {
        id.push(ALPHABET[(n % 36) as usize] as char);
        n /= 36;
    }
    id
}

/// Where a shell task's output goes, known before the command starts.
pub struct Place {
    pub id: String,
    pub output_file: PathBuf,
}

impl Place {
    pub fn new(agents: &Agents) -> Place {
        let id = new_id();
        let output_file = agents.output_file(&id);
        Place { id, output_file }
    }
}

/// A command started for Bash, with the files it holds.
pub struct Shell<'a> {
    /// Its process group is its pid.
    pub child: Child,
    /// Where its stdout and stderr go.
    pub out: tempfile::NamedTempFile,
    /// Where its shell's trap writes the directory it ended in (not the session's, seed 004
    /// line 165): kept until the command ends.
    pub cwd_file: tempfile::NamedTempFile,
    pub command: &'a str,
    pub description: &'a str,
}

/// Makes `shell` a background task: its output file becomes the task's (a rename: the command
/// writes on to the same file), it is registered and announced, and a thread of its own watches
/// it until it ends or is stopped.
pub fn adopt(
    agents: &Agents,
    place: &Place,
    shell: Shell,
    tool_use_id: &str,
) -> std::io::Result<()> {
    shell.out.persist(&place.output_file).map_err(|e| e.error)?;
    let registry = &agents.registry;
    let task = registry.start(
        &place.id,
        KIND,
        shell.description,
        shell.command,
        tool_use_id,
        place.output_file.clone(),
        true,
    );
    agents.announce.running(&registry.running());
    agents.announce.shell_started(&task);
    let agents = agents.clone();
    let id = place.id.clone();
    let (child, cwd_file) = (shell.child, shell.cwd_file);
    std::thread::spawn(move || {
        watch(&agents, &id, child, task.cancel.clone());
        drop(cwd_file);
    });
    Ok(())
}

fn watch(
    agents: &Agents,
    id: &str,
    mut child: Child,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let pid = child.id() as i32;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if cancel.load(Ordering::SeqCst) {
            break None;
        }
        std::thread::sleep(LOOK);
    };
    // The group goes either way: nothing the command started outlives its task.
    // SAFETY: signalling the process group this task's command created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let _ = child.wait();
    let status = match status.and_then(|s| s.code().or(s.signal().map(|n| 128 + n))) {
        Some(0) => Status::Completed,
        Some(_) => Status::Failed,
        None => Status::Killed,
    };
    let ending = Ending {
        status,
        result: String::new(),
        tokens: 0,
        tool_uses: 0,
        history: Vec::new(),
    };
    if let Some(task) = agents.registry.finish(id, ending) {
        agents
            .announce
            .running_after(&task, &agents.registry.running());
        agents.announce.ended(&task);
    }
    // Only now may TaskStop's result, or the process's exit, follow.
    agents.registry.announced(id);
}

/// Waits (bounded) until a stopped shell's watcher has recorded its end and printed its events,
/// so what TaskStop returns, and the exit, come after them, as on 2.1.235.
pub fn await_end(agents: &Agents, id: &str) {
    agents.registry.wait_ended(id, STOP_WAIT);
}

/// The session ends: every shell still running is stopped, after the result was printed.
pub fn stop_all(agents: &Agents) {
    for task in agents.registry.running() {
        if task.kind == KIND && agents.registry.stop(&task.id).is_ok() {
            await_end(agents, &task.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_b_and_eight_lower_case_letters_or_digits() {
        let id = new_id();
        assert_eq!(id.len(), 9, "{id}");
        assert!(id.starts_with('b'));
        assert!(id[1..]
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        assert_ne!(new_id(), new_id());
    }
}
