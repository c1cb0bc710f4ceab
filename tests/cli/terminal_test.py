#!/usr/bin/env python3
"""What a user sees on a terminal, in a real pseudo-terminal of a set width:
`sweep run`'s status line fits the width (it never wraps), shows the time
elapsed and left and the slowest running trial's step, and runner log lines
never get glued onto it; `sweep watch` follows a sweep that runs in another
process, ends with its outcome, names an interrupted one and how to resume
it, and stops on Ctrl-C.
Usage: terminal_test.py SWEEP_BINARY
"""

import errno
import fcntl
import os
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

SWEEP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/sweep"

# 12 trials of 10 steps of 60 ms on 2 runners: a few seconds.
STUDY = """name: term
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: 10, step_ms: 60}}
algorithm: {type: random, max_trials: 12}
seed: 3
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
"""
STATUS = re.compile(r"^\[term\] done ")


def in_pty(args, cols, timeout=120, on_output=None):
    """Runs args with stdin, stdout and stderr on a pty `cols` wide; returns
    (exit code, everything written). on_output(proc, text so far) is called as
    output comes."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            start_new_session=True)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError as e:  # EIO: every writer has closed the pty
                    if e.errno != errno.EIO:
                        raise
                    chunk = b""
                if not chunk:
                    break
                out += chunk
                if on_output:
                    on_output(proc, out.decode("utf-8", "replace"))
            elif proc.poll() is not None:
                break
        else:
            raise AssertionError("%s did not end in %d s:\n%s" % (args, timeout, out[-2000:]))
        return proc.wait(timeout=30), out.decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)


def runners_of(pid):
    """The pids of the local runners a tuner started."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"runner" in cmd[1:2]:
            out.append(int(p))
    return out


def segments(text):
    """What a terminal shows as separate redraws: text between \\r and \\n,
    without the erase-line sequence."""
    return [s.replace("\x1b[K", "") for s in re.split(r"[\r\n]", text) if s.replace("\x1b[K", "")]


def width(s):
    return len(s)  # the tests' text is ASCII; sweep counts characters, not bytes


class TerminalTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-term-")
        self.addCleanup(self.tmp.cleanup)
        # The sweeps these tests kill with SIGKILL leave their temporary
        # folders (the local runners' socket folder) here, not in /tmp.
        old_tmpdir = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = self.tmp.name

        def restore():
            if old_tmpdir is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = old_tmpdir
        self.addCleanup(restore)
        self.study = os.path.join(self.tmp.name, "study.yaml")
        with open(self.study, "w") as f:
            f.write(STUDY)
        self.db = os.path.join(self.tmp.name, "s.db")

    def start_sweep(self):
        """A sweep in the background, its output to a file (not a terminal)."""
        log = open(os.path.join(self.tmp.name, "run.log"), "w")
        self.addCleanup(log.close)
        proc = subprocess.Popen([SWEEP, "run", self.study, "--db", self.db, "--local-runners", "2"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)

        def stop():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        self.addCleanup(stop)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(self.db):
                try:
                    with sqlite3.connect("file:%s?mode=ro" % self.db, uri=True) as con:
                        if con.execute("SELECT count(*) FROM trials WHERE status = 'running'"
                                       ).fetchone()[0]:
                            return proc
                except sqlite3.Error:
                    pass
            time.sleep(0.05)
        self.fail("the sweep did not start a trial in 60 s")

    def test_the_run_status_line_fits_the_terminal_and_says_how_long(self):
        # Once the line is drawn, a local runner is killed: the tuner logs
        # it and starts another, which logs as it starts, while the status
        # line is on the screen. Neither may be glued to it.
        killed = []

        def kill_a_runner(proc, text):
            if killed or text.count("[term] done") < 3:
                return
            for pid in runners_of(proc.pid):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
        rc, out = in_pty([SWEEP, "run", self.study, "--db", self.db, "--local-runners", "2"], 48,
                         on_output=kill_a_runner)
        self.assertEqual(rc, 0, out[-2000:])
        self.assertTrue(killed, out[-2000:])
        self.assertGreaterEqual(out.count("' joined (pid"), 3, out[-3000:])
        shown = segments(out)
        status = [s for s in shown if STATUS.match(s)]
        self.assertGreater(len(status), 2, out[-2000:])
        for s in status:
            self.assertLessEqual(width(s), 47, s)
        # A status line is never followed by log text on the same line, nor
        # preceded by it.
        for s in shown:
            if STATUS.match(s):
                self.assertNotRegex(s, r" (info|warn|error): ", s)
            else:
                self.assertNotIn("[term] done", s)
        # Wide enough, it says how long it has run, how long is left, and
        # how far the slowest running trial is.
        db = os.path.join(self.tmp.name, "wide.db")
        rc, out = in_pty([SWEEP, "run", self.study, "--db", db, "--local-runners", "2"], 220)
        self.assertEqual(rc, 0, out[-2000:])
        status = [s for s in segments(out) if STATUS.match(s)]
        self.assertTrue(any(re.search(r"\d+s elapsed", s) for s in status), status)
        self.assertTrue(any(re.search(r"~\d+s left", s) for s in status), status)
        self.assertTrue(any(re.search(r"running \d+ \(slowest at step \d+\)", s) for s in status),
                        status)

    def test_watch_follows_another_process_sweep_to_its_end(self):
        sweep = self.start_sweep()
        rc, out = in_pty([SWEEP, "watch", "--db", self.db, "--interval", "0.2"], 60)
        self.assertEqual(rc, 0, out[-2000:])
        self.assertEqual(sweep.wait(timeout=60), 0)
        status = [s for s in segments(out) if STATUS.match(s)]
        self.assertGreater(len(status), 3, out)
        for s in status:
            self.assertLessEqual(width(s), 59, s)
        self.assertRegex(out, r"study 'term' is completed: 12 trials ended \(12 completed, "
                              r"0 failed, 0 stopped\) in \d+s, best value \d")
        # It counted up while it watched: not only the end.
        done = {int(re.match(r"\[term\] done (\d+)", s).group(1)) for s in status}
        self.assertGreater(len(done), 1, status)
        # Read again afterwards, not on a terminal: one line and the outcome.
        r = subprocess.run([SWEEP, "watch", "term", "--db", self.db], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertRegex(lines[0], r"^\[term\] done 12/12  running 0  best ")
        self.assertIn("is completed", lines[1])

    def test_watch_counts_the_trials_a_grid_or_hyperband_plans(self):
        # Neither sets max_trials: N/M is the grid's points and the brackets'
        # trials, as `sweep plan` counts them.
        examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples")
        hyperband = os.path.join(self.tmp.name, "hb.yaml")
        with open(hyperband, "w") as f:
            f.write(STUDY.replace("name: term", "name: hb")
                    .replace("step_ms: 60", "step_ms: 0")
                    .replace("{type: random, max_trials: 12}", "{type: hyperband}"))
        for study, name in ((os.path.join(examples, "grid_4x5.yaml"), "grid-4x5"),
                            (hyperband, "hb")):
            plan = subprocess.run([SWEEP, "plan", study, "--format", "json"],
                                  capture_output=True, text=True, timeout=60).stdout
            total = re.search(r'"(?:total_trials|max_trials)": (\d+)', plan).group(1)
            r = subprocess.run([SWEEP, "run", study, "--db", self.db, "--local-runners", "2",
                                "--progress", "plain"], capture_output=True, text=True,
                               timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([SWEEP, "watch", name, "--db", self.db], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"^\[%s\] done %s/%s  " % (re.escape(name), total, total))

    def test_watch_names_an_interrupted_study_and_how_to_resume_it(self):
        sweep = self.start_sweep()
        os.killpg(sweep.pid, signal.SIGKILL)  # the tuner and its runners
        sweep.wait()
        r = subprocess.run([SWEEP, "watch", "--db", self.db], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("study 'term' is interrupted", r.stdout)
        self.assertIn("`sweep run %s --db %s` resumes it" % (os.path.abspath(self.study), self.db),
                      r.stdout)

    def test_watch_stops_on_ctrl_c_and_bad_input_is_named(self):
        self.start_sweep()
        sent = []

        def interrupt(proc, text):
            if not sent and "[term] done" in text:
                os.kill(proc.pid, signal.SIGINT)
                sent.append(1)
        rc, out = in_pty([SWEEP, "watch", "--db", self.db, "--interval", "0.2"], 80,
                         on_output=interrupt)
        self.assertTrue(sent, out)
        self.assertEqual(rc, 130, out)
        r = subprocess.run([SWEEP, "watch", "--db", os.path.join(self.tmp.name, "none.db")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("none.db: no such database", r.stderr)
        r = subprocess.run([SWEEP, "watch", "other", "--db", self.db], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no study named 'other'", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
