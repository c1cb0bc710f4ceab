"""The trial side of a sweep command task, in one file (standard library only).

Copy this file next to your training script, or put clients/python on
PYTHONPATH. Everything it does is the contract in docs/command.md, so a
program in any language can do the same by hand.

    import sweep_trial
    trial = sweep_trial.Trial(defaults={"lr": 0.01})   # defaults: runs outside sweep too
    start = 1
    if trial.resume_dir:                     # a retry, a Hyperband promotion or a PBT child
        state = load(os.path.join(trial.resume_dir, "model.pt"))
        start = trial.resume_step + 1
    for step in range(start, trial.steps + 1):
        loss = train_one_epoch(trial.params["lr"])
        if trial.should_checkpoint(step):
            folder = trial.checkpoint_folder(step)    # a new, empty folder
            save(os.path.join(folder, "model.pt"))
            trial.report(step, checkpoint=True, val_loss=loss)
        else:
            trial.report(step, val_loss=loss)
    trial.final(test_accuracy=acc)           # metrics without a step
"""

import json
import math
import os
import sys

__all__ = ["Trial"]


def _int_env(name, default):
    value = os.environ.get(name, "")
    return int(value) if value else default


class Trial:
    """The trial this process runs: its parameters, steps and folders."""

    def __init__(self, defaults=None, steps=1):
        params_file = os.environ.get("SWEEP_PARAMS_FILE")
        self.under_sweep = params_file is not None
        self.params = dict(defaults or {})
        if params_file:
            with open(params_file, encoding="utf-8") as f:
                self.params.update(json.load(f))
        self.study = os.environ.get("SWEEP_STUDY", "")
        self.trial = _int_env("SWEEP_TRIAL", 0)  # its number: `sweep why TRIAL`
        self.trial_id = _int_env("SWEEP_TRIAL_ID", 0)  # the database's id
        self.attempt = _int_env("SWEEP_ATTEMPT", 1)
        self.seed = _int_env("SWEEP_SEED", 0)
        self.steps = _int_env("SWEEP_STEPS", steps)
        self.checkpoint_dir = os.environ.get("SWEEP_CHECKPOINT_DIR", "")
        self.resume_dir = os.environ.get("SWEEP_RESUME_DIR") or None
        self.resume_step = _int_env("SWEEP_RESUME_STEP", 0)
        text = os.environ.get("SWEEP_DECISION_STEPS", "")
        self.decision_steps = [int(s) for s in text.split(",") if s]
        self._last_step = self.resume_step

    def should_checkpoint(self, step):
        """True at the steps where the tuner decides (rungs, PBT intervals)
        and at the last step: where a checkpoint can be resumed from."""
        return bool(self.checkpoint_dir) and (step in self.decision_steps or step == self.steps)

    def checkpoint_folder(self, step):
        """Makes and returns the new folder for step `step`'s checkpoint. Write
        your files there, then report(step, checkpoint=True, ...); never touch
        the folder again (the runner takes it away)."""
        if not self.checkpoint_dir:
            raise RuntimeError("no SWEEP_CHECKPOINT_DIR: not running under a sweep runner")
        folder = os.path.join(self.checkpoint_dir, str(int(step)))
        os.mkdir(folder, 0o700)
        return folder

    def report(self, step, checkpoint=False, **metrics):
        """Reports step `step` (1, 2, ...; increasing) with its metrics."""
        step = int(step)
        if step <= self._last_step:
            raise ValueError("step %d after step %d: steps must increase" % (step, self._last_step))
        self._last_step = step
        line = {"step": step}
        if checkpoint:
            line["checkpoint"] = True
        line.update({k: float(v) for k, v in metrics.items()})
        self._emit(line)

    def final(self, **metrics):
        """Final metrics (e.g. a test accuracy): stored, never judged."""
        self._emit({k: float(v) for k, v in metrics.items()})

    @staticmethod
    def _emit(obj):
        # json.dumps writes NaN and Infinity, which the runner accepts.
        sys.stdout.write("SWEEP_REPORT " + json.dumps(obj) + "\n")
        sys.stdout.flush()


def _selftest():
    t = Trial(defaults={"x": 1.0}, steps=2)
    for s in range(1, t.steps + 1):
        t.report(s, value=t.params["x"] / s)
    t.final(extra=math.pi)


if __name__ == "__main__":
    _selftest()
