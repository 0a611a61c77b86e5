use std::collections::HashMap;
use std::sync::Mutex;

use super::*;
use crate::workflow::resume::Cached;

/// Answers each prompt with `ANSWER(<prompt>)`, after a delay when the prompt says `slow`;
/// a prompt containing `die` gets no result.
#[derive(Default)]
struct Fake {
    prompts: Mutex<Vec<String>>,
}

impl Spawner for Fake {
    fn run(&self, call: &Call, _stop: &Arc<AtomicBool>) -> Answer {
        self.prompts.lock().unwrap().push(call.prompt.clone());
        if call.prompt.contains("slow") {
            std::thread::sleep(Duration::from_millis(150));
        }
        if call.prompt.contains("die") {
            return Answer {
                error: Some("API error".into()),
                ..Answer::default()
            };
        }
        Answer {
            text: Some(format!("ANSWER({})", call.prompt)),
            tokens: 11,
            tool_uses: 1,
            ..Answer::default()
        }
    }
}

struct Run {
    outcome: Outcome,
    prompts: Vec<String>,
    journal: String,
}

fn run_with(
    body: &str,
    args: Option<Value>,
    cached: HashMap<String, Cached>,
    dir: &std::path::Path,
) -> Run {
    let journal = Journal::in_dir(dir);
    let fake = Fake::default();
    let load: Rc<Loader> = Rc::new(|request: &Value| match request["name"].as_str() {
        Some("child") => Ok((
            "child".into(),
            "log('in child'); return await agent('CHILD ' + args)".into(),
        )),
        _ => Err("no such workflow".into()),
    });
    let outcome = run(
        Job {
            body,
            args: args.as_ref(),
            phases: vec!["Meta".into()],
            replay: Replay::new(cached),
            journal: &journal,
            load,
            cancel: Arc::new(AtomicBool::new(false)),
            concurrency: 4,
        },
        &fake,
    );
    Run {
        outcome,
        prompts: fake.prompts.into_inner().unwrap(),
        journal: std::fs::read_to_string(journal.path()).unwrap_or_default(),
    }
}

fn fresh(body: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    run_with(body, None, HashMap::new(), dir.path())
}

#[test]
fn agents_run_and_the_body_returns_their_answers() {
    let run = fresh("phase('One')\nconst a = await agent('first')\nlog('got ' + a)\nconst b = await agent('second', { label: 'two' })\nreturn { a, b }");
    assert_eq!(
        run.outcome.end,
        End::Completed(Some(json!({"a": "ANSWER(first)", "b": "ANSWER(second)"})))
    );
    assert_eq!(run.prompts, ["first", "second"]);
    assert_eq!(run.outcome.logs, ["got ANSWER(first)"]);
    assert_eq!(run.outcome.phases, ["Meta", "One"]);
    let agents = &run.outcome.agents;
    assert_eq!(agents[1].label, "two");
    assert_eq!(agents[1].phase.as_deref(), Some("One"));
    // Two started lines and two result lines, in 2.1.235's shape.
    let lines: Vec<Value> = run
        .journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["type"], "started");
    assert_eq!(lines[1]["result"], "ANSWER(first)");
    assert_eq!(lines[1]["key"], json!(agents[0].key));
}

#[test]
fn a_resume_replays_the_unchanged_prefix_and_reruns_from_the_first_change() {
    let dir = tempfile::tempdir().unwrap();
    let first = run_with("const a = await agent('one')\nconst b = await agent('two')\nconst c = await agent('three')\nreturn [a, b, c]", None, HashMap::new(), dir.path());
    assert_eq!(first.prompts.len(), 3);
    let cached = Journal::in_dir(dir.path()).load().unwrap();
    let second = run_with("const a = await agent('one')\nconst b = await agent('TWO')\nconst c = await agent('three')\nreturn [a, b, c]", None, cached, dir.path());
    // Only the changed call and the one after it ran again.
    assert_eq!(second.prompts, ["TWO", "three"]);
    assert_eq!(
        second.outcome.end,
        End::Completed(Some(json!(["ANSWER(one)", "ANSWER(TWO)", "ANSWER(three)"])))
    );
    assert!(second.outcome.agents[0].cached);
    assert_eq!(
        second.outcome.agents[0].agent_id,
        first.outcome.agents[0].agent_id
    );
    assert!(!second.outcome.agents[2].cached);
}

#[test]
fn parallel_keys_calls_in_call_order_whatever_finishes_first() {
    let run = fresh("return await parallel([() => agent('slow one'), () => agent('quick two')])");
    assert_eq!(
        run.outcome.end,
        End::Completed(Some(json!(["ANSWER(slow one)", "ANSWER(quick two)"])))
    );
    let journal: Vec<Value> = run
        .journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<&Value> = journal.iter().filter(|l| l["type"] == "result").collect();
    // The quick one finished first, but its key is the second in the chain.
    assert_eq!(results[0]["result"], "ANSWER(quick two)");
    assert_eq!(results[0]["key"], json!(run.outcome.agents[1].key));
    let first = crate::workflow::resume::key("", "slow one", "{}");
    assert_eq!(run.outcome.agents[0].key, first);
}

