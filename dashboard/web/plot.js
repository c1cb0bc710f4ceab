// Charts on <canvas>, with no library: a 2-D chart (points, polylines,
// segments; linear, log or category axes; hover tooltips) and parallel
// coordinates. Drawn by hand because the views that matter at 10,000 trials
// (10,000 learning curves, 10,000 lines across the axes) are single paths
// here, where a general chart library keeps an object per point.
"use strict";
const Plot = (() => {
  const STATUS_COLOR = {
    completed: "#2166ac", failed: "#d6301d", stopped: "#f08c00", running: "#1a9641",
    paused: "#8e5bbf", queued: "#8c8c8c",
  };
  const PAD = { left: 64, right: 16, top: 12, bottom: 40 };

  // Widths a page measured once (measure()): reading clientWidth per chart
  // makes the browser lay out the whole page again for each one.
  let sizes = null;
  function measure(el) {
    const full = Math.max(320, el.clientWidth - 34);  // a section's padding and border
    const cols = Math.max(1, Math.floor((full + 10) / 350));  // .grid: minmax(340px, 1fr), gap 10
    sizes = { full, cell: Math.floor((full - (cols - 1) * 10) / cols) };
    return sizes;
  }

  function canvasIn(container, height, size) {
    const width = Math.max(320, (sizes && sizes[size]) || container.clientWidth || 800);
    const c = document.createElement("canvas");
    const dpr = window.devicePixelRatio || 1;
    c.width = width * dpr;
    c.height = height * dpr;
    c.style.width = width + "px";
    c.style.height = height + "px";
    container.appendChild(c);
    const ctx = c.getContext("2d");
    ctx.scale(dpr, dpr);
    return { c, ctx, width, height };
  }

  // Maps data to pixels on one axis: linear, log, or categories (indices).
  function scale(spec, values, lo, hi) {
    const s = Object.assign({ type: "linear" }, spec);
    if (s.type === "category") {
      const n = Math.max(1, s.categories.length);
      return Object.assign(s, {
        px: (v) => lo + ((v + 0.5) / n) * (hi - lo),
        ticks: () => s.categories.map((c, i) => [i, String(c)]),
      });
    }
    const log = s.type === "log";
    let vs = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
    if (s.min !== undefined) vs.push(s.min);
    if (s.max !== undefined) vs.push(s.max);
    let min = vs.length ? vs.reduce((a, b) => Math.min(a, b)) : 0;
    let max = vs.length ? vs.reduce((a, b) => Math.max(a, b)) : 1;
    if (log) { min = Math.log10(min); max = Math.log10(max); }
    if (min === max) { min -= 0.5; max += 0.5; }
    const margin = s.tight ? 0 : (max - min) * 0.04;
    min -= margin; max += margin;
    const f = (v) => (log ? Math.log10(v) : v);
    return Object.assign(s, {
      min, max,
      px: (v) => lo + ((f(v) - min) / (max - min)) * (hi - lo),
      ticks: () => niceTicks(min, max, log),
    });
  }

  function niceTicks(min, max, log) {
    const out = [];
    if (log) {
      for (let e = Math.ceil(min); e <= Math.floor(max); e++) out.push([10 ** e, fmt(10 ** e)]);
      if (out.length >= 2) return out;
    }
    const span = max - min, raw = span / 6, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= 7);
    for (let v = Math.ceil(min / step) * step; v <= max + 1e-12; v += step) {
      const x = log ? 10 ** v : v;
      out.push([x, fmt(x)]);
    }
    return out;
  }

  function fmt(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return "—";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2);
    return String(Number(v.toPrecision(4)));
  }

  function tooltip() {
    let tip = document.querySelector(".tip");
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "tip";
      document.body.appendChild(tip);
    }
    return tip;
  }

  function axes(ctx, xs, ys, w, h, labels) {
    ctx.strokeStyle = "#bbb";
    ctx.fillStyle = "#444";
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(PAD.left, PAD.top);
    ctx.lineTo(PAD.left, h - PAD.bottom);
    ctx.lineTo(w - PAD.right, h - PAD.bottom);
    ctx.stroke();
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    let last = -1e9;
    for (const [v, t] of xs.ticks()) {
      const x = xs.px(v);
      if (x < PAD.left - 1 || x > w - PAD.right + 1 || x - last < 36) continue;
      last = x;
      ctx.fillText(t.length > 12 ? t.slice(0, 11) + "…" : t, x, h - PAD.bottom + 4);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const [v, t] of ys.ticks()) {
      const y = ys.px(v);
      if (y < PAD.top - 1 || y > h - PAD.bottom + 1) continue;
      ctx.fillText(t.length > 10 ? t.slice(0, 9) + "…" : t, PAD.left - 4, y);
      ctx.strokeStyle = "#eee";
      ctx.beginPath();
      ctx.moveTo(PAD.left + 1, y);
      ctx.lineTo(w - PAD.right, y);
      ctx.stroke();
    }
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(labels.x || "", (PAD.left + w - PAD.right) / 2, h - 2);
    ctx.save();
    ctx.translate(12, (PAD.top + h - PAD.bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText(labels.y || "", 0, 0);
    ctx.restore();
  }

  // spec: {height, x: axis, y: axis, xLabel, yLabel, series: [...]}.
  // A series is {kind: "points"|"lines"|"segments", color, items, ...}:
  // points: items [{x, y, color?, shape?: "x", tip}]; lines: items
  // [{points: [[x, y]...], color?, tip}]; segments: items [{x1, y1, x2, y2,
  // color?, width?, tip}]. `tip` is the hover text (a string or a function).
  function chart(container, spec) {
    const { c, ctx, width: w, height: h } = canvasIn(container, spec.height || 300, spec.size || "full");
    const xv = [], yv = [];
    for (const s of spec.series) {
      for (const it of s.items) {
        if (s.kind === "points") { xv.push(it.x); yv.push(it.y); }
        else if (s.kind === "lines") for (const p of it.points) { xv.push(p[0]); yv.push(p[1]); }
        else { xv.push(it.x1, it.x2); yv.push(it.y1, it.y2); }
      }
    }
    const xs = scale(spec.x, xv, PAD.left, w - PAD.right);
    const ys = scale(spec.y, yv, h - PAD.bottom, PAD.top);
    axes(ctx, xs, ys, w, h, { x: spec.xLabel, y: spec.yLabel });
    const hits = [];  // [px, py, tip] for hover
    const Y = (v) => (Number.isFinite(v) ? ys.px(v) : h - PAD.bottom - 3);
    ctx.save();
    ctx.beginPath();
    ctx.rect(PAD.left, PAD.top - 4, w - PAD.left - PAD.right + 4, h - PAD.top - PAD.bottom + 8);
    ctx.clip();
    for (const s of spec.series) {
      // One path per colour and width: a canvas call per item is what costs
      // at 10,000 trials, not the pixels.
      const paths = new Map();
      const path = (color, width, fill) => {
        const key = `${color}|${width}|${fill}`;
        if (!paths.has(key)) paths.set(key, { p: new Path2D(), color, width, fill });
        return paths.get(key).p;
      };
      if (s.kind === "lines") {
        for (const it of s.items) {
          const p = path(it.color || s.color, s.width || 1, false);
          let pen = false;
          for (const [x, y] of it.points) {
            if (!Number.isFinite(y)) { pen = false; continue; }
            const px = xs.px(x), py = ys.px(y);
            pen ? p.lineTo(px, py) : p.moveTo(px, py);
            pen = true;
            if (it.tip && s.hover !== false) hits.push([px, py, it.tip, [x, y]]);
          }
        }
      } else if (s.kind === "segments") {
        for (const it of s.items) {
          const p = path(it.color || s.color, it.width || s.width || 2, false);
          const x1 = xs.px(it.x1), y1 = ys.px(it.y1), x2 = xs.px(it.x2), y2 = ys.px(it.y2);
          p.moveTo(x1, y1);
          p.lineTo(x2 === x1 && y2 === y1 ? x2 + 1 : x2, y2);
          if (it.tip) hits.push([(x1 + x2) / 2, (y1 + y2) / 2, it.tip, null, [x1, y1, x2, y2]]);
        }
      } else {
        const r0 = s.radius || 2.5;
        // Thousands of dots: squares, which a software canvas fills several
        // times faster than circles and which look the same at this size.
        const square = s.items.length > 2000;
        for (const it of s.items) {
          const px = xs.px(it.x), py = Y(it.y), r = it.radius || r0;
          if (it.shape === "x") {
            const p = path(it.color || s.color, 1.5, false);
            p.moveTo(px - r, py - r); p.lineTo(px + r, py + r);
            p.moveTo(px + r, py - r); p.lineTo(px - r, py + r);
          } else if (square) {
            path(it.color || s.color, 0, true).rect(px - r, py - r, 2 * r, 2 * r);
          } else {
            const p = path(it.color || s.color, 0, true);
            p.moveTo(px + r, py);
            p.arc(px, py, r, 0, 2 * Math.PI);
          }
          if (it.tip) hits.push([px, py, it.tip, [it.x, it.y]]);
        }
      }
      ctx.globalAlpha = s.alpha || 1;
      for (const g of paths.values()) {
        if (g.fill) {
          ctx.fillStyle = g.color;
          ctx.fill(g.p);
        } else {
          ctx.strokeStyle = g.color;
          ctx.lineWidth = g.width;
          ctx.stroke(g.p);
        }
      }
    }
    ctx.restore();
    hover(c, hits);
    return c;
  }

  // Shows the tip of the nearest hit within 8 px (segments: nearest point
  // on the segment).
  function hover(c, hits) {
    const tip = tooltip();
    c.addEventListener("mousemove", (e) => {
      const r = c.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
      let best = null, bd = 64;
      for (const hit of hits) {
        let dx = hit[0] - mx, dy = hit[1] - my;
        if (hit[4]) {
          const [x1, y1, x2, y2] = hit[4], L = (x2 - x1) ** 2 + (y2 - y1) ** 2;
          const t = L ? Math.max(0, Math.min(1, ((mx - x1) * (x2 - x1) + (my - y1) * (y2 - y1)) / L)) : 0;
          dx = x1 + t * (x2 - x1) - mx; dy = y1 + t * (y2 - y1) - my;
        }
        const d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = hit; }
      }
      if (!best) { tip.style.display = "none"; return; }
      tip.textContent = typeof best[2] === "function" ? best[2](best[3]) : best[2];
      tip.style.display = "block";
      tip.style.left = e.pageX + 12 + "px";
      tip.style.top = e.pageY + 12 + "px";
    });
    c.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  }

  // A colour from blue (best) to yellow (worst) for t in [0, 1].
  function ramp(t) {
    const stops = [[33, 102, 172], [67, 162, 202], [123, 204, 196], [186, 228, 188], [254, 224, 139]];
    const u = Math.max(0, Math.min(0.9999, t)) * (stops.length - 1), i = Math.floor(u), f = u - i;
    const c = stops[i].map((v, k) => Math.round(v + f * (stops[i + 1][k] - v)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  // axes: [{name, type: "linear"|"log"|"category", categories?}], rows:
  // [{values: {name: v|undefined}, t: colour position, tip}]. A parameter a
  // trial does not have (a conditional branch not taken) is drawn at the
  // axis' "absent" slot below it.
  function parallel(container, axesSpec, rows) {
    const height = 320;
    const { c, ctx, width: w } = canvasIn(container, height, "full");
    const top = 28, bottom = height - 40, absentY = height - 18;
    const n = axesSpec.length, gap = (w - 110) / Math.max(1, n - 1);
    const scales = axesSpec.map((a) => scale(a, rows.map((r) => r.values[a.name]), bottom, top));
    const X = (i) => 40 + i * gap;
    ctx.lineWidth = 1;
    ctx.globalAlpha = rows.length > 2000 ? 0.25 : rows.length > 300 ? 0.45 : 0.8;
    // 32 shades, one path each (see chart()); rows come worst first, so
    // the best are drawn last, on top.
    const shades = [];
    for (const r of rows) {
      const k = Math.min(31, Math.floor(r.t * 32));
      if (!shades[k]) shades[k] = { p: new Path2D(), order: shades.filter(Boolean).length };
      const p = shades[k].p;
      axesSpec.forEach((a, i) => {
        const v = r.values[a.name];
        const y = v === undefined || v === null ? absentY : scales[i].px(v);
        i ? p.lineTo(X(i), y) : p.moveTo(X(i), y);
      });
    }
    shades.map((s, k) => s && [s, k]).filter(Boolean).sort((a, b) => a[0].order - b[0].order)
      .forEach(([s, k]) => { ctx.strokeStyle = ramp((k + 0.5) / 32); ctx.stroke(s.p); });
    ctx.globalAlpha = 1;
    ctx.font = "11px system-ui, sans-serif";
    axesSpec.forEach((a, i) => {
      ctx.strokeStyle = "#555";
      ctx.beginPath();
      ctx.moveTo(X(i), top);
      ctx.lineTo(X(i), bottom);
      ctx.stroke();
      ctx.fillStyle = "#222";
      ctx.textAlign = "center";
      ctx.fillText(a.name, X(i), 14);
      ctx.fillStyle = "#888";
      ctx.fillText("absent", X(i), absentY + 12);
      ctx.textAlign = "left";
      ctx.fillStyle = "#444";
      const ticks = scales[i].ticks();
      const every = Math.max(1, Math.ceil(ticks.length / 8));
      ticks.forEach(([v, t], k) => {
        if (k % every === 0) ctx.fillText(t.length > 10 ? t.slice(0, 9) + "…" : t, X(i) + 3, scales[i].px(v));
      });
    });
    return c;
  }

  return { chart, parallel, measure, ramp, fmt, STATUS_COLOR, forget: () => { sizes = null; } };
})();
