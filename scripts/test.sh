#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
# Usage: scripts/test.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium: the dashboard's and the report's browser tests (label `browser`);
# zsh and groff-base: the zsh completion and the man page's tests.
# python3-sklearn: the real tables the data tests and examples read (its
# datasets/data/*.csv); iproute2: the dashboard's test across network
# namespaces (`ip netns`); slurm-wlm and munge: the Slurm launcher's tests
# against a one-node cluster (label `slurm`, scripts/slurm/one-node-cluster.sh).
scripts/install-deps.sh chromium zsh groff-base python3-sklearn iproute2 slurm-wlm munge
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 "$@"
