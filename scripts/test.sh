#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
# Usage: scripts/test.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium: the dashboard's and the report's browser tests (label `browser`).
scripts/install-deps.sh chromium
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 "$@"
