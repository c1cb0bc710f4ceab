// A study's Pareto front (several objectives or constraints): two
// objectives against each other with the front drawn and infeasible trials
// greyed, a pair plot for three or four, the front's hypervolume as trials
// came in, and the constraints each infeasible trial broke.
const Front = (() => {
  const { h, num, legend } = Views;
  const FRONT = "#d6301d", FEASIBLE = "#2b6cb0", INFEASIBLE = "#b8b8b8";

  function tip(f, t) {
    const values = f.objectives.map((o, k) => `${o.metric} ${num(t.values[k])}`).join(", ");
    const why = t.broken.length ? `; breaks ${t.broken.join(", ")}` : "";
    return `trial ${t.number}${t.front ? " (front)" : ""}: ${values}${why}`;
  }

  // Objective a against objective b; the front joined by a line where
  // there are two objectives.
  function scatter(f, a, b, cell, size) {
    const groups = { front: [], feasible: [], infeasible: [] };
    for (const t of f.trials) groups[t.front ? "front" : t.feasible ? "feasible" : "infeasible"].push(t);
    const points = (list, color, alpha) => ({ kind: "points", color, alpha, radius: list === groups.front ? 3.5 : 2.5,
      x: list.map((t) => t.values[a]), y: list.map((t) => t.values[b]), tip: (i) => tip(f, list[i]) });
    const series = [points(groups.infeasible, INFEASIBLE, 0.8), points(groups.feasible, FEASIBLE, 0.6),
      points(groups.front, FRONT, 1)];
    if (f.objectives.length === 2 && groups.front.length > 1) {
      const line = groups.front.map((t) => [t.values[a], t.values[b]]).sort((p, q) => p[0] - q[0]);
      series.push({ kind: "lines", color: FRONT, width: 1, lines: [line] });
    }
    return Plot.chart(cell, { height: size === "cell" ? 220 : 340, size, x: {}, y: {},
      xLabel: `${f.objectives[a].metric} (${f.objectives[a].goal})`,
      yLabel: `${f.objectives[b].metric} (${f.objectives[b].goal})`, series });
  }

  function render(f, box) {
    const m = f.objectives.length;
    const counts = { front: 0, feasible: 0, infeasible: 0 };
    for (const t of f.trials) counts[t.front ? "front" : t.feasible ? "feasible" : "infeasible"]++;
    box.append(h("p", { class: "legend", data: { front: counts.front, infeasible: counts.infeasible },
      text: f.trials.length === 0 ? "No trial has completed yet."
        : `${counts.front} of ${f.trials.length} completed trials are on the front` +
          (f.constraints.length ? `; ${counts.infeasible} break a constraint (${f.constraints.join(", ")})` : "") + "." }));
    if (!f.trials.length) return;
    if (m <= 2) {
      if (m === 2) scatter(f, 0, 1, box, "full");
    } else {
      const grid = h("div", { class: "grid" });
      box.append(h("h3", { text: "Each pair of objectives" }), grid);
      for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) {
        const cell = h("div", { class: "cell" });
        grid.append(cell);
        scatter(f, a, b, cell, "cell");
      }
    }
    box.append(legend([[FRONT, "●", `on the front (${counts.front})`], [FEASIBLE, "●", `feasible (${counts.feasible})`],
      [INFEASIBLE, "●", `infeasible (${counts.infeasible})`]]));
    if (m > 1 && f.hypervolume.length) {
      box.append(h("h3", { text: "Hypervolume of the feasible trials so far (each objective scaled to its best and worst)" }));
      Plot.chart(box, { height: 220, xLabel: "completed trials", yLabel: "hypervolume", x: {}, y: {},
        series: [{ kind: "lines", color: "#111", width: 1.5, lines: [f.hypervolume.map((p) => [p.trials, p.value])],
          tip: (l, j) => `${f.hypervolume[j].trials} trials: ${num(f.hypervolume[j].value)}` }] });
    }
    const broken = f.trials.filter((t) => t.broken.length);
    if (broken.length) {
      box.append(h("h3", { text: "Infeasible trials and the constraints they broke" }));
      box.append(h("table", { class: "broken" }, h("tr", {}, h("th", { text: "trial" }), h("th", { text: "broke" })),
        ...broken.slice(0, 200).map((t) => h("tr", { data: { trial: t.number } },
          h("td", { text: String(t.number) }), h("td", { text: t.broken.join(", ") })))));
    }
  }

  return { render };
})();
