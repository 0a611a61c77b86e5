//! A mutation applied to a copy of a run: each family of evidence changed by its own function
//! (the process, the texts, stdout, the requests, the servers' logs, the mocks' lists and
//! Project, the files on disk), and the helpers that walk a run's texts and values.

use serde_json::{json, Value};
use stubs::jsonlog::LogEntry;

use super::mutation::{List, Mutation, Perturb, MARK};
use super::{part, Mutant};
use crate::mcp::ServerRecord;
use crate::outcome::RunOutcome;

/// `run` with `m` applied, or `None` when `m` changes nothing here.
pub(super) fn apply(m: &Mutation, run: &RunOutcome) -> Option<Mutant> {
    let mut r = run.clone();
    let family = match m.touches() {
        part::FILES => return files(m, r),
        part::EXIT | part::RSS => process,
        part::TEXTS => texts,
        part::STDOUT | part::STDERR => stdout,
        part::REQUESTS => requests,
        part::MCP => servers,
        part::LISTS | part::PROJECT_STATE => mocks,
        part::SESSIONS => sessions,
        _ => return None,
    };
    family(m, &mut r)?;
    Some(Mutant { run: r, file: None })
}

/// The exit status and the peak memory.
fn process(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::ExitChanged => r.exit_code = Some(r.exit_code.map_or(0, |c| c + 1)),
        M::KilledBySignal => r.exit_code = None,
        M::RssUnknown => r.peak_rss_kib = None,
        M::RssHuge => r.peak_rss_kib = Some(64 << 20),
        _ => return None,
    }
    Some(())
}

/// A text a check names, changed or added wherever texts are.
fn texts(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::TextRemoved(t) => {
            // The mark after its first character: the text is gone, its neighbours stay.
            let first = t.chars().next()?;
            let changed = format!("{first}{MARK}{}", &t[first.len_utf8()..]);
            let mut any = false;
            each_text(r, &mut |s| {
                if s.contains(t.as_str()) {
                    *s = s.replace(t.as_str(), &changed);
                    any = true;
                }
            });
            any.then_some(())?;
        }
        M::TextAdded(t) => {
            each_text(r, &mut |s| s.push_str(t));
            for record in r.mcp.values_mut() {
                let t_ms = record.entries.last().map_or(0, |e| e.t_ms);
                record.entries.push(note(t_ms, t));
            }
        }
        _ => return None,
    }
    Some(())
}

/// Stdout's events and the streams as a whole.
fn stdout(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::StdoutCleared => (!r.stdout.is_empty()).then(|| r.stdout.clear())?,
        M::StderrCleared => (!r.stderr.is_empty()).then(|| r.stderr.clear())?,
        M::EventRemoved(i) => edit_events(r, |events| {
            events.remove(*i);
        })
        .then_some(())?,
        M::ResultErrorFlipped | M::ResultSubtypeChanged => edit_events(r, |events| {
            if let Some(result) = events.iter_mut().rev().find(|e| e["type"] == "result") {
                if matches!(m, M::ResultErrorFlipped) {
                    let flipped = !result["is_error"].as_bool().unwrap_or(false);
                    result["is_error"] = json!(flipped);
                } else {
                    result["subtype"] = json!(MARK);
                }
            }
        })
        .then_some(())?,
        M::EventKeyAdded(kind) | M::EventKeyRemoved(kind) => edit_events(r, |events| {
            let last = events
                .iter_mut()
                .rev()
                .find(|e| crate::wire::event_kind(e) == *kind);
            if let Some(Value::Object(o)) = last {
                if matches!(m, M::EventKeyAdded(_)) {
                    o.insert(MARK.into(), json!(true));
                } else if let Some(k) = o.keys().rfind(|k| *k != "type" && *k != "subtype") {
                    let k = k.clone();
                    o.remove(&k);
                }
            }
        })
        .then_some(())?,
        M::ToolUseResultPerturbed(i, p) => edit_events(r, |events| {
            perturb(&mut events[*i]["tool_use_result"], *p, None);
        })
        .then_some(())?,
        M::StdoutAppended(t) => r.stdout.push_str(&format!("{t}\n")),
        M::ToolUseResultAdded(id) => {
            let event = json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": MARK}]},
                "tool_use_result": {MARK: true}});
            r.stdout.push_str(&format!("{event}\n"));
        }
        _ => return None,
    }
    Some(())
}

