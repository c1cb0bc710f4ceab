"""Ray Tune peer of bench/command/tuning_job.sh: tunes examples/own_script/train.py
with random search (Ray Tune's default, seeded) and the ASHAScheduler
(max_t=STEPS, grace_period=1, reduction_factor=3), 2 trials at a time
(ray.init(num_cpus=2), 1 CPU per trial, max_concurrent_trials=2), within a
budget of epochs.

Usage: tuning_ray.py --python PY --seed S [--budget 69] [--steps 9] [--workers 2]
(the folder of this file must be on PYTHONPATH: Ray's workers import tuning_trial)

The trainable runs train.py as a subprocess (see tuning_trial.py) and calls
tune.report once per epoch; the last epoch's report waits for the program's
end and carries its test_accuracy (ASHA stops a trial at max_t, right after
that report). When ASHA stops a trial, Ray ends its actor, and the program
dies with it (PR_SET_PDEATHSIG, and the process group is killed when the
trainable returns or fails).
Budget: a Searcher that samples the space (tune.loguniform/uniform/choice,
as Ray's default BasicVariantGenerator would) counts the epochs reported
(on_trial_result) and answers FINISHED once BUDGET are: no new trial starts;
the running trials go on to their end (or ASHA's stop), so the epochs
actually trained may exceed BUDGET.
Best: the trial that trained all STEPS epochs with the highest final val_accuracy.
Prints one line: RESULT ray BEST_VAL TEST_ACC EPOCHS TRIALS INNER_S
(INNER_S: tuner.fit() only; ray.init, the imports and ray.shutdown excluded).
"""
import os
import shutil
import tempfile
import time

os.environ.setdefault("RAY_DEDUP_LOGS", "0")
os.environ.setdefault("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS", "1")
os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
import numpy as np  # noqa: E402
import ray  # noqa: E402
from ray import tune  # noqa: E402
from ray.tune.schedulers import ASHAScheduler  # noqa: E402
from ray.tune.search import Searcher  # noqa: E402

from tuning_trial import parse_args  # noqa: E402

args = parse_args()

SPACE = {
    "lr": tune.loguniform(0.005, 0.3),
    "momentum": tune.uniform(0.5, 0.99),
    "batch_size": tune.choice([64, 128, 256]),
    "channels": tune.choice([8, 16, 32]),
    "dropout": tune.uniform(0.0, 0.5),
}


class BudgetSearcher(Searcher):
    """Random search that stops proposing once `budget` epochs are reported."""

    def __init__(self, space, budget, seed):
        super().__init__(metric="val_accuracy", mode="max")
        self.space, self.budget = space, budget
        self.rng = np.random.RandomState(seed)
        self.steps = {}  # trial_id -> last reported step
        self.number = 0

    def epochs(self):
        return sum(self.steps.values())

    def suggest(self, trial_id):
        if self.epochs() >= self.budget:
            return Searcher.FINISHED
        self.number += 1
        config = {k: d.sample(random_state=self.rng) for k, d in self.space.items()}
        config["trial_number"] = self.number
        self.steps[trial_id] = 0
        return config

    def on_trial_result(self, trial_id, result):
        self.steps[trial_id] = max(self.steps.get(trial_id, 0), int(result["step"]))

    def on_trial_complete(self, trial_id, result=None, error=False):
        if result and "step" in result:
            self.on_trial_result(trial_id, result)


def trainable(config):
    from tuning_trial import TrainProcess  # in the Ray worker
    params = {k: config[k] for k in SPACE}
    proc = TrainProcess(config["python"], params, seed=config["seed"], trial_id=config["trial_number"],
                        steps=config["steps"], workdir=config["workdir"], study="ray")
    try:
        for report in proc:
            tune.report(report)
    finally:
        proc.kill()


workdir = tempfile.mkdtemp(prefix="tuning_ray_")
try:
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             _temp_dir=os.path.join(workdir, "ray"))
    searcher = BudgetSearcher(SPACE, args.budget, args.seed)
    fixed = {"python": args.python, "seed": args.seed, "steps": args.steps, "workdir": workdir}
    tuner = tune.Tuner(
        tune.with_resources(trainable, {"cpu": 1}),
        param_space=fixed,
        tune_config=tune.TuneConfig(
            search_alg=searcher,
            scheduler=ASHAScheduler(time_attr="training_iteration", metric="val_accuracy", mode="max",
                                    max_t=args.steps, grace_period=1, reduction_factor=3),
            num_samples=10000,  # the searcher ends the search long before
            max_concurrent_trials=args.workers,
        ),
        run_config=tune.RunConfig(storage_path=os.path.join(workdir, "results"), verbose=0),
    )
    start = time.perf_counter()
    results = tuner.fit()
    inner = time.perf_counter() - start
    assert results.num_errors == 0, f"{results.num_errors} trial(s) failed: {results.errors}"
    finals = [dict(r.metrics, config=r.config) for r in results]
    ray.shutdown()
finally:
    shutil.rmtree(workdir, ignore_errors=True)

trained = sum(int(m.get("step", 0)) for m in finals)
assert trained == searcher.epochs(), (trained, searcher.epochs())
done = [m for m in finals if m.get("step") == args.steps and "test_accuracy" in m]
best = max(done, key=lambda m: m["val_accuracy"]) if done else None
print(f"# ray: {len(done)} trained all {args.steps} epochs, {len(finals) - len(done)} stopped by ASHA; "
      f"best params {({k: best['config'][k] for k in SPACE}) if best else None}", flush=True)
print(f"RESULT ray {best['val_accuracy'] if best else 'nan'} {best['test_accuracy'] if best else 'nan'} "
      f"{trained} {len(finals)} {inner:.3f}")
