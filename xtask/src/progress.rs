//! What a long run shows while it runs. A line per scenario as it finishes (on stdout, kept
//! in logs), and below it on a terminal a live line: how many are done, which are running and
//! for how long. Where stderr is not a terminal (CI), the live line becomes a plain line every
//! 30 s naming what is still running, so a scenario that waits out a timeout is not silence.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const HEARTBEAT: Duration = Duration::from_secs(30);

#[derive(Clone)]
pub struct Progress {
    bar: Option<ProgressBar>,
    state: Arc<Mutex<State>>,
}

struct State {
    done: usize,
    total: usize,
    /// (scenario id, target, started).
    running: Vec<(String, String, Instant)>,
    last_line: Instant,
}

impl Progress {
    /// `done` of `total` runs are finished before this batch starts.
    pub fn new(done: usize, total: usize) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                ProgressStyle::with_template("{elapsed:>4} [{pos}/{len}] {wide_msg}")
                    .expect("a valid template"),
            );
            bar.set_position(done as u64);
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress {
            bar,
            state: Arc::new(Mutex::new(State {
                done,
                total,
                running: Vec::new(),
                last_line: Instant::now(),
            })),
        }
    }

    pub fn started(&self, id: &str, target: &str) {
        let mut state = self.state.lock().unwrap();
        state
            .running
            .push((id.to_owned(), target.to_owned(), Instant::now()));
        self.redraw(&state);
    }

    /// Prints `line` (a finished run) above the live line; returns its position `n` of `total`.
    pub fn finished(&self, id: &str, target: &str, line: impl FnOnce(usize, usize) -> String) {
        let mut state = self.state.lock().unwrap();
        state.running.retain(|(i, t, _)| !(i == id && t == target));
        state.done += 1;
        state.last_line = Instant::now();
        let text = line(state.done, state.total);
        match &self.bar {
            Some(bar) => {
                bar.suspend(|| print!("{text}"));
                bar.set_position(state.done as u64);
            }
            None => print!("{text}"),
        }
        self.redraw(&state);
    }

    /// Called every second: on a terminal the running times move; elsewhere a plain line when
    /// nothing finished for a while.
    pub fn tick(&self) {
        let mut state = self.state.lock().unwrap();
        self.redraw(&state);
        if self.bar.is_none() && !state.running.is_empty() && state.last_line.elapsed() >= HEARTBEAT
        {
            eprintln!(
                "  … {}/{} done; running {}",
                state.done,
                state.total,
                running_list(&state.running)
            );
            state.last_line = Instant::now();
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn redraw(&self, state: &State) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("running {}", running_list(&state.running)));
        }
    }
}

/// The longest-running first, with how long each has run: `mcp.x [reference] 31s, …`.
fn running_list(running: &[(String, String, Instant)]) -> String {
    let mut by_age: Vec<_> = running.iter().collect();
    by_age.sort_by_key(|(_, _, started)| *started);
    by_age
        .iter()
        .map(|(id, target, started)| format!("{id} [{target}] {}s", started.elapsed().as_secs()))
        .collect::<Vec<_>>()
        .join(", ")
}