/// The Messages requests: dropped, perturbed, their tools and tool_results.
fn requests(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::RequestDropped(i) => {
            r.requests.remove(*i);
        }
        M::RequestPerturbed(i, p) => perturb(&mut r.requests[*i].body, *p, None),
        M::AllRequestsPerturbed(p) => {
            for req in &mut r.requests {
                perturb(&mut req.body, *p, None);
            }
        }
        M::AgentRequestAdded(agent) => r.requests.push(added_request(
            json!({"messages": [{"role": "user", "content": MARK}]}),
            stubs::messages::RequestKind::Agent {
                agent: agent.clone(),
                n: 1,
            },
        )),
        M::ToolResultAdded(id) => {
            let kind = stubs::messages::RequestKind::Main(r.requests.len() + 1);
            r.requests.push(added_request(
                json!({"messages": [{"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": id, "content": MARK},
                ]}]}),
                kind,
            ))
        }
        M::BetaRemoved(name) | M::BetaAdded(name) => {
            for req in &mut r.requests {
                let header = req.headers.entry("anthropic-beta".into()).or_default();
                let mut names: Vec<&str> = header.split(',').filter(|b| !b.is_empty()).collect();
                names.retain(|b| b != name);
                if matches!(m, M::BetaAdded(_)) {
                    names.push(name);
                }
                *header = names.join(",");
            }
        }
        M::ToolResultDropped(i) => {
            let messages = r.requests[*i].body["messages"].as_array_mut()?;
            let message = messages.iter_mut().rev().find(|m| {
                m["content"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
            })?;
            let content = message["content"].as_array_mut()?;
            let at = content.iter().position(|b| b["type"] == "tool_result")?;
            content.remove(at);
        }
        M::ToolResultsErrorFlipped | M::ToolResultsTextAdded => {
            for req in &mut r.requests {
                for message in req.body["messages"].as_array_mut().into_iter().flatten() {
                    for block in message["content"].as_array_mut().into_iter().flatten() {
                        if block["type"] != "tool_result" {
                            continue;
                        }
                        if matches!(m, M::ToolResultsErrorFlipped) {
                            let flipped = !crate::wire::is_error(block);
                            block["is_error"] = json!(flipped);
                        } else {
                            let text = json!({"type": "text", "text": MARK});
                            match &mut block["content"] {
                                Value::Array(content) => content.push(text),
                                Value::String(content) => content.push_str(MARK),
                                other => *other = json!([text]),
                            }
                        }
                    }
                }
            }
        }
        M::ToolRemoved(_) | M::ToolAdded(_) | M::ToolsReversed => {
            for req in &mut r.requests {
                let Some(tools) = req.body["tools"].as_array_mut() else {
                    continue;
                };
                match m {
                    M::ToolRemoved(name) => tools.retain(|t| {
                        !t["name"]
                            .as_str()
                            .is_some_and(|n| n.starts_with(name.as_str()))
                    }),
                    M::ToolAdded(name) => tools.push(json!({"name": name, "input_schema": {}})),
                    _ => tools.reverse(),
                }
            }
        }
        M::PropertyRemoved(p) | M::PropertyAdded(p) => {
            for req in &mut r.requests {
                for tool in req.body["tools"].as_array_mut().into_iter().flatten() {
                    if let Some(props) = tool["input_schema"]["properties"].as_object_mut() {
                        if matches!(m, M::PropertyAdded(_)) {
                            props.insert(p.clone(), json!({"type": "string"}));
                        } else {
                            props.remove(p);
                        }
                    }
                }
            }
        }
        _ => return None,
    }
    Some(())
}

