// The page's entry: where data comes from (the server's /api, or the data a
// report embeds), the router (#/, #/study/ID, #/trial/ID, #/compare/ID,ID),
// and live updates:
// the page polls /api/version (SQLite's data_version: it changes when the
// tuner commits) and redraws the page it shows when it changed. When a page
// has drawn completely, <body data-ready="1"> says so (tests and benchmarks
// wait for it).
"use strict";
(() => {
  const report = window.SWEEP_REPORT || null;
  const app = document.getElementById("app");
  const live = document.getElementById("live");

  async function api(path) {
    if (report) {
      const d = report.data[path];
      if (d === undefined) throw new Error(`${path} is not in this report`);
      return d;
    }
    const { ok, status, body } = await (SweepFetch.take(path) || SweepFetch.json(path));
    if (!ok) throw new Error(body.error || `${path}: HTTP ${status}`);
    return body;
  }

  let drawing = null, again = false, version = null;

  async function draw() {
    if (drawing) { again = true; return drawing; }
    document.body.dataset.ready = "0";
    const scroll = window.scrollY;
    const route = (location.hash || (report ? `#/study/${report.study}` : "#/")).slice(1).split("/");
    const page = document.createElement("div");
    drawing = (async () => {
      try {
        // Drawn off-screen first: a redraw never shows a half-empty page.
        const pad = getComputedStyle(app);
        page.style.width = app.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight) + "px";
        document.body.appendChild(page);
        Plot.forget();
        if (route[1] === "study" && route[2]) await StudyPage.render(api, page, route[2]);
        else if (route[1] === "trial" && route[2]) await Views.trial(api, page, route[2]);
        else if (route[1] === "compare" && route[2]) await ComparePage.render(api, page, route[2]);
        else await Views.studies(api, page);
        page.style.width = "";
        const drawn = performance.now();
        app.replaceChildren(...page.childNodes);
        if (window.__sweepTimes) Object.assign(window.__sweepTimes, { drawn, swapped: performance.now() });
      } catch (e) {
        app.replaceChildren(Views.h("p", { class: "error", text: String(e.message || e) }));
      } finally {
        page.remove();
      }
      window.scrollTo(0, scroll);
      document.body.dataset.ready = "1";
    })();
    await drawing;
    drawing = null;
    if (again) { again = false; await draw(); }
  }

  // While a sweep commits all the time, a big study would be redrawn back
  // to back: the next poll waits at least three times the last redraw.
  let lastDraw = 0;
  async function poll() {
    try {
      const v = await api("/api/version");
      live.textContent = `live · updated ${new Date().toLocaleTimeString()}`;
      live.className = "ok";
      if (version !== null && v.version !== version) {
        version = v.version;
        const t = performance.now();
        await draw();
        lastDraw = performance.now() - t;
      }
      version = v.version;
    } catch (e) {
      live.textContent = `not updating: ${e.message || e}`;
      live.className = "error";
    }
    setTimeout(poll, Math.max(1000, 3 * lastDraw));
  }

  window.addEventListener("hashchange", () => { window.scrollTo(0, 0); draw(); });
  if (report) {
    live.textContent = `report of ${new Date(report.generated_at * 1000).toLocaleString()}`;
    draw();
  } else {
    // The first version is read alongside the first draw, not before it.
    api("/api/version").then((v) => { version = version ?? v.version; }).catch(() => {});
    // Early answers are for the first page only: later ones would be stale.
    draw().finally(() => { SweepFetch.forget(); setTimeout(poll, 1000); });
  }
})();
