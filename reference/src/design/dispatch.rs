//! One operation end to end. `operation` is 2.1.235's `Y0f`: discovery when the operation is `list`
//! or not yet known, the `list` answer (full, or `catalog_unchanged` for an agent already served
//! the same hash), else `tools/call` on the session with the 403 interceptions and the HTTP and
//! JSON-RPC error texts. `call` is the tool's `call`: credentials, the execution backstops, then
//! the operation with one consent retry and one grant retry, and the plan registration after an
//! approved `finalize_plan`.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::account::{consent_prompt, Account, CONSENT_BITS};
use super::catalog;
use super::credentials;
use super::error::{redact, DesignError};
use super::plans;
use super::session;
use super::signal::Signal;
use super::state::DesignState;
use super::transport::Transport;
use super::{LIST, TOOL_NAME};
use crate::limits;

/// Everything a Design call talks to.
pub struct Service {
    pub state: Arc<DesignState>,
    pub transport: Arc<Transport>,
    pub account: Account,
    pub home: PathBuf,
}

/// What the session knows about the call's circumstances.
#[derive(Debug, Clone)]
pub struct Facts {
    /// `-p` (print or the SDK control protocol): no card can reach a person.
    pub non_interactive: bool,
    pub plan_mode: bool,
    pub bypass_mode: bool,
    /// Bypass could be switched on (started with it allowed).
    pub bypass_available: bool,
    /// The main agent without a PermissionRequest hook taking the approval.
    pub main_agent: bool,
    /// The agent's id (the session id for the main agent): the catalog-hash key.
    pub agent_key: Option<String>,
}

impl Facts {
    /// Whether an approval card can reach the user in this permission mode (`m8a`).
    pub fn can_ask(&self) -> bool {
        !(self.non_interactive || self.bypass_mode || (self.plan_mode && self.bypass_available))
    }
}

/// What the permission check learned and showed, for the call (the hidden `__` fields of 2.1.235's
/// updated input).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    pub consent_bit_shown: Option<String>,
    pub consent_ask_can_reach_user: bool,
    pub project_grant_ask_shown: Option<String>,
    pub project_grant_server_observed: bool,
    pub reserved_targets_ask_shown: bool,
    pub finalize_plan_ask_shown: bool,
}

/// A Design result (the tool's output object).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub operation: String,
    pub content: Vec<Value>,
    pub is_error: Option<bool>,
}

impl Outcome {
    fn text(operation: &str, text: String, is_error: Option<bool>) -> Self {
        Outcome {
            operation: operation.into(),
            content: vec![json!({"type": "text", "text": text})],
            is_error,
        }
    }

    /// The structured `tool_use_result`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({"operation": self.operation, "content": self.content});
        if let Some(e) = self.is_error {
            v["isError"] = json!(e);
        }
        v
    }
}

pub use crate::vocab::now_ms;

/// 2.1.235's `Y0f`.
pub async fn operation(
    svc: &Service,
    op: &str,
    args: &Value,
    token: &str,
    signal: &Signal,
    agent_key: Option<&str>,
) -> Result<Outcome, DesignError> {
    let out = run_operation(svc, op, args, token, signal, agent_key).await;
    match out {
        Ok(o) => Ok(o),
        Err(_) if signal.aborted() => Err(DesignError::Aborted),
        Err(e @ (DesignError::Tool { .. } | DesignError::Auth401 { .. } | DesignError::NeedsConsent(_) | DesignError::NeedsGrant(_) | DesignError::Aborted)) => Err(e),
        Err(DesignError::Cancelled) => Err(DesignError::tool(
            format!("Claude Design {op} was cancelled because a concurrent Claude Design call was interrupted mid-handshake (the first calls of a session share one initialize/discovery round-trip). Retry the operation."),
            "design_tool_shared_handshake_cancelled")),
        Err(e) => Err(DesignError::tool(redact(&e.to_string(), token), "design_tool_request_failed")),
    }
}

