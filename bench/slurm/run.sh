#!/usr/bin/env bash
# bench/slurm: runners from Slurm (issue 42), on a one-node cluster
# (scripts/slurm/one-node-cluster.sh), alternating REPEAT rounds of:
#  - launcher: `sweep serve --launcher slurm --launch-max RUNNERS
#    --launch-idle IDLE --local-runners 0`, the study submitted;
#  - fixed: a W&B-style fixed array of RUNNERS runner jobs that never exit
#    (scripts/slurm/sweep-runners.sbatch with SWEEP_EXIT_WHEN_IDLE=0),
#    submitted with the study, cancelled by hand WAIT_S after the last trial.
# For each: `sweep submit` to the first trial running on a Slurm runner, the
# last trial's end to an empty queue, and the share of runner-seconds
# (RUNNING jobs, from squeue every 0.5 s) spent without a trial.
# Usage: bench/slurm/run.sh   Env: REPEAT=2 RUNNERS=4 IDLE=10 TRIALS=48 WAIT_S=60
# Needs root, slurm-wlm and munge. Prints a report for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/cli/sweep ] || scripts/build.sh
cluster=$(mktemp -d /tmp/sweep-slurm-bench.XXXXXX)
trap 'scripts/slurm/one-node-cluster.sh stop "$cluster"; rm -rf "$cluster"' EXIT
eval "$(scripts/slurm/one-node-cluster.sh start "$cluster")"
export SLURM_CONF
python3 bench/slurm/measure.py build/cli/sweep scripts/slurm/sweep-runners.sbatch \
  "${REPEAT:-2}" "${RUNNERS:-4}" "${IDLE:-10}" "${TRIALS:-48}" "${WAIT_S:-60}"
