// A study's page: summary, optimisation history, learning curves, parallel
// coordinates, importance with slices, rungs, lineage, timeline, trials.
"use strict";
const StudyPage = (() => {
  const { h, num, section, table } = Views;
  const C = Plot.STATUS_COLOR;
  const MARK = { stop: "#d6301d", pause: "#8e5bbf", promote: "#1a9641", exploit: "#f08c00", continue: "#555" };
  const tableStates = {};  // per study: sort, filter and page survive live redraws
  let historyAxis = "number";

  function better(goal) {
    return goal === "maximize" ? (a, b) => a > b : (a, b) => a < b;
  }

  function summary(s) {
    const best = s.best_trial;
    return section("summary", s.name, h("div", { class: "summary" },
      h("span", { class: `state ${s.state}`, text: s.state }),
      h("span", { text: `${s.algorithm} · ${s.goal} ${s.metric}` }),
      Views.progress(s),
      h("span", { data: { best: best ? best.value : "" } }, "best ",
        best ? h("a", { href: `#/trial/${best.id}`, text: `${num(best.value)} (trial ${best.number})` }) : "—"),
      h("span", { text: `${Number(s.trials_per_s.toPrecision(3))} trials/s` }),
      h("span", { class: "counts", text: ["completed", "running", "queued", "paused", "stopped", "failed"]
        .map((k) => `${k} ${s[k]}`).join(" · ") })));
  }

  function history(s, trials, box) {
    const beat = better(s.goal);
    const byX = trials.filter((t) => historyAxis === "number" || t.ended_at).slice()
      .sort((a, b) => (historyAxis === "number" ? a.number - b.number : a.ended_at - b.ended_at));
    const t0 = trials.reduce((m, t) => Math.min(m, t.started_at || t.ended_at || Infinity), Infinity);
    const X = (t) => (historyAxis === "number" ? t.number : t.ended_at - t0);
    const pts = { completed: [], stopped: [], failed: [] };
    const bestLine = [];
    let best = null;
    for (const t of byX) {
      // Hover texts are made on hover: 10,000 of them up front cost more
      // than drawing the points.
      const tip = () => `trial ${t.number} ${t.status}: ${num(t.value)}`;
      if (t.status === "completed" && Number.isFinite(t.value)) {
        pts.completed.push({ x: X(t), y: t.value, tip });
        if (best === null || beat(t.value, best)) best = t.value;
      } else if (t.status === "stopped" && Number.isFinite(t.value)) {
        pts.stopped.push({ x: X(t), y: t.value, tip: () => `${tip()} (last report, step ${t.step})` });
      } else if (t.status === "failed") {
        pts.failed.push({ x: X(t), y: NaN, shape: "x", tip: () => `trial ${t.number} failed: ${t.failure || ""}` });
      }
      if (best !== null) bestLine.push([X(t), best]);
    }
    box.replaceChildren();
    Plot.chart(box, { height: 300, xLabel: historyAxis === "number" ? "trial number" : "seconds since the first start",
      yLabel: s.metric, x: {}, y: {}, series: [
        { kind: "points", color: C.stopped, alpha: 0.6, items: pts.stopped },
        { kind: "points", color: C.completed, items: pts.completed },
        { kind: "points", color: C.failed, items: pts.failed },
        { kind: "lines", color: "#111", width: 1.5, hover: false, items: [{ points: bestLine }] },
      ] });
    box.append(h("p", { class: "legend", text: `● completed (${pts.completed.length})  ● stopped early, last report (${pts.stopped.length})  ✕ failed (${pts.failed.length})  — best so far` }));
  }

  function curves(s, data, box) {
    const marks = [];
    for (const c of data.curves) for (const [step, v, kind, reason] of c.marks)
      marks.push({ x: step, y: v === null ? NaN : v, color: MARK[kind], radius: 3, tip: () => `trial ${c.number} at step ${step}: ${reason}` });
    Plot.chart(box, { height: 320, xLabel: "step", yLabel: data.metric, x: {}, y: {}, series: [
      { kind: "lines", alpha: data.curves.length > 1000 ? 0.25 : 0.6, width: 1, items: data.curves.map((c) => ({
        points: c.points, color: C[c.status] || "#888", tip: ([x, y]) => `trial ${c.number} (${c.status}) step ${x}: ${num(y)}` })) },
      { kind: "points", items: marks },
    ] });
    box.append(h("p", { class: "legend", text: `${data.trials} trials, ${data.reports} reports of ${data.metric}` +
      (data.curves.some((c) => c.points.length >= data.points_per_trial) ? `, each curve shortened to ${data.points_per_trial} points on the server` : "") +
      ` · marks: ● stop ● pause ● promote ● exploit (hover for the reason)` }));
  }

  function axisOf(p) {
    if (p.type === "categorical") return { name: p.name, type: "category", categories: p.values.map(String) };
    return { name: p.name, type: p.log ? "log" : "linear", min: p.min, max: p.max };
  }

  function valueOn(p, v) {
    if (v === undefined) return undefined;
    return p.type === "categorical" ? p.values.map(String).indexOf(String(v)) : v;
  }

  function ranked(s, trials) {
    const done = trials.filter((t) => t.status === "completed" && Number.isFinite(t.value));
    const beat = better(s.goal);
    return done.sort((a, b) => (beat(a.value, b.value) ? -1 : beat(b.value, a.value) ? 1 : 0));
  }

  function parallel(s, done, box) {
    const params = s.parameters.filter((p) => p.type !== "constant");
    const axes = params.map(axisOf).concat([{ name: s.metric, type: "linear" }]);
    const rows = done.map((t, i) => {
      const values = {};
      for (const p of params) values[p.name] = valueOn(p, t.params[p.name]);
      values[s.metric] = t.value;
      return { values, t: done.length > 1 ? i / (done.length - 1) : 0 };
    });
    Plot.parallel(box, axes, rows.reverse());
    box.append(h("p", { class: "legend", text: `${done.length} completed trials; blue is best. A parameter a trial does not have is drawn at "absent".` }));
  }

  function importance(s, imp, done, box) {
    if (!imp.params.length) {
      box.append(h("p", { text: `Importance needs at least 4 completed trials (${imp.trials} so far).` }));
    } else {
      box.append(h("p", { class: "legend", text: `PED-ANOVA: how differently each parameter is spread among the best ${imp.top} of ${imp.trials} completed trials than among all of them.` }));
      box.append(h("div", { class: "bars" }, imp.params.map((p) => h("div", { class: "barrow", data: { param: p.name, importance: p.importance } },
        h("span", { class: "name", text: p.name }),
        h("span", { class: "track" }, h("span", { class: "fill", style: `width:${(100 * p.importance).toFixed(1)}%` })),
        h("span", { class: "val", text: p.importance.toFixed(3) })))));
    }
    const grid = h("div", { class: "grid" });
    box.append(h("h3", { text: "Slices: the objective against each parameter" }), grid);
    for (const p of s.parameters.filter((q) => q.type !== "constant")) {
      const cell = h("div", { class: "cell" }, h("h3", { text: p.name }));
      grid.append(cell);
      const items = done.filter((t) => t.params[p.name] !== undefined).map((t) => ({
        x: valueOn(p, t.params[p.name]), y: t.value, tip: () => `trial ${t.number}: ${p.name} ${num(t.params[p.name])} → ${num(t.value)}` }));
      Plot.chart(cell, { height: 180, size: "cell", xLabel: p.name, yLabel: s.metric, x: axisOf(p), y: {},
        series: [{ kind: "points", color: C.completed, alpha: 0.6, radius: 2, items }] });
    }
  }

  function rungs(data, box) {
    for (const b of data.brackets) {
      const max = b.rungs.reduce((m, r) => Math.max(m, r.entered), 1);
      box.append(h("h3", { text: b.bracket === null ? "Rungs" : `Bracket ${b.bracket}` }),
        h("table", { class: "rungs" }, h("tr", {}, ["rung", "step", "entered", "promoted", "stopped", "waiting", ""].map((t) => h("th", { text: t }))),
          b.rungs.map((r) => h("tr", { data: { rung: r.rung, step: r.step } },
            [r.rung, r.step, r.entered, r.promoted, r.stopped, r.waiting].map((v) => h("td", { text: String(v) })),
            h("td", { class: "funnel", title: `promoted: trials ${r.promoted_trials.join(", ")}` },
              h("span", { class: "in", style: `width:${(100 * r.entered / max).toFixed(1)}%` },
                h("span", { class: "up", style: `width:${r.entered ? (100 * r.promoted / r.entered).toFixed(1) : 0}%` })))))));
    }
  }

  function lineage(data, box) {
    const kids = new Map(), byId = new Map(data.trials.map((t) => [t.id, t]));
    for (const t of data.trials) {
      const p = t.parent && byId.has(t.parent) ? t.parent : 0;
      if (!kids.has(p)) kids.set(p, []);
      kids.get(p).push(t);
    }
    const row = new Map(), order = [];
    const visit = (t) => { row.set(t.id, order.length); order.push(t); for (const k of kids.get(t.id) || []) visit(k); };
    for (const t of kids.get(0) || []) visit(t);
    const segs = [];
    for (const t of order) {
      const y = row.get(t.id), x1 = t.parent_step || 0, x2 = Math.max(x1, t.step || x1);
      segs.push({ x1, y1: y, x2, y2: y, color: C[t.status], width: 3, tip: () => `trial ${t.number} (${t.status}) steps ${x1}–${x2}: ${num(t.value)}` });
      if (t.parent && row.has(t.parent))
        segs.push({ x1, y1: row.get(t.parent), x2: x1, y2: y, color: "#999", width: 1, tip: t.reason || `copied from trial ${byId.get(t.parent).number} at step ${x1}` });
    }
    Plot.chart(box, { height: Math.min(700, 60 + 14 * order.length), xLabel: "step", yLabel: "trial",
      x: {}, y: { type: "category", categories: order.map((t) => String(t.number)) }, series: [{ kind: "segments", items: segs }] });
    box.append(h("p", { class: "legend", text: "Each trial is a bar over the steps it trained; a grey line is an exploit, from the trial it copied (hover for the parameter changes)." }));
  }

  function timeline(s, trials, now, box) {
    const started = trials.filter((t) => t.started_at);
    if (!started.length) return box.append(h("p", { text: "No trial has started yet." }));
    const t0 = started.reduce((m, t) => Math.min(m, t.started_at), Infinity);
    const runners = [...new Set(started.map((t) => t.runner || "?"))].sort();
    const segs = started.map((t) => {
      const end = t.ended_at || now;
      return { x1: t.started_at - t0, x2: end - t0, y1: runners.indexOf(t.runner || "?"), y2: runners.indexOf(t.runner || "?"),
        color: C[t.status], width: 8, tip: () => `trial ${t.number} on ${t.runner}: ${t.status}, ${(end - t.started_at).toFixed(2)} s` };
    });
    Plot.chart(box, { height: Math.min(500, 80 + 24 * runners.length), xLabel: "seconds since the first start", yLabel: "runner",
      x: {}, y: { type: "category", categories: runners }, series: [{ kind: "segments", items: segs }] });
    box.append(h("p", { class: "legend", text: "Each trial from its first start to its end, on the runner that ran it last." }));
  }

  function trialTable(s, trials) {
    const params = s.parameters.map((p) => p.name);
    const cols = [
      { label: "number", key: (t) => t.number, cell: (t) => h("a", { href: `#/trial/${t.id}`, text: String(t.number) }) },
      { label: "status", key: (t) => t.status, cell: (t) => h("span", { class: `state ${t.status}`, text: t.status }) },
      { label: s.metric, key: (t) => t.value },
      { label: "step", key: (t) => t.step },
      ...params.map((p) => ({ label: p, key: (t) => t.params[p] })),
      { label: "attempts", key: (t) => t.attempts },
      { label: "runner", key: (t) => t.runner, cell: (t) => t.runner || "—" },
      { label: "seconds", key: (t) => (t.started_at && t.ended_at ? Number((t.ended_at - t.started_at).toFixed(3)) : null) },
    ];
    const state = (tableStates[s.id] = tableStates[s.id] || {});
    return table(cols, trials, state);
  }

  async function render(api, el, id) {
    const base = `/api/studies/${id}`;
    const [s, tr, cv, imp, rg, ln] = await Promise.all([base, `${base}/trials`, `${base}/curves`,
      `${base}/importance`, `${base}/rungs`, `${base}/lineage`].map((p) => api(p)));
    const trials = tr.trials;
    // How long each part took to draw, for the benchmark's breakdown.
    const times = (window.__sweepTimes = { data: performance.now() });
    const timed = (name, f) => { const t = performance.now(); f(); times[name] = Math.round(performance.now() - t); };
    el.append(summary(s));
    Plot.measure(el);
    const hist = h("div", {});
    const axis = h("select", {}, h("option", { value: "number", text: "by trial number" }), h("option", { value: "time", text: "by time" }));
    axis.value = historyAxis;
    axis.addEventListener("change", () => { historyAxis = axis.value; history(s, trials, hist); });
    el.append(section("history", "Optimisation history", axis, hist));
    timed("history", () => history(s, trials, hist));
    const box = () => h("div", {});
    let b;
    el.append(section("curves", "Learning curves", (b = box())));
    timed("curves", () => (cv.curves.length ? curves(s, cv, b) : b.append(h("p", { text: "No reports yet." }))));
    el.append(section("parallel", "Parallel coordinates", (b = box())));
    const done = ranked(s, trials);
    timed("parallel", () => parallel(s, done, b));
    el.append(section("importance", "Parameter importance", (b = box())));
    timed("importance", () => importance(s, imp, done, b));
    if (rg.brackets.length) {
      el.append(section("rungs", s.algorithm === "hyperband" || s.algorithm === "bohb" ? "Hyperband brackets" : "Rungs", (b = box())));
      rungs(rg, b);
    }
    if (ln.trials.length) {
      el.append(section("lineage", "PBT lineage", (b = box())));
      lineage(ln, b);
    }
    el.append(section("timeline", "Timeline", (b = box())));
    timed("timeline", () => timeline(s, trials, s.now, b));
    timed("table", () => el.append(section("trials", `Trials (${trials.length})`, trialTable(s, trials))));
  }

  return { render };
})();
