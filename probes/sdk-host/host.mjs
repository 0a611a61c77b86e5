// The official TypeScript Agent SDK between the harness and a target (the `sdk` channel).
//
// On its own stdin/stdout this script speaks what the target speaks to an SDK host, so the
// harness's control host drives it unchanged: the host's `initialize` registers its hooks (and
// names its in-process MCP servers and agent types, which become the SDK's own options),
// `user` lines are the prompts, `control_response` lines answer what is asked, an `interrupt`
// request interrupts, and stdin's end ends the prompts. In between, the SDK's `query()` starts and
// talks to the target; every message the SDK yields is printed as one JSON line, each
// `canUseTool` call and hook call goes back to the harness as the control request the target
// would have sent, and the target's stderr is passed through. The harness sees the target as a
// host using the official SDK sees it.
//
// Usage: node host.mjs SDK_MODULE TARGET ARGS_JSON
//   SDK_MODULE  the SDK's sdk.mjs; TARGET  the target's executable;
//   ARGS_JSON   the target's further arguments (`--model M`, the scenario's), a JSON list.

import readline from 'node:readline';

const [sdkModule, target, argsJson] = process.argv.slice(2);
const { query } = await import(sdkModule);

function emit(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// `--name value` pairs and bare `--flag`s as the SDK's `extraArgs`; `--model` is its own option.
// `extraArgs` is an object: an option takes one value, and a repeated option keeps its last (a
// scenario that needs more says `not_through_sdk`).
function options_from(args) {
  const extra = {};
  let model;
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, '');
    const value = i + 1 < args.length && !args[i + 1].startsWith('--') ? args[++i] : null;
    if (name === 'model') model = value;
    else extra[name] = value;
  }
  return { extra, model };
}

// Questions waiting for the harness's answer, by request id.
const waiting = new Map();
let nextId = 0;
function ask(request, signal) {
  const id = `sdk_host_${++nextId}`;
  emit({ type: 'control_request', request_id: id, request });
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    signal?.addEventListener('abort', () => {
      if (waiting.delete(id)) emit({ type: 'control_cancel_request', request_id: id });
    });
  });
}

// The prompts: an async queue the SDK reads; stdin's end ends it.
const prompts = [];
let wake = null;
let ended = false;
async function* promptStream() {
  for (;;) {
    while (prompts.length) yield prompts.shift();
    if (ended) return;
    await new Promise((resolve) => (wake = resolve));
  }
}
function pushPrompt(message) {
  prompts.push(message);
  wake?.();
}

let q = null;
let initialized;
const ready = new Promise((resolve) => (initialized = resolve));

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === 'user') return pushPrompt(message);
  if (message.type === 'control_response') {
    const response = message.response;
    const resolve = waiting.get(response.request_id);
    waiting.delete(response.request_id);
    return resolve?.(response.subtype === 'success' ? response.response : { error: response.error });
  }
  if (message.type !== 'control_request') return;
  const request = message.request;
  if (request.subtype === 'initialize') {
    initialized(request);
    emit({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response: {} } });
  } else if (request.subtype === 'interrupt') {
    q?.interrupt().then(
      (r) => emit({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response: r ?? {} } }),
      (e) => emit({ type: 'control_response', response: { subtype: 'error', request_id: message.request_id, error: String(e) } }),
    );
  }
});
lines.on('close', () => {
  ended = true;
  wake?.();
});

// The host's hook registrations (`hookCallbackIds` per matcher) as SDK hook functions.
function hooks_from(registered) {
  const hooks = {};
  for (const [event, matchers] of Object.entries(registered ?? {})) {
    hooks[event] = matchers.map((m) => ({
      matcher: m.matcher ?? undefined,
      hooks: m.hookCallbackIds.map((callback_id) => async (input, tool_use_id, { signal }) =>
        ask({ subtype: 'hook_callback', callback_id, input, tool_use_id }, signal)),
    }));
  }
  return hooks;
}

// The host's in-process MCP servers (`sdkMcpServers` at initialize), as the SDK's `type: "sdk"`
// servers: the SDK hands each JSON-RPC message to the instance's transport, and the harness,
// asked through `mcp_message`, answers it.
function sdk_servers(names) {
  const servers = {};
  for (const name of names ?? []) {
    const instance = {
      async connect(transport) {
        transport.onmessage = async (message) => {
          const answer = await ask({ subtype: 'mcp_message', server_name: name, message });
          if ('id' in message && 'method' in message) await transport.send(answer.mcp_response);
        };
        await transport.start?.();
      },
      async close() {},
    };
    servers[name] = { type: 'sdk', name, instance };
  }
  return servers;
}

const init = await ready;
const { extra, model } = options_from(JSON.parse(argsJson));
q = query({
  prompt: promptStream(),
  options: {
    pathToClaudeCodeExecutable: target,
    cwd: process.cwd(),
    env: process.env,
    model,
    extraArgs: extra,
    hooks: hooks_from(init.hooks),
    mcpServers: sdk_servers(init.sdkMcpServers),
    agents: init.agents,
    outputFormat: init.jsonSchema && { type: 'json_schema', schema: init.jsonSchema },
    stderr: (text) => process.stderr.write(text),
    canUseTool: (tool_name, input, context) =>
      ask(
        {
          subtype: 'can_use_tool', tool_name, display_name: context.displayName ?? tool_name, input,
          permission_suggestions: context.suggestions, blocked_path: context.blockedPath,
          decision_reason: context.decisionReason, tool_use_id: context.toolUseID,
        },
        context.signal,
      ).then((answer) => (answer.error ? Promise.reject(new Error(answer.error)) : answer)),
  },
});
try {
  for await (const message of q) emit(message);
} catch (error) {
  process.stderr.write(`sdk host: ${error?.message ?? error}\n`);
  process.exitCode = 1;
}
