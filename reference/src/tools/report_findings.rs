//! ReportFindings: a code review's verified findings as a typed list for the host to render.
//! Nothing is written anywhere; the findings come back as the `tool_use_result`. Not in seed 004:
//! its schema, texts and checks are 2.1.235's (recorded: recon parity15 exp.rf-1).

use serde_json::{json, Map, Value};

use super::schema::Issue;
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{self, Limit};

pub struct ReportFindings;

/// A finding's fields in the order 2.1.235 echoes them back (its schema's order); fields it does
/// not know are dropped, not refused.
const FIELDS: [&str; 8] = [
    "file",
    "line",
    "summary",
    "short_summary",
    "failure_scenario",
    "category",
    "verdict",
    "outcome",
];

const LEVELS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

impl Tool for ReportFindings {
    fn name(&self) -> &'static str {
        "ReportFindings"
    }

    fn description(&self) -> &'static str {
        "Hands the host a code review's findings as structured data so it can show them. Call it \
         only when review instructions ask for it: once, worst finding first, an empty list when \
         nothing held up, and without repeating the findings as prose. After fixes, report again \
         only if asked, with each finding's `outcome`."
    }

    fn input_schema(&self) -> Value {
        let max_items = limits::REPORT_FINDINGS_MAX_ITEMS.get();
        let finding = json!({
            "type": "object",
            "properties": {
                "file": {"description": "Path of the file, relative to the repository.", "type": "string"},
                "line": {"description": "Line the finding points at, counting from 1.", "type": "integer",
                         "minimum": -9_007_199_254_740_991_i64, "maximum": 9_007_199_254_740_991_i64},
                "summary": {"description": "The defect in one sentence.", "type": "string"},
                "short_summary": {"description": "A short label for narrow views: the claim only.",
                                  "type": "string", "maxLength": limits::REPORT_FINDINGS_SHORT_SUMMARY_MAX.get()},
                "failure_scenario": {"description": "What input or state goes wrong, and how.", "type": "string"},
                "category": {"description": "A kebab-case kind, such as \"correctness\" or \"efficiency\".",
                             "type": "string", "maxLength": limits::REPORT_FINDINGS_CATEGORY_MAX.get()},
                "verdict": {"description": "Only when a verification pass ran.", "type": "string",
                            "enum": ["CONFIRMED", "PLAUSIBLE"]},
                "outcome": {"description": "Only when reporting again after fixes: what became of it.",
                            "type": "string", "enum": ["fixed", "skipped", "no_change_needed"]},
            },
            "required": ["file", "summary", "failure_scenario"],
            "additionalProperties": false,
        });
        object_schema(
            json!({
                "level": {"description": "The effort the review ran at.", "type": "string", "enum": LEVELS},
                "findings": {"description": "The findings that held up, worst first; empty if none did.",
                             "maxItems": max_items, "type": "array", "items": finding},
            }),
            &["findings"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::REPORT_FINDINGS_RESULT_BUDGET)
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    /// Unknown fields of a finding are stripped before validation, as 2.1.235's non-strict
    /// finding object does (its JSON schema says `additionalProperties: false` all the same).
    fn coerce_input(&self, input: &Value) -> Option<Value> {
        let findings = input.get("findings")?.as_array()?;
        if !findings.iter().any(|f| {
            f.as_object()
                .is_some_and(|o| o.keys().any(|k| !FIELDS.contains(&k.as_str())))
        }) {
            return None;
        }
        let mut out = input.clone();
        out["findings"] = findings.iter().map(ordered).collect();
        Some(out)
    }

    /// What the generic schema pass leaves to zod: field types inside a finding, whole lines,
    /// string lengths and the list's length.
    fn refine(&self, input: &Value) -> Vec<Issue> {
        let findings = input["findings"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for (i, f) in findings.iter().enumerate() {
            if let Some(issue) = finding_issue(i, f) {
                return vec![issue];
            }
        }
        let max = limits::REPORT_FINDINGS_MAX_ITEMS.get();
        if findings.len() as u64 > max {
            return vec![too_big("array", "items", json!(["findings"]), max)];
        }
        Vec::new()
    }

    fn call(&self, input: &Value, _ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let findings: Vec<Value> = input["findings"]
            .as_array()
            .map(|list| list.iter().map(ordered).collect())
            .unwrap_or_default();
        let count = findings.len();
        let mut structured = Map::new();
        structured.insert("count".into(), json!(count));
        if let Some(level) = input.get("level") {
            structured.insert("level".into(), level.clone());
        }
        structured.insert("findings".into(), Value::Array(findings));
        let content = match count {
            0 => "No findings reported.".to_owned(),
            1 => "1 finding reported.".to_owned(),
            n => format!("{n} findings reported."),
        };
        Ok(ToolOutput {
            content,
            structured: Value::Object(structured),
            is_error: None,
            blocks: None,
        })
    }
}

/// A finding with its known fields in schema order and nothing else.
fn ordered(finding: &Value) -> Value {
    let Some(object) = finding.as_object() else {
        return finding.clone();
    };
    let mut out = Map::new();
    for field in FIELDS {
        if let Some(v) = object.get(field) {
            out.insert(field.into(), v.clone());
        }
    }
    Value::Object(out)
}

fn finding_issue(i: usize, finding: &Value) -> Option<Issue> {
    let object = finding.as_object()?;
    for field in FIELDS {
        let Some(value) = object.get(field) else {
            continue;
        };
        let path = json!(["findings", i, field]);
        let label = format!("findings[{i}].{field}");
        if field == "line" {
            let whole = value.as_f64().is_some_and(|n| n.fract() == 0.0);
            if value.is_number() && !whole {
                return Some(Issue {
                    sentence: Some(format!(
                        "The parameter `{label}` type is expected as `int` but provided as `number`"
                    )),
                    zod: json!({"expected": "int", "format": "safeint", "code": "invalid_type", "path": path,
                                "message": "Invalid input: expected int, received number"}),
                });
            }
            if !value.is_number() {
                return Some(wrong_type(&label, path, "number", value));
            }
            continue;
        }
        let Some(text) = value.as_str() else {
            // The enums' own wrong values are the schema pass's; a non-string is a type error.
            return Some(wrong_type(&label, path, "string", value));
        };
        let max = match field {
            "short_summary" => limits::REPORT_FINDINGS_SHORT_SUMMARY_MAX.get(),
            "category" => limits::REPORT_FINDINGS_CATEGORY_MAX.get(),
            _ => continue,
        };
        // zod counts UTF-16 code units.
        if text.encode_utf16().count() as u64 > max {
            return Some(too_big("string", "characters", path, max));
        }
    }
    None
}

fn wrong_type(label: &str, path: Value, expected: &str, value: &Value) -> Issue {
    let got = super::schema::type_name(value);
    Issue {
        sentence: Some(format!(
            "The parameter `{label}` type is expected as `{expected}` but provided as `{got}`"
        )),
        zod: json!({"expected": expected, "code": "invalid_type", "path": path,
                    "message": format!("Invalid input: expected {expected}, received {got}")}),
    }
}

/// zod's `too_big` for a length, which 2.1.235's formatter has no sentence for.
fn too_big(origin: &str, unit: &str, path: Value, max: u64) -> Issue {
    Issue {
        sentence: None,
        zod: json!({"origin": origin, "code": "too_big", "maximum": max, "inclusive": true, "path": path,
                    "message": format!("Too big: expected {origin} to have <={max} {unit}")}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding() -> Value {
        json!({"summary": "s", "bogus": 1, "failure_scenario": "f", "file": "a.rs"})
    }

    #[test]
    fn unknown_fields_are_dropped_and_known_ones_put_in_schema_order() {
        let input = ReportFindings
            .coerce_input(&json!({"findings": [finding()]}))
            .expect("rewritten");
        let keys: Vec<&String> = input["findings"][0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["file", "summary", "failure_scenario"]);
    }

    #[test]
    fn too_many_findings_and_a_long_label_are_zod_issues_without_a_sentence() {
        let many = vec![json!({"file": "a", "summary": "s", "failure_scenario": "f"}); 33];
        let issues = ReportFindings.refine(&json!({"findings": many}));
        assert_eq!(issues[0].zod["maximum"], 32);
        assert!(issues[0].sentence.is_none());
        let long = json!({"findings": [{"file": "a", "summary": "s", "failure_scenario": "f",
                                         "short_summary": "x".repeat(61)}]});
        let issues = ReportFindings.refine(&long);
        assert_eq!(
            issues[0].zod["path"],
            json!(["findings", 0, "short_summary"])
        );
    }

    #[test]
    fn a_fractional_line_is_not_an_int() {
        let input = json!({"findings": [{"file": "a", "summary": "s", "failure_scenario": "f", "line": 1.5}]});
        let issues = ReportFindings.refine(&input);
        assert_eq!(
            issues[0].sentence.as_deref(),
            Some("The parameter `findings[0].line` type is expected as `int` but provided as `number`")
        );
    }
}
