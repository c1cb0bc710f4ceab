#!/usr/bin/env bash
# Installs the Debian 12 packages sweep builds with; does nothing when they
# are all present. Usage: scripts/install-deps.sh [extra packages...]
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libzmq3-dev cppzmq-dev protobuf-compiler
      libprotobuf-dev libsqlite3-dev sqlite3 libcli11-dev libyaml-cpp-dev libgtest-dev
      libopenblas-dev zlib1g-dev dataset-fashion-mnist libboost-dev libonnx-dev libdnnl-dev libeigen3-dev liblbfgspp-dev libxgboost-dev libmuparser-dev python3 "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
