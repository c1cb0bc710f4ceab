#!/usr/bin/env python3
"""bench/slurm's driver (see run.sh): one study run with the service's Slurm
launcher and with a fixed array of runner jobs, alternating; SLURM_CONF names
the cluster. Standard library only."""
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SWEEP, SCRIPT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
REPEAT, RUNNERS, IDLE, TRIALS, WAIT_S = (int(a) for a in sys.argv[3:8])
STEPS, STEP_MS = 30, 250  # 7.5 s a trial

STUDY = f"""name: bench
objective: {{metric: value, goal: minimize}}
task: {{synthetic: {{function: curve, steps: {STEPS}, step_ms: {STEP_MS}}}}}
algorithm: {{type: random, max_trials: {TRIALS}}}
seed: 11
parameters:
  x1: {{type: float, min: 0, max: 1}}
  x2: {{type: float, min: 0, max: 1}}
"""


def sh(*cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


class JobWatch(threading.Thread):
    """Polls squeue every 0.5 s: each job's first and last time seen RUNNING."""

    def __init__(self):
        super().__init__(daemon=True)
        self.running = {}  # job -> [first, last]
        self.stop = False
        self.queued = 0

    def run(self):
        while not self.stop:
            out = sh("squeue", "--noheader", "--format=%i|%T").stdout.split()
            now = time.time()
            self.queued = len(out)
            for line in out:
                job, state = line.split("|")[:2]
                if state == "RUNNING":
                    self.running.setdefault(job, [now, now])[1] = now
            time.sleep(0.5)

    def runner_seconds(self, until=None):
        return sum(min(last, until or last) - first for first, last in self.running.values()
                   if until is None or first < until)


def query(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def wait_for(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.2)
    return False


def one_round(mode, work):
    db = os.path.join(work, "s.db")
    study = os.path.join(work, "study.yaml")
    with open(study, "w") as f:
        f.write(STUDY)
    log = open(os.path.join(work, "serve.log"), "w")
    env = dict(os.environ)
    if mode == "launcher":
        serve = subprocess.Popen([SWEEP, "serve", "--db", db, "--local-runners", "0",
                                  "--heartbeat-ms", "500", "--launcher", "slurm",
                                  "--launch-max", str(RUNNERS), "--launch-idle", str(IDLE),
                                  "--launch-dir", os.path.join(work, "launch")],
                                 stdout=log, stderr=subprocess.STDOUT)
    else:
        keys = os.path.join(work, "keys")
        sh(SWEEP, "keys", "new", "tuner", "--dir", keys)
        sh(SWEEP, "keys", "new", "slurm", "--role", "runner", "--dir", keys)
        serve = subprocess.Popen([SWEEP, "serve", "--db", db, "--local-runners", "0",
                                  "--heartbeat-ms", "500", "--keys", keys],
                                 stdout=log, stderr=subprocess.STDOUT)
        env.update(SWEEP=SWEEP, SWEEP_KEY=f"{keys}/runners/slurm.key",
                   SWEEP_SERVER_KEY=f"{keys}/tuner.pub", SWEEP_EXIT_WHEN_IDLE="0")
    path = os.path.join(work, "serve.log")
    assert wait_for(lambda: "runners join at" in open(path).read(), 30), open(path).read()
    endpoint = re.search(r"runners join at (\S+)", open(path).read()).group(1)
    watch = JobWatch()
    watch.start()
    t0 = time.time()
    r = sh(SWEEP, "submit", study, "--db", db)
    assert r.returncode == 0, r.stdout + r.stderr
    if mode == "fixed":
        r = sh("sbatch", f"--array=1-{RUNNERS}", "--job-name=fixed-runners",
               f"--output={work}/%A_%a.out", SCRIPT, endpoint, "--heartbeat-ms", "500", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
    done = lambda: query(db, "SELECT count(*) FROM trials WHERE status='completed'")[0][0] == TRIALS
    assert wait_for(done, 1800), open(path).read()
    first_start, last_end, busy = query(
        db, "SELECT min(started_at), max(ended_at), sum(ended_at - started_at) FROM trials")[0]
    if mode == "launcher":
        emptied = wait_for(lambda: watch.queued == 0, IDLE + 120)
        t_empty = time.time() - last_end if emptied else None
        time.sleep(1)
        total = watch.runner_seconds()
    else:
        # The runners stay; someone notices WAIT_S later and cancels them.
        time.sleep(max(0.0, last_end + WAIT_S - time.time()))
        total = watch.runner_seconds(until=last_end + WAIT_S)
        sh("scancel", "--name=fixed-runners")
        t_empty = None
    watch.stop = True
    sh(SWEEP, "stop", "--db", db)
    serve.wait(60)
    wait_for(lambda: sh("squeue", "--noheader").stdout.strip() == "", 60)
    return {"first_trial_s": first_start - t0, "empty_after_s": t_empty,
            "runner_s": total, "busy_s": busy, "idle_share": 1 - busy / total,
            "study_s": last_end - t0}


def main():
    cpu = next((l.split(":", 1)[1].strip() for l in sh("lscpu").stdout.splitlines()
                if l.startswith("Model name")), "?")
    print(f"# bench/slurm: {TRIALS} trials of {STEPS * STEP_MS / 1000:.1f} s, {RUNNERS} runners, "
          f"--launch-idle {IDLE}; fixed array cancelled {WAIT_S} s after the last trial")
    print(f"# CPU: {cpu}, {os.cpu_count()} cores; {sh('sinfo', '--version').stdout.strip()}")
    results = {"launcher": [], "fixed": []}
    for i in range(REPEAT):
        for mode in (("launcher", "fixed") if i % 2 == 0 else ("fixed", "launcher")):
            work = tempfile.mkdtemp(prefix=f"sweep-bench-{mode}-")
            try:
                r = one_round(mode, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            results[mode].append(r)
            print(f"round {i + 1} {mode:8s}: submit->first trial {r['first_trial_s']:.2f} s, "
                  f"study {r['study_s']:.1f} s, last trial->empty queue "
                  f"{'never (cancelled by hand)' if r['empty_after_s'] is None else '%.1f s' % r['empty_after_s']}, "
                  f"runner-seconds {r['runner_s']:.0f} (busy {r['busy_s']:.0f}), idle "
                  f"{100 * r['idle_share']:.1f}%", flush=True)
    med = lambda mode, k: statistics.median(r[k] for r in results[mode])
    print(f"median launcher: first trial {med('launcher', 'first_trial_s'):.2f} s, empty queue "
          f"{med('launcher', 'empty_after_s'):.1f} s after the last trial, idle "
          f"{100 * med('launcher', 'idle_share'):.1f}% of {med('launcher', 'runner_s'):.0f} "
          f"runner-seconds")
    print(f"median fixed:    first trial {med('fixed', 'first_trial_s'):.2f} s, idle "
          f"{100 * med('fixed', 'idle_share'):.1f}% of {med('fixed', 'runner_s'):.0f} "
          f"runner-seconds (to {WAIT_S} s after the last trial)")
    print(f"runner-seconds launcher/fixed: "
          f"{med('launcher', 'runner_s') / med('fixed', 'runner_s'):.2f}")


if __name__ == "__main__":
    main()
