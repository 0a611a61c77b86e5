//! AskUserQuestion (seed 004: a decision only the user can make). The input is checked before
//! anyone is asked: 1–4 questions, 2–4 options each, a header of at most 12 chars (the seed's
//! limit, which 2.1.235 only states in its description), unique questions and labels. The host
//! shows the questions with the client's own free-text row (`Other`, never an option of the
//! model's) and the answers return to the loop; a cancel is a refusal, never an invented answer.

use serde_json::{json, Value};

use super::schema::{self, Issue};
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::limits::{
    TOOLS_ASK_USER_HEADER_MAX, TOOLS_ASK_USER_OPTIONS_MAX, TOOLS_ASK_USER_OPTIONS_MIN,
    TOOLS_ASK_USER_QUESTIONS_MAX, TOOLS_ASK_USER_QUESTIONS_MIN,
};
use crate::vocab::Reply;

pub struct AskUserQuestion;

const DUPLICATES: &str =
    "Question texts must be unique, option labels must be unique within each question";

impl Tool for AskUserQuestion {
    fn name(&self) -> &'static str {
        "AskUserQuestion"
    }

    fn description(&self) -> &'static str {
        "Asks the user one to four multiple-choice questions and waits for the answers. Use it \
         only for a decision that is the user's to make and cannot be settled from the code, the \
         docs or a sensible default. Give each question a short header and two to four distinct \
         options with a description each; the user can always type an answer of their own, so do \
         not add an 'Other' option. Set multiSelect when several options may apply."
    }

    fn input_schema(&self) -> Value {
        let text = |d: &str| json!({"description": d, "type": "string"});
        object_schema(
            json!({
                "questions": {
                    "description": "The questions, in the order they are asked.",
                    "minItems": TOOLS_ASK_USER_QUESTIONS_MIN.get(),
                    "maxItems": TOOLS_ASK_USER_QUESTIONS_MAX.get(),
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "question": text("The whole question, ending with a question mark."),
                            "header": text("A very short label shown with the question."),
                            "options": {
                                "description": "The choices.",
                                "minItems": TOOLS_ASK_USER_OPTIONS_MIN.get(),
                                "maxItems": TOOLS_ASK_USER_OPTIONS_MAX.get(),
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "label": text("What the user sees and picks."),
                                        "description": text("What picking it means."),
                                        "preview": text("Content shown while the option is focused."),
                                    },
                                    "required": ["label", "description"],
                                    "additionalProperties": false,
                                },
                            },
                            "multiSelect": {"description": "Several options may be picked.", "default": false, "type": "boolean"},
                        },
                        "required": ["question", "header", "options", "multiSelect"],
                        "additionalProperties": false,
                    },
                },
                "answers": {
                    "description": "The user's answers, by question text (filled in by the client).",
                    "type": "object",
                    "propertyNames": {"type": "string"},
                    "additionalProperties": {"type": "string"},
                },
                "annotations": {
                    "description": "The user's notes per question (filled in by the client).",
                    "type": "object",
                    "propertyNames": {"type": "string"},
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"preview": text("The chosen option's preview."), "notes": text("The user's notes.")},
                        "additionalProperties": false,
                    },
                },
                "metadata": {
                    "description": "Where the question comes from, for tracking.",
                    "type": "object",
                    "properties": {"source": text("An identifier of the asking feature.")},
                    "additionalProperties": false,
                },
            }),
            &["questions"],
        )
    }

    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        if let Some(error) = check(input) {
            return Err(error);
        }
        // The pipeline has filled in `multiSelect` (the schema's default) already. Answers and
        // notes are the client's to fill in: what the model put there is dropped before anyone
        // is asked, as 2.1.235 drops it (`metadata` stays).
        let mut asked = input.clone();
        if let Some(fields) = asked.as_object_mut() {
            fields.shift_remove("answers");
            fields.shift_remove("annotations");
        }
        match ctx.ask_user(
            self.name(),
            &asked,
            "No one can answer questions in this session.",
        )? {
            Reply::Allow {
                input: answered, ..
            } => {
                let answered = answered.unwrap_or_else(|| asked.clone());
                Ok(answered_output(&asked, &answered))
            }
            Reply::Deny { message } => Err(ToolError::denied(message)),
            Reply::Failed(text) => Err(ToolError::denied(text)),
            Reply::Interrupt => Err(ToolError::interrupted()),
        }
    }
}

