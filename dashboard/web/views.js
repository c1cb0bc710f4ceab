// The pieces every page uses (DOM building, a sortable filterable table)
// and the two small pages: the studies and one trial. Text from the
// database only ever goes in through textContent, never as HTML.
"use strict";
const Views = (() => {
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "data") Object.assign(el.dataset, v);
      else if (k === "style") el.style.cssText = v;  // CSSOM: allowed by the CSP
      else el.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  // Values in the page's tables: six significant digits, read at a glance
  // (`sweep trials` and the API give every digit).
  function num(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v)) return String(v);
    return String(Number(v.toPrecision(6)));
  }

  // A chart's legend: each item's mark in the colour of what it names
  // ([colour, mark, words]), then any words after.
  function legend(items, ...after) {
    return h("p", { class: "legend" }, items.map(([color, mark, words]) => h("span", { class: "key" },
      h("span", { class: "swatch", style: `color:${color}`, text: mark }), ` ${words}`)), ...after);
  }

  function when(t) {
    return t ? new Date(t * 1000).toLocaleString() : "—";
  }

  function section(view, title, ...children) {
    return h("section", { class: "view", data: { view } }, h("h2", { text: title }), ...children);
  }

  // columns: [{label, key(row) -> sortable value, cell?(row) -> node|text}].
  // `state` keeps the sort, filter and page between renders (live updates).
  function table(columns, rows, state) {
    state.sort = Math.min(state.sort ?? 0, columns.length - 1);
    state.dir = state.dir ?? 1;
    state.page = state.page ?? 0;
    state.filter = state.filter ?? "";
    const perPage = 100;
    const wrap = h("div", { class: "table" });
    const text = (r, c) => String(c.cell ? c.key(r) ?? "" : c.key(r) ?? "");
    function draw() {
      wrap.replaceChildren();
      const f = state.filter.trim().toLowerCase();
      let shown = rows;
      if (f) {
        const [field, want] = f.includes(":") ? f.split(/:(.*)/) : [null, f];
        const col = field && columns.find((c) => c.label.toLowerCase() === field);
        shown = rows.filter((r) =>
          col ? text(r, col).toLowerCase().includes(want)
              : columns.some((c) => text(r, c).toLowerCase().includes(f)));
      }
      const c = columns[state.sort];
      shown = shown.slice().sort((a, b) => {
        const x = c.key(a), y = c.key(b);
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * state.dir;
      });
      const pages = Math.max(1, Math.ceil(shown.length / perPage));
      state.page = Math.min(state.page, pages - 1);
      const input = h("input", { type: "search", placeholder: "filter (text, or column:text)", value: state.filter });
      input.addEventListener("change", () => { state.filter = input.value; state.page = 0; draw(); });
      const pager = h("span", { class: "pager" },
        h("button", { text: "‹", onclick: () => { state.page = Math.max(0, state.page - 1); draw(); } }),
        ` ${state.page + 1} / ${pages} `,
        h("button", { text: "›", onclick: () => { state.page = Math.min(pages - 1, state.page + 1); draw(); } }));
      wrap.append(h("div", { class: "controls" }, input,
        h("span", { class: "count", data: { shown: shown.length }, text: `${shown.length} of ${rows.length} rows` }), pager));
      const head = h("tr", {}, columns.map((col, i) => h("th", {
        class: i === state.sort ? (state.dir > 0 ? "asc" : "desc") : "",
        onclick: () => { state.dir = state.sort === i ? -state.dir : 1; state.sort = i; draw(); },
      }, col.label)));
      const body = shown.slice(state.page * perPage, (state.page + 1) * perPage).map((r) =>
        h("tr", { data: { id: r.id } }, columns.map((col) => h("td", {}, col.cell ? col.cell(r) : num(col.key(r))))));
      wrap.append(h("table", {}, h("thead", {}, head), h("tbody", {}, body)));
    }
    draw();
    return wrap;
  }

  function progress(s) {
    const ended = s.completed + s.failed + s.stopped;
    const total = s.max_trials || s.trials || 1;
    return h("span", { class: "progress", title: `${ended} of ${total} trials ended` },
      h("span", { class: "bar", style: `width:${Math.min(100, (100 * ended) / total).toFixed(1)}%` }),
      h("span", { class: "label", text: s.max_trials ? `${ended} / ${s.max_trials}` : `${ended}` }));
  }

  // sweep tag's tags, each a chip.
  function tags(s) {
    return h("span", { class: "tags" }, s.tags.map((t) => h("span", { class: "tag", text: t })));
  }

  const studiesState = {};
  async function studies(api, el) {
    const data = await api("/api/studies");
    const cols = [
      { label: "id", key: (s) => s.id },
      { label: "study", key: (s) => s.name, cell: (s) => h("a", { href: `#/study/${s.id}`, text: s.name }) },
      // sweep tag's and sweep note's, when a study has some.
      ...(data.studies.some((s) => s.tags.length) ? [{ label: "tags", key: (s) => s.tags.join(" "), cell: tags }] : []),
      ...(data.studies.some((s) => s.note) ? [{ label: "note", key: (s) => s.note, cell: (s) => h("span", { class: "note", text: s.note }) }] : []),
      { label: "algorithm", key: (s) => s.algorithm, cell: (s) => s.algorithm },
      { label: "state", key: (s) => s.state, cell: (s) => h("span", { class: `state ${s.state}`, text: s.state }) },
      { label: "progress", key: (s) => s.completed + s.failed + s.stopped, cell: progress },
      { label: "best", key: (s) => s.best },
      { label: "objective", key: (s) => `${s.goal} ${s.metric}`, cell: (s) => `${s.goal} ${s.metric}` },
      { label: "trials/s", key: (s) => Number(s.trials_per_s.toPrecision(3)) },
      { label: "running", key: (s) => s.running },
      { label: "failed", key: (s) => s.failed },
    ];
    el.append(section("studies", `Studies (${data.studies.length})`,
      data.studies.length ? table(cols, data.studies, studiesState) : h("p", { text: "No studies in this database yet." })));
    // A service's database (`sweep serve`): its pool too.
    if (data.studies.some((s) => s.owner !== null)) pool(await api("/api/pool"), el);
  }

  const PALETTE = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"];
  const poolState = {};
  // The studies with owner, priority, cap, the runners they hold and their
  // fair share of the busy runners; and which study held each runner, with
  // the preemptions marked.
  function pool(p, el) {
    const cols = [
      { label: "study", key: (s) => s.name, cell: (s) => h("a", { href: `#/study/${s.id}`, text: s.name }) },
      { label: "owner", key: (s) => s.owner, cell: (s) => s.owner || "—" },
      { label: "status", key: (s) => s.status, cell: (s) => h("span", { class: `state ${s.status}`, text: s.status }) },
      { label: "priority", key: (s) => s.priority },
      { label: "max runners", key: (s) => s.max_runners, cell: (s) => (s.max_runners ? String(s.max_runners) : "—") },
      { label: "runners", key: (s) => s.runners },
      { label: "share", key: (s) => s.share, cell: (s) => (s.share === null ? "—" : num(Number(s.share.toFixed(2)))) },
      { label: "queued", key: (s) => s.queued },
      { label: "finished", key: (s) => s.finished },
    ];
    const box = h("div", {});
    el.append(section("pool", `Pool (${p.busy_runners} runners busy)`, table(cols, p.studies, poolState), box));
    const runs = p.runs;
    if (!runs.length) return box.append(h("p", { text: "No trial has started yet." }));
    const t0 = runs.reduce((m, r) => Math.min(m, r.started_at), Infinity);
    const runners = [...new Set(runs.map((r) => r.runner))].sort();
    const lane = new Map(runners.map((r, i) => [r, i]));
    const colour = new Map(p.studies.map((s, i) => [s.id, PALETTE[i % PALETTE.length]]));
    const end = (r) => r.ended_at || p.now;
    const marks = p.preemptions.filter((m) => lane.has(m.runner) && m.at >= t0);
    // A run cut short ends at its ×: hovering either shows the reason.
    const why = new Map(p.preemptions.map((m) => [`${m.trial} ${m.at}`, m.reason]));
    Plot.chart(box, { height: Math.min(600, 80 + 24 * runners.length), xLabel: "seconds since the first run shown", yLabel: "runner",
      x: {}, y: { type: "category", categories: runners }, series: [
        { kind: "segments", width: 8, x1: runs.map((r) => r.started_at - t0), x2: runs.map((r) => end(r) - t0),
          y1: runs.map((r) => lane.get(r.runner)), y2: runs.map((r) => lane.get(r.runner)),
          colors: runs.map((r) => colour.get(r.study_id) || "#999"),
          tip: (i) => {
            const r = runs[i], reason = r.status === "preempted" && why.get(`${r.trial} ${r.ended_at}`);
            return reason ? `${r.study} trial ${r.number}: ${reason}` : `${r.study} trial ${r.number} on ${r.runner}: ${r.status}, ${(end(r) - r.started_at).toFixed(1)} s`;
          } },
        { kind: "points", shape: "x", radius: 6, color: "#b2182b", x: marks.map((m) => m.at - t0), y: marks.map((m) => lane.get(m.runner)),
          tip: (i) => `${marks[i].study} trial ${marks[i].number}: ${marks[i].reason}` },
      ] });
    box.append(h("p", { class: "legend" }, "Which study held each runner: each trial's latest run, coloured by study (",
      p.studies.map((s, i) => h("span", { style: `color:${colour.get(s.id)}`, text: (i ? ", " : "") + s.name })),
      "); a red × is a preemption, where a trial was stopped at a checkpoint to give its runner to another study or for a pause (hover for the reason)."));
    if (p.jobs.length) slurmJobs(p.jobs, el);
  }

  const jobsState = {};
  // The runner jobs a launcher got from Slurm (sweep serve --launcher slurm).
  function slurmJobs(jobs, el) {
    const secs = (v) => (v === null ? "—" : num(Number(v.toFixed(1))));
    const cols = [
      { label: "job", key: (j) => Number(j.job) || j.job },
      { label: "runner", key: (j) => j.runner },
      { label: "gpus", key: (j) => j.gpus },
      { label: "state", key: (j) => j.state, cell: (j) => h("span", { class: `state ${j.state}`, text: j.state }) },
      { label: "ran (s)", key: (j) => j.ran_s, cell: (j) => secs(j.ran_s) },
      { label: "idle (s)", key: (j) => j.idle_s, cell: (j) => secs(j.idle_s) },
    ];
    el.append(section("slurm-jobs", `Slurm runner jobs (${jobs.length})`, table(cols, jobs, jobsState),
      h("p", { class: "legend", text: "Each job's runner (slurm-JOB), how long it ran, and how long of that it had no trial (it leaves after --launch-idle)." })));
  }

  function kv(rows) {
    return h("table", { class: "kv" }, rows.map(([k, v]) => h("tr", {}, h("th", { text: k }), h("td", {}, v))));
  }

  async function trial(api, el, id) {
    const t = await api(`/api/trials/${id}`).catch((e) => {
      if (window.SWEEP_REPORT) throw new Error(`trial ${id}'s page is not in this report (it holds the best ${window.SWEEP_REPORT.trial_pages} of ${window.SWEEP_REPORT.trials}); its row is in the study's table`);
      throw e;
    });
    el.append(h("p", {}, h("a", { href: `#/study/${t.study}`, text: `← ${t.study_name}` })));
    el.append(section("trial", `Trial ${t.number} (id ${t.id})`, kv([
      ["status", h("span", { class: `state ${t.status}`, text: t.status })],
      [t.metric, num(t.value)], ["step", num(t.step)], ["attempts", num(t.attempts)],
      ["runner", t.runner || "—"], ["failure", t.failure || "—"],
      ["parent", t.parent ? h("a", { href: `#/trial/${t.parent}`, text: `trial ${t.parent_number} at step ${t.parent_step}` }) : "—"],
      ["started", when(t.started_at)], ["ended", when(t.ended_at)],
    ])));
    el.append(section("params", "Parameters", kv(Object.entries(t.params).map(([k, v]) => [k, num(v)]))));
    if (t.metrics) el.append(section("metrics", "Final metrics", kv(Object.entries(t.metrics).map(([k, v]) => [k, num(v)]))));
    const series = Object.entries(t.series);
    if (series.length) {
      const box = h("div", { class: "grid" });
      el.append(section("series", "Reports", box));
      for (const [metric, s] of series) {
        const cell = h("div", { class: "cell" }, h("h3", { text: `${metric} (${s.reports} reports)` }));
        box.append(cell);
        Plot.chart(cell, { height: 200, xLabel: "step", yLabel: metric, x: {}, y: {},
          series: [{ kind: "lines", color: "#2166ac", width: 1.5, lines: [s.points], tip: (i, j) => `step ${s.points[j][0]}: ${num(s.points[j][1])}` }] });
      }
    }
    el.append(section("decisions", "Decisions", t.decisions.length ? h("ol", {}, t.decisions.map((d) =>
      h("li", {}, h("b", { text: `step ${d.step}: ${d.decision}` }), d.reason ? ` — ${d.reason}` : ""))) : h("p", { text: "none" })));
    if (t.events.length) el.append(section("events", "Events", h("ol", {}, t.events.map((e) =>
      h("li", {}, h("b", { text: e.kind }), ` ${when(e.at)} — ${e.detail}`)))));
    if (t.logs.length) el.append(section("logs", "Logs", t.logs.map((l) => h("div", {},
      h("h3", { text: `attempt ${l.attempt}: ${l.bytes} bytes kept${l.dropped ? `, ${l.dropped} dropped` : ""} (last 4 KiB)` }),
      h("pre", { text: l.tail })))));
  }

  return { h, num, when, section, table, progress, legend, tags, kv, studies, trial };
})();
