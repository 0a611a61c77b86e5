//! Events of a run that a scripted answer can wait for: a race in a scenario is ordered by what
//! happened, never by how long it usually takes.
//!
//! Every stub publishes what crosses its wire to one board per run ([`Cues`]): the Messages
//! stub each request, every fake MCP server each message, the harness each line the target
//! prints. A scripted answer with `after = { … }` is held until the board has seen that event
//! (an [`After`]); past its bound the answer goes out anyway and the miss is kept, so the run
//! fails naming what never happened instead of hanging. A fake MCP server the target spawned
//! reaches the board over a Unix socket ([`Link`]): a path in the run's directory works inside an
//! isolated network namespace, where a loopback port would not.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::watch;

/// How long an answer waits for its event unless the scenario says otherwise: far beyond what
/// any awaited event takes on a loaded machine, well inside every run's own timeout.
pub const DEFAULT_BOUND: Duration = Duration::from_secs(20);

/// Something that happened during a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A request of the main loop (`agent: None`) or of a second loop reached the Messages stub.
    Request { agent: Option<String> },
    /// A fake MCP server (by its name in the scenario) saw a message go by.
    Mcp {
        server: String,
        seen: Seen,
        method: String,
    },
    /// The target printed this line on stdout.
    Stdout { line: String },
    /// The harness sent step `step`'s process the signal its `kill` names (the process is gone
    /// once this is published).
    Killed { step: String },
}

/// What a fake MCP server saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seen {
    /// A request or notification of the client, by its method.
    Received,
    /// The server's answer to a request of the client, by the request's method.
    Answered,
    /// The client's answer to a request of the server (`roots/list`), by the request's method.
    GotAnswer,
}

/// The event an answer waits for, as a scenario writes it: one source (`request`, `mcp` or
/// `stdout`), which occurrence, a bound, and the targets it applies to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AfterSpec {
    /// The Nth request of the main loop, or of the second loop named by `agent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// A fake MCP server by its scenario name, with one of `received`, `answered`, `got_answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub got_answer: Option<String>,
    /// A line the target printed on stdout, containing this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// A file (a path, `{capture:…}` allowed) that has come to contain `contains`: what a target
    /// writes on no wire (2.1.235 flushes an agent's output file on a timer of its own). Looked
    /// at on every event and every 20 ms between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// The harness killed this step's process (`[[step]]` `kill`): an answer to a process that
    /// is being killed goes out only once it is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed: Option<String>,
    /// Which occurrence of the MCP event or stdout line (1-based; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<usize>,
    /// How long the answer may wait before the run is failed for it (default 20 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_ms: Option<u64>,
    /// Only on the targets this key names (`reference`, `claude`, `claude@2.1.235`); `reason`
    /// says why the others answer without waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One validated [`AfterSpec`]: an event, or a file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "AfterSpec", into = "AfterSpec")]
pub struct Cue {
    spec: AfterSpec,
}

impl TryFrom<AfterSpec> for Cue {
    type Error = String;

    fn try_from(spec: AfterSpec) -> Result<Self, String> {
        let sources = [
            spec.request.is_some(),
            spec.mcp.is_some(),
            spec.stdout.is_some(),
            spec.file.is_some(),
            spec.killed.is_some(),
        ];
        if sources.iter().filter(|s| **s).count() != 1 {
            return Err(
                "`after` names one event: `request` (with `agent` for a second loop), `mcp`, `stdout`, `file` (with `contains`) or `killed` (a step)"
                    .into(),
            );
        }
        if spec.file.is_some() != spec.contains.is_some() {
            return Err("`after.file` takes `contains` (the text to wait for), and `contains` goes with `file` only".into());
        }
        if spec.file.is_some() && spec.nth.is_some() {
            return Err("`after.file` waits for content, not a count: drop `nth`".into());
        }
        let seen = [&spec.received, &spec.answered, &spec.got_answer];
        let seen_count = seen.iter().filter(|s| s.is_some()).count();
        if spec.mcp.is_some() != (seen_count == 1) || seen_count > 1 {
            return Err(
                "`after.mcp` takes exactly one of `received`, `answered`, `got_answer` (a method), and they go with `mcp` only"
                    .into(),
            );
        }
        if spec.agent.is_some() && spec.request.is_none() {
            return Err("`after.agent` goes with `request`".into());
        }
        if spec.request == Some(0) || spec.nth == Some(0) {
            return Err("`after` counts from 1".into());
        }
        if spec.request.is_some() && spec.nth.is_some() {
            return Err("`after.request` is already a count: drop `nth`".into());
        }
        if spec.only.is_some() != spec.reason.is_some() {
            return Err("`after.only` needs a `reason` (why the other targets do not wait), and `reason` an `only`".into());
        }
        Ok(Cue { spec })
    }
}

