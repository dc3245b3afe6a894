#!/usr/bin/env bash
# Installs the Debian packages hopwatch builds and tests with, when any is missing.
# Safe to run again: it asks apt only when something is not installed yet.
set -euo pipefail
pkgs=(
  meson ninja-build pkg-config gcc clang clang-format libclang-rt-14-dev python3
  libpcap-dev libjansson-dev libcmocka-dev dpdk-dev libgraphviz-dev
  libmicrohttpd-dev libcurl4-openssl-dev liblldpctl-dev libssl-dev libsystemd-dev libcrypt-dev libyaml-dev openssl
  lldpd tshark libxml2-utils iproute2 tcpdump jq curl prometheus chromium python3-pyflakes
  prometheus-alertmanager clickhouse-server clickhouse-client zookeeper
  build-essential dpkg-dev debhelper fakeroot lintian help2man mmdebstrap
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
  # The tests start their own ClickHouse, Prometheus and Alertmanager on loopback: keep the packages'
  # scripts from starting system services (policy-rc.d exit 101 = "not now"), unless a policy exists.
  policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${sudo_cmd[@]}" chmod +x /usr/sbin/policy-rc.d
    policy=1
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  [ -z "$policy" ] || "${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d
else
  echo "deps: all ${#pkgs[@]} packages present"
fi
