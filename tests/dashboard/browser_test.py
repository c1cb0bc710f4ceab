#!/usr/bin/env python3
"""The dashboard and the HTML report in a real headless Chromium (ctest label
`browser`): every view loads with no JavaScript error, the numbers on the page
are those `sweep trials --format json` prints, the charts draw (screenshots
that are not blank), a trial that ends while the page is open appears without
a reload, and the report does all of this offline from a file.
Exits 77 (ctest: skipped), saying so, when no browser is installed.
Usage: browser_test.py SWEEP_BINARY
"""

import json
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "browser"))
import cdp  # noqa: E402
import helpers  # noqa: E402

SWEEP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/sweep"
READY = "document.body.dataset.ready === '1'"
STUDY_VIEWS = ["summary", "history", "curves", "parallel", "importance", "timeline", "trials"]


def views(page):
    return page.eval("[...document.querySelectorAll('section.view')].map(s => s.dataset.view)")


def table_rows(page):
    """The trials table's visible rows: [id, number, status, value, step]."""
    return page.eval("""[...document.querySelectorAll('section[data-view=trials] tbody tr')]
        .map(r => [Number(r.dataset.id), ...[...r.cells].slice(1, 5).map(c => c.textContent)])""")


def canvas_colors(page, view, index=0):
    """Distinct colours in a screenshot of the view's canvas."""
    rect = page.eval("""(() => {
        const c = document.querySelectorAll('section[data-view=%s] canvas')[%d];
        c.scrollIntoView();
        const r = c.getBoundingClientRect();
        return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
    })()""" % (view, index))
    return cdp.png_colors(page.screenshot(clip=rect))


def hover_tip(page, view):
    """The tooltip shown with the mouse on the first point the view's first
    chart can show one for."""
    at = page.eval("""(() => {
        const c = document.querySelector('section[data-view=%s] canvas');
        c.scrollIntoView();
        const r = c.getBoundingClientRect();
        const g = c.hits.find(g => g.px && g.px.some(Number.isFinite));
        const k = g.px.findIndex(Number.isFinite);
        return [r.left + g.px[k], r.top + g.py[k]];
    })()""" % view)
    page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": at[0], "y": at[1]})
    return page.eval("(t => t && t.style.display === 'block' ? t.textContent : '')"
                     "(document.querySelector('.tip'))")


def same_number(text, value):
    if value is None:
        return text == "—"
    return abs(float(text) - value) <= 1e-5 * max(1.0, abs(value))


class PageChecks:
    """Checks shared by the live dashboard and the report."""

    def check_study_page(self, page, name):
        got = views(page)
        for v in STUDY_VIEWS:
            self.assertIn(v, got)
        self.assertEqual(page.errors, [])
        trials = helpers.trials_json(SWEEP, self.db, name)
        self.assertEqual(page.eval("document.querySelector('section[data-view=trials] h2')"
                                   ".textContent"), "Trials (%d)" % len(trials))
        rows = table_rows(page)
        self.assertEqual(len(rows), min(100, len(trials)))
        by_id = {t["id"]: t for t in trials}
        for tid, number, status, value, step in rows:
            t = by_id[tid]
            self.assertEqual(int(number), t["number"])
            self.assertEqual(status, t["status"])
            self.assertTrue(same_number(value, t["value"]), (tid, value, t["value"]))
            self.assertEqual(step, "—" if t["step"] is None else str(t["step"]))
        best = json.loads(helpers.run(SWEEP, "best", name, "--db", self.db,
                                      "--format", "json").stdout)
        self.assertEqual(float(page.eval("document.querySelector('[data-best]').dataset.best")),
                         best["value"])
        counts = page.eval("document.querySelector('.summary .counts').textContent")
        for status in ("completed", "stopped", "failed"):
            n = sum(t["status"] == status for t in trials)
            self.assertIn("%s %d" % (status, n), counts)
        # Text from the database is text: the hostile choice is shown in the
        # table, and no element came of it.
        if name == "asha":
            page.eval("[...document.querySelectorAll('section[data-view=trials] th')]"
                      ".find(th => th.textContent.startsWith('opt')).click()")
            cells = page.eval("[...document.querySelectorAll('section[data-view=trials] td')]"
                              ".map(td => td.textContent)")
            self.assertIn(helpers.HOSTILE, cells)
        self.assertTrue(page.eval("document.getElementById('pwn') === null"))
        # Charts draw: a blank canvas has one or two colours.
        for view in ("history", "curves", "parallel", "timeline"):
            self.assertGreater(canvas_colors(page, view), 8, view)
        # A point shows its trial on hover.
        numbers = {t["number"] for t in trials}
        for view in ("history", "curves"):
            tip = hover_tip(page, view)
            self.assertRegex(tip, r"^trial \d+ ", view)
            self.assertIn(int(tip.split()[1]), numbers, view)

    def check_trial_page(self, page, tid):
        self.assertEqual(page.errors, [])
        n = page.eval("document.querySelectorAll('section[data-view=decisions] li').length")
        decisions = helpers.query(self.db, "SELECT count(*) FROM decisions WHERE trial_id=?", tid)
        self.assertEqual(n, decisions[0][0])
        self.assertGreater(canvas_colors(page, "series"), 8)


