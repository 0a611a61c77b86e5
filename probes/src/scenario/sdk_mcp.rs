//! `[[sdk_mcp_server]]`: an MCP server that lives in the SDK host's own process (the Agent SDKs'
//! `createSdkMcpServer`), reached by the target through `mcp_message` control requests. The host
//! names it at `initialize` (`sdkMcpServers`) and answers each JSON-RPC message as the script
//! says: its tools listed, each call answered with the tool's `result` text.

use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkMcpServer {
    pub name: String,
    #[serde(default, rename = "tool")]
    pub tools: Vec<SdkMcpTool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkMcpTool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The tool's JSON Schema (an object with no properties when absent).
    #[serde(default = "empty_schema")]
    pub input_schema: Value,
    /// The text every call returns.
    pub result: String,
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

impl SdkMcpServer {
    /// The JSON-RPC answer to `message`, as the SDKs' in-process transport gives it: a
    /// notification gets the SDKs' placeholder (`result: {}`, id 0).
    pub fn answer(&self, message: &Value) -> Value {
        let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
            return json!({"jsonrpc": "2.0", "result": {}, "id": 0});
        };
        let params = &message["params"];
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": self.name, "version": "1.0.0"},
            }),
            "tools/list" => json!({"tools": self.tools.iter().map(|t| json!({
                "name": t.name, "description": t.description, "inputSchema": t.input_schema,
            })).collect::<Vec<_>>()}),
            "tools/call" => match self
                .tools
                .iter()
                .find(|t| params["name"] == t.name.as_str())
            {
                Some(tool) => json!({"content": [{"type": "text", "text": tool.result}]}),
                None => return error(id, -32602, &format!("Tool {} not found", params["name"])),
            },
            method => return error(id, -32601, &format!("Method not found: {method}")),
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_each_message_as_an_in_process_server_does() {
        let server: SdkMcpServer = toml::from_str(
            "name = \"calc\"\n[[tool]]\nname = \"add\"\ndescription = \"Add\"\nresult = \"3\"\n",
        )
        .unwrap();
        let init = server.answer(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(init["result"]["serverInfo"]["name"], "calc");
        let note = server.answer(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(note, json!({"jsonrpc": "2.0", "result": {}, "id": 0}));
        let list = server.answer(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(list["result"]["tools"][0]["inputSchema"]["type"], "object");
        let call = server.answer(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {}}}));
        assert_eq!(call["result"]["content"][0]["text"], "3");
        let missing = server.answer(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "sub"}}),
        );
        assert_eq!(missing["error"]["code"], -32602);
    }
}
