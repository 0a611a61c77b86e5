//! What the fakes and mocks saw: the MCP servers' traffic, the uploads, the Design endpoints,
//! the `[[site]]` hosts, the Projects API and the OAuth token endpoint.

use std::fmt::Write as _;

use super::redact::{RANDOM, UUID};
use super::shape::{compact, keys};
use crate::outcome::RunOutcome;

/// Per fake MCP server: the methods it received with their counts (sorted: concurrent messages
/// may interleave, counts do not), and the client's initialize params.
pub(super) fn mcp_servers(run: &RunOutcome, out: &mut String) {
    for (name, record) in &run.mcp {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for method in record.received().filter_map(|e| e.method()) {
            match counts.iter_mut().find(|(m, _)| *m == method) {
                Some((_, n)) => *n += 1,
                None => counts.push((method, 1)),
            }
        }
        counts.sort_unstable();
        let received = if counts.is_empty() {
            "nothing".to_owned()
        } else {
            counts
                .iter()
                .map(|(m, n)| format!("{m} ×{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            out,
            "mcp {name} ({:?}): received {received}",
            record.transport
        )
        .unwrap();
        if let Some(init) = record.received().find(|e| e.method() == Some("initialize")) {
            let params = &init.msg["params"];
            writeln!(
                out,
                "  initialize: protocolVersion {} capabilities {} clientInfo {}",
                params["protocolVersion"],
                params["capabilities"],
                keys(&params["clientInfo"], 1)
            )
            .unwrap();
        }
    }
    if !run.mcp_survivors.is_empty() {
        let names: Vec<&str> = run.mcp_survivors.iter().map(|(n, _)| n.as_str()).collect();
        writeln!(out, "mcp processes left behind: {}", names.join(", ")).unwrap();
    }
}

/// The uploads the mock claude.ai received, sorted (parallel uploads arrive in any order), with
/// the random boundary reduced to its shape.
pub(super) fn uploads(run: &RunOutcome, out: &mut String) {
    let mut lines: Vec<String> =
        run.uploads
            .iter()
            .map(|u| {
                let boundary = u.boundary.as_deref().map(|b| {
                    let b = UUID.replace_all(b, "{uuid}");
                    // Only runs with a digit: a fixed word such as `FormBoundary` stays readable.
                    RANDOM
                        .replace_all(&b, |c: &regex::Captures| {
                            if c[0].bytes().any(|b| b.is_ascii_digit()) {
                                "{random}".to_owned()
                            } else {
                                c[0].to_owned()
                            }
                        })
                        .into_owned()
                });
                format!(
                "upload {} → {}: {} bytes, part {}, type {}, boundary {}, content-length {}{}{}",
                u.filename.as_deref().map_or("?".into(), |f| format!("{f:?}")),
                u.status,
                u.size,
                u.disposition.as_deref().unwrap_or("?"),
                u.content_type.as_deref().unwrap_or("none"),
                boundary.as_deref().unwrap_or("none"),
                if u.length_declared { "declared" } else { "absent" },
                if u.bearer { "" } else { ", no bearer" },
                u.error.as_deref().map(|e| format!(", refused: {e}")).unwrap_or_default(),
            )
            })
            .collect();
    lines.sort();
    // A file sent again with the same outcome is one line: the checks count the uploads, and
    // whether 2.1.332 sends a refused one again varies from run to run.
    lines.dedup();
    for line in lines {
        writeln!(out, "{line}").unwrap();
    }
}

/// The Design endpoints' requests in arrival order (the handshake's order is the behaviour), and
/// each distinct set of request headers once.
pub(super) fn design(run: &RunOutcome, out: &mut String) {
    let mut header_sets: Vec<String> = Vec::new();
    // By endpoint, each in arrival order: the consent prefetch races the handshake.
    let mut ordered: Vec<&stubs::claude_ai::DesignRequest> = run.design.iter().collect();
    ordered.sort_by_key(|r| r.endpoint as u8);
    for r in ordered {
        let headers = format!(
            "accept {}, content-type {}, x-anthropic-client {}, anthropic-version {}, client-platform {}",
            r.accept.as_deref().unwrap_or("none"),
            r.content_type.as_deref().unwrap_or("none"),
            r.client.as_deref().unwrap_or("none"),
            r.anthropic_version.as_deref().unwrap_or("none"),
            if r.platform { "sent" } else { "none" },
        );
        if !header_sets.contains(&headers) {
            writeln!(out, "design headers: {headers}").unwrap();
            header_sets.push(headers);
        }
        let what = match (&r.rpc, &r.tool) {
            (Some(rpc), Some(tool)) => format!("{rpc} {tool} {}", compact(&r.arguments)),
            (Some(rpc), None) if rpc == "initialize" => format!("{rpc} {}", compact(&r.params)),
            (Some(rpc), None) => rpc.clone(),
            (None, _) => compact(&r.body),
        };
        writeln!(
            out,
            "design {:?} {} {} session={} bearer={:?} → {}",
            r.endpoint,
            r.http_method,
            // Not `redact`: a protocol version is a date that must show.
            crate::account::redact(&run.places.redact(&what)),
            r.session.as_deref().unwrap_or("none"),
            r.bearer,
            r.status
        )
        .unwrap();
    }
}

/// What the `[[site]]` hosts and the domain preflight received, in arrival order, and each
/// distinct pair of client headers once.
pub(super) fn site(run: &RunOutcome, out: &mut String) {
    let mut header_sets: Vec<String> = Vec::new();
    for r in &run.site {
        let headers = format!(
            "user-agent {}, accept {}",
            r.user_agent.as_deref().unwrap_or("none"),
            r.accept.as_deref().unwrap_or("none")
        );
        if !header_sets.contains(&headers) {
            writeln!(out, "site headers: {headers}").unwrap();
            header_sets.push(headers);
        }
        writeln!(
            out,
            "site {} {} {}://{}{} → {}",
            r.kind, r.method, r.scheme, r.host, r.path, r.status
        )
        .unwrap();
    }
}

/// The Projects API's requests in arrival order (the start-up detail fetch, then the tool's), and
/// the Project afterwards when it changed: its docs by path, size and a digest prefix.
pub(super) fn project(run: &RunOutcome, out: &mut String) {
    // 2.1.332 reads the Project's memory alongside its first detail read, so which arrives first
    // varies: the memory reads are listed after the others, in their own order.
    let memory =
        |r: &&stubs::claude_ai::ProjectRequest| r.op == Some(stubs::claude_ai::Op::DetailMemory);
    let ordered = run
        .project
        .iter()
        .filter(|r| !memory(r))
        .chain(run.project.iter().filter(memory));
    for r in ordered {
        let mut what = vec![r.op.map_or("unknown".into(), |op| {
            serde_json::to_value(op)
                .unwrap_or_default()
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })];
        if let Some(name) = &r.names {
            what.push(name.clone());
        }
        if let Some(name) = &r.file_name {
            what.push(format!("file_name={name}"));
        }
        if let (Some(bytes), Some(sha)) = (r.content_bytes, &r.content_sha256) {
            what.push(format!("content={bytes}B sha256:{}", &sha[..12]));
        }
        if let Some(q) = &r.query {
            what.push(format!(
                "query={q:?} n={}",
                r.n.map_or("none".into(), |n| n.to_string())
            ));
        }
        let scoped = match r.scoped {
            Some(true) => " org+project ok",
            Some(false) => " WRONG org or project",
            None => "",
        };
        writeln!(
            out,
            "project {:?} {} {}{scoped} bearer={:?} → {}",
            r.transport,
            r.http_method,
            crate::account::redact(&run.places.redact(&what.join(" "))),
            r.bearer,
            r.status
        )
        .unwrap();
    }
    if let (Some(before), Some(after)) = (&run.project_seeded, &run.project_state) {
        if before != after {
            for d in &after.docs {
                writeln!(
                    out,
                    "project after: {} {}B sha256:{}",
                    d.path,
                    d.bytes,
                    &d.sha256[..12]
                )
                .unwrap();
            }
            writeln!(
                out,
                "project after: knowledge_size {}",
                after.knowledge_size
            )
            .unwrap();
        }
    }
}

/// The directory routes' requests, sorted: the tools that make them run at once, so arrival
/// order is the scheduler's (a listing's pages are told apart by their query).
pub(super) fn directory(run: &RunOutcome, out: &mut String) {
    let mut lines: Vec<String> = run
        .directory
        .iter()
        .map(|r| {
            let mut what = vec![r.http_method.clone(), r.route.name().to_owned()];
            what.extend(r.query.as_ref().map(|q| format!("?{q}")));
            what.extend(r.body.as_ref().map(|b| format!("body={b}")));
            if !r.organization {
                what.push("WRONG org".into());
            }
            what.push(format!("bearer={:?}", r.bearer));
            let headers = [
                ("anthropic-version", &r.anthropic_version),
                ("platform", &r.client_platform),
                ("beta", &r.beta),
            ];
            for (name, value) in headers {
                what.push(format!("{name}={}", value.as_deref().unwrap_or("none")));
            }
            format!(
                "directory {} → {}",
                crate::account::redact(&run.places.redact(&what.join(" "))),
                r.status
            )
        })
        .collect();
    lines.sort();
    for line in lines {
        writeln!(out, "{line}").unwrap();
    }
}

/// The token endpoint's requests, in order (their shape; token values are never recorded).
pub(super) fn token_requests(run: &RunOutcome, out: &mut String) {
    for t in &run.token_requests {
        writeln!(
            out,
            "oauth token: grant {} scopes [{}] refresh token {} → {}",
            t.grant_type.as_deref().unwrap_or("none"),
            t.scopes.join(" "),
            if t.refresh_token_matched {
                "the account's"
            } else if t.refresh_token_rotated {
                "a rotated one"
            } else {
                "unknown"
            },
            t.status
        )
        .unwrap();
    }
}

/// Each run of the hook recorder: its event, label, exit, the tool it was about, and its stdin's
/// keys in their order (the values are session ids, paths and timings). Events in the order they
/// started; the hooks of one firing (same event, same call) run at once, so among themselves
/// they are sorted, or the trace would change with the scheduler.
pub(super) fn hooks(run: &RunOutcome, out: &mut String) {
    let mut lines: Vec<((&str, &serde_json::Value), String)> = Vec::new();
    for h in &run.hooks {
        let keys: Vec<&str> = h
            .stdin
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        let label = if h.label.is_empty() {
            String::new()
        } else {
            format!(" [{}]", h.label)
        };
        let about = match h.stdin["tool_name"].as_str() {
            Some(tool) => format!(" tool={tool}"),
            None => String::new(),
        };
        let line = format!(
            "hook {}{label} exit={}{about} env={} stdin: {}",
            h.event,
            h.exit,
            h.env.join(","),
            keys.join(",")
        );
        lines.push(((h.event.as_str(), &h.stdin["tool_use_id"]), line));
    }
    for firing in lines.chunk_by_mut(|a, b| a.0 == b.0) {
        firing.sort_by(|a, b| a.1.cmp(&b.1));
    }
    for (_, line) in lines {
        writeln!(out, "{line}").unwrap();
    }
}
