#!/usr/bin/env bash
# Exported models against onnxruntime (PyPI, in bench/.venv-onnx, made here):
# each case's `sweep predict` and onnxruntime must agree within 1e-5.
# Usage: bench/automl/onnx_agreement.sh   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=bench/.venv-onnx
if [ ! -x $venv/bin/python ]; then
  /usr/bin/python3 -m venv $venv
  $venv/bin/pip install -q onnxruntime numpy
fi
work=$(mktemp -d /tmp/sweep-onnx-XXXXXX)
trap 'rm -rf "$work"' EXIT
$venv/bin/python bench/automl/onnx_agreement.py "$PWD/build/cli/sweep" "$work"
