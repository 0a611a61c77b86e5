//! What a fake MCP server does with each message, independent of transport: the script's tool
//! generations, pagination, `list_changed` after a call, and faults. Transports carry out the
//! returned actions in order.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use super::script::{expand, Fault, McpScript};

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Send(Value),
    /// Hold what follows until this event of the run has happened; the text names the message
    /// held (`tools/list #2`).
    Await(crate::cues::After, String),
    Sleep(Duration),
    /// Leave the request unanswered for good.
    Never,
    /// stdio: exit; HTTP: close the connection without a response.
    Drop,
    /// Non-protocol bytes with no newline.
    Flood(usize),
    /// HTTP only: answer this status with an empty body.
    Status {
        code: u16,
        www_authenticate: Option<String>,
    },
    /// HTTP only: forget every session and answer 404.
    ForgetSession,
}

pub struct Behaviour {
    script: McpScript,
    generation: usize,
    seen: HashMap<String, usize>,
    calls: usize,
}

impl Behaviour {
    pub fn new(script: McpScript) -> Self {
        Behaviour {
            script,
            generation: 0,
            seen: HashMap::new(),
            calls: 0,
        }
    }

    /// Carries on counting from what earlier processes of the same server received (their log),
    /// so a fault on "the 1st tools/call" means the server's first, not each restart's first.
    pub fn resume(mut self, earlier: &[crate::jsonlog::LogEntry]) -> Self {
        for entry in earlier.iter().filter(|e| e.dir == "in") {
            if let Some(method) = entry.msg["method"].as_str() {
                *self.seen.entry(method.to_owned()).or_default() += 1;
                if method == "tools/call" {
                    self.calls += 1;
                }
            }
        }
        self
    }

    /// The fault for the next occurrence of `method` (counting it), if any.
    pub fn fault_for(&mut self, method: &str) -> Option<Fault> {
        let n = self.seen.entry(method.to_owned()).or_default();
        *n += 1;
        let n = *n;
        self.script
            .faults
            .iter()
            .find(|f| f.applies(method, n))
            .cloned()
    }

