#!/usr/bin/env python3
"""`sweep delete` and `sweep rename` on real databases written by real sweeps:
a delete asks first (a terminal's yes, or --yes) and removes one study with
everything of its trials, its files found by name only (a path planted in
the database is never followed), and nothing of another study; neither
touches a database a tuner runs on; a renamed study resumes under its new name.
Usage: study_admin_test.py SWEEP_BINARY
"""

import os
import pty
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

SWEEP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/sweep"

STUDY = """name: %s
objective: {metric: value, goal: minimize}
task: {synthetic: {function: branin, steps: 3%s}}
algorithm: {type: random, max_trials: %d}
seed: 1
parameters:
  x1: {type: float, min: -5, max: 10}
  x2: {type: float, min: 0, max: 15}
"""


def sweep(*args, check=True, input=None):
    r = subprocess.run([SWEEP, *args], capture_output=True, text=True, timeout=120, input=input)
    if check and r.returncode != 0:
        raise AssertionError("sweep %s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout,
                                                          r.stderr))
    return r


class StudyAdminTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-admin-")
        self.addCleanup(self.tmp.cleanup)
        self.db = os.path.join(self.tmp.name, "s.db")
        for name in ("a", "b"):
            sweep("run", self.study_file(name), "--db", self.db, "--local-runners", "1",
                  "--progress", "plain")

    def study_file(self, name, step_ms=0, trials=5):
        path = os.path.join(self.tmp.name, name + ".yaml")
        with open(path, "w") as f:
            f.write(STUDY % (name, ", step_ms: %d" % step_ms if step_ms else "", trials))
        return path

    def rows(self, sql, *args):
        with sqlite3.connect(self.db) as con:
            return con.execute(sql, args).fetchall()

    def trial_ids(self, study):
        return [r[0] for r in self.rows("SELECT t.id FROM trials t JOIN studies s ON "
                                        "s.id = t.study_id WHERE s.name = ?", study)]

    def counts(self):
        return {t: self.rows("SELECT count(*) FROM " + t)[0][0]
                for t in ("studies", "trials", "reports", "events")}

    def test_a_delete_asks_first_and_removes_one_study_and_its_files(self):
        a, b = self.trial_ids("a"), self.trial_ids("b")
        # A database's old folders, their files named by trials.id ...
        ckpt, logs = self.db + ".checkpoints", self.db + ".logs"
        # ... and the study folders in s.sweep/, named by number in the study.
        study_a, study_b = [os.path.join(self.tmp.name, "s.sweep", "study-%d" % self.rows(
            "SELECT id FROM studies WHERE name=?", n)[0][0]) for n in ("a", "b")]
        for d in (ckpt, logs, study_a, study_b):
            os.makedirs(d, mode=0o700, exist_ok=True)
        mine = [os.path.join(ckpt, "trial-%d-step-3.ckpt" % a[0]),
                os.path.join(logs, "trial-%d.attempt-1.log" % a[1]),
                os.path.join(study_a, "trial-0.attempt-1.log"),
                os.path.join(study_a, "trial-1-step-3.ckpt")]
        kept = [os.path.join(ckpt, "trial-%d-step-3.ckpt" % b[0]),
                os.path.join(ckpt, "trial-%d0-step-3.ckpt" % a[0]),  # another id's prefix
                os.path.join(ckpt, "notes.txt"),
                os.path.join(study_b, "trial-0.attempt-1.log")]
        victim = os.path.join(self.tmp.name, "victim")
        for p in mine + kept + [victim]:
            with open(p, "w") as f:
                f.write("x")
        # A database from elsewhere may name any path: it is not followed.
        with sqlite3.connect(self.db) as con:
            con.execute("INSERT INTO checkpoints VALUES (?, 3, ?, 1, 0, 0)", (a[0], victim))
        before = self.counts()
        b_reports = self.rows("SELECT count(*) FROM reports WHERE trial_id IN (%s)" %
                              ",".join(map(str, b)))[0][0]

        # Not on a terminal and no --yes: nothing happens.
        r = sweep("delete", "a", "--db", self.db, check=False, input="y\n")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("nothing deleted", r.stderr)
        self.assertIn("--yes", r.stderr)
        self.assertEqual(self.counts(), before)
        # On a terminal, "n" keeps it too.
        self.assertEqual(self.answer(["delete", "a", "--db", self.db], "n"), 2)
        self.assertEqual(self.counts(), before)

        # "y" on a terminal deletes it.
        self.assertEqual(self.answer(["delete", "a", "--db", self.db], "y"), 0)
        self.assertEqual([r[0] for r in self.rows("SELECT name FROM studies")], ["b"])
        self.assertEqual(self.trial_ids("b"), b)
        self.assertEqual(self.rows("SELECT count(*) FROM trials")[0][0], len(b))
        self.assertEqual(self.rows("SELECT count(*) FROM reports")[0][0], b_reports)
        for t in ("reports", "decisions", "checkpoints", "events"):
            left = self.rows("SELECT count(*) FROM %s WHERE trial_id IN (%s)" %
                             (t, ",".join(map(str, a))))[0][0]
            self.assertEqual(left, 0, t)
        for p in mine:
            self.assertFalse(os.path.exists(p), p)
        for p in kept + [victim]:
            self.assertTrue(os.path.exists(p), p)
        self.assertFalse(os.path.exists(study_a))  # its folder goes with it
        # `sweep` still reads the study left.
        self.assertEqual(len(sweep("trials", "--db", self.db, "--format", "csv").stdout
                             .splitlines()), len(b) + 1)

    def answer(self, args, text):
        """Runs sweep on a pseudo-terminal and answers its question."""
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(SWEEP, [SWEEP, *args])
        out = b""
        try:
            while b"[y/N]" not in out:
                out += os.read(fd, 4096)
            os.write(fd, (text + "\n").encode())
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
        finally:
            _, status = os.waitpid(pid, 0)
            os.close(fd)
        self.assertIn(b"cannot be undone", out)
        return os.waitstatus_to_exitcode(status)

    def test_a_renamed_study_resumes_under_its_new_name(self):
        b = self.trial_ids("b")
        r = sweep("rename", "b", "c", "--db", self.db)
        self.assertIn("name: c", r.stdout)
        self.assertEqual(sorted(r[0] for r in self.rows("SELECT name FROM studies")), ["a", "c"])
        self.assertIn('"name":"c"', self.rows("SELECT spec_json FROM studies WHERE name='c'")[0][0]
                      .replace(" ", ""))
        # The same study file, with the new name, resumes it.
        r = sweep("run", self.study_file("c"), "--db", self.db, "--local-runners", "1",
                  "--progress", "plain")
        self.assertEqual(self.trial_ids("c"), b)
        self.assertIn("resuming study 'c'", r.stderr)
        # A taken name and an unknown study are refused, changing nothing.
        r = sweep("rename", "a", "c", "--db", self.db, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("a study named 'c' is already in", r.stderr)
        r = sweep("rename", "zz", "d", "--db", self.db, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no study named 'zz'", r.stderr)
        r = sweep("delete", "zz", "--db", self.db, "--yes", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no study named 'zz'", r.stderr)
        # A name is what study files may say: no control characters.
        r = sweep("rename", "a", "x\x1b[2Jy", "--db", self.db, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("must not contain control characters (character 2 is \\x1b)", r.stderr)
        self.assertEqual(sorted(r[0] for r in self.rows("SELECT name FROM studies")), ["a", "c"])

    def test_nothing_changes_while_a_tuner_runs(self):
        log = open(os.path.join(self.tmp.name, "run.log"), "w")
        self.addCleanup(log.close)
        tuner = subprocess.Popen([SWEEP, "run", self.study_file("slow", step_ms=400, trials=50),
                                  "--db", self.db, "--local-runners", "1", "--progress", "plain"],
                                 stdout=log, stderr=log, start_new_session=True,
                                 # The tuner is killed below: its private socket's
                                 # folder stays in this test's folder, not in /tmp.
                                 env=dict(os.environ, TMPDIR=self.tmp.name))

        def stop():
            if tuner.poll() is None:
                os.killpg(tuner.pid, signal.SIGKILL)
            tuner.wait()
        self.addCleanup(stop)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.rows(
                "SELECT count(*) FROM studies WHERE name='slow'")[0][0]:
            time.sleep(0.05)
        before = self.counts()["studies"]
        for args in (["delete", "a", "--yes"], ["rename", "a", "z"]):
            r = sweep(*args, "--db", self.db, check=False)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("runs on %s: stop it first (`sweep stop --db %s`)" % (self.db, self.db),
                          r.stderr)
        self.assertEqual(self.counts()["studies"], before)
        self.assertEqual(sorted(r[0] for r in self.rows("SELECT name FROM studies")),
                         ["a", "b", "slow"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
