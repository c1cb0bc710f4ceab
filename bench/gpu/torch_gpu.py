#!/usr/bin/env python3
"""PyTorch peer for the GPU benchmark: the bench/train MLP or CNN, batch 128,
SGD momentum 0.9, lr 0.05, epochs of 60,000 random 28x28 images (the same
shapes as Fashion-MNIST; throughput only). Two ways of feeding it, one JSON
line each: "host", each batch copied from host memory as sweep's trainer
does, and "device", the whole data set on the GPU first (PyTorch at its
best). Each is the median of 3 epochs after a warm-up epoch.
Usage: torch_gpu.py mlp|cnn [device]"""
import json
import sys
import time

import torch
import torch.nn as nn

model_name = sys.argv[1]
device = torch.device(f"cuda:{sys.argv[2] if len(sys.argv) > 2 else 0}")
torch.manual_seed(1)
if model_name == "mlp":
    net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
else:
    net = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(64 * 7 * 7, 1024), nn.ReLU(), nn.Linear(1024, 10))
net = net.to(device)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
n, bs = 60000, 128
x_all = torch.rand(n, 1, 28, 28)
y_all = torch.randint(0, 10, (n,))
steps = n // bs


def epoch(xs, ys):
    for s in range(steps):
        x = xs[s * bs:(s + 1) * bs].to(device, non_blocking=False)
        y = ys[s * bs:(s + 1) * bs].to(device, non_blocking=False)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize(device)


for mode, xs, ys in (("host", x_all, y_all), ("device", x_all.to(device), y_all.to(device))):
    epoch(xs, ys)  # warm-up (cuDNN autotuning, allocator)
    rates = []
    for _ in range(3):
        t0 = time.time()
        epoch(xs, ys)
        rates.append(steps * bs / (time.time() - t0))
    print(json.dumps({"tool": "pytorch", "version": torch.__version__, "model": model_name, "mode": mode,
                      "device": torch.cuda.get_device_name(device),
                      "samples_per_s": round(sorted(rates)[1], 1),
                      "tf32_conv": torch.backends.cudnn.allow_tf32,
                      "tf32_matmul": torch.backends.cuda.matmul.allow_tf32}), flush=True)
