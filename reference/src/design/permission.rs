//! The permission decision for one Design call (the tool's `checkPermissions` in 2.1.235), in its
//! order: the consent bit (a card, or fail closed), `finalize_plan` scope "project" and tokenless
//! `copy_files` refused, reads allowed, a covering approved plan allowed, then tokenless writes
//! under a durable project grant (reused when the server has one, offered once on a card naming
//! the server-verified project, refused where no card can reach the user), and every other write
//! asked. Every ask is a safety check: neither an allow rule nor bypass mode answers it.

use serde_json::{json, Value};

use super::account::{consent_prompt, GrantLookup};
use super::catalog::{client_hints, utf16_len, utf16_prefix, Hints};
use super::dispatch::{now_ms, operation, Facts, Flags, Service};
use super::plans;
use super::signal::Signal;
use super::{credentials, LIST};
use crate::limits;

/// What the check decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    /// Refused; the message is the model's, the reason the decision's.
    Deny {
        message: String,
        reason: String,
    },
    /// Only the user can decide; the message is the card's text.
    Ask {
        message: String,
        reason: String,
    },
}

/// Why the consent card asks.
const CONSENT_REASON: &str = "design agent consent \u{2014} approving records a server-side grant for Claude agents to read and write your design projects";
/// Why the card of a first write under a durable project grant asks.
const GRANT_REASON: &str = "first write under a project grant \u{2014} approval mints a durable write grant for this project, revocable at claude.ai/design settings";

/// Whether a card asking for `reason` also states its terms: the consent card (seed 000 line 113,
/// an accurate consent card) and the durable grant's (line 141: the card says approving lets
/// Claude write any ordinary file of the project until revoked in Design settings). 2.1.235 shows
/// no ask's message on the card; the other asks' messages only say what a refusal says.
pub fn card_states_terms(reason: &str) -> bool {
    reason == CONSENT_REASON || reason == GRANT_REASON
}

/// Appended to the finalize_plan card.
pub const PLAN_CARD_NOTE: &str = "Approving also lets writes and deletes to exactly these paths run without another prompt for up to 15 minutes (file contents are not shown again; anything to any other path will still ask).";

fn deny(message: String, reason: &str) -> Verdict {
    Verdict::Deny {
        message,
        reason: reason.into(),
    }
}

fn ask(message: String, reason: &str) -> Verdict {
    Verdict::Ask {
        message,
        reason: reason.into(),
    }
}

/// The consent bit the user has not granted, fetching the consent state once per process.
async fn consent_needed(svc: &Service) -> Option<String> {
    let unknown = svc.state.lock().consent_cache.is_none();
    if unknown {
        let generation = svc.state.lock().consent_cache_generation;
        let fetched = svc.account.consent().await;
        let mut g = svc.state.lock();
        if g.consent_cache.is_none() && g.consent_cache_generation == generation {
            g.consent_cache = Some(Default::default());
            for bit in super::account::CONSENT_BITS {
                if let Some(v) = fetched.get(*bit) {
                    g.seed_consent(bit, *v);
                }
            }
        }
    }
    let g = svc.state.lock();
    (g.consent_cache.as_ref()?.get("agent_design_projects") == Some(&false))
        .then(|| "agent_design_projects".to_owned())
}

fn has_token(args: &Value) -> bool {
    args["plan_token"].as_str().is_some_and(|t| !t.is_empty())
}

fn per_batch(op: &str) -> String {
    format!("ClaudeDesign {op}: this batch includes paths that always require per-batch approval \u{2014} use finalize_plan with writes/deletes and pass the returned plan_token.")
}

fn no_targets(op: &str) -> String {
    format!("ClaudeDesign {op}: this call names no target paths \u{2014} list the files to write, or use finalize_plan with writes (and deletes if needed), then pass the returned plan_token.")
}

