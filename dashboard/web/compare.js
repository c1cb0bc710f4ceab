// Trials side by side (#/compare/ID,ID,...): their outcome, parameters and
// final metrics in one table, the rows where they differ marked, and their
// curves of the objective on one chart. The study's trials table picks them.
"use strict";
const ComparePage = (() => {
  const { h, num, section, legend } = Views;
  const COLORS = ["#2166ac", "#d6301d", "#1a9641", "#8e5bbf", "#f08c00", "#555555", "#e7298a", "#a6761d"];
  const MAX = COLORS.length;

  async function render(api, el, idsText) {
    const ids = [...new Set(idsText.split(",").map(Number))].filter((n) => Number.isInteger(n) && n > 0);
    if (ids.length < 2 || ids.length > MAX)
      throw new Error(`name 2 to ${MAX} trials to compare: #/compare/ID,ID,...`);
    const trials = await Promise.all(ids.map((id) => api(`/api/trials/${id}`).catch(() => {
      if (window.SWEEP_REPORT) throw new Error(`trial ${id} is not in this report (it holds the best ${window.SWEEP_REPORT.trial_pages} trials' pages)`);
      throw new Error(`no trial ${id}`);
    })));
    const first = trials[0];
    el.append(h("p", {}, h("a", { href: `#/study/${first.study}`, text: `← ${first.study_name}` })));
    const params = [...new Set(trials.flatMap((t) => Object.keys(t.params)))];
    const metrics = [...new Set(trials.flatMap((t) => Object.keys(t.metrics || {})))].filter((m) => m !== first.metric);
    const rows = [
      ["study", (t) => t.study_name],
      ["status", (t) => t.status],
      [first.metric, (t) => num(t.value)],
      ["step", (t) => num(t.step)],
      ["attempts", (t) => num(t.attempts)],
      ...params.map((p) => [p, (t) => (p in t.params ? num(t.params[p]) : "absent")]),
      ...metrics.map((m) => [m, (t) => num(t.metrics ? t.metrics[m] : undefined)]),
      ["failure", (t) => t.failure || "—"],
    ];
    const head = h("tr", {}, h("th", { text: "" }), trials.map((t, i) =>
      h("th", {}, h("span", { class: "swatch", style: `color:${COLORS[i]}`, text: "▬ " }),
        h("a", { href: `#/trial/${t.id}`, text: `trial ${t.number}` }))));
    const body = rows.map(([name, cell]) => {
      const texts = trials.map((t) => String(cell(t)));
      const differs = new Set(texts).size > 1;
      return h("tr", { class: differs ? "differs" : "", data: { row: name, differs: differs ? "1" : "0" } },
        h("th", { text: name }), texts.map((x) => h("td", { text: x })));
    });
    el.append(section("compare", `Trials ${trials.map((t) => t.number).join(", ")} side by side`,
      h("table", { class: "kv compare" }, h("thead", {}, head), h("tbody", {}, body)),
      h("p", { class: "legend", text: "Rows in bold differ between the trials." })));
    // The objective's reports of each, on one chart.
    const box = h("div", {});
    el.append(section("compare-curves", `${first.metric} by step`, box));
    const lines = trials.map((t) => (t.series[first.metric] || { points: [] }).points);
    if (!lines.some((l) => l.length)) return box.append(h("p", { text: "No reports of the objective yet." }));
    Plot.chart(box, { height: 300, xLabel: "step", yLabel: first.metric, x: {}, y: {}, series: [{
      kind: "lines", width: 1.5, lines, colors: trials.map((_, i) => COLORS[i]),
      tip: (i, j) => `trial ${trials[i].number} step ${lines[i][j][0]}: ${num(lines[i][j][1])}` }] });
    box.append(legend(trials.map((t, i) => [COLORS[i], "―", `trial ${t.number}`])));
  }

  return { render, MAX };
})();
