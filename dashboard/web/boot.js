// Loaded first, from <head>: starts the requests the page's route needs,
// and reads their JSON, while the other scripts load and compile (a fifth
// of a second in a fresh browser), so the server answers meanwhile.
// app.js's api() takes each early answer once; later requests are its own.
// (A report has no server: it does not load this.)
"use strict";
window.SweepFetch = (() => {
  // {ok, status, body}: the parsed answer, or an error body.
  async function json(path) {
    const r = await fetch(path.slice(1), { credentials: "same-origin", cache: "no-store" });
    const body = await r.json().catch(() => ({ error: `${path}: HTTP ${r.status}` }));
    return { ok: r.ok, status: r.status, body };
  }
  const early = new Map();
  const route = (location.hash || "#/").slice(1).split("/");
  const id = /^[0-9]{1,18}$/.test(route[2] || "") ? route[2] : null;
  const paths = ["/api/version"];
  if (route[1] === "study" && id) {
    const base = `/api/studies/${id}`;
    paths.push(base, ...["trials", "curves", "importance", "rungs", "lineage", "front"].map((v) => `${base}/${v}`));
  } else if (route[1] === "trial" && id) {
    paths.push(`/api/trials/${id}`);
  } else if (!route[1]) {
    paths.push("/api/studies");
  }
  for (const p of paths) {
    const answer = json(p);
    answer.catch(() => {});  // a failure is reported where the page takes it
    early.set(p, answer);
  }
  function take(path) {
    const answer = early.get(path);
    early.delete(path);
    return answer;
  }
  return { json, take, forget: () => early.clear() };
})();
