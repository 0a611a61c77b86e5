"""The Python Agent SDK as a host of a target: six cases a program that uses the SDK meets first.

Usage: python python_cases.py CASE TARGET
Runs CASE with the SDK's public API against the target executable (its `cli_path`), in the
current directory and environment (the harness points ANTHROPIC_BASE_URL at its scripted
Messages stub), and prints one JSON object: what the SDK yielded, summarized, and what the
host's callbacks saw. The harness's test (reference/tests/it/python_sdk.rs) asserts on it.
"""

import json
import os
import sys

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

CASE, TARGET = sys.argv[1], sys.argv[2]
seen = {"case": CASE, "asked": [], "hooks": [], "results": [], "tool_results": {}, "mcp_servers": None}


def note(message):
    if isinstance(message, ResultMessage):
        seen["results"].append({"subtype": message.subtype, "result": message.result, "is_error": message.is_error})
    elif isinstance(message, SystemMessage) and message.subtype == "init":
        seen["mcp_servers"] = message.data.get("mcp_servers")
    elif isinstance(message, UserMessage) and isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = block.content
                if isinstance(content, list):
                    content = "".join(part.get("text", "") for part in content)
                seen["tool_results"][block.tool_use_id] = {"content": content, "is_error": bool(block.is_error)}


def options(**more):
    return ClaudeAgentOptions(cli_path=TARGET, cwd=os.getcwd(), model="claude-sonnet-4-5", **more)


async def ask(prompt, opts):
    async def prompts():
        yield {"type": "user", "message": {"role": "user", "content": prompt}}

    async for message in query(prompt=prompts(), options=opts):
        note(message)


async def deny(name, tool_input, context):
    seen["asked"].append(name)
    return PermissionResultDeny(message="no writes today")


async def allow_changed(name, tool_input, context):
    seen["asked"].append(name)
    return PermissionResultAllow(updated_input={**tool_input, "content": "changed by the host"})


async def pre_tool_use(hook_input, tool_use_id, context):
    seen["hooks"].append({"event": hook_input["hook_event_name"], "tool": hook_input.get("tool_name")})
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "blocked by the host's hook",
        }
    }


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args):
    return {"content": [{"type": "text", "text": str(int(args["a"] + args["b"]))}]}


async def main():
    if CASE == "text":
        await ask("Say hi.", options())
    elif CASE == "deny":
        await ask("Write the file.", options(can_use_tool=deny))
    elif CASE == "allow-updated":
        await ask("Write the file.", options(can_use_tool=allow_changed))
    elif CASE == "hook":
        hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]}
        await ask("Make a file.", options(hooks=hooks, permission_mode="bypassPermissions"))
    elif CASE == "mcp":
        calc = create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])
        await ask("Add one and two.", options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"]))
    elif CASE == "two-turns":
        async with ClaudeSDKClient(options=options()) as client:
            for prompt in ["One.", "Two."]:
                await client.query(prompt)
                async for message in client.receive_response():
                    note(message)
    else:
        raise SystemExit(f"unknown case {CASE}")
    print(json.dumps(seen))


anyio.run(main)
