#!/usr/bin/env bash
# Installs what is missing, builds, and runs an example sweep with local
# runners (by default: 12 MLPs on Fashion-MNIST, about 11 minutes on 2 cores),
# then shows the best trials with their test accuracy.
# Usage: scripts/demo.sh [study.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
study="${1:-examples/fashion_mnist_mlp.yaml}"
db="${DEMO_DB:-build/demo.db}"
rm -rf "$db" "$db-wal" "$db-shm" "${db%.db}.sweep" "$db.checkpoints"
build/cli/sweep run "$study" --db "$db"
echo
echo "best trial, with its test accuracy (sweep best --db $db):"
build/cli/sweep best --db "$db"
echo
echo "top 5 trials (sweep trials --top 5 --db $db):"
build/cli/sweep trials --top 5 --db "$db"