async fn run_operation(
    svc: &Service,
    op: &str,
    args: &Value,
    token: &str,
    signal: &Signal,
    agent_key: Option<&str>,
) -> Result<Outcome, DesignError> {
    let (state, transport) = (&svc.state, &svc.transport);
    let unknown = !state.lock().hints.contains_key(op);
    let discovered = if op == LIST || unknown {
        Some(session::discover(state, transport, token, signal).await?)
    } else {
        None
    };
    if op == LIST {
        let entries = discovered.unwrap_or_default();
        let text = catalog::list_text(&entries);
        let hash = catalog::hash(&text);
        let mut g = state.lock();
        if let Some(key) = agent_key {
            if !catalog::wants_full(args) && g.served_catalog(key) == Some(hash.as_str()) {
                g.remember_catalog(key, &hash);
                return Ok(Outcome::text(
                    op,
                    catalog::unchanged_text(&entries, &hash),
                    None,
                ));
            }
            g.remember_catalog(key, &hash);
        }
        return Ok(Outcome::text(op, text, None));
    }
    if discovered.is_some() && !state.lock().hints.contains_key(op) {
        return Ok(Outcome::text(op, format!("Unknown Claude Design operation \"{op}\". Call {TOOL_NAME}({{operation: \"{LIST}\"}}) to see the available operations."), Some(true)));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": op, "arguments": args}});
    let reply = session::send(state, transport, &body, token, signal).await?;
    if reply.status == 403 {
        let data = &reply.data;
        if data["error"] == "needs_consent" {
            if let Some(bit) = data["consent"]
                .as_str()
                .filter(|b| CONSENT_BITS.contains(b))
            {
                return Err(DesignError::NeedsConsent(bit.to_owned()));
            }
        }
        if data["error"] == "needs_project_grant" {
            let max = limits::DESIGN_PLAN_PATH_MAX.usize() - 2;
            if let Some(id) = data["project_id"].as_str().filter(|id| {
                !id.is_empty()
                    && id.len() <= max
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            }) {
                return Err(DesignError::NeedsGrant(id.to_owned()));
            }
        }
    }
    if !(200..300).contains(&reply.status) {
        return Err(DesignError::tool(
            format!(
                "Claude Design {op} failed: HTTP {} {}",
                reply.status,
                redact(&reply.data.to_string(), token)
            ),
            "design_tool_http_error",
        ));
    }
    let data = &reply.data;
    if let Some(error) = data
        .get("error")
        .filter(|e| !e.is_null() && *e != &Value::Bool(false))
    {
        let message = match &error["message"] {
            Value::String(s) => s.clone(),
            Value::Null => "undefined".into(),
            other => other.to_string(),
        };
        let detail = match error.get("data") {
            Some(d)
                if !d.is_null()
                    && *d != Value::Bool(false)
                    && *d != json!("")
                    && *d != json!(0) =>
            {
                format!(" \u{2014} {d}")
            }
            _ => String::new(),
        };
        return Ok(Outcome::text(
            op,
            redact(&format!("{message}{detail}"), token),
            Some(true),
        ));
    }
    Ok(Outcome {
        operation: op.into(),
        content: data["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        is_error: data["result"]["isError"].as_bool(),
    })
}

/// Operations that can change who sees a project: any plan, grant or card for it is re-checked.
const SENSITIVE: &[&str] = &["update_sharing", "add_member", "update_member_role"];

fn non_empty<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The tool's `call`.
pub async fn call(
    svc: &Service,
    op: &str,
    args: &Value,
    flags: &Flags,
    facts: &Facts,
    signal: &Signal,
) -> Result<Outcome, DesignError> {
    let state = &svc.state;
    let reach = flags.consent_ask_can_reach_user;
    let can_prompt = reach && facts.can_ask();
    if op == "finalize_plan" && reach {
        if let Some(p) = non_empty(args, "project_id") {
            state.lock().forget_plans_for(p);
        }
    }
    if SENSITIVE.contains(&op) {
        if let Some(p) = non_empty(args, "project_id") {
            let mut g = state.lock();
            g.forget_plans_for(p);
            g.forget_plan_store_for(p);
            g.unverify_grant(p);
            g.mark_recard(p);
        }
    }
    let token = credentials::design_token(&svc.home)
        .map_err(|u| DesignError::tool(u.text(facts.non_interactive), "design_tool_auth_failed"))?;
    let shown_bit = flags.consent_bit_shown.clone();
    let grant_shown = flags.project_grant_ask_shown.clone();
    let observed = flags.project_grant_server_observed;
    let tokenless_write = if matches!(op, "write_files" | "create_support_js")
        && non_empty(args, "plan_token").is_none()
    {
        non_empty(args, "project_id").map(str::to_owned)
    } else {
        None
    };
    if op == "copy_files" && non_empty(args, "plan_token").is_none() {
        return Err(DesignError::tool("copy_files without a plan_token always requires per-batch approval \u{2014} use finalize_plan declaring every destination in writes, then pass the returned plan_token.", "design_tool_exec_backstop_tokenless_copy"));
    }
    if tokenless_write.is_some() && !plans::gate(op, args).pass && !flags.reserved_targets_ask_shown
    {
        return Err(DesignError::tool(format!("{op} without a plan_token: this batch includes paths that always require per-batch approval \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "design_tool_exec_backstop_safety_trip"));
    }
    let (mut consent_retried, mut grant_retried) = (false, false);
    let outcome = loop {
        match operation(svc, op, args, &token, signal, facts.agent_key.as_deref()).await {
            Ok(out) => {
                let ok = out.is_error != Some(true) && !signal.aborted();
                let mut g = state.lock();
                if let (Some(bit), true) = (&shown_bit, ok) {
                    g.seed_consent(bit, true);
                }
                if let (Some(p), true) = (&tokenless_write, ok) {
                    if (grant_shown.as_deref() == Some(p.as_str()) && !observed)
                        || !g.needs_recard(p)
                    {
                        g.verify_grant(p);
                    }
                }
                break out;
            }
            Err(DesignError::NeedsGrant(project)) => {
                {
                    let mut g = state.lock();
                    g.unverify_grant(&project);
                    g.reset_consent();
                }
                if grant_retried {
                    return Err(DesignError::NeedsGrant(project));
                }
                if grant_shown.as_deref() != Some(project.as_str()) || observed {
                    if matches!(op, "write_files" | "create_support_js") {
                        if facts.non_interactive {
                            return Err(DesignError::tool("Writing to this project needs a project write grant that is not currently active (it may have been revoked) \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token. A durable project write grant can be approved from an interactive Claude Code session.", "design_tool_needs_project_grant_non_interactive"));
                        }
                        return Err(DesignError::tool("Writing to this project needs a one-time approval \u{2014} retry the write: you will be shown the approval, or routed to the per-batch finalize_plan flow.", "design_tool_needs_project_grant_not_shown"));
                    }
                    return Err(DesignError::tool("This operation needs a plan_token here \u{2014} use finalize_plan (listing the destination paths in writes) and pass the returned plan_token. (It can run without one only under an existing project write grant, set up by a write_files to this project.)", "design_tool_needs_project_grant_ineligible_op"));
                }
                if !can_prompt || !facts.main_agent {
                    return Err(DesignError::tool("Writing to this project needs a one-time approval, which cannot be granted automatically in this permission mode \u{2014} use finalize_plan with writes/deletes and pass the returned plan_token.", "design_tool_needs_project_grant_no_prompt"));
                }
                match svc.account.post_grant(state, &project).await {
                    Err(DesignError::Tool { code: "design_grant_auth", .. }) => return Err(DesignError::tool("This session's credential cannot record the project approval \u{2014} approve this project from an interactive Claude Code session (run the write there and accept the approval card), then retry here: this session picks the recorded approval up from the server.", "design_tool_grant_mint_bearer_refused")),
                    Err(e) => return Err(e),
                    Ok(()) => {}
                }
                grant_retried = true;
            }
            Err(DesignError::NeedsConsent(bit)) => {
                if consent_retried {
                    return Err(DesignError::NeedsConsent(bit));
                }
                if shown_bit.as_deref() != Some(bit.as_str()) {
                    state.lock().seed_consent(&bit, false);
                    return Err(DesignError::tool(format!("{} The user hasn't granted this yet \u{2014} ask them to retry (the prompt will show on the next call) or run /design consent.", consent_prompt(&bit)), "design_tool_needs_consent_not_shown"));
                }
                if !can_prompt {
                    state.lock().seed_consent(&bit, false);
                    return Err(DesignError::tool(format!("{} The user hasn't granted this \u{2014} run /design consent to grant it (it can't be approved automatically in this permission mode).", consent_prompt(&bit)), "design_tool_needs_consent_no_prompt"));
                }
                svc.account.post_consent(state, &bit).await?;
                consent_retried = true;
            }
            Err(DesignError::Auth401 { retried }) => {
                return Err(DesignError::tool(
                    credentials::auth_401_text(&svc.home, facts.non_interactive, retried),
                    "design_tool_auth_401",
                ));
            }
            Err(e) => return Err(e),
        }
    };
    if op == "finalize_plan" && flags.finalize_plan_ask_shown && can_prompt && facts.main_agent {
        let project = args["project_id"].as_str();
        let token_found = if outcome.is_error != Some(true) {
            plans::token_in(&outcome.content)
        } else {
            None
        };
        if let (Some((plan_token, expires)), Some(project)) = (token_found, project) {
            if args["scope"] != "project" {
                let list = |k: &str| {
                    args[k]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|s| s.as_str().map(str::to_owned))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default()
                };
                plans::register(
                    &mut state.lock(),
                    &plan_token,
                    project,
                    &list("writes"),
                    &list("deletes"),
                    expires,
                    now_ms(),
                );
            }
        }
    }
    Ok(outcome)
}
