//! A workflow script's static checks (seed 004: "脚本必须以纯 literal export const meta = { name,
//! description, phases } 开头"; Date.now()/Math.random()/new Date() rejected so a resume can
//! replay). The script is parsed by acorn 8.15.0 — the parser 2.1.235 uses — inside QuickJS, so
//! the syntax trees and parse error texts are 2.1.235's; the checks over the tree are `check.js`.

use std::cell::RefCell;

use rquickjs::{CatchResultExt, Context, Function, Runtime};
use serde::Deserialize;

use crate::limits;

const ACORN: &str = include_str!("acorn/acorn.js");
const CHECK: &str = include_str!("check.js");

/// The `meta` header, as the run and its records use it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub name: String,
    pub description: String,
    pub title: Option<String>,
    pub when_to_use: Option<String>,
    pub phases: Option<Vec<Phase>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Phase {
    pub title: String,
    pub detail: Option<String>,
    pub model: Option<String>,
}

/// A script that passed: its header and the body after it (what runs).
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub meta: Meta,
    pub body: String,
}

#[derive(Deserialize)]
struct Verdict {
    error: Option<String>,
    meta: Option<Meta>,
    body: Option<String>,
}

/// Parses `source` and checks its header. The error is 2.1.235's text without the
/// "Invalid workflow script: " the tool puts before it.
pub fn parse(source: &str) -> Result<Script, String> {
    let max = limits::WORKFLOW_SCRIPT_MAX_CHARS.get();
    if source.encode_utf16().count() as u64 > max {
        return Err(format!("Script exceeds {max} bytes"));
    }
    let verdict: Verdict = serde_json::from_str(&call("__workflowCheck", source)?)
        .map_err(|e| format!("workflow checker answered oddly: {e}"))?;
    match verdict {
        Verdict {
            meta: Some(meta),
            body: Some(body),
            ..
        } => Ok(Script { meta, body }),
        Verdict { error, .. } => Err(error.unwrap_or_else(|| "unknown checker failure".into())),
    }
}

/// Whether the body names `Date.now` or `Math.random`, or builds `new Date()` without
/// arguments: what an inline script may not do.
pub fn uses_clock(body: &str) -> bool {
    call("__workflowUsesClock", body).is_ok_and(|json| json == "true")
}

thread_local! {
    /// acorn is loaded once per thread: the checks run on the tool's thread, again and again.
    static CHECKER: RefCell<Option<(Runtime, Context)>> = const { RefCell::new(None) };
}

/// Calls one of `check.js`'s functions with `arg` and returns its answer as JSON text.
fn call(function: &str, arg: &str) -> Result<String, String> {
    CHECKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(load()?);
        }
        let (_, context) = slot.as_ref().expect("loaded above");
        context.with(|ctx| {
            let f: Function = ctx
                .globals()
                .get(function)
                .map_err(|e| format!("workflow checker is missing {function}: {e}"))?;
            let answer: rquickjs::Value = f
                .call((arg,))
                .catch(&ctx)
                .map_err(|e| format!("workflow checker failed: {e}"))?;
            ctx.json_stringify(answer)
                .map_err(|e| format!("workflow checker answered oddly: {e}"))?
                .map(|s| s.to_string().unwrap_or_default())
                .ok_or_else(|| "workflow checker answered nothing".to_owned())
        })
    })
}

