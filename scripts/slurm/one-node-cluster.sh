#!/usr/bin/env bash
# A one-node Slurm cluster in a temporary folder, for the Slurm launcher's
# tests (tests/slurm/) and benchmark (bench/slurm/): munged, slurmctld and
# slurmd on private ports and sockets, nothing in /etc touched. Needs root
# and Debian's slurm-wlm and munge.
# Tried on Debian 12 (Slurm 22.05): the node is idle 0.3 s after start, a
# job runs, and `scancel --signal=USR1 --batch JOB` reaches its batch shell.
# Usage: scripts/slurm/one-node-cluster.sh start DIR   (prints `export SLURM_CONF=...`)
#        scripts/slurm/one-node-cluster.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop}; dir=${2:?a folder}
case "$cmd" in
start)
  mkdir -p "$dir"/{state,spool,log,munge}
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munge.seed" --force
  port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
  cat > "$dir/slurm.conf" <<CONF
ClusterName=sweeptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 0.2
  done
  sinfo -h -o %t | grep -qE '^(idle|mix|alloc)' || { echo "the node did not come up; see $dir/log" >&2; exit 1; }
  echo "export SLURM_CONF=$dir/slurm.conf"
  ;;
stop)
  # Each daemon is waited for (10 s at most) before the next one goes.
  stop_pid() {
    [ -f "$1" ] || return 0
    local pid
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || return 0
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  }
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  ;;
esac