    pub fn on_message(&mut self, msg: &Value) -> Vec<Action> {
        let Some(method) = msg["method"].as_str() else {
            // A response to our own request (roots/list): logged, nothing to do.
            return Vec::new();
        };
        let id = msg.get("id").cloned();
        let fault = self.fault_for(method);
        let mut actions = Vec::new();
        if let Some(fault) = fault {
            if let Some(after) = fault.after.clone() {
                let n = self.seen.get(method).copied().unwrap_or_default();
                actions.push(Action::Await(after, format!("{method} #{n}")));
            }
            if let Some(ms) = fault.delay_ms {
                actions.push(Action::Sleep(Duration::from_millis(ms)));
            }
            if fault.never {
                actions.push(Action::Never);
                return actions;
            }
            if fault.drop {
                actions.push(Action::Drop);
                return actions;
            }
            if let Some(n) = fault.flood_bytes {
                actions.push(Action::Flood(n));
                return actions;
            }
            if fault.forget_session {
                actions.push(Action::ForgetSession);
                return actions;
            }
            if let Some(code) = fault.status {
                actions.push(Action::Status {
                    code,
                    www_authenticate: fault.www_authenticate.clone(),
                });
                return actions;
            }
            if let Some(e) = &fault.error {
                if let Some(id) = id {
                    actions.push(Action::Send(error(id, e.code, &e.message)));
                }
                return actions;
            }
        }
        let Some(id) = id else {
            if method == "notifications/initialized" && self.script.request_roots {
                actions.push(Action::Send(
                    json!({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"}),
                ));
            }
            return actions;
        };
        let result = match method {
            "initialize" => {
                let mut r = json!({
                    "protocolVersion": self.script.protocol_version.as_deref()
                        .or(msg["params"]["protocolVersion"].as_str())
                        .unwrap_or("2025-06-18"),
                    "capabilities": self.script.capabilities(),
                    "serverInfo": {"name": self.script.server_name, "version": "1.0.0"},
                });
                if let Some(i) = &self.script.instructions {
                    r["instructions"] = json!(expand(i));
                }
                r
            }
            "ping" => json!({}),
            "tools/list" => self.tools_page(msg["params"]["cursor"].as_str()),
            "tools/call" => {
                self.calls += 1;
                let name = msg["params"]["name"].as_str().unwrap_or_default();
                let spec = self.script.tool_spec(self.generation, name).cloned();
                let text = match &spec {
                    Some(s) => s
                        .result
                        .clone()
                        .unwrap_or_else(|| msg["params"]["arguments"].to_string()),
                    None => {
                        actions.push(Action::Send(error(
                            id,
                            -32602,
                            &format!("Unknown tool: {name}"),
                        )));
                        return actions;
                    }
                };
                if self.script.list_changed_after_call == Some(self.calls) {
                    self.generation += 1;
                    actions.push(Action::Send(json!({
                        "jsonrpc": "2.0", "method": "notifications/tools/list_changed"
                    })));
                    if let Some(after) = self.script.list_changed_result_after.clone() {
                        let n = self.calls;
                        actions.push(Action::Await(after, format!("tools/call #{n} result")));
                    }
                }
                let spec = spec.expect("checked above");
                let mut r = json!({"content": spec.content.clone().unwrap_or_else(|| json!([{"type": "text", "text": text}]))});
                if spec.is_error {
                    r["isError"] = json!(true);
                }
                if let Some(sc) = &spec.structured_content {
                    r["structuredContent"] = sc.clone();
                }
                r
            }
            "resources/list" => json!({"resources": self.script.listed_resources()}),
            "resources/read" => {
                let uri = msg["params"]["uri"].as_str().unwrap_or_default();
                match self.script.read_resource(uri) {
                    Some(r) => r,
                    None => {
                        // The code the MCP specification gives a missing resource.
                        actions.push(Action::Send(error(
                            id,
                            -32002,
                            &format!("Resource not found: {uri}"),
                        )));
                        return actions;
                    }
                }
            }
            "resources/templates/list" => json!({"resourceTemplates": []}),
            "prompts/list" => json!({"prompts": self.script.prompts}),
            other => {
                actions.push(Action::Send(error(
                    id,
                    -32601,
                    &format!("Method not found: {other}"),
                )));
                return actions;
            }
        };
        actions.push(Action::Send(
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
        ));
        actions
    }

    fn tools_page(&self, cursor: Option<&str>) -> Value {
        let tools = self.script.tools(self.generation);
        let Some(size) = self.script.page_size.filter(|s| *s > 0) else {
            return json!({"tools": tools});
        };
        if self.script.stuck_cursor {
            let page: Vec<_> = tools.into_iter().take(size).collect();
            return json!({"tools": page, "nextCursor": "stuck"});
        }
        let page_no = cursor
            .and_then(|c| c.strip_prefix("page-"))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
        // The cursor is the client's to send: `page-<usize::MAX>` is past the end, not an
        // overflow.
        let start = page_no.saturating_mul(size);
        let page: Vec<_> = tools.iter().skip(start).take(size).cloned().collect();
        let mut r = json!({"tools": page});
        if start.saturating_add(size) < tools.len() {
            r["nextCursor"] = json!(format!("page-{}", page_no + 1));
        }
        r
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn behaviour(script: Value) -> Behaviour {
        Behaviour::new(serde_json::from_value(script).unwrap())
    }

    fn sent(actions: &[Action]) -> Vec<&Value> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(v) => Some(v),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_held_answer_waits_first_and_is_named_by_its_occurrence() {
        let mut b = behaviour(json!({
            "fault": [{"method": "tools/list", "calls": [2], "after": {"request": 3},
                       "error": {"code": -1, "message": "no"}}]
        }));
        let first = b.on_message(&json!({"id": 1, "method": "tools/list"}));
        assert!(!first.iter().any(|a| matches!(a, Action::Await(..))));
        let second = b.on_message(&json!({"id": 2, "method": "tools/list"}));
        match &second[..] {
            [Action::Await(after, what), Action::Send(answer)] => {
                assert_eq!(after.to_string(), "the 3rd main-loop request");
                assert_eq!(what, "tools/list #2");
                assert_eq!(answer["error"]["message"], "no");
            }
            other => panic!("held, then the scripted error: {other:?}"),
        }
    }

    #[test]
    fn list_changed_comes_before_the_result_and_moves_the_generation() {
        let mut b = behaviour(json!({
            "list_changed_after_call": 1,
            "generation": [{"tool": [{"name": "echo", "result": "R"}]},
                           {"tool": [{"name": "echo"}, {"name": "new"}]}]
        }));
        let list = |b: &mut Behaviour| {
            let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
            sent(&a)[0]["result"]["tools"].as_array().unwrap().len()
        };
        assert_eq!(list(&mut b), 1);
        let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}));
        let s = sent(&a);
        assert_eq!(s[0]["method"], "notifications/tools/list_changed");
        assert_eq!(s[1]["result"]["content"][0]["text"], "R");
        assert_eq!(list(&mut b), 2);
    }

