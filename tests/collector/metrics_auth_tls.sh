#!/usr/bin/env bash
# /metrics behind basic auth and TLS (issue 22, "nothing unauthenticated"): no or wrong credentials get 401
# and are counted in hopwatch_http_unauthorized_total; a bcrypt and a SHA-256 crypt user both get in; with
# --tls-cert/--tls-key a scrape with curl --cacert works and plain HTTP to the same port gets no answer.
# Usage: metrics_auth_tls.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
need_root
command -v curl >/dev/null || skip "curl not installed"
command -v openssl >/dev/null || skip "openssl not installed"
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
mport=$(free_port)
"$gen" reports --format tr2.0 --nodes 4 --flows 10 --count 50 --hops 2-3 --seed 3 --out "$dir/q.pcap" \
  2>"$dir/gen.err" || fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
# users: prom with SHA-256 crypt (openssl passwd -5), ops with bcrypt when this Python can make one
echo "# scrapers of this test" >"$dir/users"
echo "prom:$(openssl passwd -5 -salt s4ltS4lt 'sEcret-1')" >>"$dir/users"
bcrypt=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("b-pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' 2>/dev/null)
case "$bcrypt" in '$2'*) echo "ops:$bcrypt" >>"$dir/users" ;; *) bcrypt= ;; esac
self_signed_cert "$dir"

# a bad user file is refused at start, naming the file and line (exit 2 is bad usage)
echo "prom:plaintext" >"$dir/bad"
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/q.pcap" -- --metrics "127.0.0.1:$mport" \
  --http-auth "$dir/bad" --idle-exit 1 >/dev/null 2>"$dir/bad.err"
rc=$?
[ "$rc" -ne 0 ] || fail "a user file without hashes was accepted"
grep -q "bad' line 1" "$dir/bad.err" || { cat "$dir/bad.err"; fail "the message does not name the file and line"; }

"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/q.pcap" -- --metrics "127.0.0.1:$mport" \
  --http-auth "$dir/users" --tls-cert "$dir/cert.pem" --tls-key "$dir/key.pem" --idle-exit 300 \
  >/dev/null 2>"$dir/col.err" &
cpid=$!
url="https://127.0.0.1:$mport/metrics"
code() { curl --max-time 30 -s -o "$dir/body" -w '%{http_code}' --cacert "$dir/cert.pem" "$@"; }
# poll until the server answers TLS at all (the collector starts its ports first)
wait_for 120 "the collector's HTTPS /metrics answering" \
  sh -c "[ \"\$(curl --max-time 60 -s -o /dev/null -w '%{http_code}' --cacert '$dir/cert.pem' '$url')\" = 401 ]"
n_bad=1 # the last probe of wait_for was one 401 (earlier probes may have been refused before listening)
c=$(code "$url"); [ "$c" = 401 ] || fail "no credentials: HTTP $c, want 401"
grep -q -i "unauthorized" "$dir/body" || fail "the 401 body does not say unauthorized"
c=$(code -u prom:wrong "$url"); [ "$c" = 401 ] || fail "wrong password: HTTP $c, want 401"
c=$(code -u nobody:sEcret-1 "$url"); [ "$c" = 401 ] || fail "unknown user: HTTP $c, want 401"
c=$(code -u prom:sEcret-1 "$url/../svg/x.svg"); [ "$c" = 404 ] || fail "a known user on a missing path: HTTP $c, want 404"
if [ -n "$bcrypt" ]; then
  c=$(code -u ops:b-pass "$url"); [ "$c" = 200 ] || fail "bcrypt user: HTTP $c, want 200"
  c=$(code -u ops:b-pasS "$url"); [ "$c" = 401 ] || fail "bcrypt user, wrong password: HTTP $c, want 401"
  n_bad=$((n_bad + 1))
else
  echo "note: this Python cannot make bcrypt hashes; bcrypt not exercised"
fi
# plain HTTP to the TLS port gets no HTTP answer (curl: code 000 or a failure)
c=$(curl --max-time 10 -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
[ "$c" = 000 ] || fail "plain HTTP to the TLS port answered HTTP $c"
# without --cacert the self-signed certificate is not trusted: TLS really is in use
curl --max-time 10 -sf -u prom:sEcret-1 "$url" -o /dev/null && fail "an untrusted certificate was accepted"
# counted: the probe that first got 401 (earlier probes found no listener or no TLS handshake, never an
# HTTP request), the 3 refusals after it, +1 for the wrong bcrypt password; TLS failures and plain HTTP
# never reach HTTP and are not counted.  Polled until the records arrived too.
for _ in $(seq 600); do
  c=$(code -u prom:sEcret-1 "$url")
  [ "$c" = 200 ] || fail "the right user and password: HTTP $c, want 200"
  grep -q "^hopwatch_collector_records_total $want\$" "$dir/body" && break
  sleep 0.2
done
grep -q "^hopwatch_collector_records_total $want\$" "$dir/body" || fail "records never reached $want"
n=$(awk '$1 == "hopwatch_http_unauthorized_total" {print $2}' "$dir/body")
[ "${n:-}" = $((n_bad + 3)) ] || fail "hopwatch_http_unauthorized_total '${n:-}', want $((n_bad + 3))"
kill -TERM "$cpid"; wait "$cpid" || fail "collector exit status after SIGTERM"
cpid=
echo "ok /metrics basic auth ($n refused, counted) and TLS"