fn plan_mode_refusal(op: &str) -> Verdict {
    deny(format!("ClaudeDesign {op}: writing without a plan_token requires a one-time project approval, which is not shown in plan mode \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "a durable project write grant cannot be minted from plan mode \u{2014} per-batch plans only")
}

/// Whether the server holds a grant for `project` this process may rely on (looked up when not
/// already verified and not due for a new card).
async fn grant_known(svc: &Service, project: &str) -> bool {
    if svc.state.lock().grant_verified(project) {
        return true;
    }
    if svc.state.lock().needs_recard(project) {
        return false;
    }
    svc.account.lookup_grant(project).await == GrantLookup::Granted
        && !svc.state.lock().needs_recard(project)
}

/// 2.1.235's `checkPermissions`. The flags go to the call.
pub async fn check(
    svc: &Service,
    op: &str,
    args: &Value,
    facts: &Facts,
    signal: &Signal,
) -> (Verdict, Flags) {
    let bit = if op == LIST {
        None
    } else {
        consent_needed(svc).await
    };
    let mut flags = Flags {
        consent_bit_shown: bit.clone(),
        consent_ask_can_reach_user: facts.can_ask(),
        ..Flags::default()
    };
    let verdict = decide(svc, op, args, facts, signal, bit.as_deref(), &mut flags).await;
    (verdict, flags)
}

async fn decide(
    svc: &Service,
    op: &str,
    args: &Value,
    facts: &Facts,
    signal: &Signal,
    bit: Option<&str>,
    flags: &mut Flags,
) -> Verdict {
    if op == "finalize_plan" && args["scope"] == "project" {
        return deny("ClaudeDesign finalize_plan: scope \"project\" is no longer supported by this client. Write files directly without plan_token \u{2014} the first write to a project asks for a one-time durable approval \u{2014} or use finalize_plan with writes/deletes for path-scoped plans and deletes.".into(), "finalize_plan scope:\"project\" is superseded by the durable per-project write grant");
    }
    let hints: Option<Hints> = if op == LIST {
        Some(Hints {
            read_only: true,
            destructive: false,
        })
    } else {
        svc.state
            .lock()
            .hints
            .get(op)
            .copied()
            .or_else(|| client_hints(op))
    };
    let write = hints.map(|h| h.read_only) != Some(true);
    let destructive = write && hints.map(|h| h.destructive) != Some(false);
    if op == "copy_files" && !has_token(args) {
        return deny("ClaudeDesign copy_files: copying without a plan_token always requires per-batch approval \u{2014} use finalize_plan declaring every destination in writes, then pass the returned plan_token.".into(), "tokenless copy_files is per-batch-only \u{2014} its destinations have no reserved-path or render-integrity gate");
    }
    let tokenless_write = matches!(op, "write_files" | "create_support_js") && !has_token(args);
    if let Some(bit) = bit {
        if tokenless_write {
            let g = plans::gate(op, args);
            if !g.pass || !plans::batch_fits(g.targets.as_deref()) {
                let empty = g.targets.as_ref().is_some_and(Vec::is_empty);
                return if empty {
                    deny(
                        no_targets(op),
                        "a write batch naming no target paths \u{2014} malformed call",
                    )
                } else if g.pass {
                    deny(format!("ClaudeDesign {op}: this batch is too large to display fully for approval \u{2014} split it into smaller batches, or use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "the batch cannot be rendered fully in the approval dialog \u{2014} split it or use per-batch plans")
                } else {
                    deny(
                        per_batch(op),
                        "reserved or unenumerable target paths always require per-batch approval",
                    )
                };
            }
        }
        let writes = if write {
            format!("Design {op} writes to claude.ai/design.")
        } else {
            String::new()
        };
        let note = if op == "finalize_plan" {
            PLAN_CARD_NOTE
        } else {
            ""
        };
        if op == "finalize_plan" {
            flags.finalize_plan_ask_shown = true;
        }
        let message = [consent_prompt(bit), writes, note.to_owned()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        return ask(message, CONSENT_REASON);
    }
    if !write {
        return Verdict::Allow;
    }
    if !facts.plan_mode
        && facts.main_agent
        && plans::covered(&mut svc.state.lock(), op, args, now_ms()).is_ok()
    {
        return Verdict::Allow;
    }
    let project = args["project_id"].as_str().unwrap_or_default().to_owned();
    if tokenless_write {
        if facts.non_interactive {
            let refused = deny(format!("ClaudeDesign {op}: writing without a plan_token requires a one-time interactive project approval, which is not available in non-interactive sessions \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "a durable project write grant requires an interactive approval with a server-verified project identity");
            if project.is_empty()
                || !facts.main_agent
                || svc.state.lock().needs_recard(&project)
                || !plans::gate(op, args).pass
                || facts.plan_mode
            {
                return refused;
            }
            if svc.state.lock().grant_verified(&project) {
                return Verdict::Allow;
            }
            if svc.account.lookup_grant(&project).await == GrantLookup::Granted
                && !svc.state.lock().needs_recard(&project)
            {
                svc.state.lock().verify_grant(&project);
                return Verdict::Allow;
            }
            return refused;
        }
        if !facts.main_agent {
            return deny(format!("ClaudeDesign {op}: writing without a plan_token requires a one-time project approval, which is not available in subagent or PermissionRequest-hook sessions \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "a durable project write grant requires a context where the approval card reaches the user directly");
        }
        if !project.is_empty() {
            if svc.state.lock().grant_ineligible(&project) {
                return deny(format!("ClaudeDesign {op}: this project cannot hold a durable write grant for this account (it may be shared from another organization) \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "the server refused to mint a durable grant for this project \u{2014} per-batch plans only");
            }
            let g = plans::gate(op, args);
            if g.pass && facts.plan_mode {
                if !grant_known(svc, &project).await {
                    return plan_mode_refusal(op);
                }
                svc.state.lock().verify_grant(&project);
            } else if g.pass {
                if svc.state.lock().grant_verified(&project) {
                    return Verdict::Allow;
                }
                match svc.account.lookup_grant(&project).await {
                    GrantLookup::Granted if !svc.state.lock().needs_recard(&project) => {
                        svc.state.lock().verify_grant(&project);
                        return Verdict::Allow;
                    }
                    GrantLookup::Unavailable => {
                        return deny(format!("ClaudeDesign {op}: could not check for a project write grant (this server may not support durable grants) \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "the grant state could not be verified \u{2014} fail toward the per-batch plan flow");
                    }
                    _ => {
                        if !facts.can_ask() {
                            return deny(format!("ClaudeDesign {op}: writing without a plan_token to a project without a write grant requires a one-time interactive approval, which cannot be shown in this permission mode \u{2014} use finalize_plan with writes (and deletes if needed), then pass the returned plan_token."), "a durable project write grant requires an interactive approval with a server-verified project identity");
                        }
                        let Some(identity) = identity(svc, &project, signal).await else {
                            return deny(format!("ClaudeDesign {op}: a durable project write grant is only offered when the approval dialog can name its target, and the project identity (name, sharing, URL) could not be verified or rendered faithfully. If this is a fresh connection, read the project first (e.g. get_project \u{2014} approve the Claude Design connection if prompted) and retry once; otherwise use finalize_plan with writes/deletes and pass the returned plan_token (the per-batch flow), which is always supported."), "a durable project write grant requires a server-verified project identity in the approval card");
                        };
                        flags.project_grant_ask_shown = Some(project.clone());
                        return ask(grant_card(&identity), GRANT_REASON);
                    }
                }
            } else {
                if !(plans::batch_fits(g.targets.as_deref()) && grant_known(svc, &project).await) {
                    let empty = g.targets.as_ref().is_some_and(Vec::is_empty);
                    return if empty {
                        deny(
                            no_targets(op),
                            "a write batch naming no target paths \u{2014} malformed call",
                        )
                    } else {
                        deny(per_batch(op), "reserved or unenumerable target paths always require per-batch approval")
                    };
                }
                svc.state.lock().verify_grant(&project);
                flags.reserved_targets_ask_shown = true;
                let reason = if destructive {
                    "destructive \u{2014} model-generated arguments"
                } else {
                    "remote write \u{2014} model-generated arguments"
                };
                return ask(format!("Design {op} writes to claude.ai/design."), reason);
            }
        }
    }
    if op == "finalize_plan" {
        flags.finalize_plan_ask_shown = true;
        return ask(format!("Design finalize_plan writes to claude.ai/design. {PLAN_CARD_NOTE}"), "finalize_plan \u{2014} the human is the path-review boundary; approval also grants prompt-free writes to these paths for 15 min");
    }
    let reason = if destructive {
        if hints.is_some() {
            "destructive \u{2014} model-generated arguments"
        } else {
            "unknown operation \u{2014} fail-closed to destructive write"
        }
    } else {
        "remote write \u{2014} model-generated arguments"
    };
    ask(format!("Design {op} writes to claude.ai/design."), reason)
}

/// A project as the durable-grant card names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub name: String,
    pub sharing_label: &'static str,
    pub url: String,
}

fn grant_card(i: &Identity) -> String {
    format!("Approving writes the listed files now, and lets Claude write to ANY file in the project \"{}\" ({}) \u{2014} {} \u{2014} without asking again. This approval is remembered for this project until you revoke it in settings at claude.ai/design (future writes and file contents are not shown for approval). Deletes and CLAUDE.md/.claude paths still ask every time.", i.name, i.sharing_label, i.url)
}

fn sharing_label(scope: &str) -> Option<&'static str> {
    match scope {
        "invited" => Some("private: invited members only"),
        "org" => Some("visible to your whole organization"),
        "public" => Some("PUBLIC"),
        _ => None,
    }
}

/// Invisible, control and confusable characters (2.1.235's `j0f` and `z0f`).
fn hidden_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{AD}' | '\u{61C}' | '\u{180E}' | '\u{200B}' | '\u{200E}' | '\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{2026}' | '\u{2800}' | '\u{3164}'
        | '\u{FE00}'..='\u{FE0E}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{FFA0}'
        | '\u{E0020}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}' | '\u{1D173}'..='\u{1D17A}')
}

/// Quotes and dashes that could fake the card's own punctuation (`G0f`).
fn quote_char(c: char) -> bool {
    matches!(
        c,
        '"' | '\u{201C}'
            | '\u{201D}'
            | '\u{201E}'
            | '\u{201F}'
            | '\u{FF02}'
            | '\u{2033}'
            | '\u{2036}'
            | '\u{2BA}'
            | '\u{2DD}'
            | '\u{2EE}'
            | '\u{5F4}'
            | '\u{3003}'
            | '\u{301D}'..='\u{301F}' | '\u{275D}' | '\u{275E}' | '\u{2014}' | '\u{2015}'
    )
}

/// Joiners and a variation selector that do not join anything (`foS`).
fn stray_joiner(s: &str) -> bool {
    use std::sync::OnceLock;
    static RES: OnceLock<Vec<regex::Regex>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            r"(?:^|\s)[\x{200C}\x{200D}\x{FE0F}]",
            r"[\x{200C}\x{200D}](?:\s|$)",
            r"[\x{200C}\x{200D}][\x{200C}\x{200D}]",
            r"(?:^|[^\p{Emoji}])\x{FE0F}",
        ]
        .iter()
        .map(|p| regex::Regex::new(p).expect("valid"))
        .collect()
    });
    res.iter().any(|r| r.is_match(s))
}

/// The project's name, sharing and URL as `get_project` reports them, or `None` when any of them
/// cannot be shown faithfully.
pub fn sanitize_identity(project: &str, reported: &Value) -> Option<Identity> {
    let raw = reported["name"].as_str()?;
    let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty()
        || name.chars().any(hidden_char)
        || stray_joiner(&name)
        || name.contains("://")
        || name.chars().any(quote_char)
    {
        return None;
    }
    let label = sharing_label(reported["sharing"]["scope"].as_str()?)?;
    let url_text = reported["url"].as_str()?;
    let url = reqwest::Url::parse(url_text).ok()?;
    let clean = url.scheme() == "https"
        && url.path().ends_with(&format!("/p/{project}"))
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none_or(str::is_empty)
        && url.fragment().is_none_or(str::is_empty)
        && utf16_len(url_text) <= limits::DESIGN_GRANT_URL_MAX.usize()
        && !url_text.chars().any(|c| {
            c.is_whitespace()
                || quote_char(c)
                || hidden_char(c)
                || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE0F}')
        });
    if !clean {
        return None;
    }
    let max = limits::DESIGN_GRANT_NAME_MAX.usize();
    let cut = utf16_prefix(&name, max);
    Some(Identity {
        name: if cut == name {
            name
        } else {
            format!("{}\u{2026}", cut.trim_end())
        },
        sharing_label: label,
        url: url_text.to_owned(),
    })
}

/// Reads the project's identity from the server (`get_project`).
async fn identity(svc: &Service, project: &str, signal: &Signal) -> Option<Identity> {
    let token = credentials::design_token(&svc.home).ok()?;
    let out = operation(
        svc,
        "get_project",
        &json!({ "project_id": project }),
        &token,
        signal,
        None,
    )
    .await
    .ok()?;
    if out.is_error == Some(true) {
        return None;
    }
    let text = out
        .content
        .iter()
        .find(|b| b["type"] == "text" && b["text"].is_string())?;
    let reported: Value = serde_json::from_str(text["text"].as_str()?).ok()?;
    sanitize_identity(project, &reported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(name: &str, scope: &str, url: &str) -> Value {
        json!({"name": name, "sharing": {"scope": scope}, "url": url})
    }

    #[test]
    fn identity_sanitizing() {
        let ok = sanitize_identity(
            "p1",
            &reported("  My\n deck ", "org", "https://claude.ai/design/p/p1"),
        )
        .unwrap();
        assert_eq!(
            ok,
            Identity {
                name: "My deck".into(),
                sharing_label: "visible to your whole organization",
                url: "https://claude.ai/design/p/p1".into()
            }
        );
        let long = "n".repeat(61);
        let cut = sanitize_identity(
            "p1",
            &reported(&long, "invited", "https://claude.ai/design/p/p1"),
        )
        .unwrap();
        assert_eq!(cut.name, format!("{}\u{2026}", "n".repeat(60)));
        for bad in [
            reported("a\u{200B}b", "org", "https://claude.ai/design/p/p1"),
            reported("say \"hi\"", "org", "https://claude.ai/design/p/p1"),
            reported("a \u{200D}b", "org", "https://claude.ai/design/p/p1"),
            reported("see https://x", "org", "https://claude.ai/design/p/p1"),
            reported("ok", "team", "https://claude.ai/design/p/p1"),
            reported("ok", "org", "http://claude.ai/design/p/p1"),
            reported("ok", "org", "https://claude.ai/design/p/p2"),
            reported("ok", "org", "https://u:pw@claude.ai/design/p/p1"),
            reported("ok", "org", "https://claude.ai/design/p/p1?x=1"),
            reported("ok", "org", "https://claude.ai/design/p/p1#x"),
            reported("", "org", "https://claude.ai/design/p/p1"),
        ] {
            assert_eq!(sanitize_identity("p1", &bad), None, "{bad}");
        }
        let url = format!(
            "https://claude.ai/{}/p/p1",
            "d".repeat(limits::DESIGN_GRANT_URL_MAX.usize())
        );
        assert_eq!(sanitize_identity("p1", &reported("ok", "org", &url)), None);
        assert!(stray_joiner("\u{FE0F}x"));
        assert!(!stray_joiner("\u{2764}\u{FE0F}"));
    }
}
