"""What both peers of bench/command do in a trial: run program.py as a
subprocess and read its SWEEP_REPORT lines back.
"""
import json
import os
import subprocess

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "program.py")


def run_program(python, x):
    """Runs program.py with `python`; returns its reports [(step, loss), ...]."""
    out = subprocess.run([python, PROGRAM, "--x", repr(x)], capture_output=True, text=True, check=True)
    reports = []
    for line in out.stdout.splitlines():
        if line.startswith("SWEEP_REPORT "):
            r = json.loads(line[len("SWEEP_REPORT "):])
            reports.append((r["step"], r["loss"]))
    if not reports:
        raise RuntimeError("program.py printed no SWEEP_REPORT line")
    return reports