/// A fake server's log and whether it outlived the target.
fn servers(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::ServerDialled(s) => {
            let record = r.mcp.entry(s.clone()).or_insert_with(|| ServerRecord {
                transport: Default::default(),
                entries: Vec::new(),
                log_error: None,
            });
            let t_ms = record.entries.last().map_or(0, |e| e.t_ms);
            record.entries.push(note(t_ms, "start argv=[mutant]"));
            record.entries.push(LogEntry {
                t_ms,
                pid: 0,
                dir: "in".into(),
                msg: json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
                note: None,
            });
        }
        M::ServerSilenced(s) => r.mcp.get_mut(s)?.entries.clear(),
        M::ServerEntryRemoved(s, i) => {
            r.mcp.get_mut(s)?.entries.remove(*i);
        }
        M::ServerEntryDuplicated(s, i) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let e = entries[*i].clone();
            entries.insert(*i, e);
        }
        M::ServerMethodAdded(s, method) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let t_ms = entries.last().map_or(0, |e| e.t_ms);
            entries.push(LogEntry {
                t_ms,
                pid: 0,
                dir: "in".into(),
                msg: json!({"jsonrpc": "2.0", "method": method}),
                note: Some(format!("{method} /"))
                    .filter(|_| method.chars().all(|c| c.is_ascii_uppercase())),
            });
        }
        M::ServerFirst(s) => {
            let first_in = |rec: &ServerRecord| rec.received().next().map(|e| e.t_ms);
            let earliest = r.mcp.values().filter_map(first_in).min()?;
            let record = r.mcp.get_mut(s)?;
            let mine = first_in(record)?;
            (mine > earliest).then_some(())?;
            let back = mine - earliest;
            for e in &mut record.entries {
                e.t_ms = e.t_ms.saturating_sub(back);
            }
        }
        M::ServerLater(s) => {
            for e in &mut r.mcp.get_mut(s)?.entries {
                e.t_ms += 10_000;
            }
        }
        M::ServerGapsStretched(s) => {
            let entries = &mut r.mcp.get_mut(s)?.entries;
            let t0 = entries.first()?.t_ms;
            for (k, e) in entries.iter_mut().enumerate() {
                e.t_ms = t0 + 2 * e.t_ms.saturating_sub(t0) + 1000 * k as u64;
            }
        }
        M::SurvivorToggled(s) => {
            if r.mcp_survivors.iter().any(|(n, _)| n == s) {
                r.mcp_survivors.retain(|(n, _)| n != s);
            } else {
                r.mcp_survivors.push((s.clone(), 0));
            }
        }
        _ => return None,
    }
    Some(())
}

/// The mocks' recorded lists and the Project's state.
fn mocks(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::ListDropped(l, i) | M::ListDuplicated(l, i) | M::ListSwapped(l, i) => {
            fn edit<T: Clone>(v: &mut Vec<T>, m: &Mutation, i: usize) {
                match m {
                    Mutation::ListDropped(..) => {
                        v.remove(i);
                    }
                    Mutation::ListDuplicated(..) => v.insert(i, v[i].clone()),
                    _ => v.swap(i, i + 1),
                }
            }
            match l {
                List::Uploads => edit(&mut r.uploads, m, *i),
                List::Design => edit(&mut r.design, m, *i),
                List::Project => edit(&mut r.project, m, *i),
                List::Site => edit(&mut r.site, m, *i),
                List::Artifact => edit(&mut r.artifact, m, *i),
                List::Directory => edit(&mut r.directory, m, *i),
                List::TokenRequests => edit(&mut r.token_requests, m, *i),
                List::Hooks => edit(&mut r.hooks, m, *i),
            }
        }
        M::ListAdded(list, method, path) => match list {
            List::Uploads => r.uploads.push(Default::default()),
            List::TokenRequests => r.token_requests.push(Default::default()),
            List::Hooks => r.hooks.push(crate::hooks::HookRun {
                event: method.clone().unwrap_or_default(),
                ..Default::default()
            }),
            List::Design => {
                use stubs::claude_ai::DesignEndpoint as E;
                let endpoint = match path.as_deref() {
                    Some("consent") => E::Consent,
                    Some("grants") => E::Grants,
                    Some("sync") => E::Sync,
                    _ => E::Mcp,
                };
                r.design.push(stubs::claude_ai::DesignRequest {
                    endpoint,
                    rpc: method.clone(),
                    http_method: method.clone().unwrap_or_else(|| "POST".into()),
                    ..Default::default()
                });
            }
            List::Project => r.project.push(stubs::claude_ai::ProjectRequest {
                op: method
                    .as_ref()
                    .and_then(|m| serde_json::from_value(json!(m)).ok()),
                ..Default::default()
            }),
            // A request no one made: a page fetched from a host nothing should have reached.
            List::Site => r.site.push(stubs::site::SiteRequest {
                at_ms: 0,
                // A `site` check's `method` is the request's kind.
                kind: if method.as_deref() == Some("preflight") {
                    "preflight"
                } else {
                    "page"
                },
                scheme: "http",
                host: "mutant.test".into(),
                method: "GET".into(),
                path: path.clone().unwrap_or_else(|| "/".into()),
                user_agent: None,
                accept: None,
                status: 200,
            }),
            List::Artifact => return None,
            // A request no tool made: a route asked once more.
            List::Directory => r.directory.push(stubs::claude_ai::DirectoryRequest {
                route: method
                    .as_ref()
                    .and_then(|m| serde_json::from_value(json!(m)).ok())
                    .unwrap_or_default(),
                http_method: "POST".into(),
                status: 200,
                ..Default::default()
            }),
        },
        M::ProjectDocChanged(i) => r.project_state.as_mut()?.docs[*i].content.push_str(MARK),
        M::ProjectDocRemoved(i) => {
            r.project_state.as_mut()?.docs.remove(*i);
        }
        M::ProjectUploadRemoved(i) => {
            r.project_state.as_mut()?.uploads.remove(*i);
        }
        M::ProjectSizeChanged => r.project_state.as_mut()?.knowledge_size += 1,
        M::ProjectGone => r.project_state = None,
        _ => return None,
    }
    Some(())
}

