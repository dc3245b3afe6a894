#!/usr/bin/env bash
# Installs the Debian packages hopwatch builds and tests with, when any is missing.
# Safe to run again: it asks apt only when something is not installed yet.
set -euo pipefail
pkgs=(
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev python3
  libpcap-dev libjansson-dev libcmocka-dev dpdk-dev libgraphviz-dev
  libmicrohttpd-dev libcurl4-openssl-dev liblldpctl-dev
  lldpd tshark libxml2-utils iproute2 tcpdump jq curl prometheus
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "deps: all ${#pkgs[@]} packages present"
fi
