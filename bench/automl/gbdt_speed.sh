#!/usr/bin/env bash
# model: gbdt against XGBoost's own Python package, the same library version
# Debian builds sweep with (1.7.4), on the same generated table and knobs.
# Makes bench/.venv-xgb (xgboost 1.7.4 and numpy, from PyPI) and
# bench/.venv-xgb-debian (the same, its library swapped for Debian's
# libxgboost.so.0, which sweep calls: so the overhead that is sweep's own).
# Usage: bench/automl/gbdt_speed.sh [REPEATS, default 3] [ROWS, default 20000]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=bench/.venv-xgb
if [ ! -x $venv/bin/python ]; then
  /usr/bin/python3 -m venv $venv
  $venv/bin/pip install -q "xgboost==1.7.4" numpy
fi
debian=bench/.venv-xgb-debian
if [ ! -x $debian/bin/python ]; then
  /usr/bin/python3 -m venv $debian
  $debian/bin/pip install -q "xgboost==1.7.4" numpy
fi
ln -sf /usr/lib/x86_64-linux-gnu/libxgboost.so.0 $debian/lib/python3*/site-packages/xgboost/lib/libxgboost.so
work=$(mktemp -d /tmp/sweep-gbdt-XXXXXX)
trap 'rm -rf "$work"' EXIT
$venv/bin/python bench/automl/gbdt_speed.py "$PWD/build/cli/sweep" "$work" "${1:-3}" "${2:-20000}" \
  "$PWD/$debian/bin/python"
