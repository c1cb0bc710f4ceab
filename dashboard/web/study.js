// A study's page: summary, optimisation history, learning curves, parallel
// coordinates, importance with slices, rungs, lineage, timeline, trials.
"use strict";
const StudyPage = (() => {
  const { h, num, section, table, legend } = Views;
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
        .map((k) => `${k} ${s[k]}`).join(" · ") }),
      s.tags.length ? Views.tags(s) : null),
      s.note ? h("p", { class: "note", text: s.note }) : null);
  }

  function history(s, trials, box) {
    const beat = better(s.goal);
    const byX = trials.filter((t) => historyAxis === "number" || t.ended_at)
      .sort((a, b) => (historyAxis === "number" ? a.number - b.number : a.ended_at - b.ended_at));
    const t0 = trials.reduce((m, t) => Math.min(m, t.started_at || t.ended_at || Infinity), Infinity);
    const X = (t) => (historyAxis === "number" ? t.number : t.ended_at - t0);
    // A column of x, y and trial per kind of point; hover texts are made
    // on hover.
    const col = () => ({ x: [], y: [], t: [] });
    const pts = { completed: col(), stopped: col(), failed: col() };
    const add = (k, t, y) => { pts[k].x.push(X(t)); pts[k].y.push(y); pts[k].t.push(t); };
    const bestLine = [];
    let best = null;
    for (const t of byX) {
      if (t.status === "completed" && Number.isFinite(t.value)) {
        add("completed", t, t.value);
        if (best === null || beat(t.value, best)) best = t.value;
      } else if (t.status === "stopped" && Number.isFinite(t.value)) {
        add("stopped", t, t.value);
      } else if (t.status === "failed") {
        add("failed", t, NaN);
      }
      if (best !== null) bestLine.push([X(t), best]);
    }
    const tip = (t) => `trial ${t.number} ${t.status}: ${num(t.value)}`;
    box.replaceChildren();
    Plot.chart(box, { height: 300, xLabel: historyAxis === "number" ? "trial number" : "seconds since the first start",
      yLabel: s.metric, x: {}, y: {}, series: [
        { kind: "points", color: C.stopped, alpha: 0.6, ...pts.stopped,
          tip: (i) => `${tip(pts.stopped.t[i])} (last report, step ${pts.stopped.t[i].step})` },
        { kind: "points", color: C.completed, ...pts.completed, tip: (i) => tip(pts.completed.t[i]) },
        { kind: "points", color: C.failed, shape: "x", ...pts.failed,
          tip: (i) => `trial ${pts.failed.t[i].number} failed: ${pts.failed.t[i].failure || ""}` },
        { kind: "lines", color: "#111", width: 1.5, lines: [bestLine] },
      ] });
    box.append(legend([[C.completed, "●", `completed (${pts.completed.x.length})`],
      [C.stopped, "●", `stopped early, last report (${pts.stopped.x.length})`],
      [C.failed, "✕", `failed (${pts.failed.x.length})`], ["#111", "—", "best so far"]]));
  }

  function curves(s, data, box) {
    const marks = {};  // kind -> a points series
    for (const c of data.curves) for (const [step, v, kind, reason] of c.marks) {
      const m = (marks[kind] = marks[kind] || { kind: "points", color: MARK[kind], radius: 3, x: [], y: [], why: [] });
      m.x.push(step);
      m.y.push(v === null ? NaN : v);
      m.why.push(`trial ${c.number} at step ${step}: ${reason}`);
    }
    for (const m of Object.values(marks)) m.tip = (i) => m.why[i];
    const cs = data.curves;
    Plot.chart(box, { height: 320, xLabel: "step", yLabel: data.metric, x: {}, y: {}, series: [
      { kind: "lines", alpha: cs.length > 1000 ? 0.25 : 0.6, width: 1, lines: cs.map((c) => c.points),
        colors: cs.map((c) => C[c.status] || "#888"),
        tip: (i, j) => `trial ${cs[i].number} (${cs[i].status}) step ${cs[i].points[j][0]}: ${num(cs[i].points[j][1])}` },
      ...Object.values(marks),
    ] });
    const statuses = [...new Set(cs.map((c) => c.status))];
    box.append(legend([...statuses.map((st) => [C[st] || "#888", "―", st]),
      ...Object.keys(marks).map((k) => [MARK[k], "●", k])],
      `${data.trials} trials, ${data.reports} reports of ${data.metric}` +
      (data.curves.some((c) => c.points.length >= data.points_per_trial) ? `, each curve shortened to ${data.points_per_trial} points on the server` : "") +
      "; hover a mark for the decision's reason."));
  }

  function axisOf(p) {
    if (p.type === "categorical") return { name: p.name, type: "category", categories: p.values.map(String) };
    return { name: p.name, type: p.log ? "log" : "linear", min: p.min, max: p.max, integer: p.type === "int" };
  }

  function valueOn(p, v) {
    if (v === undefined) return undefined;
    return p.type === "categorical" ? p.values.map(String).indexOf(String(v)) : v;
  }

  // The completed trials, best first, with each parameter's values over
  // them as a column (what the parallel axes and the slices draw), read
  // from the trials once.
  function ranked(s, trials) {
    const done = trials.filter((t) => t.status === "completed" && Number.isFinite(t.value));
    const sign = s.goal === "maximize" ? -1 : 1;
    done.sort((a, b) => sign * (a.value - b.value));
    const cols = {};
    for (const p of s.parameters) if (p.type !== "constant") cols[p.name] = done.map((t) => valueOn(p, t.params[p.name]));
    return { done, cols, values: done.map((t) => t.value) };
  }

  function parallel(s, { done, cols, values }, box) {
    const params = s.parameters.filter((p) => p.type !== "constant");
    // Worst first, so the best are drawn last, on top; blue is best.
    const n = done.length;
    const axes = params.map((p) => Object.assign(axisOf(p), { values: cols[p.name].slice().reverse() }))
      .concat([{ name: s.metric, type: "linear", values: values.slice().reverse() }]);
    const shade = new Float64Array(n);
    for (let i = 0; i < n; i++) shade[i] = n > 1 ? 1 - i / (n - 1) : 0;
    Plot.parallel(box, axes, shade);
    const absent = axes.some((a) => a.values.some((v) => v === undefined || v === null));
    box.append(legend([[Plot.ramp(0), "―", "best"], [Plot.ramp(0.5), "―", "middle"], [Plot.ramp(1), "―", "worst"]],
      `${done.length} completed trials, coloured by rank.` + (absent ? ` A parameter a trial does not have (a branch not taken) is drawn at "absent".` : "")));
  }

  // Which trials the importance used, and which it left out and why.
  function importanceNote(imp) {
    const used = `${imp.completed} completed` + (imp.stopped_used ? ` and ${imp.stopped_used} stopped at the full ${imp.full_step} steps` : "");
    return `PED-ANOVA: how differently each parameter is spread among the best ${imp.top} of the ${imp.trials} trials used than among all of them. ` +
      `Used: ${used}.` +
      (imp.stopped_left_out ? ` Left out: ${imp.stopped_left_out} stopped early (their last values are at fewer steps, not comparable).` : "") +
      (imp.trials < 20 ? ` With ${imp.trials} trials this is a rough guide.` : "");
  }

  function importance(s, imp, { done, cols, values }, box) {
    if (!imp.params.length) {
      box.append(h("p", { text: `Importance needs at least 4 usable trials (${imp.trials} so far).` }));
    } else {
      box.append(h("p", { class: "legend", data: { used: imp.trials }, text: importanceNote(imp) }));
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
      const col = cols[p.name], has = [];
      for (let i = 0; i < col.length; i++) if (col[i] !== undefined) has.push(i);
      Plot.chart(cell, { height: 180, size: "cell", xLabel: p.name, yLabel: s.metric, x: axisOf(p), y: {},
        series: [{ kind: "points", color: C.completed, alpha: 0.6, radius: 2,
          x: has.map((i) => col[i]), y: has.map((i) => values[i]),
          tip: (i) => { const t = done[has[i]]; return `trial ${t.number}: ${p.name} ${num(t.params[p.name])} → ${num(t.value)}`; } }] });
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
    // Bars (the steps each trial trained) and links (exploits, from the
    // trial copied), each a segments series of columns.
    const segs = () => ({ kind: "segments", x1: [], y1: [], x2: [], y2: [], colors: [], why: [] });
    const bars = Object.assign(segs(), { width: 3 }), links = Object.assign(segs(), { width: 1 });
    const add = (g, x1, y1, x2, y2, color, why) => {
      g.x1.push(x1); g.y1.push(y1); g.x2.push(x2); g.y2.push(y2); g.colors.push(color); g.why.push(why);
    };
    for (const t of order) {
      const y = row.get(t.id), x1 = t.parent_step || 0, x2 = Math.max(x1, t.step || x1);
      add(bars, x1, y, x2, y, C[t.status], t);
      if (t.parent && row.has(t.parent)) add(links, x1, row.get(t.parent), x1, y, "#999", t);
    }
    bars.tip = (i) => { const t = bars.why[i]; return `trial ${t.number} (${t.status}) steps ${bars.x1[i]}–${bars.x2[i]}: ${num(t.value)}`; };
    links.tip = (i) => links.why[i].reason || `copied from trial ${byId.get(links.why[i].parent).number} at step ${links.x1[i]}`;
    Plot.chart(box, { height: Math.min(700, 60 + 14 * order.length), xLabel: "step", yLabel: "trial",
      x: {}, y: { type: "category", categories: order.map((t) => String(t.number)) }, series: [bars, links] });
    box.append(h("p", { class: "legend", text: "Each trial is a bar over the steps it trained; a grey line is an exploit, from the trial it copied (hover for the parameter changes)." }));
  }

  // Every run of every trial on the runner that ran it: the earlier runs
  // (ended by a pause at a rung, or a preemption) and each trial's latest.
  function timeline(s, trials, runs, now, box) {
    const byId = new Map(trials.map((t) => [t.id, t]));
    const bars = runs.filter((r) => byId.has(r.trial)).map((r) => ({ t: byId.get(r.trial), runner: r.runner,
      from: r.started_at, to: r.ended_at, status: r.cause === "paused" ? "paused" : "queued", why: r.cause }));
    // A latest run whose runner is gone from the row (a trial stopped
    // while paused) was kept among the earlier runs; one of a finished
    // trial from a database older than that is drawn on "(not recorded)".
    // A queued or paused trial without a runner has no run going on (a run
    // lost with its runner is not kept).
    const recorded = new Set(runs.map((r) => r.trial));
    for (const t of trials) {
      if (!t.started_at || (!t.runner && (recorded.has(t.id) || t.status === "queued" || t.status === "paused"))) continue;
      bars.push({ t, runner: t.runner || "(not recorded)", from: t.started_at, to: t.ended_at || now, status: t.status });
    }
    if (!bars.length) return box.append(h("p", { text: "No trial has started yet." }));
    const t0 = bars.reduce((m, b) => Math.min(m, b.from), Infinity);
    const runners = [...new Set(bars.map((b) => b.runner))].sort();
    const lane = new Map(runners.map((r, i) => [r, i]));
    const y = bars.map((b) => lane.get(b.runner));
    Plot.chart(box, { height: Math.min(500, 80 + 24 * runners.length), xLabel: "seconds since the first start", yLabel: "runner",
      x: {}, y: { type: "category", categories: runners }, series: [{ kind: "segments", width: 8,
        x1: bars.map((b) => b.from - t0), x2: bars.map((b) => Math.max(b.from, b.to) - t0), y1: y, y2: y,
        colors: bars.map((b) => C[b.status] || "#888"),
        tip: (i) => { const b = bars[i]; return `trial ${b.t.number} on ${b.runner}: ${b.why ? `a run ended by ${b.why === "paused" ? "a pause" : "a preemption"}` : b.t.status}, ${(b.to - b.from).toFixed(2)} s`; } }] });
    box.lanes = runners;  // for tests
    const shown = [...new Set(bars.map((b) => b.status))];
    box.append(legend(shown.map((st) => [C[st] || "#888", "▬", st === "queued" ? "a run cut short by a preemption" : st === "paused" ? "a run ended by a pause" : st]),
      "Every run of every trial, on the runner that ran it."));
  }

  function trialTable(s, trials) {
    const params = s.parameters.map((p) => p.name);
    // The other final metrics (test_accuracy, ...), as `sweep trials` shows them.
    const metrics = [...new Set(trials.flatMap((t) => Object.keys(t.metrics || {})))].filter((m) => m !== s.metric);
    const cols = [
      { label: "trial", key: (t) => t.number, cell: (t) => h("a", { href: `#/trial/${t.id}`, text: String(t.number) }) },
      { label: "status", key: (t) => t.status, cell: (t) => h("span", { class: `state ${t.status}`, text: t.status }) },
      { label: s.metric, key: (t) => t.value },
      { label: "step", key: (t) => t.step },
      ...params.map((p) => ({ label: p, key: (t) => t.params[p] })),
      ...metrics.map((m) => ({ label: m, key: (t) => (t.metrics ? t.metrics[m] : undefined) })),
      { label: "attempts", key: (t) => t.attempts },
      { label: "runner", key: (t) => t.runner, cell: (t) => t.runner || "—" },
      { label: "seconds", key: (t) => (t.started_at && t.ended_at ? Number((t.ended_at - t.started_at).toFixed(3)) : null) },
    ];
    const state = (tableStates[s.id] = tableStates[s.id] || {});
    // Trials picked to compare (#/compare/ID,ID), kept across live redraws.
    const picked = (state.picked = state.picked || new Set());
    const go = h("button", { class: "picker", text: "Compare picked", disabled: picked.size < 2 ? "" : undefined,
      onclick: () => { location.hash = `#/compare/${[...picked].join(",")}`; } });
    const pick = (t) => {
      const box = h("input", { type: "checkbox", title: "pick to compare", data: { pick: t.id } });
      box.checked = picked.has(t.id);
      box.addEventListener("change", () => {
        if (box.checked && picked.size >= ComparePage.MAX) box.checked = false;
        else if (box.checked) picked.add(t.id);
        else picked.delete(t.id);
        go.disabled = picked.size < 2;
      });
      return box;
    };
    cols.unshift({ label: "", key: (t) => (picked.has(t.id) ? 0 : 1), cell: pick });
    if (state.sort === undefined) state.sort = 1;  // by trial number, not by the picks
    return h("div", {}, go, table(cols, trials, state));
  }

  // Each view is drawn as soon as the answers it needs have come, in the
  // order they come: while the server still reads a big study's curves, the
  // page draws what the trials give. The sections keep their order.
  async function render(api, el, id) {
    const base = `/api/studies/${id}`;
    const get = (view) => api(view ? `${base}/${view}` : base);
    const [sP, trP, cvP, impP, rgP, lnP, frP] =
      ["", "trials", "curves", "importance", "rungs", "lineage", "front"].map(get);
    // Handled: one that fails while an earlier one has failed is not an
    // "uncaught" error (the first failure is what the page shows).
    for (const p of [trP, cvP, impP, rgP, lnP, frP]) p.catch(() => {});
    const [s, rg, ln, fr] = await Promise.all([sP, rgP, lnP, frP]);
    // When each part was drawn and how long it took, for the benchmark's
    // breakdown.
    const times = (window.__sweepTimes = { summary_at: performance.now() });
    const timed = (name, f) => {
      const t = performance.now();
      f();
      times[name] = Math.round(performance.now() - t);
      times[`${name}_at`] = Math.round(t);
    };
    el.append(summary(s));
    Plot.measure(el);
    const box = (view, title, ...head) => {
      const b = h("div", {});
      el.append(section(view, title, ...head, b));
      return b;
    };
    const axis = h("select", {}, h("option", { value: "number", text: "by trial number" }), h("option", { value: "time", text: "by time" }));
    axis.value = historyAxis;
    // Several objectives or constraints: the front first.
    if (fr.objectives.length > 1 || fr.constraints.length)
      timed("front", () => Front.render(fr, box("front", fr.objectives.length > 1 ? "Pareto front" : "Feasibility")));
    const hist = box("history", "Optimisation history", axis);
    const curvesBox = box("curves", "Learning curves");
    const parallelBox = box("parallel", "Parallel coordinates");
    const importanceBox = box("importance", "Parameter importance");
    if (rg.brackets.length)
      rungs(rg, box("rungs", s.algorithm === "hyperband" || s.algorithm === "bohb" ? "Hyperband brackets" : "Rungs"));
    if (ln.trials.length) lineage(ln, box("lineage", "PBT lineage"));
    const timelineBox = box("timeline", "Timeline");
    const tableSection = h("div", {});
    el.append(tableSection);
    const study = trP.then((tr) => ({ trials: tr.trials, runs: tr.runs || [], best: ranked(s, tr.trials) }));
    await Promise.all([
      study.then(({ trials, runs, best }) => {
        axis.addEventListener("change", () => { historyAxis = axis.value; history(s, trials, hist); });
        timed("history", () => history(s, trials, hist));
        timed("parallel", () => parallel(s, best, parallelBox));
        timed("timeline", () => timeline(s, trials, runs, s.now, timelineBox));
        timed("table", () => tableSection.replaceWith(section("trials", `Trials (${trials.length})`, trialTable(s, trials))));
      }),
      cvP.then((cv) => timed("curves", () => (cv.curves.length ? curves(s, cv, curvesBox) : curvesBox.append(h("p", { text: "No reports yet." }))))),
      Promise.all([impP, study]).then(([imp, { best }]) => timed("importance", () => importance(s, imp, best, importanceBox))),
    ]);
  }

  return { render };
})();
