#!/usr/bin/env bash
# /metrics secured by --web-config (issue 22: "TLS and basic auth ... the Prometheus exporter web-config
# convention"): a YAML file with tls_server_config (relative cert_file/key_file) and basic_auth_users (bcrypt
# when this Python can make one, and SHA-256 crypt).  curl: no credentials 401, a user 200 over HTTPS, plain
# HTTP no answer; a real Prometheus scrapes it with basic_auth and tls_config and its query returns the
# records; a file asking for client certificates, or --web-config with --http-auth, is refused at start
# (exit 1, as the collector fails to start with a bad --http-auth file).
# Usage: metrics_web_config.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
command -v curl >/dev/null || skip "curl not installed"
command -v openssl >/dev/null || skip "openssl not installed"
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${ppid_:-}"
  [ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
mport=$(free_port) pport=$(free_port)
"$gen" reports --format tr2.0 --count 300 --hops 2-3 --seed 5 --out "$dir/q.pcap" 2>"$dir/gen.err" ||
  fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
mkdir "$dir/tls"
self_signed_cert "$dir/tls"
bcrypt=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("b-pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' 2>/dev/null)
case "$bcrypt" in '$2'*) ;; *) bcrypt= ;; esac
cat >"$dir/web.yml" <<YML
# the exporter-toolkit web config; the TLS files relative to this file's directory
tls_server_config:
  cert_file: tls/cert.pem
  key_file: tls/key.pem
basic_auth_users:
  prom: '$(openssl passwd -5 -salt s4ltS4lt 'sEcret-1')'
${bcrypt:+  ops: '$bcrypt'}
YML

# refused at start, naming what is wrong
printf 'tls_server_config:\n  cert_file: tls/cert.pem\n  key_file: tls/key.pem\n  client_ca_file: ca.pem\n' \
  >"$dir/mtls.yml"
"$col" --pcap "$dir/q.pcap" --metrics "127.0.0.1:$mport" --web-config "$dir/mtls.yml" >/dev/null 2>"$dir/bad.err"
rc=$?
[ "$rc" = 1 ] || { cat "$dir/bad.err"; fail "client_ca_file: exit $rc, want 1"; }
grep -q "mtls.yml': tls_server_config.client_ca_file is not supported" "$dir/bad.err" ||
  { cat "$dir/bad.err"; fail "the refusal does not name the file and the key"; }
echo "prom:$(openssl passwd -5 x)" >"$dir/users"
"$col" --pcap "$dir/q.pcap" --metrics "127.0.0.1:$mport" --web-config "$dir/web.yml" --http-auth "$dir/users" \
  >/dev/null 2>"$dir/both.err"
rc=$?
[ "$rc" = 1 ] || { cat "$dir/both.err"; fail "--web-config with --http-auth: exit $rc, want 1"; }
grep -q "use the one or the others" "$dir/both.err" || { cat "$dir/both.err"; fail "no message on the two ways"; }

# the collector stays up: its capture comes through a pipe held open until the end
live_capture "$dir/q.pcap" "$dir/in.pcap"
"$col" --pcap "$dir/in.pcap" --metrics "127.0.0.1:$mport" --web-config "$dir/web.yml" --status-interval 0 \
  >/dev/null 2>"$dir/col.err" &
cpid=$!
url="https://127.0.0.1:$mport/metrics"
code() { curl --max-time 30 -s -o "$dir/body" -w '%{http_code}' --cacert "$dir/tls/cert.pem" "$@"; }
wait_for 120 "the collector's HTTPS /metrics answering 401 without credentials" \
  sh -c "[ \"\$(curl --max-time 60 -s -o /dev/null -w '%{http_code}' --cacert '$dir/tls/cert.pem' '$url')\" = 401 ]"
c=$(code -u prom:wrong "$url"); [ "$c" = 401 ] || fail "wrong password: HTTP $c, want 401"
c=$(code -u prom:sEcret-1 "$url"); [ "$c" = 200 ] || fail "user prom: HTTP $c, want 200"
if [ -n "$bcrypt" ]; then
  c=$(code -u ops:b-pass "$url"); [ "$c" = 200 ] || fail "bcrypt user ops: HTTP $c, want 200"
else
  echo "note: this Python cannot make bcrypt hashes; bcrypt not exercised"
fi
c=$(curl --max-time 10 -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
[ "$c" = 000 ] || fail "plain HTTP to the TLS port answered HTTP $c"

if command -v prometheus >/dev/null; then
  cat >"$dir/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: hopwatch
    scheme: https
    basic_auth: {username: prom, password: sEcret-1}
    tls_config: {ca_file: $dir/tls/cert.pem}
    static_configs:
      - targets: ['127.0.0.1:$mport']
YML
  prometheus --config.file="$dir/prom.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$pport" >"$dir/prom.log" 2>&1 &
  ppid_=$!
  got=none
  for _ in $(seq 600); do # up to 2 minutes: Prometheus starts slowly on a loaded host
    got=$(curl --max-time 10 -sf "http://127.0.0.1:$pport/api/v1/query" \
      --data-urlencode 'query=hopwatch_collector_records_total{job="hopwatch"}' |
      python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")' \
        2>/dev/null || echo none)
    [ "$got" = "$want" ] && break
    sleep 0.2
  done
  [ "$got" = "$want" ] || { tail -5 "$dir/prom.log"; fail "Prometheus (basic_auth, tls_config) got $got, want $want"; }
  echo "Prometheus scraped over HTTPS with basic auth: records $got"
else
  echo "note: prometheus not installed; the scrape by Prometheus not exercised"
fi
kill -TERM "$cpid"; wait "$cpid" || fail "collector exit status after SIGTERM"
cpid=
echo "ok /metrics secured by --web-config (YAML): 401 without credentials, 200 over HTTPS with them"
