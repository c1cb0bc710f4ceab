"""Ray Tune peer for bench/dispatch: N random-search trials x R reports of
Branin, 2 concurrent trials.

Usage: ray_bench.py N R
Prints one line: ray-tune N R seconds trials_per_s reports_per_s
"""
import math
import os
import sys
import tempfile
import time

os.environ.setdefault("RAY_DEDUP_LOGS", "0")
os.environ.setdefault("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS", "1")
import ray
from ray import tune

n, r = int(sys.argv[1]), int(sys.argv[2])


def branin(x1, x2):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def trainable(config):
    v = 0.0
    for step in range(1, r + 1):
        v = branin(config["x1"], config["x2"])
        tune.report({"value": v, "step": step})


ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
start = time.perf_counter()
tuner = tune.Tuner(
    trainable,
    param_space={"x1": tune.uniform(-5, 10), "x2": tune.uniform(0, 15)},
    tune_config=tune.TuneConfig(num_samples=n, max_concurrent_trials=2, metric="value", mode="min", reuse_actors=True),
    run_config=tune.RunConfig(storage_path=tempfile.mkdtemp(prefix="ray_bench_"), verbose=0),
)
tuner.fit()
secs = time.perf_counter() - start
print(f"ray-tune {n} {r} {secs:.3f} {n / secs:.1f} {n * r / secs:.1f}")
