#!/bin/sh
# A command trial by hand, from the contract alone (no client): reads
# SWEEP_STEPS and its parameter from argv, prints SWEEP_REPORT lines.
set -eu
x="$1"
echo "$SWEEP_STUDY $SWEEP_TRIAL_ID $SWEEP_ATTEMPT $SWEEP_STEPS" >> "$RECORD/shell"
cat "$SWEEP_PARAMS_FILE" >> "$RECORD/params"
echo >> "$RECORD/params"
step=1
while [ "$step" -le "$SWEEP_STEPS" ]; do
  echo "SWEEP_REPORT {\"step\": $step, \"loss\": $x}"
  step=$((step + 1))
done