impl From<Cue> for AfterSpec {
    fn from(cue: Cue) -> AfterSpec {
        cue.spec
    }
}

impl Cue {
    /// The fake MCP server the event is of, by its scenario name.
    pub fn server(&self) -> Option<&str> {
        self.spec.mcp.as_deref()
    }

    /// The second loop whose request is awaited.
    pub fn agent(&self) -> Option<&str> {
        self.spec.agent.as_deref()
    }

    /// The target-key filter, when the wait is for some targets only.
    pub fn only(&self) -> Option<&str> {
        self.spec.only.as_deref()
    }

    pub fn bound(&self) -> Duration {
        self.spec
            .within_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_BOUND)
    }

    /// How many matching events must have happened.
    fn needed(&self) -> usize {
        self.spec.request.or(self.spec.nth).unwrap_or(1)
    }

    /// The file the cue waits on and the text it waits for, with `fill` applied (a
    /// `{capture:…}` in them, the run's places).
    fn filled(&self, fill: &impl Fn(&str) -> Result<String, String>) -> Result<Cue, String> {
        let mut cue = self.clone();
        if let Some(path) = &self.spec.file {
            cue.spec.file = Some(fill(path)?);
        }
        if let Some(text) = &self.spec.contains {
            cue.spec.contains = Some(fill(text)?);
        }
        Ok(cue)
    }

    /// A file cue: whether its file holds its text now.
    fn file_holds(&self) -> Option<bool> {
        let (path, text) = (self.spec.file.as_ref()?, self.spec.contains.as_ref()?);
        Some(
            std::fs::read_to_string(path)
                .map(|content| content.contains(text.as_str()))
                .unwrap_or(false),
        )
    }

    fn matches(&self, event: &Event) -> bool {
        let s = &self.spec;
        match event {
            Event::Request { agent } => s.request.is_some() && *agent == s.agent,
            Event::Mcp {
                server,
                seen,
                method,
            } => {
                let wanted = match seen {
                    Seen::Received => &s.received,
                    Seen::Answered => &s.answered,
                    Seen::GotAnswer => &s.got_answer,
                };
                s.mcp.as_ref() == Some(server) && wanted.as_ref() == Some(method)
            }
            Event::Stdout { line } => s.stdout.as_ref().is_some_and(|t| line.contains(t.as_str())),
            Event::Killed { step } => s.killed.as_ref() == Some(step),
        }
    }
}

impl fmt::Display for Cue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.spec;
        let nth = ordinal(self.needed());
        if let (Some(path), Some(text)) = (&s.file, &s.contains) {
            return write!(f, "file {path} containing {text:?}");
        }
        if let Some(n) = s.request {
            return match &s.agent {
                Some(agent) => write!(f, "the {} request of loop `{agent}`", ordinal(n)),
                None => write!(f, "the {} main-loop request", ordinal(n)),
            };
        }
        if let Some(text) = &s.stdout {
            return write!(f, "the {nth} stdout line containing {text:?}");
        }
        if let Some(step) = &s.killed {
            return write!(f, "step `{step}` killed by the harness");
        }
        let server = s.mcp.as_deref().unwrap_or_default();
        match (&s.received, &s.answered, &s.got_answer) {
            (Some(m), _, _) => write!(f, "the {nth} `{m}` received by MCP server `{server}`"),
            (_, Some(m), _) => write!(f, "MCP server `{server}` answering its {nth} `{m}`"),
            (_, _, Some(m)) => write!(
                f,
                "MCP server `{server}` getting the answer to its {nth} `{m}`"
            ),
            _ => write!(f, "an event of MCP server `{server}`"),
        }
    }
}

/// What a scripted answer waits for: one cue (`after = { … }`) or several, all of which must
/// have happened (`after = [{ … }, { … }]`), each with its own bound and targets.
#[derive(Debug, Clone, PartialEq)]
pub struct After {
    cues: Vec<Cue>,
}

impl After {
    pub fn cues(&self) -> &[Cue] {
        &self.cues
    }

    /// The cues meant for a target (`keep` says which); `None` when none is.
    pub fn keeping(&self, keep: impl Fn(&Cue) -> bool) -> Option<After> {
        let cues: Vec<Cue> = self.cues.iter().filter(|c| keep(c)).cloned().collect();
        (!cues.is_empty()).then_some(After { cues })
    }