#[test]
fn failing_slots_become_null_and_are_reported() {
    let run = fresh(
        "const r = await parallel([() => agent('a'), () => { throw new Error('boom') }, () => agent('die now')])\n\
         const p = await pipeline([1, 2], x => x * 10, (y, item, i) => item === 2 ? Promise.reject(new Error('no')) : y + i)\n\
         return { r, p }",
    );
    assert_eq!(
        run.outcome.end,
        End::Completed(Some(
            json!({"r": ["ANSWER(a)", null, null], "p": [10, null]})
        ))
    );
    assert!(run
        .outcome
        .failures
        .contains(&"parallel[1] failed: boom".to_owned()));
    assert!(run
        .outcome
        .failures
        .contains(&"pipeline[1] failed: no".to_owned()));
    assert!(run.outcome.failures.iter().any(|f| f.contains("API error")));
    assert_eq!(run.outcome.agents[1].done, Some(false));
    // The agent that died left a started line and no result line.
    assert_eq!(run.journal.matches("{\"type\":\"result\"").count(), 1);
    assert_eq!(run.journal.matches("{\"type\":\"started\"").count(), 2);
}

#[test]
fn wrong_arguments_to_parallel_and_pipeline_are_errors() {
    let run = fresh("return await parallel([agent('x')])");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.contains("parallel() expects an array of functions, not promises"))
    );
    let run = fresh("return await pipeline('x')");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.contains("pipeline() expects an array as the first argument"))
    );
}

#[test]
fn the_clock_and_the_dice_throw_at_run_time_too() {
    let run = fresh("const D = Date\nreturn D.now()");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.starts_with("Error: Date.now() / new Date() are unavailable in workflow scripts")),
        "{:?}",
        run.outcome.end
    );
    let run = fresh("const M = Math\nreturn M['random']()");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.starts_with("Error: Math.random() is unavailable in workflow scripts"))
    );
    let run = fresh("const D = Date\nreturn new D()");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.contains("Date.now() / new Date() are unavailable"))
    );
    let run = fresh("return new Date(0).getTime()");
    assert_eq!(run.outcome.end, End::Completed(Some(json!(0))));
}

#[test]
fn a_thrown_error_fails_the_run_with_its_text() {
    let run = fresh("log('before')\nthrow new Error('BOOM')");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.starts_with("Error: BOOM")),
        "{:?}",
        run.outcome.end
    );
    assert_eq!(run.outcome.logs, ["before"]);
}

#[test]
fn args_reach_the_script_and_undefined_returns_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_with(
        "return args.map(a => a + '!')",
        Some(json!(["x", "y"])),
        HashMap::new(),
        dir.path(),
    );
    assert_eq!(run.outcome.end, End::Completed(Some(json!(["x!", "y!"]))));
    let run = fresh("log(typeof args)");
    assert_eq!(run.outcome.end, End::Completed(None));
    assert_eq!(run.outcome.logs, ["undefined"]);
}

#[test]
fn a_nested_workflow_runs_once_deep() {
    let run = fresh("return await workflow('child', 'go')");
    assert_eq!(
        run.outcome.end,
        End::Completed(Some(json!("ANSWER(CHILD go)")))
    );
    assert_eq!(
        run.outcome.agents[0].phase.as_deref(),
        Some("\u{25b8} child")
    );
    assert!(run.outcome.logs.contains(&"[child] in child".to_owned()));
    let run = fresh("return await workflow('missing')");
    assert!(matches!(&run.outcome.end, End::Failed(e) if e.contains("no such workflow")));
}

#[test]
fn timers_fire_and_a_promise_nothing_settles_fails_the_run() {
    let run = fresh("await new Promise(r => setTimeout(r, 20))\nreturn 'later'");
    assert_eq!(run.outcome.end, End::Completed(Some(json!("later"))));
    let run = fresh("await new Promise(() => {})");
    assert!(matches!(&run.outcome.end, End::Failed(e) if e.contains("never finished")));
}

#[test]
fn the_agent_cap_stops_a_runaway_loop() {
    let run = fresh("let n = 0\nwhile (true) { await agent('x' + n); n++ }");
    assert!(
        matches!(&run.outcome.end, End::Failed(e) if e.contains("Workflow agent() call cap reached (1000)"))
    );
    assert_eq!(run.prompts.len(), 1000);
}

#[test]
fn stopping_interrupts_a_busy_script() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::in_dir(dir.path());
    let cancel = Arc::new(AtomicBool::new(false));
    let switch = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        switch.store(true, Ordering::SeqCst);
    });
    let outcome = run(
        Job {
            body: "while (true) {}",
            args: None,
            phases: Vec::new(),
            replay: Replay::default(),
            journal: &journal,
            load: Rc::new(|_: &Value| Err("none".into())),
            cancel,
            concurrency: 2,
        },
        &Fake::default(),
    );
    stopper.join().unwrap();
    assert_eq!(outcome.end, End::Stopped);
}

#[test]
fn concurrency_follows_the_cpus_within_its_bounds() {
    let n = default_concurrency();
    assert!((2..=16).contains(&n));
}
