#!/bin/bash
# Integration test: a real leaf-spine (2 spines, 3 leaves, 2 hosts) in network namespaces with veth links and
# Debian's lldpd in each; the topology from captured frames, lldpcli dumps, a live capture and liblldpctl must
# equal the one built here.  Usage: leafspine.sh HOPWATCH-ANALYZER.  Exit 77 when it cannot run (no root/lldpd).
set -u
ANALYZER=${1:?usage: leafspine.sh path/to/hopwatch-analyzer}
. "$(dirname "$0")/netns_lldpd.sh"
need_tools lldpd lldpcli dumpcap jq xmllint ip

P=hwt-topo-$$ # unique namespace prefix for this run
W=$(mktemp -d /tmp/hwt-topo.XXXXXX)
chmod 755 "$W" # lldpd runs lldpcli on its -O file as user _lldpd
NODES="spine1 spine2 leaf1 leaf2 leaf3 host1 host2"
CAPS=()
FAILS=0

cleanup() {
	PIDS=(${CAPS[@]+"${CAPS[@]}"})
	netns_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP # run the EXIT trap when killed too

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ns() { local n=$1; shift; ip netns exec "$P-$n" "$@"; }

# ---- build: namespaces, veth links, addresses ----
for n in $NODES; do
	ip netns add "$P-$n" || { echo "cannot create namespace"; exit 1; }
	ip -n "$P-$n" link set lo up
done
declare -A NEXT
next_if() { NEXT[$1]=$(( ${NEXT[$1]:-0} + 1 )); IFNAME="eth${NEXT[$1]}"; } # no subshell: NEXT must persist
: >"$W/expected.links"
link() { # link A B: one veth pair, interfaces named ethN on each side
	local a=$1 b=$2 ia ib
	next_if "$a"; ia=$IFNAME
	next_if "$b"; ib=$IFNAME
	ip -n "$P-$a" link add "$ia" type veth peer name "$ib" netns "$P-$b" || exit 1
	ip -n "$P-$a" link set "$ia" up; ip -n "$P-$b" link set "$ib" up
	printf '%s\n' "$a.$ia $b.$ib" "$b.$ib $a.$ia" | sort | head -1 >>"$W/expected.links"
	echo "$P-$a $ia" >>"$W/capture.ifaces" # capture each link once, on its first end
}
for l in leaf1 leaf2 leaf3; do for s in spine1 spine2; do link "$l" "$s"; done; done
link host1 leaf1
link host2 leaf3
sort -o "$W/expected.links" "$W/expected.links"
printf '%s\n' $NODES | sort >"$W/expected.nodes"

i=0
for n in $NODES; do
	i=$((i + 1))
	ip -n "$P-$n" addr add "10.99.0.$i/32" dev lo
	echo "$n 10.99.0.$i" >>"$W/mgmt"
	case $n in host*) fwd=0 ;; *) fwd=1 ;; esac # switches route: lldpd then advertises Router
	ns "$n" sysctl -qw net.ipv4.ip_forward=$fwd
done

# ---- capture every link on one end, with dumpcap (libpcap) ----
while read -r nsname ifc; do
	ip netns exec "$nsname" dumpcap -q -P -i "$ifc" -f "ether proto 0x88cc" -w "$W/cap-${nsname#$P-}-$ifc.pcap" 2>/dev/null &
	CAPS+=($!)
done <"$W/capture.ifaces"
sleep 1.5

# ---- lldpd in each namespace, with its own socket and configuration ----
i=0
for n in $NODES; do
	i=$((i + 1))
	ifs=$(ip -n "$P-$n" -o link show | awk -F': ' '$2 ~ /^eth/ {sub(/@.*/, "", $2); print $2}' | paste -sd,)
	{
		echo "configure system hostname $n"
		echo "configure system description hwt-$n"
		echo "configure lldp tx-interval 1"
		# spines name their ports by interface name; the others keep lldpd's default (MAC address)
		case $n in spine*) echo "configure lldp portidsubtype ifname" ;; esac
	} >"$W/$n.conf"
	ns "$n" lldpd -d -u "/run/$P-$n.sock" -I "$ifs" -m "10.99.0.$i" -O "$W/$n.conf" >"$W/lldpd-$n.log" 2>&1 &
done
sleep 1
for n in $NODES; do
	ns "$n" lldpcli -u "/run/$P-$n.sock" show configuration >/dev/null 2>&1 || fail "lldpd in $n is not answering"
done

