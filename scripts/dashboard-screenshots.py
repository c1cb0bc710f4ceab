#!/usr/bin/env python3
"""Makes the screenshots in docs/dashboard/ from real sweeps: an ASHA study
with a conditional parameter and a PBT study, shown by a real `sweep
dashboard` in headless Chromium. Usage: scripts/dashboard-screenshots.py
(after scripts/build.sh; needs the chromium package).
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "dashboard"))
sys.path.insert(0, os.path.join(ROOT, "tests", "browser"))
import cdp  # noqa: E402
import helpers  # noqa: E402

SWEEP = os.path.join(ROOT, "build", "cli", "sweep")
OUT = os.path.join(ROOT, "docs", "dashboard")
READY = "document.body.dataset.ready === '1'"


def shoot(page, selector, name):
    rect = page.eval("""(() => {
        const el = document.querySelector(%r);
        el.scrollIntoView();
        const r = el.getBoundingClientRect();
        return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
    })()""" % selector)
    with open(os.path.join(OUT, name + ".png"), "wb") as f:
        f.write(page.screenshot(clip=rect))
    print("wrote docs/dashboard/%s.png" % name)


def main():
    os.makedirs(OUT, exist_ok=True)
    with helpers.temp_folder() as tmp:
        db = os.path.join(tmp, "demo.db")
        for yaml in (helpers.ASHA, helpers.PBT):
            helpers.run_study(SWEEP, tmp, yaml, db)
        with helpers.Dashboard(SWEEP, db) as d, cdp.Browser.launch(1100, 900) as browser:
            page = browser.new_page()
            page.navigate(d.url)
            page.wait_for(READY)
            shoot(page, "section[data-view=studies]", "studies")
            page.eval("location.hash = '#/study/1'")
            page.wait_for("document.querySelector('section[data-view=history]') && " + READY)
            for view in ("history", "curves", "parallel", "importance"):
                shoot(page, "section[data-view=%s]" % view, view)
            page.eval("location.hash = '#/study/2'")
            page.wait_for("document.querySelector('section[data-view=lineage]') && " + READY)
            shoot(page, "section[data-view=lineage]", "lineage")
            if page.errors:
                sys.exit("errors on the page: %s" % page.errors)


if __name__ == "__main__":
    main()
