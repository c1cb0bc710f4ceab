"""What the AutoML benchmarks share without their peers' packages: where
Debian's python3-sklearn keeps its tables, and the CSV both tools read."""

SK = "/usr/lib/python3/dist-packages/sklearn/datasets/data"


def write_csv(path, x, y):
    with open(path, "w") as f:
        f.write(",".join(f"f{i}" for i in range(x.shape[1])) + ",label\n")
        for row, label in zip(x, y):
            f.write(",".join(repr(float(v)) for v in row) + f",{label}\n")
