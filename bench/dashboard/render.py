#!/usr/bin/env python3
"""Times one complete render of a dashboard page in headless Chromium, for
bench/dashboard/run.sh.

Usage: render.py URL READY [--timeout S]
  READY  a JS expression that is true once every view of the page has rendered;
         `optuna:N:P` is the predicate for optuna-dashboard's study page with
         N trials (all with intermediate values) of P parameters (see OPTUNA).

Each measurement launches a fresh Chromium (fresh profile: no HTTP cache, no
compiled-code cache) and a fresh page. A script injected before the page's own
(Page.addScriptToEvaluateOnNewDocument) checks READY from the first moment, every
20 ms (or 10x the check's own cost, so a big DOM is not slowed by more than
~10%), and records performance.now() when it first holds: milliseconds since
the navigation started, request and download included. Prints one JSON line:
{"ms": ..., "wall_ms": ..., "errors": [...], "offsite": [...]} or, past the
timeout, {"ms": null, ...}. The exit status is 0 either way (2 on bad usage).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "browser"))
from cdp import Browser  # noqa: E402

# optuna-dashboard 0.21, /dashboard/studies/ID (the History tab): complete once
# the study's name is in the header, the history plot has one marker per trial,
# the intermediate-values plot one line per trial, the timeline one bar per
# trial, the importances one bar per parameter, and the best trial is shown.
OPTUNA = """(() => {
  const q = (s) => document.querySelectorAll(s).length;
  return /\\(id=\\d+\\)/.test(document.title + (document.querySelector('header') || {}).textContent)
    && q('#plot-history .scatterlayer .point') >= %(n)d
    && q('#graph-intermediate-values .scatterlayer .js-line') >= %(n)d
    && q('#graph-timeline .barlayer .point') >= %(n)d
    && q('#graph-hyperparameter-importances .barlayer .point') >= %(p)d
    && [...document.querySelectorAll('h6')].some(h => h.textContent.startsWith('Best Trial'));
})()"""

POLLER = """(() => {
  const ready = () => { try { return !!(%s); } catch (e) { return false; } };
  const check = () => {
    const t = performance.now();
    if (ready()) { window.__readyAt = t; return; }
    // Every 20 ms, or 10x the check's own cost if more: at most ~10%% of the main thread.
    setTimeout(check, Math.max(20, 10 * (performance.now() - t)));
  };
  check();
})();"""


def measure(url, ready, timeout=120.0):
    if ready.startswith("optuna:"):
        _, n, p = ready.split(":")
        ready = OPTUNA % {"n": int(n), "p": int(p)}
    with Browser.launch(1280, 900) as browser:
        page = browser.new_page()
        page.send("Page.addScriptToEvaluateOnNewDocument", {"source": POLLER % ready})
        t0 = time.monotonic()
        ms = None
        try:
            page.send("Page.navigate", {"url": url})
            ms = page.wait_for("window.__readyAt", timeout=timeout, interval=0.1)
        except TimeoutError:
            pass
        wall = (time.monotonic() - t0) * 1000
        offsite = [u for u in page.requests
                   if not u.startswith(("http://127.0.0.1", "data:", "blob:", "about:"))]
        return {"ms": ms, "wall_ms": round(wall, 1) if ms else None,
                "errors": page.errors, "offsite": offsite}


if __name__ == "__main__":
    args = sys.argv[1:]
    timeout = 120.0
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    print(json.dumps(measure(args[0], args[1], timeout)))
