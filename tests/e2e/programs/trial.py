"""A command trial for the e2e tests (standard library and clients/python only).

loss at step s is (x - 0.3)^2 + 1/s. Options pick a behaviour to test; with
--record DIR it writes what it saw into DIR so the test can check it.
"""
import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import sweep_trial

ap = argparse.ArgumentParser()
ap.add_argument("--x", type=float, required=True)
ap.add_argument("--record", default="")
ap.add_argument("--sleep", type=float, default=0.0)
ap.add_argument("--checkpoint", action="store_true")
ap.add_argument("--ignore-term", action="store_true")
ap.add_argument("--grandchild", action="store_true")
ap.add_argument("--hang-after", type=int, default=0)
ap.add_argument("--exit-code", type=int, default=0)
ap.add_argument("--no-report", action="store_true")
ap.add_argument("--nan", action="store_true")
ap.add_argument("--garbage", action="store_true")
ap.add_argument("--flood-mb", type=int, default=0)
ap.add_argument("--fail-above", type=float, default=None, help="exit 3 when x is above this")
ap.add_argument("--fail-while", default="", help="with --fail-above: only while this file exists")
ap.add_argument("--mode", default="ok", help="ok, exit3, noreport, nanloss, garbage, flood, hang or badutf8")
args = ap.parse_args()
if args.mode == "exit3":
    args.exit_code = 3
elif args.mode == "noreport":
    args.no_report = True
elif args.mode == "nanloss":
    args.nan = True
elif args.mode == "garbage":
    args.garbage = True
elif args.mode == "flood":
    args.flood_mb = 100
elif args.mode == "hang":
    args.hang_after = 1
elif args.mode == "badutf8":
    # Not UTF-8 on stderr (a cut progress bar) and in a metric's name.
    sys.stderr.buffer.write("progress ████".encode()[:-1] + b" \xff\xfe\n")
    sys.stderr.flush()
    sys.stdout.buffer.write(b'SWEEP_REPORT {"\xffbad": 1, "step": 1, "loss": 0.5}\n')
    sys.stdout.flush()
    sys.exit(3)

if (args.fail_above is not None and args.x > args.fail_above and
        (not args.fail_while or os.path.exists(args.fail_while))):
    print("x=%g is above %g: failing on purpose" % (args.x, args.fail_above), file=sys.stderr)
    sys.exit(3)

trial = sweep_trial.Trial()
if args.ignore_term:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def record(name, text):
    if args.record:
        with open(os.path.join(args.record, name), "a") as f:
            f.write(text)


if args.grandchild:
    # A grandchild that would outlive a careless runner: it ignores SIGTERM too.
    child = subprocess.Popen(["sh", "-c", "trap '' TERM; while true; do sleep 1; done"])
    record("pids", "%d\n%d\n" % (os.getpid(), child.pid))
else:
    record("pids", "%d\n" % os.getpid())

start = 1
if trial.resume_dir:
    with open(os.path.join(trial.resume_dir, "state.bin"), "rb") as f:
        state = f.read()
    record("resumed", "%d %d %d %s\n" % (trial.trial_id, trial.attempt, trial.resume_step,
                                         hashlib.sha256(state).hexdigest()))
    with open(os.path.join(trial.resume_dir, "sub", "note.txt")) as f:
        if f.read() != "nested\n":
            sys.exit(5)  # the checkpoint's nested file is missing or changed
    start = trial.resume_step + 1
record("starts", "%d %d %d\n" % (trial.trial_id, trial.attempt, start))
record("env", json.dumps({k: v for k, v in os.environ.items() if k.startswith("SWEEP_")}) + "\n")

if args.no_report:
    sys.exit(args.exit_code)
if args.garbage:
    print("SWEEP_REPORT {not json", flush=True)
    print("SWEEP_REPORT {\"step\": -4, \"loss\": 1}", flush=True)
    print("SWEEP_REPORT " + "[" * 100000, flush=True)
    sys.stdout.buffer.write(b"\x00\xff\xfe binary \x1b[2J garbage\n")
    sys.stdout.flush()
if args.flood_mb:
    chunk = (b"x" * 1023 + b"\n") * 1024
    for _ in range(args.flood_mb):
        sys.stdout.buffer.write(chunk)
    sys.stderr.buffer.write(b"y" * (3 << 20) + b"\n")  # one 3 MiB line
    sys.stdout.flush()

for step in range(start, trial.steps + 1):
    if args.sleep:
        time.sleep(args.sleep)
    print("training step %d" % step, flush=True)  # the trial's log, not a report
    loss = float("nan") if args.nan else (args.x - 0.3) ** 2 + 1.0 / step
    if args.checkpoint and trial.should_checkpoint(step):
        folder = trial.checkpoint_folder(step)
        state = os.urandom(64) + ("trial %d step %d" % (trial.trial_id, step)).encode()
        with open(os.path.join(folder, "state.bin"), "wb") as f:
            f.write(state)
        os.mkdir(os.path.join(folder, "sub"))
        with open(os.path.join(folder, "sub", "note.txt"), "w") as f:
            f.write("nested\n")
        record("checkpoints", "%d %d %s\n" % (trial.trial_id, step, hashlib.sha256(state).hexdigest()))
        trial.report(step, checkpoint=True, loss=loss)
    else:
        trial.report(step, loss=loss)
    if args.hang_after and step >= args.hang_after:
        while True:
            time.sleep(1)
print("a line of the trial's log on stderr", file=sys.stderr)
trial.final(extra=args.x)
if args.exit_code:
    print("boom: failing on purpose", file=sys.stderr)
sys.exit(args.exit_code)
