"""Ray Tune peer for bench/command: N random-search trials, each running
bench/command/program.py as a subprocess, 2 concurrent trials (ray.init with
num_cpus=2, max_concurrent_trials=2).

Usage: ray_bench.py N [PYTHON]   (PYTHON: the interpreter that runs
program.py; default python3)
Every step of the program's output is reported with tune.report (sweep
stores every step too); the objective is the last report's loss.
Timed: tuner.fit() only. ray.init (starting the Ray cluster processes) and
the import are NOT timed.
Prints one line: ray-tune N seconds trials_per_s
"""
import os
import shutil
import sys
import tempfile
import time

from peer_program import run_program

os.environ.setdefault("RAY_DEDUP_LOGS", "0")
os.environ.setdefault("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS", "1")
import ray
from ray import tune

n = int(sys.argv[1])
python = sys.argv[2] if len(sys.argv) > 2 else "python3"


def trainable(config):
    for step, loss in run_program(python, config["x"]):
        tune.report({"loss": loss, "step": step})


tmp = tempfile.mkdtemp(prefix="ray_command_")
try:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    tuner = tune.Tuner(
        trainable,
        param_space={"x": tune.uniform(0, 1)},
        tune_config=tune.TuneConfig(num_samples=n, max_concurrent_trials=2, metric="loss", mode="min", reuse_actors=True),
        run_config=tune.RunConfig(storage_path=tmp, verbose=0),
    )
    start = time.perf_counter()
    results = tuner.fit()
    secs = time.perf_counter() - start
    errors = results.num_errors
    assert len(results) == n and errors == 0, f"expected {n} trials without errors, found {len(results)} with {errors} errors"
    ray.shutdown()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"ray-tune {n} {secs:.3f} {n / secs:.1f}")