# live capture inside leaf1 with the analyzer's own libpcap reader (SLL2 on "any"), while lldpd runs
ns leaf1 "$ANALYZER" topology --lldp any --lldp-seconds 4 --quiet --json-out "$W/live.json" &
LIVE=$!
sleep 5
wait $LIVE || fail "live capture in leaf1 failed"

# ---- lldpcli dumps, one file per switch (json0 and the singleton-collapsing json shape) ----
mkdir -p "$W/json0" "$W/json"
for n in $NODES; do
	{ ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show chassis
	  ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show neighbors details; } >"$W/json0/$n.json"
	ns "$n" lldpcli -u "/run/$P-$n.sock" -f json show neighbors details >"$W/json/$n.json"
done
"$ANALYZER" topology --lldpd "/run/$P-leaf1.sock" --quiet --json-out "$W/lldpctl.json" || fail "--lldpd (liblldpctl) failed"

# host2 leaves: lldpd sends a shutdown LLDPDU (TTL 0) on exit; the captures see it
for pid in $(ip netns pids "$P-host2"); do [ "$(cat /proc/$pid/comm 2>/dev/null)" = lldpd ] && kill "$pid"; done # not dumpcap
sleep 1.5
# ... and leaf3's lldpd forgets it: dumps taken now, against the earlier ones as a baseline
mkdir -p "$W/after"
for n in $NODES; do
	[ "$n" = host2 ] && continue
	{ ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show chassis
	  ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show neighbors details; } >"$W/after/$n.json"
done
for pid in "${CAPS[@]}"; do kill -INT "$pid" 2>/dev/null; done
for pid in "${CAPS[@]}"; do wait "$pid" 2>/dev/null; done
CAPS=()

# ---- analyse ----
links_of() { # JSON -> "a.port b.port" per link (each pair in sorted order), sorted
	jq -r '.links[] | [(.a.node + "." + .a.port), (.b.node + "." + .b.port)] | sort | join(" ")' "$1" | sort
}
up_links_of() {
	jq -r '.links[] | select(.up) | [(.a.node + "." + .a.port), (.b.node + "." + .b.port)] | sort | join(" ")' "$1" | sort
}
nodes_of() { jq -r '.nodes[].name' "$1" | sort; }

