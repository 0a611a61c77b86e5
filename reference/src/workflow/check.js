// The static checks of a workflow script, over acorn's syntax tree (acorn is loaded first, as the
// global `acorn`). Rust calls `__workflowCheck(source)` and `__workflowUsesClock(body)`; both
// answer in JSON-friendly values. The rules and the error texts are 2.1.235's (recorded); the code
// is ours.
(function () {
  "use strict";
  const OPTIONS = {
    ecmaVersion: "latest",
    sourceType: "module",
    allowAwaitOutsideFunction: true,
    allowReturnOutsideFunction: true,
  };
  const HINT =
    "Workflow scripts must be plain JavaScript \u2014 common causes are TypeScript syntax " +
    "(type annotations, interfaces, generics) and broken string quoting or escaping.";
  const HEADER =
    "`export const meta = { name, description, phases }` must be the FIRST statement in the script";
  // How much of the offending line the parse error shows, centred on the column when it can be.
  const FRAME = 80;
  const RESERVED = ["__proto__", "constructor", "prototype"];

  // acorn's message already ends in "(line:column)"; the frame shows where on the line.
  function parseError(error, source) {
    const message = error && error.message !== undefined ? String(error.message) : String(error);
    const loc = error && error.loc;
    const known = loc && typeof loc.line === "number" && typeof loc.column === "number";
    const line = known ? source.split("\n")[loc.line - 1] : undefined;
    if (line === undefined) return "Script parse error: " + message + ". " + HINT;
    const column = Math.max(0, Math.min(loc.column, line.length));
    const from = Math.max(0, Math.min(column - Math.floor(FRAME / 2), line.length - FRAME));
    const shown = line.slice(from, from + FRAME);
    return (
      "Script parse error: " + message + "\n\n" + shown + "\n" +
      " ".repeat(column - from) + "^\n\n" + HINT
    );
  }

  function isMetaDeclaration(statement) {
    if (!statement || statement.type !== "ExportNamedDeclaration") return false;
    const declaration = statement.declaration;
    if (!declaration || declaration.type !== "VariableDeclaration") return false;
    if (declaration.kind !== "const" || declaration.declarations.length !== 1) return false;
    const only = declaration.declarations[0];
    return (
      only.id.type === "Identifier" && only.id.name === "meta" &&
      !!only.init && only.init.type === "ObjectExpression"
    );
  }

  // The value of a literal node; anything computed is refused with the reason.
  function literal(node) {
    switch (node.type) {
      case "Literal":
        return node.value;
      case "ArrayExpression":
        return node.elements.map(function (element) {
          if (element === null) throw new Error("sparse arrays not allowed");
          if (element.type === "SpreadElement") throw new Error("spread not allowed in meta");
          return literal(element);
        });
      case "ObjectExpression":
        return objectLiteral(node);
      case "TemplateLiteral":
        if (node.expressions.length > 0) throw new Error("template interpolation not allowed in meta");
        return node.quasis.map(function (q) { return q.value.cooked == null ? "" : q.value.cooked; }).join("");
      case "UnaryExpression":
        if (node.operator === "-" && node.argument.type === "Literal" && typeof node.argument.value === "number") {
          return -node.argument.value;
        }
        throw new Error("only negative-number unary allowed in meta");
      default:
        throw new Error("non-literal node type in meta: " + node.type);
    }
  }

  function objectLiteral(node) {
    const out = Object.create(null);
    for (const property of node.properties) {
      if (property.type !== "Property") throw new Error("only plain properties allowed in meta");
      if (property.computed) throw new Error("computed keys not allowed in meta");
      if (property.method || property.kind !== "init") throw new Error("methods/accessors not allowed in meta");
      out[keyName(property.key)] = literal(property.value);
    }
    return out;
  }

  function keyName(key) {
    let name;
    if (key.type === "Identifier") name = key.name;
    else if (key.type === "Literal") name = String(key.value);
    else throw new Error("unsupported key type in meta: " + key.type);
    if (RESERVED.indexOf(name) >= 0) throw new Error("reserved key name not allowed in meta: " + name);
    return name;
  }

  function nonEmpty(value) {
    return typeof value === "string" && value.length > 0;
  }

  // Phases keep only entries with a string title; none at all is the same as no list.
  function phases(list) {
    if (!Array.isArray(list)) return null;
    const out = [];
    for (const entry of list) {
      if (entry && typeof entry === "object" && "title" in entry && typeof entry.title === "string") {
        out.push({
          title: entry.title,
          detail: typeof entry.detail === "string" ? entry.detail : null,
          model: typeof entry.model === "string" ? entry.model : null,
        });
      }
    }
    return out.length > 0 ? out : null;
  }

  globalThis.__workflowCheck = function (source) {
    let tree;
    try {
      tree = acorn.parse(source, OPTIONS);
    } catch (error) {
      return { error: parseError(error, source) };
    }
    const first = tree.body[0];
    if (!isMetaDeclaration(first)) return { error: HEADER };
    let meta;
    try {
      meta = objectLiteral(first.declaration.declarations[0].init);
    } catch (error) {
      return { error: "meta must be a pure literal: " + (error instanceof Error ? error.message : String(error)) };
    }
    if (!nonEmpty(meta.name)) return { error: "meta.name must be a non-empty string" };
    if (!nonEmpty(meta.description)) return { error: "meta.description must be a non-empty string" };
    const body = source.slice(first.end).replace(/^[;\s]*\n/, "").trimStart();
    return {
      meta: {
        name: meta.name,
        description: meta.description,
        title: nonEmpty(meta.title) ? meta.title : null,
        whenToUse: typeof meta.whenToUse === "string" ? meta.whenToUse : null,
        phases: phases(meta.phases),
      },
      body: body,
    };
  };

  // Whether the body reads the clock or the dice: `Date.now` or `Math.random` named anywhere
  // (called or not), or `new Date()` without arguments. Comments and strings do not count; a
  // body that does not parse is left to the compile step.
  globalThis.__workflowUsesClock = function (body) {
    let tree;
    try {
      tree = acorn.parse(body, OPTIONS);
    } catch (error) {
      return false;
    }
    let found = false;
    (function visit(node) {
      if (found || node === null || typeof node !== "object") return;
      if (Array.isArray(node)) {
        node.forEach(visit);
        return;
      }
      if (typeof node.type !== "string") return;
      if (
        node.type === "MemberExpression" && !node.computed &&
        node.object.type === "Identifier" && node.property.type === "Identifier" &&
        ((node.object.name === "Date" && node.property.name === "now") ||
          (node.object.name === "Math" && node.property.name === "random"))
      ) {
        found = true;
        return;
      }
      if (
        node.type === "NewExpression" && node.callee.type === "Identifier" &&
        node.callee.name === "Date" && node.arguments.length === 0
      ) {
        found = true;
        return;
      }
      for (const key of Object.keys(node)) {
        if (key !== "loc") visit(node[key]);
      }
    })(tree);
    return found;
  };
})();
