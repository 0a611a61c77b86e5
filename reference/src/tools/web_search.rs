//! WebSearch (seed 004 §WebFetch、WebSearch): the search runs on the Messages API's own server
//! tool. One helper request per call declares `web_search` (with the call's allowed/blocked
//! domains) and forces it; the streamed answer's `server_tool_use`, `web_search_tool_result` and
//! text blocks become the result, as 2.1.235 reads them (recon websearch14).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{json, Value};

use super::schema::Issue;
use super::{object_schema, Access, Tool, ToolContext, ToolError, ToolOutput};
use crate::api::Client;
use crate::limits::{self, Limit};

pub struct WebSearch;

/// Our own words for the helper request; the query follows the user text.
const HELPER_SYSTEM: &str =
    "You run exactly one web search for another agent with the web_search tool and report what it found.";
const HELPER_USER: &str = "Run a web search for this query: ";

/// Recorded result texts (exp.ws-1, exp.ws-3, exp.ws-4).
const BOTH_DOMAIN_LISTS: &str =
    "Error: Cannot specify both allowed_domains and blocked_domains in the same request";
const REMINDER: &str =
    "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.";
const BUDGET_ENV: &str = "CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION";

/// Searches this session has started, failed ones included (2.1.235 counts a call before its
/// request goes out). A reference process runs one session, so the count is the process's.
static SEARCHES: AtomicU64 = AtomicU64::new(0);

impl Tool for WebSearch {
    fn name(&self) -> &'static str {
        "WebSearch"
    }

    fn description(&self) -> &'static str {
        "Searches the web through the API's search tool and returns the hits (titles and links) with \
         the search model's notes. Use it for information newer than your training. Cite the links \
         you rely on in your answer. allowed_domains keeps only hits from the listed domains; \
         blocked_domains drops hits from them; give at most one of the two."
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "query": {"description": "What to search for", "type": "string",
                          "minLength": limits::WEB_SEARCH_QUERY_MIN_CHARS.get()},
                "allowed_domains": {"description": "Keep only hits from these domains",
                                    "type": "array", "items": {"type": "string"}},
                "blocked_domains": {"description": "Drop hits from these domains",
                                    "type": "array", "items": {"type": "string"}},
            }),
            &["query"],
        )
    }

    fn result_budget(&self) -> Option<&'static Limit> {
        Some(&limits::WEB_SEARCH_RESULT_BUDGET)
    }

    /// 2.1.235's own check passes the decision on: rules, then the mode; under `-p` without a
    /// rule it is refused with the generic "requested permissions" text (exp.ws-5), as an MCP
    /// tool's call is.
    fn access(&self, _input: &Value, _ctx: &ToolContext) -> Access {
        Access::Mcp(self.name().to_owned())
    }

    /// The schema's string bound, as zod reports it: the issue object itself, no sentence
    /// (exp.ws-2: `a` and the empty query).
    fn refine(&self, input: &Value) -> Vec<Issue> {
        let min = limits::WEB_SEARCH_QUERY_MIN_CHARS.get();
        match input["query"].as_str() {
            Some(query) if (query.encode_utf16().count() as u64) < min => vec![Issue {
                sentence: None,
                zod: json!({"origin": "string", "code": "too_small", "minimum": min,
                            "inclusive": true, "path": ["query"],
                            "message": format!("Too small: expected string to have >={min} characters")}),
            }],
            _ => Vec::new(),
        }
    }

    fn validate_input(&self, input: &Value, _ctx: &ToolContext) -> Option<String> {
        both_domain_lists(input).then(|| BOTH_DOMAIN_LISTS.into())
    }

    fn call(&self, input: &Value, ctx: &mut ToolContext) -> Result<ToolOutput, ToolError> {
        let query = input["query"].as_str().unwrap_or_default().to_owned();
        let budget = session_budget();
        let used = SEARCHES.load(Ordering::SeqCst);
        if used >= budget {
            let note = format!(
                "Web search was not performed: this session has used its web search budget ({used} of {budget} WebSearch calls). Continue with the information already gathered instead of issuing more searches. If more searches are genuinely needed, ask the user to raise {BUDGET_ENV}."
            );
            // A whole 0 on the wire, as JavaScript prints it.
            return Ok(output(&query, vec![Value::String(note)], json!(0), 0));
        }
        SEARCHES.fetch_add(1, Ordering::SeqCst);
        let agents = ctx
            .agents
            .as_ref()
            .ok_or_else(|| ToolError::plain("Web search is not available in this session."))?;
        let config = &agents.config;
        let started = Instant::now();
        let client = Client::new(
            config.base_url.clone(),
            config.api_key.clone(),
            config.oauth_token.clone(),
            config.session_id.clone(),
        )
        .with_role(crate::api::wire::Role::Helper);
        let body = helper_request(&config.model, &config.session_id, &query, input);
        let answer = agents
            .runtime
            .block_on(client.send(&body, |_, _, _| {}, |_| {}))
            .map_err(|error| ToolError::plain(error.user_text(&client.gateway())))?;
        let (results, searches) = read_answer(&answer.message.content);
        Ok(output(
            &query,
            results,
            json!(started.elapsed().as_secs_f64()),
            searches,
        ))
    }
}