    /// The cues with `fill` applied to their files and texts.
    pub fn filled(&self, fill: impl Fn(&str) -> Result<String, String>) -> Result<After, String> {
        let cues = self
            .cues
            .iter()
            .map(|c| c.filled(&fill))
            .collect::<Result<_, _>>()?;
        Ok(After { cues })
    }
}

impl fmt::Display for After {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, cue) in self.cues.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{cue}")?;
        }
        Ok(())
    }
}

impl Serialize for After {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.cues.serialize(serializer)
    }
}

/// A table or an array of tables, each cue's own error kept (an untagged enum would say only
/// that nothing matched).
impl<'de> Deserialize<'de> for After {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OneOrMany;
        impl<'de> serde::de::Visitor<'de> for OneOrMany {
            type Value = After;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event `{ … }` or a list of events `[{ … }, …]`")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<After, A::Error> {
                let cue = Cue::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(After { cues: vec![cue] })
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<After, A::Error> {
                let cues =
                    Vec::<Cue>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                if cues.is_empty() {
                    return Err(serde::de::Error::custom(
                        "`after = []` waits for nothing: drop it",
                    ));
                }
                Ok(After { cues })
            }
        }
        deserializer.deserialize_any(OneOrMany)
    }
}

/// How often a file cue looks at its file when no event comes: a file written on no wire has no
/// event to wake on.
const FILE_LOOK: Duration = Duration::from_millis(20);

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The board of one run: every event so far, and the waits that ran out.
#[derive(Clone)]
pub struct Cues {
    inner: Arc<Board>,
}

struct Board {
    events: Mutex<Vec<Event>>,
    /// Bumped on every event: a waiter subscribed before it looked cannot miss one.
    version: watch::Sender<u64>,
    missed: Mutex<Vec<String>>,
}

impl Default for Cues {
    fn default() -> Self {
        Cues {
            inner: Arc::new(Board {
                events: Mutex::new(Vec::new()),
                version: watch::channel(0).0,
                missed: Mutex::new(Vec::new()),
            }),
        }
    }
}

impl fmt::Debug for Cues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cues").finish_non_exhaustive()
    }
}

impl Cues {
    pub fn publish(&self, event: Event) {
        self.inner.events.lock().unwrap().push(event);
        self.inner.version.send_modify(|v| *v += 1);
    }

    fn seen(&self, cue: &Cue) -> usize {
        let events = self.inner.events.lock().unwrap();
        events.iter().filter(|e| cue.matches(e)).count()
    }

    /// Waits until every cue of `after` has happened or its bound has passed; `who` names the
    /// waiting answer in a miss. True when all happened.
    pub async fn wait(&self, after: &After, who: &str) -> bool {
        let mut met = true;
        for cue in after.cues() {
            met &= self.wait_for(cue, who).await;
        }
        met
    }

    async fn wait_for(&self, cue: &Cue, who: &str) -> bool {
        let mut changed = self.inner.version.subscribe();
        let deadline = tokio::time::Instant::now() + cue.bound();
        loop {
            // A file has no event to wake on: it is looked at again after a short while.
            let (happened, seen, next) = match cue.file_holds() {
                Some(holds) => (
                    holds,
                    String::new(),
                    deadline.min(tokio::time::Instant::now() + FILE_LOOK),
                ),
                None => {
                    let seen = self.seen(cue);
                    (seen >= cue.needed(), format!(" ({seen} seen)"), deadline)
                }
            };
            if happened {
                return true;
            }
            let woke = tokio::time::timeout_at(next, changed.changed()).await;
            let ran_out = tokio::time::Instant::now() >= deadline || matches!(woke, Ok(Err(_)));
            if ran_out {
                self.miss(format!(
                    "{who} waited {} ms for {cue}, which never happened{seen}",
                    cue.bound().as_millis()
                ));
                return false;
            }
        }
    }

    /// Keeps a wait that could not be met (ran out, or could not even be asked).
    pub fn miss(&self, what: String) {
        self.inner.missed.lock().unwrap().push(what);
    }

    /// Every wait that ran out, in order.
    pub fn missed(&self) -> Vec<String> {
        self.inner.missed.lock().unwrap().clone()
    }

    /// Serves the board on a Unix socket at `path` for processes the target spawns, until the
    /// returned guard drops. One JSON object a line: `{"event": …}` publishes; `{"wait": …,
    /// "who": …}` is answered `{"met": bool}` once it happened or ran out.
    pub fn listen(&self, path: &Path) -> std::io::Result<Listening> {
        let listener = tokio::net::UnixListener::bind(path)?;
        let board = self.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(board.clone().converse(stream));
            }
        });
        Ok(Listening { task })
    }

    async fn converse(self, stream: tokio::net::UnixStream) {
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match serde_json::from_str::<Message>(&line) {
                Ok(Message::Event(event)) => self.publish(event),
                Ok(Message::Wait { wait, who }) => {
                    let met = self.wait(&wait, &who).await;
                    let answer = format!("{}\n", serde_json::json!({ "met": met }));
                    if write.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
                Err(e) => self.miss(format!("a malformed cue line ({e}): {line:.200}")),
            }
        }
    }
}

