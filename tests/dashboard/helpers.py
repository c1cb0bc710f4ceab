"""What the dashboard's Python tests share: real sweeps into real
databases, a real `sweep dashboard` process, and HTTP requests to it.
Standard library only (the tests run on a fresh Debian with /usr/bin/python3).
"""

import json
import os
import re
import signal
import sqlite3
import subprocess
import tempfile
import urllib.error
import urllib.request

# Three studies in one database: ASHA with a conditional parameter (rungs,
# absent values), Hyperband (brackets) and PBT (lineage).
ASHA = """name: asha
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: 27}}
algorithm: {type: asha, max_trials: 60, asha: {min_resource: 1, reduction_factor: 3}}
seed: 4
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0.001, max: 1, log: true}
  opt: {type: categorical, values: [sgd, adam, "</script><b id=pwn>x</b>"]}
  momentum: {type: float, min: 0.5, max: 0.99, when: {opt: sgd}}
"""
# A choice that would be markup if a page or the report ever pasted text
# from the database as HTML.
HOSTILE = "</script><b id=pwn>x</b>"
HYPERBAND = """name: hb
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: 9}}
algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}
seed: 5
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
"""
PBT = """name: pbt
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: 12}}
algorithm: {type: pbt, pbt: {population: 6, perturbation_interval: 3, quantile: 0.34}}
seed: 9
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
  opt: {type: categorical, values: [a, b, c, d]}
"""


def run(sweep, *args, check=True, env=None):
    r = subprocess.run([sweep, *args], capture_output=True, text=True, timeout=300, env=env)
    if check and r.returncode != 0:
        raise AssertionError("sweep %s: exit %d\n%s%s" % (" ".join(args), r.returncode,
                                                          r.stdout, r.stderr))
    return r


def run_study(sweep, folder, yaml, db, runners=2):
    path = os.path.join(folder, re.search(r"name: (\w+)", yaml).group(1) + ".yaml")
    with open(path, "w") as f:
        f.write(yaml)
    run(sweep, "run", path, "--db", db, "--local-runners", str(runners), "--progress", "plain")
    return path


def trials_json(sweep, db, study):
    return json.loads(run(sweep, "trials", study, "--db", db, "--format", "json").stdout)


def query(db, sql, *args):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


class Dashboard:
    """`sweep dashboard` on a free loopback port; stopped with SIGTERM."""

    def __init__(self, sweep, db, *args, env=None, bind="127.0.0.1:0"):
        """`sweep` may be a list: a command that runs sweep (`ip netns exec
        NS sweep`, which execs it, so the pid is the dashboard's)."""
        command = list(sweep) if isinstance(sweep, (list, tuple)) else [sweep]
        self.proc = subprocess.Popen([*command, "dashboard", "--db", db, "--bind", bind, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env)
        line = self.proc.stdout.readline()
        m = re.search(r"http://[^/\s]+/", line)
        if not m:
            self.proc.kill()
            raise AssertionError("no address from sweep dashboard: %r %s"
                                 % (line, self.proc.stderr.read()))
        self.url = m.group(0)
        self.line = line

    def get(self, path, headers=None, method="GET"):
        """(status, headers, body bytes); never raises for an HTTP status."""
        req = urllib.request.Request(self.url + path.lstrip("/"), headers=headers or {},
                                     method=method, data=b"x" if method in ("POST", "PUT") else None)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def json(self, path, headers=None):
        status, _, body = self.get(path, headers)
        if status != 200:
            raise AssertionError("%s: HTTP %d %s" % (path, status, body[:300]))
        return json.loads(body)

    def stop(self):
        """SIGTERM; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def temp_folder():
    return tempfile.TemporaryDirectory(prefix="sweep-dashboard-test-")