PCAPS=()
for f in "$W"/cap-*.pcap; do PCAPS+=(--lldp "$f"); done
[ ${#PCAPS[@]} -eq 16 ] || fail "expected 8 capture files, got $(( ${#PCAPS[@]} / 2 ))"
"$ANALYZER" topology "${PCAPS[@]}" --svg "$W/pcap.svg" --dot "$W/pcap.dot" --json-out "$W/pcap.json" >"$W/pcap.out" ||
	fail "topology from captures exited $?"
diff <(links_of "$W/pcap.json") "$W/expected.links" >/dev/null || { fail "links from captures differ from the built fabric"; diff <(links_of "$W/pcap.json") "$W/expected.links"; }
diff <(nodes_of "$W/pcap.json") "$W/expected.nodes" >/dev/null || fail "nodes from captures differ"
# host2 said goodbye: its link is down with a LinkDown event naming both ends; the rest stay up
jq -e '.events[] | select(.kind == "LinkDown" and ([.a.node, .b.node] | sort) == ["host2", "leaf3"])' "$W/pcap.json" >/dev/null ||
	fail "no LinkDown event for host2 -- leaf3 after host2's lldpd exited"
diff <(up_links_of "$W/pcap.json") <(grep -v host2 "$W/expected.links") >/dev/null || fail "links up after host2 left are wrong"
# tiers come from capabilities and distance to hosts
for n in spine1 spine2; do [ "$(jq -r --arg n $n '.nodes[] | select(.name == $n) | .tier' "$W/pcap.json")" = spine ] || fail "$n is not a spine"; done
for n in leaf1 leaf2 leaf3; do [ "$(jq -r --arg n $n '.nodes[] | select(.name == $n) | .tier' "$W/pcap.json")" = leaf ] || fail "$n is not a leaf"; done
# node id = IPv4 management address as a 32-bit number
while read -r n ip; do
	IFS=. read -r a b c d <<<"$ip"
	want=$(( (a << 24) | (b << 16) | (c << 8) | d ))
	got=$(jq -r --arg n "$n" '.nodes[] | select(.name == $n) | .node_id' "$W/pcap.json")
	[ "$got" = "$want" ] || fail "$n node_id $got, want $want ($ip)"
done <"$W/mgmt"
# both port ID subtypes were seen: spines send ifname, the others MAC
[ "$(jq -r '[.ports[] | select(.node | startswith("spine")) | .id_subtype] | unique | join(",")' "$W/pcap.json")" = ifname ] || fail "spine ports not ifname"
[ "$(jq -r '[.ports[] | select(.node | startswith("leaf")) | .id_subtype] | unique | join(",")' "$W/pcap.json")" = mac ] || fail "leaf ports not mac"
# SVG: well-formed, every node and every link by id
xmllint --noout "$W/pcap.svg" || fail "SVG is not well-formed XML"
svg_ids() { xmllint --xpath '//@id' "$1" | sed 's/^ *id="\(.*\)"$/\1/'; } # entities decoded by the parser
svg_ids "$W/pcap.svg" >"$W/pcap.ids"
for n in $NODES; do grep -qFx "n-$n" "$W/pcap.ids" || fail "SVG lacks node $n"; done
for id in $(jq -r '.links[].id' "$W/pcap.json"); do grep -qFx "$id" "$W/pcap.ids" || fail "SVG lacks link $id"; done
[ "$(jq '.links | length' "$W/pcap.json")" = 8 ] || fail "want 8 links in JSON"
grep -q 'digraph\|graph' "$W/pcap.dot" || fail "DOT output missing"

# INT placement: leaf1 by its management address, spine1 renamed to node id 4096 by the map file
IFS=. read -r a b c d <<<"$(awk '$1 == "leaf1" {print $2}' "$W/mgmt")"
leaf1_id=$(( (a << 24) | (b << 16) | (c << 8) | d ))
echo '{"port_format": "eth%u", "nodes": [{"name": "spine1", "node_id": 4096}]}' >"$W/map.json"
cat >"$W/records.jsonl" <<RECORDS
{"node_id": $leaf1_id, "ingress_port": 3, "egress_port": 1}
{"node_id": 4096, "ingress_port": 2, "egress_port": 7}
{"node_id": 12345, "ingress_port": 1}
RECORDS
"$ANALYZER" topology "${PCAPS[@]}" --map "$W/map.json" --jsonl "$W/records.jsonl" --json-out "$W/placed.json" >"$W/placed.out" ||
	fail "topology with --map/--jsonl exited $?"
[ "$(jq -r '.nodes[] | select(.name == "spine1") | .node_id' "$W/placed.json")" = 4096 ] || fail "map file did not set spine1's node id"
[ "$(jq -c '[.placement.placed, .placement.unplaced]' "$W/placed.json")" = "[3,2]" ] || fail "placement counts wrong"
[ "$(jq -c '[.placement.unplaced_ports[] | [.node_id, .port, .reason]] | sort' "$W/placed.json")" = '[[4096,7,"unknown_port"],[12345,1,"unknown_node"]]' ] ||
	fail "unplaced INT ports not listed: $(jq -c .placement "$W/placed.json")"
grep -q '^Unplaced.*node_id 12345 port 1: unknown_node' "$W/placed.out" || fail "unplaced port not printed"

for shape in json0 json; do
	"$ANALYZER" topology --lldpd-json "$W/$shape" --json-out "$W/$shape.json" --svg "$W/$shape.svg" >"$W/$shape.out" ||
		fail "import of $shape dumps exited $?"
	diff <(links_of "$W/$shape.json") "$W/expected.links" >/dev/null || { fail "links from $shape dumps differ"; diff <(links_of "$W/$shape.json") "$W/expected.links"; }
	diff <(up_links_of "$W/$shape.json") "$W/expected.links" >/dev/null || fail "links from $shape dumps not all up"
	diff <(nodes_of "$W/$shape.json") "$W/expected.nodes" >/dev/null || fail "nodes from $shape dumps differ"
	jq -e '[.links[] | select(.seen_by_a and .seen_by_b)] | length == 8' "$W/$shape.json" >/dev/null ||
		fail "$shape: every link should be seen from both sides"
	jq -e '[.events[] | select(.kind == "OneSidedNeighbor" or .kind == "DuplicateChassisId")] | length == 0' "$W/$shape.json" >/dev/null ||
		fail "$shape: unexpected check events"
done

# a link that disappeared between two snapshots
"$ANALYZER" topology --lldpd-json "$W/json0" --quiet --json-out "$W/before.json" || fail "baseline run exited $?"
"$ANALYZER" topology --lldpd-json "$W/after" --baseline "$W/before.json" --json-out "$W/after.json" >"$W/after.out" ||
	fail "--baseline run exited $?"
[ "$(jq -c '[.events[] | select(.kind == "LinkDisappeared") | [.a.node, .a.port, .b.node, .b.port] | sort]' "$W/after.json")" = \
	"[$(grep host2 "$W/expected.links" | tr ' .' '\n\n' | jq -R . | jq -sc 'sort')]" ] ||
	{ fail "want exactly one LinkDisappeared, host2 -- leaf3"; grep LinkDisappeared "$W/after.out"; }

# live capture in leaf1 and liblldpctl on leaf1: leaf1's three links
grep 'leaf1\.' "$W/expected.links" >"$W/expected.leaf1"
diff <(links_of "$W/live.json") "$W/expected.leaf1" >/dev/null || { fail "live capture in leaf1: links differ"; diff <(links_of "$W/live.json") "$W/expected.leaf1"; }
diff <(links_of "$W/lldpctl.json") "$W/expected.leaf1" >/dev/null || { fail "liblldpctl on leaf1: links differ"; diff <(links_of "$W/lldpctl.json") "$W/expected.leaf1"; }

# ---- one-sided: leaf2 stops sending on its link to spine1 but still listens ----
l2s1=$(awk '$1 ~ /^leaf2\./ && $2 ~ /^spine1\./ {sub(/^leaf2\./, "", $1); print $1}' "$W/expected.links")
ns leaf2 lldpcli -u "/run/$P-leaf2.sock" configure ports "$l2s1" lldp status rx-only >/dev/null
sleep 6 # spine1's entry for leaf2 expires (TTL 4 s)
mkdir -p "$W/onesided"
for n in spine1 leaf2; do
	{ ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show chassis
	  ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show neighbors details; } >"$W/onesided/$n.json"
done
"$ANALYZER" topology --lldpd-json "$W/onesided" --json-out "$W/onesided.json" >"$W/onesided.out" || fail "one-sided import exited $?"
jq -e '.events[] | select(.kind == "OneSidedNeighbor" and .a.node == "leaf2" and .b.node == "spine1")' "$W/onesided.json" >/dev/null ||
	{ fail "no OneSidedNeighbor leaf2 -> spine1"; cat "$W/onesided.out"; }

# ---- two chassis with the same ID: leaf1 and leaf3 are both told to be "dup-chassis" ----
# lldpd merges neighbours by chassis ID, so spine2's own table shows one of the two names; the frames on
# its ports and the two leaves' own dumps show both.
for ifc in eth1 eth3; do
	# not through ns(): a backgrounded function is a subshell, and $! must be dumpcap itself
	ip netns exec "$P-spine2" dumpcap -q -P -i "$ifc" -f "ether proto 0x88cc" -w "$W/dup-spine2-$ifc.pcap" 2>/dev/null &
	CAPS+=($!)
done
sleep 1
for n in leaf1 leaf3; do ns "$n" lldpcli -u "/run/$P-$n.sock" configure system chassisid dup-chassis >/dev/null; done
sleep 2.5
for pid in "${CAPS[@]}"; do kill -INT "$pid" 2>/dev/null; done
for pid in "${CAPS[@]}"; do wait "$pid" 2>/dev/null; done
CAPS=()
mkdir -p "$W/dup"
for n in leaf1 leaf3; do
	{ ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show chassis
	  ns "$n" lldpcli -u "/run/$P-$n.sock" -f json0 show neighbors details; } >"$W/dup/$n.json"
done
"$ANALYZER" topology --lldp "$W/dup-spine2-eth1.pcap" --lldp "$W/dup-spine2-eth3.pcap" --json-out "$W/dup-pcap.json" >"$W/dup-pcap.out" ||
	fail "duplicate-chassis captures exited $?"
"$ANALYZER" topology --lldpd-json "$W/dup" --json-out "$W/dup-json.json" >"$W/dup-json.out" || fail "duplicate-chassis dumps exited $?"
for f in dup-pcap dup-json; do
	[ "$(jq -c '[.events[] | select(.kind == "DuplicateChassisId") | [.a.node, .b.node] | sort]' "$W/$f.json")" = '[["leaf1","leaf3"]]' ] ||
		{ fail "$f: want one DuplicateChassisId naming leaf1 and leaf3"; cat "$W/$f.out"; }
done

if [ $FAILS -ne 0 ]; then
	echo "$FAILS check(s) failed; work dir $W"
	exit 1
fi
echo "leaf-spine topology: all checks passed"
exit 0
