// The workflow DSL around a script body: agent(), parallel(), pipeline(), phase(), log(),
// console, budget, workflow(), timers, and the clock and dice taken away. Evaluated once per run
// before the body; `__host` (Rust) is passed in and not left reachable. The semantics and the
// error texts are 2.1.235's (recorded, and as its Workflow tool description states them); the
// code is ours.
(function (host) {
  "use strict";
  const NOW_ERR =
    "Date.now() / new Date() are unavailable in workflow scripts (breaks resume). Stamp results " +
    "after the workflow returns, or pass timestamps via args.";
  const RANDOM_ERR =
    "Math.random() is unavailable in workflow scripts (breaks resume). For N independent " +
    "samples, include the index in the agent label or prompt.";
  // The agent() options that change what an agent does, hence its journal key.
  const KEYED = ["schema", "model", "effort", "isolation", "agentType", "disallowedTools", "bashCommandClamp"];
  const NESTED = "\u25b8";

  Math.random = function random() { throw new Error(RANDOM_ERR); };
  const RealDate = Date;
  RealDate.now = function now() { throw new Error(NOW_ERR); };
  function ShimDate(...args) {
    if (!new.target) throw new Error(NOW_ERR);
    if (args.length === 0) throw new Error(NOW_ERR);
    return Reflect.construct(RealDate, args, new.target);
  }
  ShimDate.now = RealDate.now;
  ShimDate.parse = RealDate.parse;
  ShimDate.UTC = RealDate.UTC;
  ShimDate.prototype = RealDate.prototype;
  // `new Date(0).constructor` must not lead back to the real clock.
  RealDate.prototype.constructor = ShimDate;
  Object.freeze(RealDate);
  globalThis.Date = ShimDate;
  delete globalThis.eval;

  function text(value) {
    if (typeof value === "string") return value;
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return String(value);
    try {
      const json = JSON.stringify(value);
      if (json !== undefined && json !== "{}") return json;
    } catch (e) { /* fall through */ }
    return String(value);
  }

  function plain(value) {
    if (typeof value === "function") return undefined;
    if (Array.isArray(value)) return value.map(plain);
    if (value && typeof value === "object") {
      const out = {};
      for (const key of Object.keys(value).sort()) {
        if (key !== "__proto__") out[key] = plain(value[key]);
      }
      return out;
    }
    return value;
  }

  // The canonical JSON of the keyed options: keys sorted at every level, functions dropped.
  function keyedOptions(opts) {
    if (!opts || typeof opts !== "object") return "{}";
    const picked = {};
    for (const key of KEYED) {
      const value = opts[key];
      if (value === undefined || typeof value === "function") continue;
      picked[key] = value;
    }
    return JSON.stringify(plain(picked));
  }

  function length(list) {
    const n = list.length;
    if (n > host.maxItems) {
      throw new Error("array length " + n + " exceeds the maximum of " + host.maxItems + " supported across the workflow VM boundary");
    }
    return n;
  }

  let currentPhase;
  // agent() calls the host is running, and timers it will fire, by the host's ids.
  const waiting = new Map();
  const timers = new Map();

  function makeAgent(forcedPhase) {
    return async function agent(prompt, opts) {
      const promptText = String(prompt);
      if (opts != null && typeof opts === "object" && opts.schema != null) {
        throw new Error("agent() opts.schema is not supported by this agent: ask for JSON in the prompt and JSON.parse the answer.");
      }
      if (opts != null && typeof opts === "object" && opts.isolation === "remote") {
        throw new Error("agent({isolation:'remote'}) is not available in this build");
      }
      const label = opts != null && opts.label != null
        ? String(opts.label).replace(/\s+/g, " ").trim()
        : promptText.slice(0, 60).replace(/\s+/g, " ").trim();
      let phase = opts != null && opts.phase != null ? String(opts.phase) : currentPhase;
      if (forcedPhase !== undefined) phase = forcedPhase;
      const options = keyedOptions(opts);
      const model = opts != null && typeof opts.model === "string" ? opts.model : "";
      const answer = JSON.parse(host.agent(promptText, options, label, phase === undefined ? "" : phase, model));
      if ("cached" in answer) return answer.cached;
      return new Promise(function (resolve) { waiting.set(answer.queued, resolve); });
    };
  }

  async function parallel(thunks) {
    if (!Array.isArray(thunks)) throw new TypeError("parallel() expects an array of functions");
    const list = Array.from({ length: length(thunks) }, (_, i) => thunks[i]);
    if (list.length === 0) return [];
    for (const thunk of list) {
      if (typeof thunk !== "function") {
        throw new TypeError("parallel() expects an array of functions, not promises. Wrap each call: () => agent(...)");
      }
    }
    const settled = await Promise.allSettled(list.map(function (thunk) {
      try { return Promise.resolve(thunk()); } catch (error) { return Promise.reject(error); }
    }));
    return settled.map(function (s, i) {
      if (s.status === "fulfilled") return s.value;
      host.failure("parallel[" + i + "] failed: " + message(s.reason));
      return null;
    });
  }

  async function pipeline(items, ...stages) {
    if (!Array.isArray(items)) throw new TypeError("pipeline() expects an array as the first argument");
    const list = Array.from({ length: length(items) }, (_, i) => items[i]);
    if (list.length === 0) return [];
    for (const stage of stages) {
      if (typeof stage !== "function") {
        throw new TypeError("pipeline() stages must be functions: pipeline(items, item => ..., result => ...)");
      }
    }
    const settled = await Promise.allSettled(list.map(async function (item, index) {
      let value = await item;
      for (const stage of stages) {
        if (value === null) break;
        value = await stage(value, item, index);
      }
      return value;
    }));
    return settled.map(function (s, i) {
      if (s.status === "fulfilled") return s.value;
      host.failure("pipeline[" + i + "] failed: " + message(s.reason));
      return null;
    });
  }

  function message(reason) {
    return reason instanceof Error ? reason.message : String(reason);
  }

  function log(value) { host.log(text(value)); }
  function phase(title) {
    currentPhase = String(title);
    host.phase(currentPhase);
  }

  function prefixed(prefix) {
    return function (...values) { host.log(prefix + values.map(text).join(" ")); };
  }
  const consoleObject = Object.freeze({
    log: prefixed(""), info: prefixed(""), debug: prefixed(""),
    error: prefixed("[error] "), warn: prefixed("[warn] "),
  });

  const budget = Object.freeze({
    total: null,
    spent: function spent() { return 0; },
    remaining: function remaining() { return Infinity; },
  });

  function setTimeout(callback, ms, ...extra) {
    if (typeof callback !== "function") throw new TypeError("setTimeout() expects a function");
    const id = host.timer(Math.max(0, Number(ms) || 0));
    timers.set(id, function () { callback(...extra); });
    return id;
  }
  function clearTimeout(id) {
    timers.delete(id);
    host.clearTimer(Number(id) || 0);
  }

  const nestedNames = {};
  function refusesNesting() {
    return Promise.reject(new Error(
      "workflow() cannot be called from within a child workflow \u2014 nesting is limited to one level. Inline the inner script or call its agents directly."
    ));
  }
  async function workflow(ref, childArgs) {
    let request;
    if (typeof ref === "string") request = JSON.stringify({ name: ref });
    else if (ref && typeof ref === "object" && typeof ref.scriptPath === "string") request = JSON.stringify({ scriptPath: ref.scriptPath });
    else throw new TypeError("workflow() expects a workflow name (string) or {scriptPath: string}");
    const loaded = host.load(request);
    nestedNames[loaded.name] = (nestedNames[loaded.name] || 0) + 1;
    const count = nestedNames[loaded.name];
    const group = NESTED + " " + loaded.name + (count > 1 ? " #" + count : "");
    host.log(NESTED + " running dynamic workflow " + loaded.name);
    const childLog = function (value) { host.log("[" + loaded.name + "] " + text(value)); };
    try {
      const result = await loaded.run(childArgs, makeAgent(group), refusesNesting, childLog, function () {});
      host.log(NESTED + " " + loaded.name + " done");
      return result;
    } catch (error) {
      host.failure(group + ": " + message(error));
      throw error;
    }
  }

  const globals = {
    agent: makeAgent(undefined), parallel, pipeline, log, phase, console: consoleObject,
    budget, workflow, setTimeout, clearTimeout, args: host.args,
  };
  for (const name of Object.keys(globals)) {
    Object.defineProperty(globalThis, name, { value: globals[name], writable: true, enumerable: true, configurable: true });
  }

  // How the host drives the run: it settles agent() calls, fires timers, starts the body and
  // reads how it ended.
  let outcome = null;
  function describe(error) {
    if (!(error instanceof Error)) return String(error);
    const head = String(error);
    const stack = typeof error.stack === "string" ? error.stack.split("\n").filter((l) => l.trim().startsWith("at ")) : [];
    return stack.length > 0 ? head + "\n" + stack.slice(0, 5).join("\n") : head;
  }
  const control = {
    __workflowSettle: function (id, json) {
      const resolve = waiting.get(id);
      waiting.delete(id);
      if (resolve) resolve(JSON.parse(json));
    },
    __workflowFire: function (id) {
      const callback = timers.get(id);
      timers.delete(id);
      if (callback) callback();
    },
    __workflowStart: function (body) {
      Promise.resolve().then(body).then(
        function (value) { outcome = { ok: true, json: JSON.stringify(value) }; },
        function (error) { outcome = { ok: false, error: describe(error) }; }
      );
    },
    __workflowOutcome: function () { return outcome === null ? "" : JSON.stringify(outcome); },
  };
  for (const name of Object.keys(control)) {
    Object.defineProperty(globalThis, name, { value: control[name], writable: false, enumerable: false, configurable: false });
  }
});