fn load() -> Result<(Runtime, Context), String> {
    let runtime = Runtime::new().map_err(|e| format!("cannot start QuickJS: {e}"))?;
    let context = Context::full(&runtime).map_err(|e| format!("cannot start QuickJS: {e}"))?;
    context.with(|ctx| {
        // acorn's UMD wrapper sees neither `module` nor `define` here and sets `globalThis.acorn`.
        ctx.eval::<(), _>(ACORN)
            .catch(&ctx)
            .map_err(|e| format!("cannot load acorn: {e}"))?;
        ctx.eval::<(), _>(CHECK)
            .catch(&ctx)
            .map_err(|e| format!("cannot load the workflow checks: {e}"))
    })?;
    Ok((runtime, context))
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = "export const meta = { name: 'a', description: 'b', phases: [] }\n";

    fn error_of(source: &str) -> String {
        parse(source).unwrap_err()
    }

    #[test]
    fn the_header_must_be_the_first_statement_and_exported_const() {
        let header = "`export const meta = { name, description, phases }` must be the FIRST statement in the script";
        assert_eq!(error_of("log('hi')\nreturn 1"), header);
        assert_eq!(
            error_of("const meta = { name: 'a', description: 'b' }\nreturn 1"),
            header
        );
        assert_eq!(
            error_of("export let meta = { name: 'a', description: 'b' }\nreturn 1"),
            header
        );
        assert!(parse(&format!("// a comment first\n{META}return 1")).is_ok());
    }

    #[test]
    fn meta_must_be_a_pure_literal_with_a_name_and_a_description() {
        let cases = [
            (
                "export const meta = { name: NAME, description: 'b' }",
                "meta must be a pure literal: non-literal node type in meta: Identifier",
            ),
            (
                "export const meta = { name: `a${1}`, description: 'b' }",
                "meta must be a pure literal: template interpolation not allowed in meta",
            ),
            (
                "export const meta = { ...X, name: 'a', description: 'b' }",
                "meta must be a pure literal: only plain properties allowed in meta",
            ),
            (
                "export const meta = { [k]: 1, name: 'a', description: 'b' }",
                "meta must be a pure literal: computed keys not allowed in meta",
            ),
            (
                "export const meta = { n: -x, name: 'a', description: 'b' }",
                "meta must be a pure literal: only negative-number unary allowed in meta",
            ),
            (
                "export const meta = { description: 'b' }",
                "meta.name must be a non-empty string",
            ),
            (
                "export const meta = { name: 'a', description: '' }",
                "meta.description must be a non-empty string",
            ),
        ];
        for (source, expected) in cases {
            assert_eq!(error_of(source), expected, "{source}");
        }
    }

    #[test]
    fn a_good_header_gives_its_fields_and_the_body_after_it() {
        let script = parse(
            "export const meta = { name: 'n', description: 'd', title: 't', n: -1, phases: [{ title: 'One', detail: 'x' }, 3] };\n\nphase('One')\nreturn 1",
        )
        .unwrap();
        assert_eq!(script.meta.name, "n");
        assert_eq!(script.meta.title.as_deref(), Some("t"));
        let phases = script.meta.phases.unwrap();
        assert_eq!(phases.len(), 1);
        assert_eq!(phases[0].detail.as_deref(), Some("x"));
        assert_eq!(script.body, "phase('One')\nreturn 1");
    }

    #[test]
    fn a_parse_error_is_acorns_message_with_the_line_and_a_caret() {
        let error = error_of(&format!("{META}return (1 +"));
        assert!(
            error.starts_with("Script parse error: Unexpected token (2:11)\n\nreturn (1 +\n           ^\n\nWorkflow scripts must be plain JavaScript"),
            "{error}"
        );
        assert!(error_of("const x: string[] = []")
            .starts_with("Script parse error: Unexpected token (1:7)"));
    }

    #[test]
    fn clock_and_dice_count_as_code_not_as_text() {
        assert!(uses_clock("const t = Date.now()"));
        assert!(uses_clock("return Math.random()"));
        assert!(uses_clock("return new Date()"));
        assert!(uses_clock("return Date . now ()"));
        assert!(uses_clock("const f = Date.now; return f()"));
        assert!(!uses_clock("return new Date(0).getTime()"));
        assert!(!uses_clock("// never call Date.now() here\nreturn 1"));
        assert!(!uses_clock("return 'Math.random()'"));
        assert!(!uses_clock("return Math['random']()"));
    }

    #[test]
    fn an_oversized_script_is_refused_before_parsing() {
        let big = "x".repeat(limits::WORKFLOW_SCRIPT_MAX_CHARS.get() as usize + 1);
        assert_eq!(error_of(&big), "Script exceeds 524288 bytes");
    }
}