/// Both lists given with entries: an empty list counts as not given (exp.ws-2).
fn both_domain_lists(input: &Value) -> bool {
    let listed = |key: &str| input[key].as_array().is_some_and(|a| !a.is_empty());
    listed("allowed_domains") && listed("blocked_domains")
}

fn session_budget() -> u64 {
    budget_from(std::env::var(BUDGET_ENV).ok().as_deref())
}

/// `CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION` when it is a positive whole number in digits, else
/// the default (2.1.235 parses it with `min: 1, digitsOnly`).
fn budget_from(value: Option<&str>) -> u64 {
    value
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(limits::WEB_SEARCH_SESSION_CAP_DEFAULT.get())
}

/// The helper request: the main model, the server tool forced, thinking off, no caching.
fn helper_request(model: &str, session_id: &str, query: &str, input: &Value) -> Value {
    let mut server_tool = json!({"type": "web_search_20250305", "name": "web_search"});
    // Passed on as given, an empty list included (exp.ws-2); an absent one stays absent.
    for key in ["allowed_domains", "blocked_domains"] {
        if let Some(list) = input.get(key) {
            server_tool[key] = list.clone();
        }
    }
    server_tool["max_uses"] = json!(limits::WEB_SEARCH_MAX_USES.get());
    json!({
        "model": model,
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": format!("{HELPER_USER}{query}")},
        ]}],
        "system": [
            {"type": "text", "text": crate::api::wire::IDENTITY},
            {"type": "text", "text": HELPER_SYSTEM},
        ],
        "tools": [server_tool],
        "tool_choice": {"type": "tool", "name": "web_search"},
        "metadata": crate::api::wire::metadata(session_id),
        "max_tokens": limits::API_MAX_TOKENS.get(),
        "thinking": {"type": "disabled"},
        "temperature": 1,
        "stream": true,
    })
}

/// The answer's blocks as 2.1.235's results list: text gathers until a `server_tool_use` (or the
/// end) flushes it, each `web_search_tool_result` is its hits (title and url only) or
/// `Web search error: <code>`. The count is the larger of searches started and results seen.
fn read_answer(content: &[Value]) -> (Vec<Value>, u64) {
    let mut results = Vec::new();
    let mut text = String::new();
    let (mut uses, mut seen) = (0u64, 0u64);
    let flush = |text: &mut String, results: &mut Vec<Value>| {
        let trimmed = text.trim();
        if !trimmed.is_empty() {
            results.push(Value::String(trimmed.to_owned()));
        }
        text.clear();
    };
    for block in content {
        match block["type"].as_str() {
            Some("server_tool_use") => {
                uses += 1;
                flush(&mut text, &mut results);
            }
            Some("web_search_tool_result") => {
                seen += 1;
                match block["content"].as_array() {
                    Some(hits) => {
                        let hits: Vec<Value> = hits
                            .iter()
                            .map(|h| json!({"title": h["title"], "url": h["url"]}))
                            .collect();
                        results.push(json!({"tool_use_id": block["tool_use_id"], "content": hits}));
                    }
                    None => {
                        let code = block["content"]["error_code"]
                            .as_str()
                            .unwrap_or("undefined");
                        results.push(Value::String(format!("Web search error: {code}")));
                    }
                }
            }
            Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
            _ => {}
        }
    }
    flush(&mut text, &mut results);
    (results, uses.max(seen))
}

fn output(query: &str, results: Vec<Value>, seconds: Value, searches: u64) -> ToolOutput {
    let content = format_for_model(query, &results);
    ToolOutput {
        content,
        structured: json!({"query": query, "results": results, "durationSeconds": seconds,
                           "searchCount": searches}),
        is_error: None,
        blocks: None,
    }
}

