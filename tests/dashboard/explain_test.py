#!/usr/bin/env python3
"""The dashboard's charts explain themselves (issue 46), in a real headless
Chromium over real sweeps: legends show the colours they name, parallel
coordinates tick integer axes at integers and short log axes at round
numbers with no "absent" slot where nothing is absent, importance says which
trials it used, the timeline puts every run of a Hyperband study on the
runner that ran it, progress reads the same in the list and on the page,
the trials table (and the report's) has the other final metrics, trials
picked there are compared side by side, and a study's note and tags (`sweep note`, `sweep tag`) are shown everywhere.
Exits 77 (ctest: skipped), saying so, when no browser is installed.
Usage: explain_test.py SWEEP_BINARY
"""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "browser"))
import cdp  # noqa: E402
import helpers  # noqa: E402

SWEEP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/sweep"
READY = "document.body.dataset.ready === '1'"

# Hyperband pauses trials at its rungs: runs on both runners, stopped trials.
HB = """name: hb
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: 9}}
algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}
seed: 3
parameters:
  units: {type: int, min: 8, max: 64}
  lr: {type: float, min: 10, max: 300, log: true}
  x1: {type: float, min: 0, max: 1}
"""
# A program that reports a test metric beside its objective.
PROGRAM = """import json, sys
x = float(sys.argv[1])
print("SWEEP_REPORT " + json.dumps({"step": 1, "loss": x * x, "test_loss": x * x + 0.5}))
"""


def cmd_study(folder):
    return """name: cmd
objective: {metric: loss, goal: minimize}
task:
  command:
    argv: [python3, %s, "{x}"]
algorithm: {type: random, max_trials: 4}
seed: 2
parameters:
  x: {type: float, min: 0, max: 1}
""" % os.path.join(folder, "report.py")


class ExplainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = helpers.temp_folder()
        cls.db = os.path.join(cls.tmp.name, "e.db")
        with open(os.path.join(cls.tmp.name, "report.py"), "w") as f:
            f.write(PROGRAM)
        helpers.run_study(SWEEP, cls.tmp.name, HB, cls.db)
        helpers.run_study(SWEEP, cls.tmp.name, cmd_study(cls.tmp.name), cls.db)
        helpers.run(SWEEP, "note", "cmd", "first try: x squared", "--db", cls.db)
        helpers.run(SWEEP, "tag", "cmd", "baseline", "cpu", "--db", cls.db)
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
        self.assertEqual(page.errors, [])
        return page

    def study_id(self, name):
        return helpers.query(self.db, "SELECT id FROM studies WHERE name=?", name)[0][0]

    def test_legends_show_the_colours_they_name(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/%d" % self.study_id("hb"))
            keys = page.eval("""[...document.querySelectorAll(
                'section[data-view=history] .legend .key')].map(k =>
                [k.querySelector('.swatch').style.color, k.textContent])""")
            by_word = {text.split()[1]: color for color, text in keys}
            self.assertEqual(by_word["completed"], "rgb(33, 102, 172)", keys)
            self.assertEqual(by_word["stopped"], "rgb(240, 140, 0)", keys)
            curves = page.eval("""[...document.querySelectorAll(
                'section[data-view=curves] .legend .key')].map(k => k.textContent.trim())""")
            self.assertTrue(any(k.endswith("pause") for k in curves), curves)

    def test_parallel_axes_tick_integers_and_round_log_values_and_absent_only_if_absent(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/%d" % self.study_id("hb"))
            axes = page.eval("document.querySelector('section[data-view=parallel] canvas').axes")
            by_name = {a["name"]: a for a in axes}
            self.assertTrue(all(not a["absent"] for a in axes), axes)
            units = by_name["units"]["ticks"]
            self.assertTrue(units and all(re.fullmatch(r"\d+", t) for t in units), units)
            lr = by_name["lr"]["ticks"]
            self.assertGreaterEqual(len(lr), 3, lr)
            for t in lr:  # 10, 20, 30, 50, 100, ...: one digit, then zeros
                self.assertRegex(t, r"^[1-9](\.5)?0*$", lr)
            legend = page.eval("document.querySelector('section[data-view=parallel] .legend')"
                               ".textContent")
            self.assertNotIn("absent", legend)

    def test_importance_says_which_trials_it_used(self):
        completed = helpers.query(self.db, "SELECT count(*) FROM trials t JOIN studies s ON "
                                  "s.id=t.study_id WHERE s.name='hb' AND t.status='completed'")
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/%d" % self.study_id("hb"))
            text = page.eval("document.querySelector('section[data-view=importance] .legend')"
                             ".textContent")
            self.assertIn("Used: %d completed" % completed[0][0], text)
            self.assertRegex(text, r"Left out: \d+ stopped early \(their last values are at "
                                   r"fewer steps")

    def test_the_timeline_puts_every_run_on_its_runner(self):
        paused = helpers.query(self.db, "SELECT count(*) FROM preempted_runs WHERE cause='paused'")
        self.assertGreater(paused[0][0], 0)
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/%d" % self.study_id("hb"))
            lanes = page.eval("document.querySelector('section[data-view=timeline] > div').lanes")
            self.assertEqual(sorted(lanes), ["local-0", "local-1"])

    def test_progress_notes_tags_and_metrics_read_the_same_everywhere(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url)
            row = page.eval("""(() => {
                const a = [...document.querySelectorAll('section[data-view=studies] tbody tr')]
                  .find(r => r.textContent.includes('cmd'));
                return [a.querySelector('.progress .label').textContent,
                        [...a.querySelectorAll('.tag')].map(t => t.textContent),
                        a.querySelector('.note').textContent];
            })()""")
            self.assertEqual(row, ["4 / 4", ["baseline", "cpu"], "first try: x squared"])
            page = self.page(d.url + "#/study/%d" % self.study_id("cmd"))
            self.assertEqual(page.eval("document.querySelector('.summary .progress .label')"
                                       ".textContent"), "4 / 4")
            self.assertEqual(page.eval("[...document.querySelectorAll('.summary .tag')]"
                                       ".map(t => t.textContent)"), ["baseline", "cpu"])
            self.assertEqual(page.eval("document.querySelector('section[data-view=summary] "
                                       "p.note').textContent"), "first try: x squared")
            self.check_metric_column(page)
        out = os.path.join(self.tmp.name, "report.html")
        helpers.run(SWEEP, "report", "cmd", "--db", self.db, "-o", out)
        self.check_metric_column(self.page("file://" + out))
        studies = helpers.run(SWEEP, "studies", "--db", self.db).stdout
        self.assertRegex(studies, r"baseline cpu")
        self.assertIn("study 'cmd': first try: x squared", studies)

    def test_trials_picked_in_the_table_are_compared_side_by_side(self):
        with helpers.Dashboard(SWEEP, self.db) as d:
            page = self.page(d.url + "#/study/%d" % self.study_id("cmd"))
            page.eval("""[...document.querySelectorAll('section[data-view=trials] input[data-pick]')]
                .slice(0, 2).forEach(b => b.click())""")
            page.eval("document.querySelector('section[data-view=trials] button.picker').click()")
            page.wait_for("location.hash.startsWith('#/compare/') && "
                          "document.querySelector('section[data-view=compare]') && " + READY)
            self.assertEqual(page.errors, [])
            heads = page.eval("[...document.querySelectorAll('section[data-view=compare] thead "
                              "th a')].map(a => a.textContent)")
            self.assertEqual(len(heads), 2)
            self.assertTrue(all(re.fullmatch(r"trial \d+", t) for t in heads), heads)
            differs = dict(page.eval("[...document.querySelectorAll('section[data-view=compare] "
                                     "tbody tr')].map(r => [r.dataset.row, r.dataset.differs])"))
            self.assertEqual(differs["x"], "1")
            self.assertEqual(differs["test_loss"], "1")
            self.assertEqual(differs["study"], "0")
            lines = page.eval("document.querySelectorAll('section[data-view=compare-curves] "
                              "canvas').length")
            self.assertEqual(lines, 1)
            # Fewer than two trials is refused with the reason.
            page.eval("location.hash = '#/compare/%s'" % page.eval("location.hash").split("/")[2]
                      .split(",")[0])
            page.wait_for("document.querySelector('p.error') && " + READY)
            self.assertIn("name 2 to 8 trials", page.eval("document.querySelector('p.error')"
                                                         ".textContent"))

    def check_metric_column(self, page):
        heads = page.eval("[...document.querySelectorAll('section[data-view=trials] th')]"
                          ".map(th => th.textContent)")
        self.assertIn("test_loss", heads)
        col = heads.index("test_loss")
        cells = page.eval("[...document.querySelectorAll('section[data-view=trials] tbody tr')]"
                          ".map(r => r.cells[%d].textContent)" % col)
        self.assertEqual(len(cells), 4)
        self.assertTrue(all(float(c) >= 0.5 for c in cells), cells)


if __name__ == "__main__":
    if cdp.find_browser() is None:
        print("SKIPPED: no Chromium found (install the `chromium` package, or set "
              "SWEEP_CHROMIUM); the dashboard's explain tests did not run")
        sys.exit(77)
    unittest.main(verbosity=2)
