#!/bin/bash
# Live topology: two network namespaces joined by a veth, Debian's lldpd in each, and `hopwatch-analyzer run`
# on a stream with no collector.  Taking the veth down raises LinkDown, bringing it up resolves it with a
# LinkUp, without a restart: first on SIGHUP over lldpcli dumps rewritten in a folder (as the shipped recipe
# fills /var/lib/hopwatch/lldp), then on the periodic reload over both lldpds' sockets (liblldpctl).
# Usage: topology_reload.sh HOPWATCH-ANALYZER.  Exit 77 when it cannot run (no root, no lldpd).
set -u
ANALYZER=${1:?usage: topology_reload.sh path/to/hopwatch-analyzer}
. "$(dirname "$0")/../topo/netns_lldpd.sh"
. "$(dirname "$0")/../collector/lib.sh" # wait_for
need_tools lldpd lldpcli jq ip

P=hwt-reload-$$ # unique namespace prefix for this run
W=$(mktemp -d /tmp/hwt-reload.XXXXXX)
chmod 755 "$W" # lldpd runs lldpcli on its -O file as user _lldpd
NODES="sw1 sw2"
PIDS=()
FAILS=0

trap netns_cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); } # counts and goes on (lib.sh's would exit)
ns() { local n=$1; shift; ip netns exec "$P-$n" "$@"; }
# ---- the fabric: sw1.eth1 -- sw2.eth1, lldpd on each end (TTL 4 s: tx-interval 1 x tx-hold 4) ----
for n in $NODES; do
	ip netns add "$P-$n" || { echo "cannot create namespace"; exit 1; }
	ip -n "$P-$n" link set lo up
done
ip -n "$P-sw1" link add eth1 type veth peer name eth1 netns "$P-sw2" || exit 1
ip -n "$P-sw1" link set eth1 up
ip -n "$P-sw2" link set eth1 up
i=0
for n in $NODES; do
	i=$((i + 1))
	ip -n "$P-$n" addr add "10.98.0.$i/32" dev lo
	ns "$n" sysctl -qw net.ipv4.ip_forward=1 # a router: lldpd advertises the capability
	printf '%s\n' "configure system hostname $n" "configure lldp tx-interval 1" "configure lldp tx-hold 4" \
		"configure lldp portidsubtype ifname" >"$W/$n.conf"
	ns "$n" lldpd -d -u "/run/$P-$n.sock" -I eth1 -m "10.98.0.$i" -O "$W/$n.conf" >"$W/lldpd-$n.log" 2>&1 &
	PIDS+=($!)
done

neighbours() { # neighbours N: how many neighbours N's lldpd lists
	lldpcli -u "/run/$P-$1.sock" -f json0 show neighbors 2>/dev/null | jq '[.lldp[]?.interface[]?] | length' 2>/dev/null
}
both_see() { [ "$(neighbours sw1)" = 1 ] && [ "$(neighbours sw2)" = 1 ]; }
none_see() { [ "$(neighbours sw1)" = 0 ] && [ "$(neighbours sw2)" = 0 ]; }
wait_for 30 "lldpd on both ends lists its neighbour" both_see || exit 1

# The shipped recipe's dumps: one file per switch, written to .tmp and renamed
dump() {
	mkdir -p "$W/lldp"
	for n in $NODES; do
		{ lldpcli -u "/run/$P-$n.sock" -f json0 show chassis
		  lldpcli -u "/run/$P-$n.sock" -f json0 show neighbors details; } >"$W/lldp/$n.json.tmp" &&
			mv "$W/lldp/$n.json.tmp" "$W/lldp/$n.json"
	done
}

# events EVENTS-FILE FILTER: how many events match the jq filter
count() { jq -s "[.[] | select($2)] | length" "$1" 2>/dev/null || echo 0; }
# The link's events from a reload (their detail says "... in LLDP"): LinkDown firing/resolved, LinkUp
is_down='.event == "LinkDown" and .state == "firing" and ((.detail // "") | test("no longer in LLDP"))'
is_down_resolved='.event == "LinkDown" and .state == "resolved" and ((.detail // "") | test("back in LLDP"))'
is_up_back='.event == "LinkUp" and .state == "firing" and ((.detail // "") | test("back in LLDP"))'
is_reload='(.detail // "") | test("in LLDP")'
has() { [ "$(count "$1" "$2")" -ge 1 ]; }

