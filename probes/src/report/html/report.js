// The conformance report, drawn from the JSON in #report-data. Every text from the data goes in
// through text nodes (textContent), never as markup.
(function () {
  "use strict";

  // The five states a cell can show, in the order the filters list them.
  const STATES = [
    ["pass", "pass"],
    ["fail", "fail"],
    ["expected-difference", "expected difference"],
    ["skip", "skip"],
    ["trace-differs", "trace differs"],
  ];
  const LABEL = Object.fromEntries(STATES);
  const ICON = { pass: "✓", fail: "✗", "expected-difference": "≈", skip: "–" };
  // probes::report::changelog::ChangeKind, in its order, with its labels (written by html.rs).
  const CHANGE_KINDS = JSON.parse(document.getElementById("change-kinds").textContent);

  // el("td", {class: "x", data: {id: "a"}, text: "t"}, child...)
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "data") {
        for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) node.dataset[k] = v;
      }
      else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const areaOf = (id) => {
    const dot = id.indexOf(".");
    return dot < 0 ? id : id.slice(0, dot);
  };
  const runKey = (id, target) => id + "@" + target;
  const expectedDifferences = (run) =>
    (run.checks || []).filter((c) => c.expected_difference !== undefined && c.expected_difference !== null).length;

  // What a cell shows: pass, fail, skip, or expected-difference for a pass that needed one.
  function cellStatus(run) {
    if (run.status === "skip") return "skip";
    if (run.status === "fail") return "fail";
    return expectedDifferences(run) > 0 ? "expected-difference" : "pass";
  }
  const traceDiffers = (run) =>
    !!run.parity && (run.parity.outcome === "differs" || run.parity.outcome === "differs_pending");

  // Doc::targets: in the order runs first name them, the reference first.
  function targetsOf(runs) {
    const names = [];
    for (const run of runs) if (!names.includes(run.target)) names.push(run.target);
    return names.filter((n) => n === "reference").concat(names.filter((n) => n !== "reference"));
  }

  // Doc::counts.
  function countsOf(runs, target) {
    const c = { pass: 0, fail: 0, skip: 0, expected_differences: 0 };
    for (const run of runs) {
      if (run.target !== target) continue;
      if (run.status in c) c[run.status] += 1;
      c.expected_differences += expectedDifferences(run);
    }
    return c;
  }

  function formatDuration(ms) {
    if (!ms) return "0 ms";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  }

  // parity::Comparison::summary.
  function paritySummary(p) {
    const named = (p.named || []).reduce((n, u) => n + (u.matched || 0), 0);
    switch (p.outcome) {
      case "equal":
        return "trace = " + p.against;
      case "equal_except_named":
        return "trace = " + p.against + " except " + named + " named lines";
      case "differs_pending":
        return "trace ≠ " + p.against + " in " + named + " lines named as not built yet";
      default:
        return "trace ≠ " + p.against + " in " + (p.unexplained || []).length + " unexplained of " + p.diff_lines + " diff lines";
    }
  }

  // A <pre> of `text`; with `diff`, lines of a unified diff (or of a line diff) coloured.
  function textPre(text, className, diff) {
    const pre = el("pre", { class: className });
    if (!diff) {
      pre.textContent = text;
      return pre;
    }
    const frag = document.createDocumentFragment();
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      let cls = null;
      if (line.startsWith("+++") || line.startsWith("---")) cls = "hdr";
      else if (line.startsWith("@@")) cls = "hunk";
      else if (line.startsWith("-")) cls = "del";
      else if (line.startsWith("+")) cls = "ins";
      frag.append(cls ? el("span", { class: cls, text: line }) : document.createTextNode(line));
      if (i < lines.length - 1) frag.append("\n");
    });
    pre.append(frag);
    return pre;
  }
  const looksLikeDiff = (text) => /^@@ /m.test(text) || /^(---|\+\+\+) /m.test(text);

  function badge(status) {
    return el("span", { class: "badge " + status, text: ICON[status] + " " + LABEL[status] });
  }

  function main() {
    const doc = JSON.parse(document.getElementById("report-data").textContent);
    const runs = doc.runs || [];
    const changelogs = doc.changelogs || [];
    const targets = targetsOf(runs);
    const byKey = new Map(runs.map((r) => [runKey(r.id, r.target), r]));
    const ids = [...new Set(runs.map((r) => r.id))].sort((a, b) => {
      const [aa, ba] = [areaOf(a), areaOf(b)];
      return aa < ba ? -1 : aa > ba ? 1 : a < b ? -1 : a > b ? 1 : 0;
    });
    const areas = [...new Set(ids.map(areaOf))];
    if (targets.length) document.title = "Conformance report: " + targets.join(", ");

    const app = document.getElementById("app");
    app.textContent = "";

    // Header: the counts per target, as Doc::counts counts them.
    const COUNTS = [
      ["pass", "pass", "pass"],
      ["fail", "fail", "fail"],
      ["skip", "skip", "skip"],
      ["expected_differences", "expected-difference", "expected differences"],
    ];
    const summary = el("table", { class: "summary", id: "counts" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: "target" }),
        ...COUNTS.map(([, status, label]) => el("th", { scope: "col", class: "num" }, el("span", { class: "dot " + status }), label)),
        el("th", { scope: "col", class: "bar-col", "aria-hidden": "true" }))));
    const sbody = el("tbody");
    for (const target of targets) {
      const c = countsOf(runs, target);
      const total = c.pass + c.fail + c.skip || 1;
      const share = (n) => (100 * n / total).toFixed(1) + "%";
      sbody.append(el("tr", { data: { target } },
        el("th", { scope: "row", text: target }),
        ...COUNTS.map(([key]) => el("td", { class: "num" }, el("b", { data: { target, count: key }, text: String(c[key]) }))),
        el("td", { class: "bar-col" }, el("div", { class: "bar", title: share(c.pass) + " pass, " + share(c.fail) + " fail, " + share(c.skip) + " skip" },
          el("span", { class: "pass", style: "width:" + share(c.pass) }),
          el("span", { class: "fail", style: "width:" + share(c.fail) }),
          el("span", { class: "skip", style: "width:" + share(c.skip) })))));
    }
    summary.append(sbody);
    app.append(el("header", { class: "top" },
      el("div", { class: "title" },
        el("h1", { text: "Conformance report" }),
        el("div", { class: "muted", text: ids.length + " scenarios · " + runs.length + " runs · " + targets.length + (targets.length === 1 ? " target" : " targets") }),
        runs.length ? el("div", { class: "muted hint", text: "Click a cell for that run's checks, diffs, transcript and trace." }) : null),
      summary));

    // Filters.
    const areaSelect = el("select", { id: "area-filter", "aria-label": "area" },
      el("option", { value: "", text: "all areas" }),
      ...areas.map((a) => el("option", { value: a, text: a })));
    const search = el("input", { type: "search", id: "id-filter", placeholder: "scenario id contains…", "aria-label": "scenario id" });
    const toggles = el("div", { class: "toggles", role: "group", "aria-label": "status" });
    const boxes = new Map();
    for (const [key, label] of STATES) {
      const box = el("input", { type: "checkbox", checked: true, data: { status: key }, id: "status-" + key });
      boxes.set(key, box);
      toggles.append(el("label", { class: "toggle", data: { status: key } },
        box, el("span", { class: "dot " + key }), label));
    }
    const shown = el("span", { id: "shown", "aria-live": "polite" });
    app.append(el("div", { class: "controls" },
      el("label", {}, "Area ", areaSelect), search, toggles, shown));

    // The matrix.
    const layout = el("div", { class: "layout" });
    const pane = el("div", { class: "matrix-pane" });
    const table = el("table", { class: "matrix", id: "matrix" });
    table.append(el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: "scenario" }),
      ...targets.map((t) => el("th", { scope: "col", data: { target: t }, text: t })))));
    const tbody = el("tbody");
    const frag = document.createDocumentFragment();
    const rows = [];
    const areaRows = new Map();
    const cellOf = new Map();
    let currentArea = null;
    for (const id of ids) {
      const area = areaOf(id);
      if (area !== currentArea) {
        currentArea = area;
        const n = ids.filter((i) => areaOf(i) === area).length;
        const count = el("span", { class: "n", text: String(n) });
        const head = el("tr", { class: "area-row", data: { area } },
          el("th", { colspan: targets.length + 1 }, area, count));
        areaRows.set(area, { head, count, n });
        frag.append(head);
      }
      const dot = id.indexOf(".");
      const tr = el("tr", { class: "run-row", data: { id, area } },
        el("th", { scope: "row", class: "id", title: id },
          dot < 0 ? null : el("span", { class: "area-prefix", text: id.slice(0, dot + 1) }),
          dot < 0 ? id : id.slice(dot + 1)));
      const states = new Set();
      for (const target of targets) {
        const run = byKey.get(runKey(id, target));
        if (!run) {
          tr.append(el("td", { class: "none", title: "not run on " + target, text: "—" }));
          continue;
        }
        const status = cellStatus(run);
        const differs = traceDiffers(run);
        states.add(status);
        if (differs) states.add("trace-differs");
        const td = el("td", {
          class: "cell",
          tabindex: 0,
          title: id + " on " + target,
          data: { id, target, status, traceDiffers: differs ? "true" : null },
        }, badge(status), differs ? el("span", { class: "marker trace-differs", text: "≠ trace differs" }) : null);
        td._states = differs ? [status, "trace-differs"] : [status];
        cellOf.set(runKey(id, target), td);
        tr.append(td);
      }
      rows.push({ tr, id, area, states });
      frag.append(tr);
    }
    tbody.append(frag);
    table.append(tbody);
    const empty = el("div", { class: "empty", hidden: true, text: "No scenario matches the filters." });
    pane.append(runs.length ? table : el("div", { class: "empty", text: "This report holds no runs." }), empty);
    const detail = el("aside", { id: "detail", hidden: true, "aria-label": "run detail" });
    layout.append(pane, detail);
    app.append(layout);

    function applyFilters() {
      const area = areaSelect.value;
      const q = search.value.trim().toLowerCase();
      const on = new Set([...boxes].filter(([, b]) => b.checked).map(([k]) => k));
      const all = on.size === STATES.length;
      const visibleAreas = new Map();
      let count = 0;
      for (const row of rows) {
        const visible = (area === "" || row.area === area)
          && (q === "" || row.id.toLowerCase().includes(q))
          && [...row.states].some((s) => on.has(s));
        row.tr.hidden = !visible;
        if (!visible) continue;
        count += 1;
        visibleAreas.set(row.area, (visibleAreas.get(row.area) || 0) + 1);
        for (const td of row.tr.querySelectorAll("td.cell")) {
          td.classList.toggle("dim", !all && !td._states.some((s) => on.has(s)));
        }
      }
      for (const [a, { head, count: span, n }] of areaRows) {
        const visible = visibleAreas.get(a) || 0;
        head.hidden = visible === 0;
        span.textContent = visible === n ? String(n) : visible + " of " + n;
      }
      shown.textContent = count + " of " + rows.length + " scenarios";
      empty.hidden = count > 0 || rows.length === 0;
    }
    areaSelect.addEventListener("change", applyFilters);
    search.addEventListener("input", applyFilters);
    for (const box of boxes.values()) box.addEventListener("change", applyFilters);
    applyFilters();

    // The detail panel.
    let selected = null;
    let view = "transcript";
    function openRun(run) {
      if (selected) selected.classList.remove("selected");
      selected = cellOf.get(runKey(run.id, run.target)) || null;
      if (selected) selected.classList.add("selected");
      layout.classList.add("with-detail");
      detail.hidden = false;
      detail.textContent = "";
      detail.scrollTop = 0;
      const status = cellStatus(run);
      const link = "#run=" + encodeURIComponent(runKey(run.id, run.target));
      detail.append(
        el("div", { class: "detail-head" },
          el("h2", { text: run.id }),
          el("button", { type: "button", title: "close (Esc)", "aria-label": "close", text: "×", on: { click: closeRun } })),
        el("div", { class: "meta" },
          el("code", { text: run.target }), badge(status),
          traceDiffers(run) ? el("span", { class: "marker trace-differs", text: "≠ trace differs" }) : null,
          el("span", { text: formatDuration(run.duration_ms) }),
          el("a", { href: link, text: "link to this run" })));

      const checks = run.checks || [];
      const failed = checks.filter((c) => !c.ok).length;
      const xdiff = expectedDifferences(run);
      let heading = "Checks (" + checks.length + ")";
      if (failed) heading += " · " + failed + " failed";
      if (xdiff) heading += " · " + xdiff + " expected " + (xdiff === 1 ? "difference" : "differences");
      const list = el("ol", { class: "checks" });
      for (const check of checks) {
        const hasDiff = check.expected_difference !== undefined && check.expected_difference !== null;
        const state = !check.ok ? "fail" : hasDiff ? "expected-difference" : "pass";
        const li = el("li", { class: state, data: { check: check.name } },
          el("div", { class: "line" },
            el("span", { class: "icon", title: LABEL[state], text: ICON[state] }),
            el("span", { class: "name", text: check.name })));
        if (hasDiff) li.append(el("div", { class: "note", text: "expected difference: " + check.expected_difference }));
        if (check.named_for_other_versions) {
          li.append(el("div", { class: "note other", text: "the same difference is named for " + check.named_for_other_versions }));
        }
        if (check.detail) li.append(textPre(check.detail, "text", looksLikeDiff(check.detail)));
        list.append(li);
      }
      detail.append(el("h3", { text: heading }), list);

      const p = run.parity;
      const parity = el("div", { class: "parity" });
      if (p) {
        parity.append(el("p", { text: paritySummary(p) }));
        if ((p.unexplained || []).length) {
          parity.append(el("h4", { text: "Unexplained lines" }), textPre(p.unexplained.join("\n"), "text", true));
        }
        if ((p.named || []).length) {
          const ul = el("ul");
          for (const n of p.named) {
            ul.append(el("li", {},
              el("code", { text: n.lines }),
              " — " + n.reason + " (" + n.matched + (n.matched === 1 ? " line" : " lines") + ", "
                + (n.own ? "named by the scenario" : "named by the suite") + (n.pending ? ", not built yet" : "") + ")"));
          }
          parity.append(el("h4", { text: "Named differences used" }), ul);
        }
        if ((p.gone || []).length) {
          parity.append(el("h4", { text: "Named differences no longer observed" }),
            el("ul", {}, ...p.gone.map((g) => el("li", { text: g }))));
        }
      } else {
        const ours = byKey.get(runKey(run.id, "reference"));
        let why = "Not compared with the reference's trace.";
        if (run.target === "reference") why = "This is the reference: the other targets' traces are compared with this one.";
        else if (run.status === "skip") why = "Skipped: no trace to compare.";
        else if (!ours || ours.status === "skip") why = "Not compared: the reference did not run this scenario.";
        parity.append(el("p", { class: "muted", text: why }));
      }
      detail.append(el("h3", { text: "Trace against the reference" }), parity);

      const views = [["transcript", "Transcript", run.transcript]];
      if (run.brief_view !== undefined && run.brief_view !== null) views.push(["brief", "Brief view", run.brief_view]);
      views.push(["trace", "Normalized trace", run.trace]);
      if (!views.some(([k]) => k === view)) view = "transcript";
      const tabs = el("div", { class: "tabs", role: "tablist" });
      const pre = el("pre", { class: "view", role: "tabpanel" });
      const show = (key) => {
        view = key;
        for (const b of tabs.children) b.setAttribute("aria-selected", String(b.dataset.view === key));
        const text = views.find(([k]) => k === key)[2];
        pre.textContent = text === undefined || text === null || text === "" ? "(none recorded)" : text;
        pre.classList.toggle("muted", !text);
      };
      for (const [key, label] of views) {
        tabs.append(el("button", { type: "button", role: "tab", data: { view: key }, text: label, on: { click: () => show(key) } }));
      }
      detail.append(tabs, pre);
      show(view);
    }

    function closeRun() {
      if (selected) selected.classList.remove("selected");
      selected = null;
      detail.hidden = true;
      layout.classList.remove("with-detail");
      if (location.hash) {
        try {
          history.replaceState(null, "", location.pathname + location.search);
        } catch (e) {
          location.hash = "";
        }
      }
    }

    function openFromHash() {
      const hash = location.hash.replace(/^#/, "");
      if (!hash.startsWith("run=")) return;
      let key;
      try {
        key = decodeURIComponent(hash.slice(4));
      } catch (e) {
        return;
      }
      const run = byKey.get(key);
      if (!run) return;
      openRun(run);
      if (selected) selected.scrollIntoView({ block: "center" });
    }

    function activate(td) {
      const hash = "#run=" + encodeURIComponent(runKey(td.dataset.id, td.dataset.target));
      if (location.hash === hash) openFromHash();
      else location.hash = hash; // hashchange opens it
    }
    table.addEventListener("click", (e) => {
      const td = e.target.closest("td.cell");
      if (td) activate(td);
    });
    table.addEventListener("keydown", (e) => {
      const td = e.target.closest("td.cell");
      if (td && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        activate(td);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !detail.hidden) closeRun();
    });
    window.addEventListener("hashchange", openFromHash);
    openFromHash();

    if (changelogs.length) app.append(renderChangelogs(changelogs, byKey));
    const coverage = doc.coverage || { targets: [], rows: [] };
    if (coverage.rows.length) app.append(renderCoverage(coverage));
  }

  // One row per tool parameter a target offered: on each target, exercised (✓), listed with its
  // reason (the reason as its title), missing (✗), or not offered there (blank).
  function renderCoverage(coverage) {
    const targets = coverage.targets;
    const table = el("table", { class: "coverage" },
      el("thead", {}, el("tr", {}, ...["tool", "parameter"].concat(targets, ["scenarios"]).map((h) => el("th", { text: h })))));
    const tbody = el("tbody");
    const listedFor = (row, target) => (row.listed || []).find((l) => !l.only || target === l.only || target.startsWith(l.only + "@"));
    for (const row of coverage.rows) {
      const cells = targets.map((t) => {
        if (!row.offered_on.includes(t)) return el("td", { text: "" });
        if (row.exercised_on.includes(t)) return el("td", { class: "cov-yes", text: "✓" });
        const listed = listedFor(row, t);
        return listed
          ? el("td", { class: "cov-listed", text: "listed", title: listed.reason })
          : el("td", { class: "cov-no", text: "✗" });
      });
      tbody.append(el("tr", {},
        el("td", { class: "mono", text: row.tool }),
        el("td", { class: "mono", text: row.param }),
        ...cells,
        el("td", { class: "mono", text: row.scenarios.join(", ") })));
    }
    table.append(tbody);
    const counts = targets.map((t) => {
      const offered = coverage.rows.filter((r) => r.offered_on.includes(t)).length;
      const exercised = coverage.rows.filter((r) => r.exercised_on.includes(t)).length;
      return t + ": " + exercised + "/" + offered + " exercised";
    });
    return el("section", { id: "coverage" },
      el("h2", { text: "Tool parameters" }),
      el("p", { class: "muted", text: counts.join(" · ") }),
      table);
  }

  function renderChangelogs(changelogs, byKey) {
    const section = el("section", { id: "changes" }, el("h2", { text: "Changes between versions" }));
    for (const log of changelogs) {
      const checks = log.checks || [];
      const trace = log.trace || [];
      const article = el("article", { class: "changelog", data: { from: log.from, to: log.to } },
        el("h3", { text: log.from + " → " + log.to }),
        el("p", { class: "muted", text: log.compared + " scenarios compared · " + checks.length + " check changes · " + trace.length + " trace changes" }));
      const scenarioCell = (id) => {
        const key = runKey(id, log.to);
        return byKey.has(key)
          ? el("td", { class: "mono" }, el("a", { href: "#run=" + encodeURIComponent(key), text: id }))
          : el("td", { class: "mono", text: id });
      };
      const known = new Set(CHANGE_KINDS.map(([k]) => k));
      const kinds = CHANGE_KINDS.concat([...new Set(checks.map((c) => c.change))].filter((k) => !known.has(k)).map((k) => [k, k]));
      if (checks.length) {
        // One table, a group of rows per kind of change, so the columns line up across groups.
        const table = el("table", { class: "check-changes" },
          el("colgroup", {}, el("col", { class: "c-scenario" }), el("col", { class: "c-check" }), el("col", { class: "c-change" }), el("col")),
          el("thead", {}, el("tr", {}, ...["scenario", "check", log.from + " → " + log.to, "detail"].map((h) => el("th", { text: h })))));
        for (const [kind, label] of kinds) {
          const group = checks.filter((c) => c.change === kind);
          if (!group.length) continue;
          const tbody = el("tbody", { data: { change: kind } },
            el("tr", { class: "group" }, el("th", { colspan: 4, class: "kind-" + kind.replace(/_/g, "-"), text: label + " (" + group.length + ")" })));
          for (const c of group) {
            tbody.append(el("tr", {},
              scenarioCell(c.scenario),
              el("td", { class: "mono", text: c.check }),
              el("td", { text: c.before + " → " + c.after }),
              el("td", {}, c.detail ? el("pre", { text: c.detail }) : null)));
          }
          table.append(tbody);
        }
        article.append(el("h4", { text: "Checks (" + checks.length + ")" }), table);
      }
      if (trace.length) {
        const tbody = el("tbody");
        for (const t of trace) {
          const scenarios = t.scenarios || [];
          const list = scenarios.join(", ");
          tbody.append(el("tr", {},
            el("td", { text: t.group }),
            el("td", {}, el("pre", { text: t.what })),
            el("td", { class: "mono" }, scenarios.length > 6
              ? el("details", {}, el("summary", { text: scenarios.slice(0, 4).join(", ") + " and " + (scenarios.length - 4) + " more" }), list)
              : list)));
        }
        article.append(el("h4", { text: "Trace changes (" + trace.length + ")" }),
          el("table", { class: "trace-changes" },
            el("colgroup", {}, el("col", { class: "c-group" }), el("col", { class: "c-what" }), el("col")),
            el("thead", {}, el("tr", {}, ...["group", "what", "scenarios"].map((h) => el("th", { text: h })))), tbody));
      }
      if (!checks.length && !trace.length) article.append(el("p", { text: "No check or trace changed." }));
      section.append(article);
    }
    return section;
  }

  try {
    main();
  } catch (err) {
    const app = document.getElementById("app");
    app.textContent = "";
    app.append(el("p", { class: "error", text: "This report could not be drawn: " + err }));
    throw err;
  } finally {
    document.documentElement.dataset.ready = "true";
  }
})();
