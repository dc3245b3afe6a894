#!/usr/bin/env bash
# The analyzer's HTTP servers behind --http-auth and --tls-cert/--tls-key (issue 22): --metrics and the
# console (--http) both refuse a request without the user's password (401, counted on /metrics) and
# answer it over HTTPS with the password; plain HTTP to either port gets no HTTP answer.  Run twice: with those
# three options, and with the same access as an exporter web config in its JSON form (--web-config).
# Usage: http_auth.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
command -v openssl >/dev/null || skip "openssl not installed"
in_scenario incast "$gen"
echo "ana:$(openssl passwd -5 -salt aN4lyz3r 'pw-of-ana')" >users
self_signed_cert .
# the same access as an exporter web config in its JSON form (--web-config): run once each way
printf '{"tls_server_config": {"cert_file": "cert.pem", "key_file": "%s/key.pem"},\n "basic_auth_users": {"ana": "%s"}}\n' \
  "$PWD" "$(cut -d: -f2- users)" >web.json
for how in files web-config; do
echo "== $how"
if [ "$how" = files ]; then secure=(--http-auth users --tls-cert cert.pem --tls-key key.pem); else secure=(--web-config web.json); fi
mport=$(free_port) hport=$(free_port)
"$an" run --jsonl records.jsonl --lldpd-json lldp --map map.json --config "$src/data/samples/incast/analyzer.json" \
  --metrics "127.0.0.1:$mport" --http "127.0.0.1:$hport" "${secure[@]}" --hold 120 2>run.err &
an_pid=$!
code() { curl --max-time 30 -s -o body -w '%{http_code}' --cacert cert.pem "$@"; }
for _ in $(seq 600); do
  [ "$(code -u ana:pw-of-ana "https://127.0.0.1:$mport/metrics")" = 200 ] && break
  kill -0 "$an_pid" 2>/dev/null || { cat run.err; fail "the analyzer exited"; }
  sleep 0.1
done
[ "$(code -u ana:pw-of-ana "https://127.0.0.1:$mport/metrics")" = 200 ] || { cat run.err; fail "/metrics with the password: not 200"; }
# refusals: 2 on /metrics, 2 on the console; the counter is the process's (both servers)
c=$(code "https://127.0.0.1:$mport/metrics"); [ "$c" = 401 ] || fail "/metrics without credentials: HTTP $c"
c=$(code -u ana:wrong "https://127.0.0.1:$mport/metrics"); [ "$c" = 401 ] || fail "/metrics, wrong password: HTTP $c"
c=$(code "https://127.0.0.1:$hport/console/"); [ "$c" = 401 ] || fail "console without credentials: HTTP $c"
c=$(code -u ana:wrong "https://127.0.0.1:$hport/console/"); [ "$c" = 401 ] || fail "console, wrong password: HTTP $c"
c=$(code -u ana:pw-of-ana "https://127.0.0.1:$hport/console/"); [ "$c" = 200 ] || fail "console with the password: HTTP $c"
for p in "$mport" "$hport"; do
  c=$(curl --max-time 10 -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/metrics")
  [ "$c" = 000 ] || fail "plain HTTP to the TLS port $p answered HTTP $c"
done
# polled: a scrape within 1 s of the last rendering may get that text, from before the refusals
for _ in $(seq 300); do
  c=$(code -u ana:pw-of-ana "https://127.0.0.1:$mport/metrics"); [ "$c" = 200 ] || fail "/metrics: HTTP $c"
  grep -qx 'hopwatch_http_unauthorized_total 4' body && break
  sleep 0.1
done
grep -qx 'hopwatch_http_unauthorized_total 4' body || { grep unauthorized body; fail "want hopwatch_http_unauthorized_total 4"; }
stop_pid "$an_pid"
an_pid=
done
echo "PASS: /metrics and the console need the password over HTTPS; 4 refusals counted; the same with --web-config"
