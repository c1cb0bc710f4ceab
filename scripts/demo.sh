#!/usr/bin/env bash
# Installs what is missing, builds, and runs an example sweep with local
# runners, then shows the best trials. Usage: scripts/demo.sh [study.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
study="${1:-examples/branin_random.yaml}"
db="${DEMO_DB:-build/demo.db}"
rm -f "$db" "$db-wal" "$db-shm"
build/cli/sweep run "$study" --db "$db"
echo
echo "top 5 trials (sweep trials --top 5 --db $db):"
build/cli/sweep trials --top 5 --db "$db"
