"""Fashion-MNIST with PyTorch (CPU), as a sweep command trial.

A real training script that uses clients/python/sweep_trial.py: it reads its
parameters, reports validation accuracy per epoch, writes a checkpoint where
the tuner decides, resumes from one, and reports the test accuracy at the
end. Outside sweep it runs with its defaults: `python3 train.py`.

Needs PyTorch (Debian: python3-torch) and the Fashion-MNIST IDX files
(Debian: dataset-fashion-mnist, in /usr/share/datasets/fashion-mnist).
TRAIN_LIMIT=N in the environment trains on the first N training images only
(for a quick try; the validation and test sets stay whole).
BENCH_TIMING_FILE=PATH appends this process's seconds to PATH, a line each:
"start_s X" (imports and data), "epoch_s X" (an epoch with its validation),
"save_s X" (a checkpoint) and "final_s X" (the test pass).
bench/command/tuning_job.sh sums them to see where each tool's wall time went.
"""
import time

_STARTED = time.perf_counter()

import gzip  # noqa: E402
import os  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
import sweep_trial  # noqa: E402

DATA = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def read_idx(name):
    path = os.path.join(DATA, name)
    opener = gzip.open if os.path.exists(path + ".gz") else open
    with opener(path + ".gz" if opener is gzip.open else path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def load(validation=10000):
    x = read_idx("train-images-idx3-ubyte").float().div_(255).unsqueeze(1)
    y = read_idx("train-labels-idx1-ubyte").long()
    tx = read_idx("t10k-images-idx3-ubyte").float().div_(255).unsqueeze(1)
    ty = read_idx("t10k-labels-idx1-ubyte").long()
    g = torch.Generator().manual_seed(0)  # the same split for every trial
    perm = torch.randperm(len(x), generator=g)
    val, train = perm[:validation], perm[validation:]
    limit = int(os.environ.get("TRAIN_LIMIT", "0"))
    if limit > 0:
        train = train[:limit]
    return (x[train], y[train]), (x[val], y[val]), (tx, ty)


class Net(nn.Module):
    def __init__(self, channels, dropout):
        super().__init__()
        self.c1 = nn.Conv2d(1, channels, 3, padding=1)
        self.c2 = nn.Conv2d(channels, 2 * channels, 3, padding=1)
        self.fc1 = nn.Linear(2 * channels * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


def accuracy(model, data, batch=1000):
    model.eval()
    x, y = data
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            correct += (model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum().item()
    return correct / len(x)


def log_time(what, since):
    """Appends "WHAT SECONDS" (seconds since `since`) to BENCH_TIMING_FILE, if set."""
    path = os.environ.get("BENCH_TIMING_FILE")
    if path:
        with open(path, "a") as f:  # one short append per line: safe beside other processes
            f.write(f"{what} {time.perf_counter() - since:.4f}\n")


def main():
    trial = sweep_trial.Trial(
        defaults={"lr": 0.05, "momentum": 0.9, "batch_size": 128, "channels": 16, "dropout": 0.2},
        steps=10)
    p = trial.params
    torch.manual_seed(trial.seed * 1000003 + trial.trial_id)
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    train, val, test = load()
    model = Net(int(p["channels"]), float(p["dropout"]))
    opt = torch.optim.SGD(model.parameters(), lr=float(p["lr"]), momentum=float(p["momentum"]))
    start = 1
    if trial.resume_dir:
        state = torch.load(os.path.join(trial.resume_dir, "state.pt"))
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        # Its own checkpoint (a pause, a retry): the random stream goes on where
        # it stopped (shuffles, dropout), so the trial trains exactly as one run
        # straight through. A PBT child resuming its parent's keeps its own seed.
        if state.get("trial") == trial.trial_id and "rng" in state:
            torch.set_rng_state(state["rng"])
        for g in opt.param_groups:  # a PBT child keeps its own, perturbed values
            g["lr"] = float(p["lr"])
            g["momentum"] = float(p["momentum"])
        start = trial.resume_step + 1
    x, y = train
    batch = int(p["batch_size"])
    log_time("start_s", _STARTED)
    for epoch in range(start, trial.steps + 1):
        epoch_start = time.perf_counter()
        model.train()
        perm = torch.randperm(len(x))
        total = 0.0
        for i in range(0, len(x), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = F.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        metrics = {"val_accuracy": accuracy(model, val), "train_loss": total / len(x)}
        log_time("epoch_s", epoch_start)
        if trial.should_checkpoint(epoch):
            save_start = time.perf_counter()
            folder = trial.checkpoint_folder(epoch)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                        "rng": torch.get_rng_state(), "trial": trial.trial_id},
                       os.path.join(folder, "state.pt"))
            log_time("save_s", save_start)
            trial.report(epoch, checkpoint=True, **metrics)
        else:
            trial.report(epoch, **metrics)
    test_start = time.perf_counter()
    test_accuracy = accuracy(model, test)
    log_time("final_s", test_start)
    trial.final(test_accuracy=test_accuracy)


if __name__ == "__main__":
    main()