/// The first thing wrong with the questions, as the model is told it.
fn check(input: &Value) -> Option<ToolError> {
    let questions = input["questions"].as_array()?;
    let count = |path: Vec<Value>, n: usize, min: u64, max: u64| -> Option<Issue> {
        let (code, bound, sign, key) = if (n as u64) < min {
            ("too_small", min, ">=", "minimum")
        } else if (n as u64) > max {
            ("too_big", max, "<=", "maximum")
        } else {
            return None;
        };
        Some(zod_issue(
            json!({"origin": "array", "code": code, key: bound, "inclusive": true, "path": path,
            "message": format!("Too {}: expected array to have {sign}{bound} items", &code[4..])}),
        ))
    };
    let mut issues = Vec::new();
    issues.extend(count(
        vec![json!("questions")],
        questions.len(),
        TOOLS_ASK_USER_QUESTIONS_MIN.get(),
        TOOLS_ASK_USER_QUESTIONS_MAX.get(),
    ));
    for (i, q) in questions.iter().enumerate() {
        let at = |field: &str| vec![json!("questions"), json!(i), json!(field)];
        for field in ["question", "header", "options"] {
            if q.get(field).is_none() {
                issues.push(Issue::missing(
                    at(field),
                    &format!("questions[{i}].{field}"),
                    &json!({"type": if field == "options" { "array" } else { "string" }}),
                ));
            }
        }
        let header = q["header"].as_str().unwrap_or_default();
        let max = TOOLS_ASK_USER_HEADER_MAX.get();
        if header.chars().count() as u64 > max {
            issues.push(zod_issue(json!({"origin": "string", "code": "too_big", "maximum": max, "inclusive": true,
                "path": at("header"), "message": format!("Too big: expected string to have <={max} characters")})));
        }
        let options = q["options"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if q.get("options").is_some() {
            issues.extend(count(
                at("options"),
                options.len(),
                TOOLS_ASK_USER_OPTIONS_MIN.get(),
                TOOLS_ASK_USER_OPTIONS_MAX.get(),
            ));
        }
        for (j, option) in options.iter().enumerate() {
            for field in ["label", "description"] {
                if option.get(field).is_none() {
                    issues.push(Issue::missing(
                        vec![
                            json!("questions"),
                            json!(i),
                            json!("options"),
                            json!(j),
                            json!(field),
                        ],
                        &format!("questions[{i}].options[{j}].{field}"),
                        &json!({"type": "string"}),
                    ));
                }
            }
        }
    }
    if issues.is_empty() && has_duplicates(questions) {
        issues.push(zod_issue(
            json!({"code": "custom", "path": [], "message": DUPLICATES}),
        ));
    }
    if issues.is_empty() {
        return None;
    }
    let mut message = schema::message("AskUserQuestion", &issues);
    if has_single_option(questions) {
        message = format!("{message}\n\n{SINGLE_OPTION_STEER}");
    }
    let mut error = ToolError::wrapped(message);
    error.structured = Some(schema::structured(&issues));
    Some(error)
}

/// Said after the issues when a question has fewer than 2 options: what to do instead of asking
/// (2.1.235 adds such a note in the same place; the words are ours).
const SINGLE_OPTION_STEER: &str = "Nobody was asked: a question with a single option leaves nothing to decide. \
Do not resend it or invent a second option; decide that point yourself, say so, and go on. Ask only \
when there are at least two real choices.";

/// Whether a question's options list is shorter than the least a question may offer.
fn has_single_option(questions: &[Value]) -> bool {
    let min = TOOLS_ASK_USER_OPTIONS_MIN.get() as usize;
    questions
        .iter()
        .any(|q| q["options"].as_array().is_some_and(|o| o.len() < min))
}

fn zod_issue(zod: Value) -> Issue {
    Issue {
        sentence: None,
        zod,
    }
}

fn has_duplicates(questions: &[Value]) -> bool {
    let texts: Vec<&str> = questions
        .iter()
        .filter_map(|q| q["question"].as_str())
        .collect();
    let repeated = |items: &[&str]| {
        items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].contains(a))
    };
    repeated(&texts) || questions.iter().any(|q| repeated(&labels(q)))
}

