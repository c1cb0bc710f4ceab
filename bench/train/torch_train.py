"""PyTorch peer for bench/train: one epoch of the benchmark MLP or CNN on
Fashion-MNIST (the same IDX files, normalisation, batch 128, SGD momentum 0.9,
lr 0.05), then test accuracy. Usage: torch_train.py mlp|cnn THREADS [EPOCHS]
"""
import gzip
import json
import sys
import time

import numpy as np
import torch
import torch.nn as nn

model_name, threads = sys.argv[1], int(sys.argv[2])
epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
torch.set_num_threads(threads)
torch.manual_seed(1)
D = "/usr/share/datasets/fashion-mnist/"


def idx(path, offset):
    with gzip.open(D + path) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


xtr = idx("train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28).astype(np.float32) / 255
ytr = idx("train-labels-idx1-ubyte.gz", 8).astype(np.int64)
xte = idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28).astype(np.float32) / 255
yte = idx("t10k-labels-idx1-ubyte.gz", 8).astype(np.int64)
mean, std = xtr.mean(), xtr.std()
xtr, xte = torch.from_numpy((xtr - mean) / std), torch.from_numpy((xte - mean) / std)
ytr, yte = torch.from_numpy(ytr), torch.from_numpy(yte)

if model_name == "mlp":
    net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
else:
    net = nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Linear(1024, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
bs = 128
for epoch in range(1, epochs + 1):
    perm = torch.randperm(len(xtr))
    steps = len(xtr) // bs
    net.train()
    start = time.perf_counter()
    total = 0.0
    for s in range(steps):
        idxs = perm[s * bs:(s + 1) * bs]
        opt.zero_grad()
        loss = loss_fn(net(xtr[idxs]), ytr[idxs])
        loss.backward()
        opt.step()
        total += loss.item()
    secs = time.perf_counter() - start
    net.eval()
    with torch.no_grad():
        correct = sum((net(xte[i:i + 500]).argmax(1) == yte[i:i + 500]).sum().item() for i in range(0, len(xte), 500))
    print(json.dumps({"tool": "pytorch " + torch.__version__.split("+")[0], "model": model_name, "threads": threads, "epoch": epoch,
                      "samples_per_s": round(steps * bs / secs, 1), "train_loss": round(total / steps, 4),
                      "test_accuracy": correct / len(xte)}), flush=True)