/// A file on disk, changed in place (and put back by `Mutant::restore`).
fn files(m: &Mutation, r: RunOutcome) -> Option<Mutant> {
    use std::os::unix::fs::PermissionsExt;
    use Mutation as M;
    let (M::FileChanged(p, _) | M::FileRemoved(p) | M::FileModeChanged(p)) = m else {
        let M::FileCreated(p) = m else {
            return None;
        };
        std::fs::create_dir_all(p.parent()?).ok()?;
        std::fs::write(p, MARK).ok()?;
        return Some(Mutant {
            run: r,
            file: Some((p.clone(), None)),
        });
    };
    let bytes = std::fs::read(p).ok()?;
    let perms = std::fs::metadata(p).ok()?.permissions();
    let mutant = Mutant {
        run: r,
        file: Some((p.clone(), Some((bytes.clone(), perms.clone())))),
    };
    let done = match m {
        M::FileChanged(_, text) => {
            let mut changed = bytes;
            changed.extend_from_slice(text.as_bytes());
            std::fs::write(p, changed)
        }
        M::FileRemoved(_) => std::fs::remove_file(p),
        _ => std::fs::set_permissions(p, std::fs::Permissions::from_mode(perms.mode() ^ 0o077)),
    };
    if done.is_err() {
        mutant.restore();
        return None;
    }
    Some(mutant)
}

pub(super) fn note(t_ms: u64, text: &str) -> LogEntry {
    LogEntry {
        t_ms,
        pid: 0,
        dir: "note".into(),
        msg: Value::Null,
        note: Some(text.to_owned()),
    }
}

/// Rewrites stdout's stream-json events (a terminal's stdout is left alone).
/// `false`, and nothing changed, when stdout is not stream-json.
fn edit_events(r: &mut RunOutcome, f: impl FnOnce(&mut Vec<Value>)) -> bool {
    let mut events = crate::wire::stdout_events(&r.stdout);
    if events.iter().any(|e| !e.is_object()) {
        return false;
    }
    f(&mut events);
    r.stdout = events.iter().map(|e| format!("{e}\n")).collect();
    true
}

/// Keys whose string values are texts a check reads (prose, results, prompts), not names.
const TEXT_KEYS: &[&str] = &[
    "text",
    "content",
    "result",
    "description",
    "system",
    "message",
    "error",
    "stdout",
    "stderr",
    "prompt",
];

/// Calls `f` on every text of the run: stderr, the screens, stdout (each text of its events, or
/// the terminal's bytes), request bodies, server logs, the Project's docs.
/// The session files: a record gone, keys reordered, strings changed, a transcript that should
/// not be there.
fn sessions(m: &Mutation, r: &mut RunOutcome) -> Option<()> {
    use Mutation as M;
    match m {
        M::SessionRecordRemoved(f, i) => edit_records(r.sessions.get_mut(*f)?, |records| {
            (*i < records.len()).then(|| records.remove(*i)).map(|_| ())
        })?,
        M::SessionKeysReversed(f) => edit_records(r.sessions.get_mut(*f)?, |records| {
            for rec in records.iter_mut() {
                if let Value::Object(o) = rec {
                    *o = std::mem::take(o).into_iter().rev().collect();
                }
            }
            Some(())
        })?,
        M::SessionStringsChanged(f) => edit_records(r.sessions.get_mut(*f)?, |records| {
            records
                .iter_mut()
                .for_each(|rec| perturb(rec, Perturb::Strings, None));
            Some(())
        })?,
        M::SessionWritten(inside) => {
            for (id, _) in r.session_names() {
                let path = match inside {
                    None => format!("mutant/{id}.jsonl"),
                    Some(rel) => format!("mutant/{id}/{}", rel.replace('*', "mutant")),
                };
                r.sessions.push(crate::sessions::SessionFile {
                    path,
                    text: format!("{{\"type\":\"user\",\"sessionId\":\"{id}\"}}\n"),
                });
            }
        }
        _ => return None,
    }
    Some(())
}

