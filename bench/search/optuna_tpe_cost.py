"""Optuna 5's TPESampler: what one proposal costs on a study with N finished
Hartmann-6 trials (uniform points), timed as bench/search/tpe_cost.cc times
sweep's: the ask() that samples all six parameters, one by one. (The same
measurement as optuna_gp.py's `cost`, for the TPE sampler.)

Usage: optuna_tpe_cost.py N PROPOSALS   prints "optuna5-tpe-cost N ms_per_proposal"
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optuna_gp import cost  # noqa: E402

cost("tpe", int(sys.argv[1]), int(sys.argv[2]))
