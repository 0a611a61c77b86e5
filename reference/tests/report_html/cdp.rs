//! A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: commands and
//! answers as NUL-separated JSON on the browser's fds 3 and 4. Just what the report test needs:
//! open a page, evaluate, click, screenshot, collect page errors.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// How long one CDP command, or one wait for the page, may take.
pub const STEP: Duration = Duration::from_secs(30);

/// Chromium, headless, spoken to over `--remote-debugging-pipe`. Killed (its whole process group,
/// by its pid) when dropped, also when the test panics.
pub struct Browser {
    child: Child,
    commands: File,
    messages: Receiver<Value>,
    events: Vec<Value>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

/// A page, by its CDP session.
pub struct Page(String);

impl Browser {
    pub fn launch(chromium: &Path, out: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        // fd 3: the browser reads commands; fd 4: it writes answers and events.
        let (commands_read, commands_write) = pipe();
        let (messages_read, messages_write) = pipe();
        let log = File::create(out.join("chromium.log")).unwrap();
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,800",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            // Its crash database and caches go to the tempdir too, not to the user's home.
            .env("HOME", profile.path())
            .env("XDG_CONFIG_HOME", profile.path().join("config"))
            .env("XDG_CACHE_HOME", profile.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        let (r, w) = (commands_read.as_raw_fd(), messages_write.as_raw_fd());
        // SAFETY: only async-signal-safe calls (fcntl, dup2, close) between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // Lifted above 10 first, so placing one on 3 or 4 cannot close the other.
                let r = libc::fcntl(r, libc::F_DUPFD, 10);
                let w = libc::fcntl(w, libc::F_DUPFD, 10);
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(r);
                libc::close(w);
                Ok(())
            });
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
        // The browser's ends now live in the browser only, so its exit ends the reader.
        drop((commands_read, messages_write));
        let (send, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(File::from(messages_read));
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                let Ok(message) = serde_json::from_slice::<Value>(&buf) else {
                    continue;
                };
                if send.send(message).is_err() {
                    return;
                }
            }
        });
        Browser {
            child,
            commands: File::from(commands_write),
            messages,
            events: Vec::new(),
            next_id: 0,
            _profile: profile,
        }
    }

    /// Sends one command (to the browser, or to a page's session) and waits for its answer.
    pub fn call(&mut self, session: Option<&Page>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(Page(session)) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .unwrap_or_else(|e| panic!("{method}: the browser is gone: {e}"));
        let deadline = Instant::now() + STEP;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => panic!("{method}: no answer in {STEP:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("{method}: the browser closed its pipe (see chromium.log)")
                }
            };
            if message["id"] == json!(id) {
                if let Some(error) = message.get("error") {
                    panic!("{method} failed: {error}");
                }
                return message["result"].clone();
            }
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    /// A new tab of `width`×`height` CSS pixels, attached, with its errors reported.
    pub fn open_page(&mut self, width: u32, height: u32) -> Page {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let page = Page(attached["sessionId"].as_str().unwrap().to_owned());
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            self.call(Some(&page), domain, json!({}));
        }
        self.call(
            Some(&page),
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        page
    }

    /// Loads `url` and, for the report, waits until it is drawn.
    pub fn navigate(&mut self, page: &Page, url: &str) {
        let result = self.call(Some(page), "Page.navigate", json!({ "url": url }));
        if let Some(error) = result.get("errorText") {
            panic!("cannot open {url}: {error}");
        }
        if url.starts_with("file:") {
            self.wait_for(
                page,
                &format!(
                    "document.readyState === 'complete' && location.href === {} \
                     && document.documentElement.dataset.ready === 'true'",
                    json!(url)
                ),
                "the report to be drawn",
            );
        }
    }

    pub fn eval(&mut self, page: &Page, expression: &str) -> Value {
        let result = self.call(
            Some(page),
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        if let Some(e) = result.get("exceptionDetails") {
            panic!("{expression}\nthrew: {e:#}");
        }
        result["result"]["value"].clone()
    }

    pub fn wait_for(&mut self, page: &Page, condition: &str, what: &str) {
        let deadline = Instant::now() + STEP;
        while self.eval(page, &format!("!!({condition})")) != json!(true) {
            assert!(Instant::now() < deadline, "waited {STEP:?} for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A mouse click, as a person gives it, in the middle of the element `selector` names; the
    /// element must be the one under the pointer there (not covered by a sticky header).
    pub fn click(&mut self, page: &Page, selector: &str) {
        let at = self.eval(
            page,
            &format!(
                "(() => {{ const e = document.querySelector({sel}); if (!e) return null;\
                 e.scrollIntoView({{ block: 'center' }}); const r = e.getBoundingClientRect();\
                 const x = r.left + r.width / 2, y = r.top + r.height / 2;\
                 const hit = document.elementFromPoint(x, y);\
                 return {{ x, y, hit: !!hit && (hit === e || e.contains(hit)) }}; }})()",
                sel = json!(selector)
            ),
        );
        assert!(!at.is_null(), "nothing matches {selector}");
        assert_eq!(
            at["hit"],
            json!(true),
            "{selector} is covered where it is clicked"
        );
        let (x, y) = (at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap());
        for (kind, button, clicks) in [
            ("mouseMoved", "none", 0),
            ("mousePressed", "left", 1),
            ("mouseReleased", "left", 1),
        ] {
            self.call(
                Some(page),
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": button, "clickCount": clicks }),
            );
        }
    }

    pub fn screenshot(&mut self, page: &Page, path: &Path) {
        let shot = self.call(
            Some(page),
            "Page.captureScreenshot",
            json!({ "format": "png" }),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(path, png).unwrap();
    }

    /// No uncaught exception, console error or refused load (CSP) on the page so far.
    pub fn assert_no_page_errors(&mut self) {
        // Events that arrived after the last answer are read too.
        while let Ok(message) = self.messages.try_recv() {
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
        let errors: Vec<&Value> = self
            .events
            .iter()
            .filter(|e| match e["method"].as_str() {
                Some("Runtime.exceptionThrown") => true,
                Some("Runtime.consoleAPICalled") => e["params"]["type"] == "error",
                Some("Log.entryAdded") => e["params"]["entry"]["level"] == "error",
                _ => false,
            })
            .collect();
        assert!(errors.is_empty(), "errors on the page: {errors:#?}");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals the process group this test started (its leader is our child).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// A pipe, both ends close-on-exec (the child gets its ends through dup2 only).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fds that nothing else owns.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: just created, owned here only.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}