/// The tool_result text: a heading, each entry in order (hits as `Links: <JSON>`), the reminder.
fn format_for_model(query: &str, results: &[Value]) -> String {
    let mut text = format!("Web search results for query: \"{query}\"\n\n");
    for entry in results {
        match entry {
            Value::String(s) => text.push_str(&format!("{s}\n\n")),
            hit => match hit["content"].as_array() {
                Some(links) if !links.is_empty() => {
                    text.push_str(&format!("Links: {}\n\n", Value::Array(links.clone())))
                }
                _ => text.push_str("No links found.\n\n"),
            },
        }
    }
    text.push('\n');
    text.push_str(REMINDER);
    text.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_read_in_order_with_text_flushed_at_each_search() {
        let content = vec![
            json!({"type": "text", "text": "I will search."}),
            json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": [
                {"type": "web_search_result", "title": "A \"q\"", "url": "https://a/", "encrypted_content": "x", "page_age": null},
            ]}),
            json!({"type": "text", "text": "Summary."}),
            json!({"type": "text", "text": " More."}),
            json!({"type": "server_tool_use", "id": "s2", "name": "web_search", "input": {}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "s2",
                   "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}),
            json!({"type": "text", "text": "Tail.  "}),
        ];
        let (results, count) = read_answer(&content);
        assert_eq!(count, 2);
        assert_eq!(
            Value::Array(results.clone()),
            json!([
                "I will search.",
                {"tool_use_id": "s1", "content": [{"title": "A \"q\"", "url": "https://a/"}]},
                "Summary. More.",
                "Web search error: max_uses_exceeded",
                "Tail.",
            ])
        );
        // exp.ws-4's recorded text, byte for byte.
        assert_eq!(
            format_for_model("q", &results),
            "Web search results for query: \"q\"\n\nI will search.\n\nLinks: [{\"title\":\"A \\\"q\\\"\",\"url\":\"https://a/\"}]\n\nSummary. More.\n\nWeb search error: max_uses_exceeded\n\nTail.\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
        );
    }

    #[test]
    fn a_streamed_search_query_is_assembled_into_the_server_tool_use_input() {
        let events = [
            json!({"type": "message_start", "message": {"id": "m", "model": "x", "usage": {"input_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"ru"}}),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": "st\"}"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {
                "type": "web_search_tool_result", "tool_use_id": "s1",
                "content": [{"type": "web_search_result", "title": "T", "url": "https://t/", "encrypted_content": "e", "page_age": null}]}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
            json!({"type": "message_stop"}),
        ];
        let body: String = events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect();
        let message = crate::api::assemble::assemble_chunks(&[body.as_bytes()]).unwrap();
        assert_eq!(message.content[0]["input"], json!({"query": "rust"}));
        let (results, count) = read_answer(&message.content);
        assert_eq!(count, 1);
        assert_eq!(
            Value::Array(results),
            json!([{"tool_use_id": "s1", "content": [{"title": "T", "url": "https://t/"}]}])
        );
    }

    #[test]
    fn a_search_without_hits_says_so_and_text_alone_counts_no_search() {
        let empty = vec![
            json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}),
        ];
        let (results, count) = read_answer(&empty);
        assert_eq!(count, 1);
        assert!(format_for_model("q", &results).contains("\n\nNo links found.\n\n\nREMINDER"));
        let (results, count) = read_answer(&[json!({"type": "text", "text": "only text"})]);
        assert_eq!((results, count), (vec![json!("only text")], 0));
    }

    #[test]
    fn the_helper_request_passes_the_domains_on_as_given() {
        let input = json!({"query": "q", "allowed_domains": [], "blocked_domains": ["b.example"]});
        let body = helper_request("m", "sid", "q", &input);
        assert_eq!(
            body["tools"],
            json!([{"type": "web_search_20250305", "name": "web_search", "allowed_domains": [],
                    "blocked_domains": ["b.example"], "max_uses": 8}])
        );
        let keys: Vec<&String> = body["tools"][0].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "type",
                "name",
                "allowed_domains",
                "blocked_domains",
                "max_uses"
            ]
        );
        assert_eq!(
            body["tool_choice"],
            json!({"type": "tool", "name": "web_search"})
        );
        assert_eq!(body["thinking"], json!({"type": "disabled"}));
        let bare = helper_request("m", "sid", "q", &json!({"query": "q"}));
        assert!(bare["tools"][0].get("allowed_domains").is_none());
        assert!(bare["tools"][0].get("blocked_domains").is_none());
        assert!(bare["messages"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("q"));
    }

    #[test]
    fn both_domain_lists_are_refused_only_when_both_have_entries() {
        assert!(both_domain_lists(
            &json!({"query": "qq", "allowed_domains": ["a"], "blocked_domains": ["b"]})
        ));
        assert!(!both_domain_lists(
            &json!({"query": "qq", "allowed_domains": [], "blocked_domains": ["b"]})
        ));
        assert!(!both_domain_lists(
            &json!({"query": "qq", "allowed_domains": ["a"]})
        ));
    }

    #[test]
    fn the_session_budget_takes_only_positive_digit_strings() {
        let default = limits::WEB_SEARCH_SESSION_CAP_DEFAULT.get();
        assert_eq!(budget_from(Some("2")), 2);
        for bad in [
            None,
            Some(""),
            Some("0"),
            Some("abc"),
            Some("-3"),
            Some("2.5"),
            Some(" 2"),
        ] {
            assert_eq!(budget_from(bad), default, "{bad:?}");
        }
    }

    #[test]
    fn the_budget_note_reports_a_whole_zero_duration() {
        let out = output("q", vec![json!("note")], json!(0), 0);
        assert_eq!(out.structured["durationSeconds"].to_string(), "0");
        assert_eq!(out.structured["searchCount"], 0);
    }

    #[test]
    fn a_query_under_two_utf16_units_is_a_zod_issue_without_a_sentence() {
        let issues = WebSearch.refine(&json!({"query": "a"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].sentence, None);
        assert_eq!(
            issues[0].zod["message"],
            "Too small: expected string to have >=2 characters"
        );
        assert!(WebSearch.refine(&json!({"query": "ab"})).is_empty());
        // One astral character is two UTF-16 units, as JavaScript counts a string's length.
        assert!(WebSearch.refine(&json!({"query": "😀"})).is_empty());
    }
}