/// A board served on its socket: what a run hands every stub it starts.
pub struct Served {
    pub cues: Cues,
    /// Where a process the target spawns reaches the board.
    pub socket: PathBuf,
    _listening: Listening,
}

impl Served {
    /// A fresh board, served at `socket`.
    pub fn at(socket: PathBuf) -> std::io::Result<Served> {
        let cues = Cues::default();
        let listening = cues.listen(&socket)?;
        Ok(Served {
            cues,
            socket,
            _listening: listening,
        })
    }
}

/// Ends the board's socket when dropped.
pub struct Listening {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Message {
    Event(Event),
    Wait { wait: Box<After>, who: String },
}

/// The board as seen from a process the target spawned (a stdio MCP server).
pub struct Link {
    path: PathBuf,
    /// Events go down one connection, so the board sees them in the order they happened.
    events: Mutex<Option<std::os::unix::net::UnixStream>>,
}

impl Link {
    pub fn new(path: PathBuf) -> Link {
        Link {
            path,
            events: Mutex::new(None),
        }
    }

    /// Publishes `event`; a board that cannot be reached fails the waits on it, not this.
    pub fn publish(&self, event: Event) {
        let mut line = serde_json::to_string(&Message::Event(event)).expect("serializable");
        line.push('\n');
        let mut stream = self.events.lock().unwrap();
        if stream.is_none() {
            *stream = std::os::unix::net::UnixStream::connect(&self.path).ok();
        }
        if let Some(s) = stream.as_mut() {
            if s.write_all(line.as_bytes()).is_err() {
                *stream = None;
            }
        }
    }

    /// Asks the board to tell when `after` has happened. False when it ran out or the board
    /// could not be asked.
    pub async fn wait(&self, after: &After, who: &str) -> bool {
        let ask = async {
            let mut stream = tokio::net::UnixStream::connect(&self.path).await?;
            let mut line = serde_json::to_string(&Message::Wait {
                wait: Box::new(after.clone()),
                who: who.to_owned(),
            })?;
            line.push('\n');
            stream.write_all(line.as_bytes()).await?;
            let mut answer = String::new();
            BufReader::new(stream).read_line(&mut answer).await?;
            let answer: serde_json::Value = serde_json::from_str(&answer)?;
            anyhow::Ok(answer["met"].as_bool().unwrap_or(false))
        };
        ask.await.unwrap_or(false)
    }
}

/// Where an answer waits: on the board itself (a stub in the harness's process), over its socket
/// (a process the target spawned), or nowhere (a stub run without a board: it waits for nothing).
#[derive(Clone, Default)]
pub enum Waiter {
    Local(Cues),
    Remote(Arc<Link>),
    #[default]
    Unboarded,
}

impl Waiter {
    pub async fn wait(&self, after: &After, who: &str) -> bool {
        match self {
            Waiter::Local(cues) => cues.wait(after, who).await,
            Waiter::Remote(link) => link.wait(after, who).await,
            Waiter::Unboarded => true,
        }
    }

