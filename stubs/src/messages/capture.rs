//! `{capture:REGEX}` in a scripted tool_use input: the value the agent under test made up at run
//! time (an agent id, a run id), read back from the request the turn answers. A script cannot
//! know such ids in advance, and a model would copy them from the conversation, so the stub does.

use regex::Regex;
use serde_json::Value;

const OPEN: &str = "{capture:";

/// Replaces every `{capture:REGEX}` in the strings of `input` with group 1 (or the whole match)
/// of REGEX's last match in the request's message texts. An error names the pattern that found
/// nothing or did not compile.
pub fn fill(input: &Value, request: &Value) -> Result<Value, String> {
    if !input.to_string().contains(OPEN) {
        return Ok(input.clone());
    }
    let haystack = texts(request);
    fill_value(input, &haystack)
}

fn fill_value(v: &Value, haystack: &str) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) => Value::String(fill_str(s, haystack)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| fill_value(i, haystack))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), fill_value(v, haystack)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn fill_str(s: &str, haystack: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        // The pattern may hold braces of its own (`\d{17}`): its end is the brace that balances.
        let mut depth = 1usize;
        let end = after
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(i, _)| i)
            .ok_or_else(|| format!("conformance stub: unclosed {OPEN}…}} in `{s}`"))?;
        let pattern = &after[..end];
        let re = Regex::new(pattern)
            .map_err(|e| format!("conformance stub: bad capture pattern `{pattern}`: {e}"))?;
        let caught = re
            .captures_iter(haystack)
            .last()
            .map(|c| {
                c.get(1)
                    .unwrap_or_else(|| c.get(0).unwrap())
                    .as_str()
                    .to_owned()
            })
            .ok_or_else(|| {
                format!("conformance stub: capture `{pattern}` matched nothing in the request")
            })?;
        out.push_str(&caught);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The request's message texts in order: text blocks and tool_result contents, decoded.
fn texts(request: &Value) -> String {
    let mut out = String::new();
    for message in request["messages"].as_array().into_iter().flatten() {
        collect(&message["content"], &mut out);
    }
    out
}

fn collect(content: &Value, out: &mut String) {
    match content {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => collect(&b["text"], out),
                    Some("tool_result") => collect(&b["content"], out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(text: &str) -> Value {
        json!({"messages": [
            {"role": "user", "content": "agentId: a111"},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": text}]}]},
        ]})
    }

    #[test]
    fn takes_group_one_of_the_last_match() {
        let input = json!({"task_id": "{capture:agentId: (a\\d{3})}", "n": 1});
        let filled = fill(&input, &request("agentId: a222 then")).unwrap();
        assert_eq!(filled, json!({"task_id": "a222", "n": 1}));
    }

    #[test]
    fn keeps_text_around_and_fills_several() {
        let input = json!(["x-{capture:id (\\w+)}-{capture:agentId: (\\w+)}"]);
        let r = json!({"messages": [{"role": "user", "content": "id q1 agentId: z9"}]});
        assert_eq!(fill(&input, &r).unwrap(), json!(["x-q1-z9"]));
    }

    #[test]
    fn a_pattern_that_finds_nothing_is_an_error_naming_it() {
        let err = fill(&json!("{capture:nope (\\d+)}"), &request("x")).unwrap_err();
        assert!(err.contains("nope (\\d+)"), "{err}");
        let err = fill(&json!("{capture:(}"), &request("x")).unwrap_err();
        assert!(err.contains("bad capture pattern"), "{err}");
    }

    #[test]
    fn inputs_without_captures_are_untouched() {
        let input = json!({"a": "{cwd}"});
        assert_eq!(fill(&input, &Value::Null).unwrap(), input);
    }
}