/// Session file `file`'s records, edited and written back one a line.
fn edit_records(
    file: &mut crate::sessions::SessionFile,
    edit: impl FnOnce(&mut Vec<Value>) -> Option<()>,
) -> Option<()> {
    let mut records = file.records();
    edit(&mut records)?;
    file.text = records.iter().map(|r| format!("{r}\n")).collect::<String>();
    Some(())
}

fn each_text(r: &mut RunOutcome, f: &mut dyn FnMut(&mut String)) {
    f(&mut r.stderr);
    for file in &mut r.sessions {
        let _ = edit_records(file, |records| {
            records.iter_mut().for_each(|rec| strings_in(rec, &mut *f));
            Some(())
        });
    }
    r.screens.iter_mut().for_each(&mut *f);
    let in_events = edit_events(r, |events| {
        events.iter_mut().for_each(|e| texts_in(e, None, &mut *f));
    });
    if !in_events {
        f(&mut r.stdout);
    }
    for req in &mut r.requests {
        texts_in(&mut req.body, None, f);
    }
    for record in r.mcp.values_mut() {
        for e in &mut record.entries {
            texts_in(&mut e.msg, None, f);
            if let Some(n) = &mut e.note {
                f(n);
            }
        }
    }
    for doc in r.project_state.iter_mut().flat_map(|s| s.docs.iter_mut()) {
        f(&mut doc.content);
    }
}

/// Every string leaf of `v`.
fn strings_in(v: &mut Value, f: &mut dyn FnMut(&mut String)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|i| strings_in(i, f)),
        Value::Object(o) => o.values_mut().for_each(|v| strings_in(v, f)),
        _ => {}
    }
}

fn texts_in(v: &mut Value, key: Option<&str>, f: &mut dyn FnMut(&mut String)) {
    match v {
        Value::String(s) if key.is_some_and(|k| TEXT_KEYS.contains(&k)) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|i| texts_in(i, key, f)),
        Value::Object(o) => o.iter_mut().for_each(|(k, v)| texts_in(v, Some(k), f)),
        _ => {}
    }
}

/// Keys that name or link rather than say: changing them would hide a value from its check (a
/// tool_result no longer found by its id) instead of changing it.
const ID_KEYS: &[&str] = &["id", "tool_use_id", "type", "role"];

fn perturb(v: &mut Value, how: Perturb, key: Option<&str>) {
    match (v, how) {
        (Value::String(s), Perturb::Strings) if !key.is_some_and(|k| ID_KEYS.contains(&k)) => {
            s.push_str(MARK)
        }
        (Value::Number(n), Perturb::Numbers) => {
            *n = match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => (u + 1).into(),
                (_, Some(i), _) => (i + 1).into(),
                (_, _, Some(f)) => serde_json::Number::from_f64(f + 1.0).unwrap_or(0.into()),
                _ => return,
            }
        }
        (Value::Bool(b), Perturb::Bools) => *b = !*b,
        (Value::Array(items), how) => {
            if matches!(how, Perturb::Arrays) {
                items.pop();
            }
            items.iter_mut().for_each(|i| perturb(i, how, key));
        }
        (Value::Object(o), how) => o.iter_mut().for_each(|(k, v)| perturb(v, how, Some(k))),
        _ => {}
    }
}

/// A Messages request the run did not make, as the stub would have recorded it.
pub(super) fn added_request(
    body: serde_json::Value,
    kind: stubs::messages::RequestKind,
) -> stubs::messages::RecordedRequest {
    stubs::messages::RecordedRequest {
        at_ms: 0,
        at_unix_ms: 0,
        method: "POST".into(),
        path: "/v1/messages".into(),
        headers: Default::default(),
        body,
        kind,
        status: 200,
    }
}