    #[test]
    fn a_held_list_changed_result_goes_out_after_the_notification_and_the_event() {
        let mut b = behaviour(json!({
            "list_changed_after_call": 1,
            "list_changed_result_after": {"mcp": "s", "answered": "tools/list", "nth": 2},
            "generation": [{"tool": [{"name": "echo", "result": "R"}]},
                           {"tool": [{"name": "echo"}, {"name": "new"}]}]
        }));
        let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}));
        match &a[..] {
            [Action::Send(note), Action::Await(_, what), Action::Send(result)] => {
                assert_eq!(note["method"], "notifications/tools/list_changed");
                assert_eq!(what, "tools/call #1 result");
                assert_eq!(result["result"]["content"][0]["text"], "R");
            }
            other => panic!("notification, hold, result: {other:?}"),
        }
    }

    #[test]
    fn resources_list_without_contents_and_read_by_uri() {
        let mut b = behaviour(json!({"resources": [
            {"uri": "file:///a.txt", "name": "a", "mimeType": "text/plain", "text": "ALPHA"},
            {"uri": "file:///b.bin", "name": "b", "mimeType": "image/png", "blob": "AAEC"}
        ]}));
        let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}));
        let listed = &sent(&a)[0]["result"]["resources"];
        assert_eq!(
            listed[0],
            json!({"uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"})
        );
        assert!(listed[1].get("blob").is_none());
        let read = |b: &mut Behaviour, uri: &str| {
            let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}));
            sent(&a)[0].clone()
        };
        assert_eq!(
            read(&mut b, "file:///a.txt")["result"]["contents"][0]["text"],
            "ALPHA"
        );
        let blob = read(&mut b, "file:///b.bin");
        assert_eq!(blob["result"]["contents"][0]["blob"], "AAEC");
        assert_eq!(blob["result"]["contents"][0]["mimeType"], "image/png");
        assert_eq!(read(&mut b, "file:///nope")["error"]["code"], -32002);
    }

    #[test]
    fn pages_chain_by_cursor_and_a_stuck_cursor_never_advances() {
        let mut b = behaviour(
            json!({"page_size": 2, "generation": [{"tool": [{"name": "t", "count": 3}]}]}),
        );
        let a = b.on_message(&json!({"id": 1, "method": "tools/list"}));
        assert_eq!(sent(&a)[0]["result"]["nextCursor"], "page-1");
        let a =
            b.on_message(&json!({"id": 2, "method": "tools/list", "params": {"cursor": "page-1"}}));
        assert_eq!(sent(&a)[0]["result"]["tools"][0]["name"], "t_3");
        assert!(sent(&a)[0]["result"].get("nextCursor").is_none());

        let mut b = behaviour(
            json!({"page_size": 1, "stuck_cursor": true, "generation": [{"tool": [{"name": "t", "count": 3}]}]}),
        );
        for id in 0..3 {
            let a = b.on_message(
                &json!({"id": id, "method": "tools/list", "params": {"cursor": "stuck"}}),
            );
            assert_eq!(sent(&a)[0]["result"]["nextCursor"], "stuck");
        }
    }

    #[test]
    fn faults_apply_to_the_named_occurrences_only() {
        let mut b = behaviour(json!({
            "generation": [{"tool": [{"name": "t"}]}],
            "fault": [{"method": "tools/list", "calls": [1, 2], "error": {"code": -32603}}]
        }));
        for id in 1..=3 {
            let a = b.on_message(&json!({"id": id, "method": "tools/list"}));
            let answer = sent(&a)[0];
            assert_eq!(answer.get("error").is_some(), id < 3, "{answer}");
        }
    }

    #[test]
    fn a_cursor_far_past_the_end_is_an_empty_page_not_an_overflow() {
        // Seen while writing the `jsonrpc_lines` fuzz target, whose harness panicked on this
        // request: `page_no * size` overflowed.
        let mut b = behaviour(json!({
            "page_size": 2,
            "generation": [{"tool": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}]
        }));
        for cursor in [
            "page-9999999999999999999",
            &format!("page-{}", usize::MAX / 2),
        ] {
            let a = b.on_message(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                         "params": {"cursor": cursor}}));
            assert_eq!(
                sent(&a),
                [&json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})]
            );
        }
    }
}
