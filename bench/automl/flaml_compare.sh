#!/usr/bin/env bash
# `sweep automl` against FLAML 2 (PyPI's flaml[automl], in bench/.venv-flaml,
# made here) at equal time on scikit-learn's tables and generated ones, 2
# cores each, alternating which runs first. statsmodels' tables are kept
# for an independent comparison and are not used here.
# Usage: bench/automl/flaml_compare.sh [SECONDS, default 60] [SEEDS, default 3] [TABLE...]
# (after scripts/build.sh). Tables: breast_cancer wine digits iris diabetes
# gen_classes friedman1 (the default: all).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=bench/.venv-flaml
if [ ! -x $venv/bin/python ]; then
  /usr/bin/python3 -m venv $venv
  $venv/bin/pip install -q "flaml[automl]>=2,<3"
fi
work=$(mktemp -d /tmp/sweep-flaml-XXXXXX)
trap 'rm -rf "$work"' EXIT
$venv/bin/python bench/automl/flaml_compare.py "$PWD/build/cli/sweep" "$work" "${1:-60}" \
  "${2:-3}" "${@:3}"
