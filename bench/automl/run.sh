#!/usr/bin/env bash
# sweep against Optuna 5 + scikit-learn MLPs (and HistGradientBoosting's
# defaults) on scikit-learn's tables, at equal wall-clock time on this
# machine. Makes bench/.venv-automl (Optuna 5, scikit-learn, from PyPI).
# Usage: bench/automl/run.sh [SECONDS per run, default 60] [REPEATS, default 3] [DATA SET...]
# Data sets: breast_cancer wine digits diabetes (the default), and
# fashion_mnist (named alone: bench/automl/run.sh 1800 1 fashion_mnist, the
# 30-minute headline). AUTOML_TOOLS=sweep,optuna,hgb picks which run.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=bench/.venv-automl
if [ ! -x $venv/bin/python ]; then
  /usr/bin/python3 -m venv $venv
  $venv/bin/pip install -q "optuna>=5,<6" scikit-learn numpy
fi
work=$(mktemp -d /tmp/sweep-automl-XXXXXX)
trap 'rm -rf "$work"' EXIT
$venv/bin/python bench/automl/automl_bench.py "$PWD/build/cli/sweep" "$work" "${1:-60}" \
  "${2:-3}" "${@:3}"