start_analyzer() { # start_analyzer NAME ARGS...: run on a stream socket nobody connects to
	local name=$1
	shift
	"$ANALYZER" run --stream "unix:$W/$name.sock" --events "$W/$name.jsonl" "$@" 2>"$W/$name.err" &
	APID=$!
	PIDS+=($APID)
	# the socket exists once the signal handlers are in place (they are set before the source opens)
	wait_for 30 "$name: analyzer listening" test -S "$W/$name.sock"
}
stop_analyzer() {
	kill -TERM "$APID"
	wait "$APID"
	local rc=$?
	[ $rc = 0 ] || fail "$1: analyzer exited $rc"
}

# ---- 1: SIGHUP over the dump folder (--topology-reload 0: only SIGHUP reloads) ----
dump
start_analyzer hup --lldpd-json "$W/lldp" --topology-reload 0
# the baseline: the link is known, no reload event yet
wait_for 30 "hup: the baseline LinkUp of sw1 -- sw2 in the events file" has "$W/hup.jsonl" '.event == "LinkUp"'
ip -n "$P-sw2" link set eth1 down
wait_for 30 "hup: both lldpds forget the link" none_see
dump
[ "$(count "$W/hup.jsonl" "$is_reload")" = 0 ] || fail "hup: a reload event before any reload was asked for"
kill -HUP "$APID"
wait_for 30 "hup: LinkDown after SIGHUP" has "$W/hup.jsonl" "$is_down"
ip -n "$P-sw2" link set eth1 up
wait_for 30 "hup: both lldpds see the link again" both_see
dump
kill -HUP "$APID"
wait_for 30 "hup: LinkDown resolved after SIGHUP" has "$W/hup.jsonl" "$is_down_resolved"
wait_for 10 "hup: LinkUp after SIGHUP" has "$W/hup.jsonl" "$is_up_back"
kill -HUP "$APID" # an unchanged topology: nothing more
stop_analyzer hup
# hand-counted: one link went down once and came back once: 1 LinkDown firing, 1 resolve, 1 LinkUp
# raised and resolved at once = 4 reload events; the link is named by both ends in name order
[ "$(count "$W/hup.jsonl" "$is_reload")" = 4 ] || fail "hup: $(count "$W/hup.jsonl" "$is_reload") reload events, expected 4"
[ "$(count "$W/hup.jsonl" "$is_down and .link == \"sw1:eth1--sw2:eth1\"")" = 1 ] ||
	fail "hup: the LinkDown does not name sw1:eth1--sw2:eth1"
down_id=$(jq -s "[.[] | select($is_down)][0].id" "$W/hup.jsonl")
[ "$(jq -s "[.[] | select($is_down_resolved)][0].id" "$W/hup.jsonl")" = "$down_id" ] ||
	fail "hup: the resolve does not carry the LinkDown's id $down_id"
grep -q "topology reload (SIGHUP): 1 link down, 0 up" "$W/hup.err" || fail "hup: no log line for the reload that took the link down"
grep -q "topology reload (SIGHUP): 0 links down, 1 up" "$W/hup.err" || fail "hup: no log line for the reload that brought it back"

# ---- 2: periodic reloads (every second) of both lldpds through liblldpctl ----
start_analyzer live --lldpd "/run/$P-sw1.sock" --lldpd "/run/$P-sw2.sock" --topology-reload 1
ip -n "$P-sw1" link set eth1 down
wait_for 60 "live: LinkDown from a periodic reload" has "$W/live.jsonl" "$is_down"
ip -n "$P-sw1" link set eth1 up
wait_for 60 "live: LinkDown resolved by a periodic reload" has "$W/live.jsonl" "$is_down_resolved"
wait_for 10 "live: LinkUp from a periodic reload" has "$W/live.jsonl" "$is_up_back"
stop_analyzer live
# many reloads ran (one a second) and only the two changes raised anything: 4 events as above
[ "$(count "$W/live.jsonl" "$is_reload")" = 4 ] || fail "live: $(count "$W/live.jsonl" "$is_reload") reload events, expected 4"
grep -q "topology reload (periodic): 1 link down" "$W/live.err" || fail "live: no log line for the periodic reload"

if [ $FAILS -gt 0 ]; then
	echo "hup events:"; cat "$W/hup.jsonl"; echo "hup stderr:"; cat "$W/hup.err"
	echo "live events:"; cat "$W/live.jsonl"; echo "live stderr:"; cat "$W/live.err"
	exit 1
fi
echo "ok: LinkDown and LinkUp on SIGHUP (dump folder) and on the periodic reload (liblldpctl), no restart"
