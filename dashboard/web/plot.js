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

  // The range of the values a chart draws on one axis: finite ones, and the
  // smallest positive one for a log axis. Accumulated point by point, so no
  // array of every value is made.
  function extent() {
    return { min: Infinity, max: -Infinity, pos: Infinity,
      add(v) {
        if (!Number.isFinite(v)) return;
        if (v < this.min) this.min = v;
        if (v > this.max) this.max = v;
        if (v > 0 && v < this.pos) this.pos = v;
      } };
  }

  // Maps data to pixels on one axis: linear, log, or categories (indices).
  function scale(spec, ext, lo, hi) {
    const s = Object.assign({ type: "linear" }, spec);
    if (s.type === "category") {
      const n = Math.max(1, s.categories.length);
      return Object.assign(s, {
        px: (v) => lo + ((v + 0.5) / n) * (hi - lo),
        ticks: () => s.categories.map((c, i) => [i, String(c)]),
      });
    }
    const log = s.type === "log";
    const e = extent();
    e.add(log ? ext.pos : ext.min);
    e.add(ext.max);
    for (const v of [s.min, s.max]) if (v !== undefined && (!log || v > 0)) e.add(v);
    let min = e.min, max = e.max;
    if (min > max) { min = log ? 1 : 0; max = log ? 10 : 1; }
    if (log) { min = Math.log10(min); max = Math.log10(Math.max(max, 10 ** min)); }
    if (min === max) { min -= 0.5; max += 0.5; }
    const margin = s.tight ? 0 : (max - min) * 0.04;
    min -= margin; max += margin;
    const k = (hi - lo) / (max - min);
    return Object.assign(s, {
      min, max,
      px: log ? (v) => lo + (Math.log10(v) - min) * k : (v) => lo + (v - min) * k,
      ticks: () => niceTicks(min, max, log, !!s.integer),
    });
  }

  // Round numbers: on a log axis powers of ten, and between them 3, or 2
  // and 5, or more, as few as give 3 ticks (10, 30, 100; not 15.85, 25.12);
  // on a linear axis steps of 1, 2 or 5 times a power of ten, at least 1
  // on an integer axis.
  function niceTicks(min, max, log, integer) {
    if (log) {
      const within = (x) => Math.log10(x) >= min - 1e-9 && Math.log10(x) <= max + 1e-9;
      let out = [];
      for (const ms of [[1], [1, 3], [1, 2, 5], [1, 1.5, 2, 3, 5, 7]]) {
        out = [];
        for (let e = Math.floor(min); e <= Math.ceil(max); e++) {
          for (const m of ms) {
            const x = Number((m * 10 ** e).toPrecision(12));
            if (within(x) && (!integer || Number.isInteger(x))) out.push([x, fmt(x)]);
          }
        }
        if (out.length >= 3) return out;
      }
      if (out.length) return out;
    }
    const out = [];
    const span = max - min, raw = span / 6, mag = 10 ** Math.floor(Math.log10(raw));
    let step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= 7);
    if (integer && !log) step = Math.max(1, Math.round(step));
    for (let v = Math.ceil(min / step) * step; v <= max + 1e-12; v += step) {
      const x = log ? 10 ** v : Number(v.toPrecision(12));
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

  // spec: {height, size, x: axis, y: axis, xLabel, yLabel, series: [...]}.
  // A series holds columns, not an object per item, so 10,000 trials cost
  // a few arrays and no closure each:
  //   points:   {x: [], y: [], color, alpha?, radius?, shape?: "x", tip?(i)}
  //             a y that is not finite is drawn on the bottom edge;
  //   lines:    {lines: [[[x, y]...]...], colors?: [] | color, width?, alpha?,
  //             tip?(line, point)};
  //   segments: {x1: [], y1: [], x2: [], y2: [], colors?: [] | color, width?,
  //             tip?(i)}.
  // Each with kind: "points" | "lines" | "segments". `tip` returns the hover
  // text and is called only on hover.
  function chart(container, spec) {
    const { c, ctx, width: w, height: h } = canvasIn(container, spec.height || 300, spec.size || "full");
    const ex = extent(), ey = extent();
    for (const s of spec.series) {
      if (s.kind === "points") {
        for (const v of s.x) ex.add(v);
        for (const v of s.y) ey.add(v);
      } else if (s.kind === "lines") {
        for (const line of s.lines) for (const p of line) { ex.add(p[0]); ey.add(p[1]); }
      } else {
        for (const k of ["x1", "x2"]) for (const v of s[k]) ex.add(v);
        for (const k of ["y1", "y2"]) for (const v of s[k]) ey.add(v);
      }
    }
    const xs = scale(spec.x, ex, PAD.left, w - PAD.right);
    const ys = scale(spec.y, ey, h - PAD.bottom, PAD.top);
    axes(ctx, xs, ys, w, h, { x: spec.xLabel, y: spec.yLabel });
    const hits = [];  // per series: {px, py} (points) or {ends} (segments), and tip(k)
    const bottom = h - PAD.bottom - 3;
    ctx.save();
    ctx.beginPath();
    ctx.rect(PAD.left, PAD.top - 4, w - PAD.left - PAD.right + 4, h - PAD.top - PAD.bottom + 8);
    ctx.clip();
    spec.series.forEach((s, si) => {
      const colorOf = (i) => (Array.isArray(s.colors) ? s.colors[i] : s.colors || s.color);
      // One path per colour: a canvas call per item is what costs at
      // 10,000 trials, not the pixels.
      const paths = new Map();
      const path = (color) => {
        let p = paths.get(color);
        if (!p) paths.set(color, (p = new Path2D()));
        return p;
      };
      const stroke = (width) => {
        ctx.lineWidth = width;
        for (const [color, p] of paths) { ctx.strokeStyle = color; ctx.stroke(p); }
      };
      ctx.globalAlpha = s.alpha || 1;
      const tip = s.tip && s.hover !== false;
      if (s.kind === "lines") {
        let total = 0;
        for (const line of s.lines) total += line.length;
        // Per point: where it is (NaN: not drawn), its line and its index.
        const px = new Float32Array(total), py = new Float32Array(total);
        const li = new Int32Array(total), pj = new Int32Array(total);
        let k = 0;
        s.lines.forEach((line, l) => {
          const p = path(colorOf(l));
          let pen = false;
          for (let j = 0; j < line.length; j++, k++) {
            const y = line[j][1];
            li[k] = l;
            pj[k] = j;
            if (!Number.isFinite(y)) { pen = false; px[k] = NaN; continue; }
            px[k] = xs.px(line[j][0]);
            py[k] = ys.px(y);
            pen ? p.lineTo(px[k], py[k]) : p.moveTo(px[k], py[k]);
            pen = true;
          }
        });
        stroke(s.width || 1);
        if (tip) hits.push({ px, py, tip: (k) => s.tip(li[k], pj[k]) });
      } else if (s.kind === "segments") {
        const n = s.x1.length, ends = new Float32Array(4 * n);
        for (let i = 0; i < n; i++) {
          const p = path(colorOf(i));
          const x1 = xs.px(s.x1[i]), y1 = ys.px(s.y1[i]), x2 = xs.px(s.x2[i]), y2 = ys.px(s.y2[i]);
          p.moveTo(x1, y1);
          p.lineTo(x2 === x1 && y2 === y1 ? x2 + 1 : x2, y2);
          ends.set([x1, y1, x2, y2], 4 * i);
        }
        stroke(s.width || 2);
        if (tip) hits.push({ ends, tip: s.tip });
      } else {
        const r = s.radius || 2.5, n = s.x.length;
        const px = new Float32Array(n), py = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          px[i] = xs.px(s.x[i]);
          py[i] = Number.isFinite(s.y[i]) ? ys.px(s.y[i]) : bottom;
        }
        if (s.shape === "x") {
          const p = path(s.color);
          for (let i = 0; i < n; i++) {
            p.moveTo(px[i] - r, py[i] - r); p.lineTo(px[i] + r, py[i] + r);
            p.moveTo(px[i] + r, py[i] - r); p.lineTo(px[i] - r, py[i] + r);
          }
          stroke(1.5);
        } else if (n > 2000) {
          squares(ctx, c, px, py, r, s.color, s.alpha || 1);
        } else {
          const p = path(s.color);
          for (let i = 0; i < n; i++) {
            p.moveTo(px[i] + r, py[i]);
            p.arc(px[i], py[i], r, 0, 2 * Math.PI);
          }
          ctx.fillStyle = s.color;
          ctx.fill(p);
        }
        if (tip) hits.push({ px, py, tip: s.tip });
      }
    });
    ctx.restore();
    hover(c, hits);
    c.hits = hits;  // where a mouse shows a tip (the browser test hovers there)
    return c;
  }

  // Thousands of dots, as whole-pixel squares written straight into a
  // bitmap, then drawn onto the chart in one call: 10,000 fillRects (or a
  // path of 10,000 circles) cost the canvas a recorded operation each and
  // a rasterizer pass. Each pixel counts the squares over it; k squares of
  // one colour at `alpha`, drawn one over another, leave it that colour at
  // opacity 1 - (1 - alpha)^k, which is what is written. At this size
  // squares look the same as circles.
  function squares(ctx, canvas, xs, ys, r, color, alpha) {
    const w = canvas.width, h = canvas.height, k = w / parseFloat(canvas.style.width);
    const count = new Uint16Array(w * h), side = Math.max(1, Math.round(2 * r * k));
    for (let i = 0; i < xs.length; i++) {
      const x0 = Math.round((xs[i] - r) * k), y0 = Math.round((ys[i] - r) * k);
      const xa = Math.max(0, x0), xb = Math.min(w, x0 + side), yb = Math.min(h, y0 + side);
      for (let y = Math.max(0, y0); y < yb; y++)
        for (let o = y * w + xa, end = y * w + xb; o < end; o++) if (count[o] < 65535) count[o]++;
    }
    const [cr, cg, cb] = rgb(color);
    const img = new ImageData(w, h), px = new Uint32Array(img.data.buffer);
    const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
    const lut = new Uint32Array(64);  // opacity by count, up to 63 (then opaque enough)
    for (let n = 1; n < 64; n++) {
      const a = Math.round(255 * (1 - (1 - alpha) ** n));
      lut[n] = little ? ((a << 24) | (cb << 16) | (cg << 8) | cr) >>> 0 : ((cr << 24) | (cg << 16) | (cb << 8) | a) >>> 0;
    }
    for (let o = 0; o < count.length; o++) if (count[o]) px[o] = lut[Math.min(63, count[o])];
    const off = document.createElement("canvas");
    off.width = w;
    off.height = h;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.globalAlpha = 1;
    ctx.drawImage(off, 0, 0, w / k, h / k);
  }

  function rgb(color) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
    return m ? [1, 2, 3].map((i) => parseInt(m[i], 16)) : [128, 128, 128];
  }

  // Shows the tip of the nearest target within 8 px (a segment: its nearest
  // point). `hits` are kept as typed arrays per series, not an object per
  // point: 60,000 points of learning curves cost four arrays.
  function hover(c, hits) {
    const tip = tooltip();
    c.addEventListener("mousemove", (e) => {
      const r = c.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
      let bd = 64, text = null;
      for (const g of hits) {
        if (g.ends) {
          const q = g.ends;
          for (let k = 0; k < q.length; k += 4) {
            const x1 = q[k], y1 = q[k + 1], x2 = q[k + 2], y2 = q[k + 3];
            const L = (x2 - x1) ** 2 + (y2 - y1) ** 2;
            const t = L ? Math.max(0, Math.min(1, ((mx - x1) * (x2 - x1) + (my - y1) * (y2 - y1)) / L)) : 0;
            const dx = x1 + t * (x2 - x1) - mx, dy = y1 + t * (y2 - y1) - my, d = dx * dx + dy * dy;
            if (d < bd) { bd = d; text = () => g.tip(k / 4); }
          }
        } else {
          for (let k = 0; k < g.px.length; k++) {
            const dx = g.px[k] - mx, dy = g.py[k] - my, d = dx * dx + dy * dy;
            if (d < bd) { bd = d; const i = k; text = () => g.tip(i); }
          }
        }
      }
      if (!text) { tip.style.display = "none"; return; }
      tip.textContent = text();
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

  // axes: [{name, type: "linear"|"log"|"category", categories?, integer?, values: []}],
  // a value per row, rows drawn in order (so the last is on top); shade: a
  // colour position in [0, 1] per row. A value that is undefined or null (a
  // conditional branch not taken) is drawn at the axis' "absent" slot.
  function parallel(container, axesSpec, shade) {
    const height = 320, n = shade.length;
    const { c, ctx, width: w } = canvasIn(container, height, "full");
    const top = 28, bottom = height - 40, absentY = height - 18;
    const gap = (w - 110) / Math.max(1, axesSpec.length - 1);
    const scales = axesSpec.map((a) => {
      const e = extent();
      for (const v of a.values) e.add(v);
      return scale(a, e, bottom, top);
    });
    const X = (i) => 40 + i * gap;
    ctx.lineWidth = 1;
    const alpha = n > 2000 ? 0.25 : n > 300 ? 0.45 : 0.8;
    // 32 shades, one path each (see chart()), stroked in the order they
    // first appear, so the rows drawn last stay on top.
    const shades = [], order = [];
    for (let row = 0; row < n; row++) {
      const k = Math.min(31, Math.floor(shade[row] * 32));
      if (!shades[k]) { shades[k] = new Path2D(); order.push(k); }
      const p = shades[k];
      for (let i = 0; i < axesSpec.length; i++) {
        const v = axesSpec[i].values[row];
        const y = v === undefined || v === null ? absentY : scales[i].px(v);
        i ? p.lineTo(X(i), y) : p.moveTo(X(i), y);
      }
    }
    ctx.globalAlpha = alpha;
    for (const k of order) { ctx.strokeStyle = ramp((k + 0.5) / 32); ctx.stroke(shades[k]); }
    ctx.globalAlpha = 1;
    ctx.font = "11px system-ui, sans-serif";
    c.axes = [];  // what each axis shows, for tests: {name, ticks, absent}
    axesSpec.forEach((a, i) => {
      ctx.strokeStyle = "#555";
      ctx.beginPath();
      ctx.moveTo(X(i), top);
      ctx.lineTo(X(i), bottom);
      ctx.stroke();
      ctx.fillStyle = "#222";
      ctx.textAlign = "center";
      ctx.fillText(a.name, X(i), 14);
      // The "absent" slot only on an axis some row lacks (a conditional
      // parameter whose branch was not taken).
      const absent = a.values.some((v) => v === undefined || v === null);
      if (absent) {
        ctx.fillStyle = "#888";
        ctx.fillText("absent", X(i), absentY + 12);
      }
      ctx.textAlign = "left";
      ctx.fillStyle = "#444";
      const ticks = scales[i].ticks();
      const every = Math.max(1, Math.ceil(ticks.length / 8));
      const shown = ticks.filter((_, k) => k % every === 0);
      for (const [v, t] of shown) ctx.fillText(t.length > 10 ? t.slice(0, 9) + "…" : t, X(i) + 3, scales[i].px(v));
      c.axes.push({ name: a.name, ticks: shown.map(([, t]) => t), absent });
    });
    return c;
  }

  return { chart, parallel, measure, ramp, fmt, STATUS_COLOR, forget: () => { sizes = null; } };
})();