class BrowserTest(unittest.TestCase, PageChecks):
    @classmethod
    def setUpClass(cls):
        cls.tmp = helpers.temp_folder()
        cls.db = os.path.join(cls.tmp.name, "s.db")
        for yaml in (helpers.ASHA, helpers.PBT):
            helpers.run_study(SWEEP, cls.tmp.name, yaml, cls.db)
        cls.browser = cdp.Browser.launch(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.tmp.cleanup()

    def page(self, url):
        page = self.browser.new_page()
        self.addCleanup(page.close)
        page.navigate(url)
        page.wait_for(READY, timeout=60)
        return page

    def test_the_studies_page_lists_every_study(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url)
            self.assertEqual(page.errors, [])
            names = page.eval("[...document.querySelectorAll('section[data-view=studies] "
                              "tbody a')].map(a => a.textContent)")
            self.assertEqual(names, ["asha", "pbt"])
            self.assertTrue(all(u.startswith(d.url) for u in page.requests), page.requests)

    def test_every_view_of_a_study_and_a_trial(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/1")
            self.check_study_page(page, "asha")
            self.assertIn("rungs", views(page))
            page = self.page(d.url + "#/study/2")
            self.check_study_page(page, "pbt")
            self.assertIn("lineage", views(page))
            self.assertGreater(canvas_colors(page, "lineage"), 8)
            tid = helpers.query(self.db, "SELECT id FROM trials WHERE study_id=1 AND "
                                "status='stopped' LIMIT 1")[0][0]
            page.eval("location.hash = '#/trial/%d'" % tid)
            page.wait_for("document.querySelector('section[data-view=decisions]') && " + READY)
            self.check_trial_page(page, tid)
            self.assertTrue(all(u.startswith(d.url) for u in page.requests), page.requests)

    def test_a_services_pool_shows_its_studies_and_who_held_each_runner(self):
        # A real service: a priority-1 study holds both runners when a
        # priority-10 one arrives and takes them at the next checkpoint.
        db = os.path.join(self.tmp.name, "pool.db")
        serve = subprocess.Popen([SWEEP, "serve", "--db", db, "--local-runners", "2",
                                  "--heartbeat-ms", "200"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 30
            while "local-1" not in helpers.run(SWEEP, "runners", "--db", db, check=False).stdout:
                self.assertLess(time.time(), deadline, "the service did not start")
                time.sleep(0.1)
            for name, priority, trials, steps, ms in (("low", 1, 6, 6, 150), ("high", 10, 2, 2, 50)):
                path = os.path.join(self.tmp.name, name + ".yaml")
                with open(path, "w") as f:
                    f.write("name: %s\nobjective: {metric: value, goal: minimize}\n"
                            "task: {synthetic: {function: curve, steps: %d, step_ms: %d}}\n"
                            "algorithm: {type: random, max_trials: %d}\nparameters:\n"
                            "  x1: {type: float, min: 0, max: 1}\n" % (name, steps, ms, trials))
                helpers.run(SWEEP, "submit", path, "--db", db, "--priority", str(priority))
                while name == "low" and not helpers.query(
                        db, "SELECT count(*) FROM trials WHERE status='running'")[0][0]:
                    self.assertLess(time.time(), deadline + 30)
                    time.sleep(0.05)
            while helpers.query(db, "SELECT count(*) FROM studies WHERE status='completed'")[0][0] < 2:
                self.assertLess(time.time(), deadline + 90, "the studies did not complete")
                time.sleep(0.2)
        finally:
            helpers.run(SWEEP, "stop", "--db", db, check=False)
            serve.wait(timeout=30)
        with helpers.Dashboard(SWEEP, db) as d:
            pool = d.json("/api/pool")
            studies = {s["name"]: s for s in pool["studies"]}
            self.assertEqual(sorted(studies), ["high", "low"])
            self.assertEqual(studies["high"]["priority"], 10)
            self.assertEqual(studies["low"]["owner"], helpers.query(db, "SELECT owner FROM studies "
                                                                    "WHERE name='low'")[0][0])
            self.assertEqual({r["runner"] for r in pool["runs"]}, {"local-0", "local-1"})
            # Each trial's latest run, and each run a preemption cut short,
            # ending where its preemption was decided.
            cut = [r for r in pool["runs"] if r["status"] == "preempted"]
            self.assertEqual(len(pool["runs"]) - len(cut), 8)
            self.assertGreaterEqual(len(pool["preemptions"]), 1)
            self.assertEqual(sorted((r["trial"], r["ended_at"]) for r in cut),
                             sorted((p["trial"], p["at"]) for p in pool["preemptions"]))
            self.assertTrue(all(r["study"] == "low" for r in cut), cut)
            self.assertIn("runner given to study 'high'", pool["preemptions"][0]["reason"])
            page = self.page(d.url)
            self.assertEqual(page.errors, [])
            self.assertIn("pool", views(page))
            names = page.eval("[...document.querySelectorAll('section[data-view=pool] "
                              "tbody a')].map(a => a.textContent)")
            self.assertEqual(sorted(names), ["high", "low"])
            self.assertGreater(canvas_colors(page, "pool"), 8)
            # The first point the chart can show a tip for is a preemption.
            self.assertRegex(hover_tip(page, "pool"),
                             r"^low trial \d+: paused at step \d+: runner given to study 'high'")

    def test_a_services_slurm_runner_jobs_show_each_runner_and_its_idle_time(self):
        # A real one-node Slurm cluster (scripts/slurm/one-node-cluster.sh),
        # a service launching its runners there.
        cluster_script = os.path.join(HERE, "..", "..", "scripts", "slurm", "one-node-cluster.sh")
        if os.geteuid() != 0 or subprocess.run(
                ["sh", "-c", "command -v slurmctld && command -v munged"],
                capture_output=True).returncode != 0:
            self.skipTest("needs root, slurm-wlm and munge (scripts/test.sh installs them)")
        cluster = os.path.join(self.tmp.name, "cluster")
        env = dict(os.environ, SLURM_CONF=os.path.join(cluster, "slurm.conf"))
        started = subprocess.run([cluster_script, "start", cluster], capture_output=True, text=True)
        try:
            self.assertEqual(started.returncode, 0, started.stdout + started.stderr)
            db = os.path.join(self.tmp.name, "slurm.db")
            serve = subprocess.Popen([SWEEP, "serve", "--db", db, "--local-runners", "0",
                                      "--heartbeat-ms", "250", "--launcher", "slurm",
                                      "--launch-max", "2", "--launch-idle", "1", "--launch-dir",
                                      os.path.join(self.tmp.name, "launch")], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                path = os.path.join(self.tmp.name, "slurm.yaml")
                with open(path, "w") as f:
                    f.write("name: onslurm\nobjective: {metric: value, goal: minimize}\n"
                            "task: {synthetic: {function: curve, steps: 3, step_ms: 50}}\n"
                            "algorithm: {type: random, max_trials: 4}\nparameters:\n"
                            "  x1: {type: float, min: 0, max: 1}\n")
                deadline = time.time() + 30
                while helpers.run(SWEEP, "submit", path, "--db", db, check=False).returncode:
                    self.assertLess(time.time(), deadline, "the service did not start")
                    time.sleep(0.2)
                ended = "SELECT count(*) FROM launches WHERE kind='ended'"
                submitted = "SELECT count(*) FROM launches WHERE kind='submitted'"
                while not (helpers.query(db, "SELECT count(*) FROM trials WHERE status="
                                         "'completed'")[0][0] == 4 and
                           helpers.query(db, ended)[0][0] == helpers.query(db, submitted)[0][0]):
                    self.assertLess(time.time(), deadline + 90, "the runner jobs did not end")
                    time.sleep(0.2)
            finally:
                helpers.run(SWEEP, "stop", "--db", db, check=False)
                serve.wait(timeout=30)
        finally:
            subprocess.run(["scancel", "--user=root"], env=env, capture_output=True)
            subprocess.run([cluster_script, "stop", cluster], capture_output=True)
        jobs = [r[0] for r in helpers.query(db, "SELECT job FROM launches WHERE kind='submitted'")]
        with helpers.Dashboard(SWEEP, db) as d:
            page = self.page(d.url)
            self.assertEqual(page.errors, [])
            self.assertIn("slurm-jobs", views(page))
            rows = page.eval("[...document.querySelectorAll('section[data-view=slurm-jobs] "
                             "tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
            self.assertEqual(sorted(r[0] for r in rows), sorted(jobs))
            for job, runner, gpus, state, ran, idle in rows:
                self.assertEqual(runner, "slurm-" + job)
                self.assertEqual((gpus, state), ("0", "ended"))
                # It ran some seconds, and sat idle at least --launch-idle.
                self.assertGreaterEqual(float(ran), float(idle))
                self.assertGreaterEqual(float(idle), 0.5)

    def test_a_trial_that_ends_while_the_page_is_open_appears_without_a_reload(self):
        db = os.path.join(self.tmp.name, "live.db")
        yaml = os.path.join(self.tmp.name, "slow.yaml")
        with open(yaml, "w") as f:
            f.write(helpers.HYPERBAND.replace("name: hb", "name: slow").replace(
                "steps: 9}", "steps: 9, step_ms: 40}"))
        tuner = subprocess.Popen([SWEEP, "run", yaml, "--db", db, "--local-runners", "1",
                                  "--progress", "plain"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if os.path.exists(db) and helpers.query(db, "SELECT count(*) FROM sqlite_master "
                                                        "WHERE name='trials'")[0][0]:
                    if helpers.query(db, "SELECT count(*) FROM trials")[0][0]:
                        break
                time.sleep(0.05)
            with helpers.Dashboard(SWEEP, db) as d:
                page = self.page(d.url + "#/study/1")
                page.eval("window.__sameDocument = 1")
                state = page.eval("document.querySelector('.summary .state').textContent")
                self.assertEqual(state, "running")
                first = page.eval("document.querySelector('.summary .counts').textContent")
                # The summary changes as trials end, and it is the same document.
                page.wait_for("document.querySelector('.summary .counts').textContent !== %s"
                              % json.dumps(first), timeout=60)
                self.assertEqual(page.eval("window.__sameDocument"), 1)
                self.assertEqual(tuner.wait(timeout=300), 0)
                page.wait_for("document.querySelector('.summary .state').textContent === "
                              "'completed'", timeout=30)
                page.wait_for(READY)
                trials = helpers.trials_json(SWEEP, db, "slow")
                page.wait_for("document.querySelector('section[data-view=trials] h2')"
                              ".textContent === 'Trials (%d)'" % len(trials))
                self.assertEqual(page.eval("window.__sameDocument"), 1)
                self.assertEqual(page.errors, [])
        finally:
            if tuner.poll() is None:
                tuner.kill()
                tuner.wait()

    def test_the_report_opens_offline_with_the_same_views(self):
        out = os.path.join(self.tmp.name, "report.html")
        r = helpers.run(SWEEP, "report", "asha", "--db", self.db, "-o", out)
        self.assertIn("wrote " + out, r.stdout)
        page = self.page("file://" + out)
        self.check_study_page(page, "asha")
        self.assertIn("rungs", views(page))
        tid = helpers.query(self.db, "SELECT id FROM trials WHERE study_id=1 AND "
                            "status='completed' LIMIT 1")[0][0]
        page.eval("location.hash = '#/trial/%d'" % tid)
        page.wait_for("document.querySelector('section[data-view=decisions]') && " + READY)
        self.check_trial_page(page, tid)
        # Nothing but the file itself was loaded.
        self.assertTrue(all(u.startswith("file://") or u.startswith("data:")
                            for u in page.requests), page.requests)


FRONT2 = """name: front2
objectives: [{metric: f1, goal: minimize}, {metric: f2, goal: minimize}]
constraints: [{metric: f1, max: 0.7}]
task: {synthetic: {function: zdt1}}
algorithm: {type: tpe, max_trials: 40}
seed: 2
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
  x3: {type: float, min: 0, max: 1}
"""
FRONT3 = """name: front3
objectives: [{metric: f1, goal: minimize}, {metric: f2, goal: minimize}, {metric: f3, goal: minimize}]
task: {synthetic: {function: dtlz2}}
algorithm: {type: nsga2, max_trials: 30, nsga2: {population: 10}}
seed: 3
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
  x3: {type: float, min: 0, max: 1}
"""


class FrontTest(unittest.TestCase):
    """Several objectives: the front's view on the study page and in the report."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = helpers.temp_folder()
        cls.db = os.path.join(cls.tmp.name, "f.db")
        for yaml in (FRONT2, FRONT3):
            helpers.run_study(SWEEP, cls.tmp.name, yaml, cls.db)
        cls.browser = cdp.Browser.launch(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.tmp.cleanup()

    def check_front(self, page, name, charts):
        self.assertEqual(page.errors, [])
        self.assertIn("front", views(page))
        front = json.loads(helpers.run(SWEEP, "best", name, "--db", self.db,
                                       "--format", "json").stdout)
        legend = page.eval("({...document.querySelector('section[data-view=front] .legend').dataset})")
        self.assertEqual(int(legend["front"]), len(front))
        broken = helpers.query(self.db, "SELECT count(DISTINCT v.trial_id) FROM trial_values v "
                               "JOIN trials t ON t.id = v.trial_id JOIN studies s ON "
                               "s.id = t.study_id WHERE s.name = ? AND t.status = 'completed' "
                               "AND v.kind = 'constraint' AND (v.violation IS NULL OR "
                               "v.violation > 0)", name)[0][0]
        self.assertEqual(int(legend["infeasible"]), broken)
        rows = page.eval("document.querySelectorAll('section[data-view=front] table.broken "
                         "tr[data-trial]').length")
        self.assertEqual(rows, broken)
        self.assertEqual(page.eval("document.querySelectorAll('section[data-view=front] "
                                   "canvas').length"), charts)
        self.assertGreater(canvas_colors(page, "front"), 8)
        tip = hover_tip(page, "front")
        self.assertRegex(tip, r"^trial \d+")

    def test_the_front_with_two_objectives_and_a_constraint_and_with_three(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/1")
            # The scatter with the front, and the hypervolume.
            self.check_front(page, "front2", 2)
            page = self.page(d.url + "#/study/2")
            # Three pairs, and the hypervolume.
            self.check_front(page, "front3", 4)
        out = os.path.join(self.tmp.name, "front.html")
        helpers.run(SWEEP, "report", "front2", "--db", self.db, "-o", out)
        self.check_front(self.page("file://" + out), "front2", 2)

    def page(self, url):
        return BrowserTest.page(self, url)


if __name__ == "__main__":
    if cdp.find_browser() is None:
        print("SKIPPED: no Chromium found (install the `chromium` package, or set "
              "SWEEP_CHROMIUM); the dashboard's browser tests did not run")
        sys.exit(77)
    unittest.main(verbosity=2)