    pub fn publish(&self, event: Event) {
        match self {
            Waiter::Local(cues) => cues.publish(event),
            Waiter::Remote(link) => link.publish(event),
            Waiter::Unboarded => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(src: &str) -> Result<After, String> {
        #[derive(Deserialize)]
        struct Holder {
            after: After,
        }
        toml::from_str::<Holder>(src)
            .map(|h| h.after)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_spec_names_one_event_and_counts_from_one() {
        assert!(after("after = { request = 2 }").is_ok());
        assert!(after("after = { mcp = \"s\", answered = \"tools/list\", nth = 2 }").is_ok());
        for (bad, says) in [
            ("after = {}", "names one event"),
            ("after = { request = 2, stdout = \"x\" }", "names one event"),
            ("after = { mcp = \"s\" }", "exactly one of"),
            (
                "after = { mcp = \"s\", received = \"a\", answered = \"b\" }",
                "exactly one of",
            ),
            (
                "after = { stdout = \"x\", received = \"a\" }",
                "exactly one of",
            ),
            ("after = { request = 0 }", "counts from 1"),
            ("after = { request = 2, nth = 2 }", "already a count"),
            (
                "after = { stdout = \"x\", only = \"reference\" }",
                "needs a `reason`",
            ),
            ("after = { stdout = \"x\", delay = 1 }", "unknown field"),
            ("after = { file = \"f\" }", "takes `contains`"),
            (
                "after = { stdout = \"x\", contains = \"y\" }",
                "takes `contains`",
            ),
            (
                "after = { file = \"f\", contains = \"y\", nth = 2 }",
                "drop `nth`",
            ),
            ("after = []", "waits for nothing"),
            // A list keeps each cue's own error.
            (
                "after = [{ request = 1 }, { stdout = \"x\", delay = 1 }]",
                "unknown field",
            ),
            ("after = 3", "a list of events"),
        ] {
            let err = after(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[tokio::test]
    async fn a_wait_ends_on_the_nth_matching_event_not_before() {
        let cues = Cues::default();
        let want = after("after = { mcp = \"s\", answered = \"tools/list\", nth = 2 }").unwrap();
        let answered = Event::Mcp {
            server: "s".into(),
            seen: Seen::Answered,
            method: "tools/list".into(),
        };
        cues.publish(answered.clone());
        // Same method, other direction and other server: not it.
        cues.publish(Event::Mcp {
            server: "s".into(),
            seen: Seen::Received,
            method: "tools/list".into(),
        });
        cues.publish(Event::Mcp {
            server: "t".into(),
            seen: Seen::Answered,
            method: "tools/list".into(),
        });
        let waiting = tokio::spawn({
            let cues = cues.clone();
            async move { cues.wait(&want, "test").await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "one matching event of two");
        cues.publish(answered);
        assert!(waiting.await.unwrap());
        assert!(cues.missed().is_empty());
    }

    #[tokio::test]
    async fn a_list_waits_for_every_cue_and_a_file_cue_for_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.jsonl");
        let cues = Cues::default();
        let want = after(&format!(
            "after = [{{ request = 1 }}, {{ file = {:?}, contains = \"DONE\" }}]",
            file.display()
        ))
        .unwrap();
        let waiting = tokio::spawn({
            let cues = cues.clone();
            async move { cues.wait(&want, "test").await }
        });
        cues.publish(Event::Request { agent: None });
        std::fs::write(&file, "not yet\n").unwrap();
        tokio::time::sleep(FILE_LOOK * 3).await;
        assert!(
            !waiting.is_finished(),
            "the file does not hold the text yet"
        );
        // Written with no event on the board: the wait finds it by looking.
        std::fs::write(&file, "not yet\nDONE\n").unwrap();
        assert!(waiting.await.unwrap());
        assert!(cues.missed().is_empty(), "{:?}", cues.missed());
    }

    #[tokio::test]
    async fn a_file_cue_that_runs_out_names_its_file() {
        let cues = Cues::default();
        let want = after("after = { file = \"/nonexistent/f\", contains = \"x\", within_ms = 60 }")
            .unwrap();
        assert!(!cues.wait(&want, "turn 2").await);
        assert_eq!(
            cues.missed(),
            ["turn 2 waited 60 ms for file /nonexistent/f containing \"x\", which never happened"]
        );
    }

    #[tokio::test]
    async fn a_wait_that_runs_out_is_kept_naming_what_never_happened() {
        let cues = Cues::default();
        let want = after("after = { request = 3, within_ms = 50 }").unwrap();
        cues.publish(Event::Request { agent: None });
        cues.publish(Event::Request {
            agent: Some("CHILD".into()),
        });
        assert!(!cues.wait(&want, "turn 2").await);
        assert_eq!(
            cues.missed(),
            ["turn 2 waited 50 ms for the 3rd main-loop request, which never happened (1 seen)"]
        );
    }

    #[tokio::test]
    async fn a_process_publishes_and_waits_over_the_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cues.sock");
        let cues = Cues::default();
        let _listening = cues.listen(&path).unwrap();
        let link = Arc::new(Link::new(path));
        let want = after("after = { stdout = \"\\\"type\\\":\\\"result\\\"\" }").unwrap();
        let waiting = tokio::spawn({
            let link = link.clone();
            let want = want.clone();
            async move { link.wait(&want, "remote").await }
        });
        // The remote's own event reaches the board too.
        link.publish(Event::Request { agent: None });
        cues.publish(Event::Stdout {
            line: r#"{"type":"result"}"#.into(),
        });
        assert!(waiting.await.unwrap());
        let seen = after("after = { request = 1, within_ms = 5000 }").unwrap();
        assert!(cues.wait(&seen, "local").await, "{:?}", cues.missed());
    }
}