/// A question's option labels, in order.
fn labels(question: &Value) -> Vec<&str> {
    question["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["label"].as_str())
        .collect()
}

/// The result of answered questions, in 2.1.235's three forms: every answer one of the options,
/// some answer the user's own words, or no answer at all.
fn answered_output(asked: &Value, answered: &Value) -> ToolOutput {
    let answers = &answered["answers"];
    let mut pairs = Vec::new();
    let mut all_labels = true;
    for q in asked["questions"].as_array().into_iter().flatten() {
        let text = q["question"].as_str().unwrap_or_default();
        let answer = match &answers[text] {
            Value::String(s) if !s.is_empty() => s.clone(),
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","),
            _ => continue,
        };
        let labels = labels(q);
        let multi = q["multiSelect"] == true;
        let is_label = |a: &str| labels.contains(&a);
        let fits = match &answers[text] {
            Value::Array(items) => multi && items.iter().all(|a| a.as_str().is_some_and(is_label)),
            _ if multi => answer.split(", ").all(is_label),
            _ => is_label(&answer),
        };
        all_labels &= fits;
        pairs.push(format!("\"{text}\"=\"{answer}\""));
    }
    let content = if pairs.is_empty() {
        "The user did not answer the questions.".to_owned()
    } else if all_labels {
        format!("Your questions have been answered: {}. You can now continue with these answers in mind.", pairs.join(", "))
    } else {
        format!(
            "The user answered: {}. Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.",
            pairs.join(", ")
        )
    };
    let answers = if answers.is_object() {
        answers.clone()
    } else {
        json!({})
    };
    ToolOutput {
        content,
        structured: json!({"questions": answered.get("questions").unwrap_or(&asked["questions"]), "answers": answers}),
        is_error: None,
        blocks: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(header: &str, labels: &[&str]) -> Value {
        json!({"question": "Which color?", "header": header,
               "options": labels.iter().map(|l| json!({"label": l, "description": "d"})).collect::<Vec<_>>()})
    }

    #[test]
    fn the_limits_of_the_seed_are_checked_before_asking() {
        assert!(check(&json!({"questions": [question("Pick", &["Red", "Blue"])]})).is_none());
        let long =
            check(&json!({"questions": [question("Thirteen char", &["Red", "Blue"])]})).unwrap();
        assert!(long.message.contains("\"maximum\": 12"), "{}", long.message);
        let one = check(&json!({"questions": [question("Pick", &["Red"])]})).unwrap();
        assert!(
            one.message
                .contains("Too small: expected array to have >=2 items"),
            "{}",
            one.message
        );
        assert!(one
            .message
            .ends_with(&format!("]\n\n{SINGLE_OPTION_STEER}")));
        assert!(!long.message.contains(SINGLE_OPTION_STEER));
        let five =
            check(&json!({"questions": [question("Pick", &["a", "b", "c", "d", "e"])]})).unwrap();
        assert!(five
            .message
            .contains("Too big: expected array to have <=4 items"));
        let none = check(&json!({"questions": []})).unwrap();
        assert!(none.message.contains("\"questions\""));
        let dup = check(&json!({"questions": [question("Pick", &["Red", "Red"])]})).unwrap();
        assert!(dup.message.contains(DUPLICATES));
    }

    #[test]
    fn answers_take_the_form_2_1_235_gives_them() {
        let asked = schema::normalize(
            &AskUserQuestion.input_schema(),
            &json!({"questions": [question("Pick", &["Red", "Blue"])]}),
        );
        let answer = |a: Value| {
            let mut answered = asked.clone();
            answered["answers"] = json!({"Which color?": a});
            answered_output(&asked, &answered).content
        };
        assert!(answer(json!("Red"))
            .starts_with("Your questions have been answered: \"Which color?\"=\"Red\"."));
        assert!(answer(json!("green please"))
            .starts_with("The user answered: \"Which color?\"=\"green please\"."));
        assert_eq!(answer(json!("")), "The user did not answer the questions.");
    }
}
