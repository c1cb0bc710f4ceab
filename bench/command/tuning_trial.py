"""What the Optuna and Ray Tune peers of bench/command/tuning_job.sh do in a
trial: run examples/own_script/train.py as a subprocess with the environment
a sweep runner gives it (docs/command.md), and read its SWEEP_REPORT lines.

The program gets SWEEP_PARAMS_FILE, SWEEP_STEPS, SWEEP_SEED, SWEEP_TRIAL_ID,
SWEEP_TRIAL, SWEEP_ATTEMPT=1, SWEEP_STUDY and an empty SWEEP_DECISION_STEPS,
and no SWEEP_CHECKPOINT_DIR: clients/python/sweep_trial.py then never
checkpoints (should_checkpoint() is False), which is right for peers that
cannot resume a trial anyway. OMP_NUM_THREADS=1 as in sweep's study; every
other variable (TRAIN_LIMIT, FASHION_MNIST_DIR) comes from this process.

The program runs in a process group of its own with PR_SET_PDEATHSIG
(SIGKILL): kill() ends the whole group, and if the process that started it
dies (a Ray actor killed when ASHA stops its trial), the kernel kills it.
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TRAIN = os.path.join(ROOT, "examples", "own_script", "train.py")

_PR_SET_PDEATHSIG = 1


def _die_with_parent():  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class TrainProcess:
    """One run of train.py. Iterate over it for the per-step reports (dicts
    with "step"); the report of the last step is yielded only once the
    program has exited, with the final metrics (test_accuracy) merged in, so
    a caller whose framework stops the trial at its last report (Ray's ASHA
    at max_t) still gets the test accuracy."""

    def __init__(self, python, params, *, seed, trial_id, steps, workdir, study="peer"):
        self.steps = steps
        self.final = {}
        self.last_step = 0
        params_file = os.path.join(workdir, f"params-{trial_id}.json")
        with open(params_file, "w") as f:
            json.dump(params, f)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWEEP_")}
        env.update({
            "OMP_NUM_THREADS": "1",
            "SWEEP_PARAMS_FILE": params_file,
            "SWEEP_STUDY": study,
            "SWEEP_TRIAL": str(trial_id),
            "SWEEP_TRIAL_ID": str(trial_id),
            "SWEEP_ATTEMPT": "1",
            "SWEEP_SEED": str(seed),
            "SWEEP_STEPS": str(steps),
            "SWEEP_DECISION_STEPS": "",
        })
        self.stderr_path = os.path.join(workdir, f"stderr-{trial_id}.txt")
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [python, TRAIN], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr,
            env=env, cwd=os.path.dirname(TRAIN), text=True, start_new_session=True,
            preexec_fn=_die_with_parent)

    def __iter__(self):
        held = None
        for line in self.proc.stdout:
            if not line.startswith("SWEEP_REPORT "):
                continue
            report = json.loads(line[len("SWEEP_REPORT "):])
            if "step" not in report:
                self.final.update(report)
                continue
            self.last_step = report["step"]
            if report["step"] >= self.steps:
                held = report  # wait for the final metrics
            else:
                yield report
        code = self.proc.wait()
        self._stderr.close()
        if code != 0:
            with open(self.stderr_path, "rb") as f:
                tail = f.read()[-2000:].decode(errors="replace")
            raise RuntimeError(f"train.py exited with code {code}: {tail}")
        if held is not None:
            held.update(self.final)
            yield held

    def kill(self):
        """Ends the program's whole process group (no-op once it has exited)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._stderr.close()


def parse_args():
    """The options tuning_job.sh gives both peers."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--budget", type=int, default=69)
    ap.add_argument("--steps", type=int, default=9)
    ap.add_argument("--workers", type=int, default=2)
    return ap.parse_args()
