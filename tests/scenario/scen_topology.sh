#!/usr/bin/env bash
# `hopwatch-analyzer topology` reads a scenario's LLDP views, the capture and the lldpcli json0 dumps, and
# finds the nodes, links, tiers and node ids truth.json gives, the injected MTU mismatch and the link that
# went down; with map.json every INT (node id, port) of the reports is placed on the map.
# Usage: scen_topology.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 an=$2
command -v jq >/dev/null || skip "jq missing"

check() { # scenario DIR topo.json SOURCE
  local sc=$1 out=$2 j=$3 src=$4
  local want_nodes want_links
  want_nodes=$(jq '.topology.nodes | length' "$out/truth.json")
  want_links=$(jq '.topology.links | length' "$out/truth.json")
  [ "$(jq '.nodes | length' "$j")" = "$want_nodes" ] || fail "$sc $src: $(jq '.nodes | length' "$j") nodes, want $want_nodes"
  [ "$(jq '[.links[] | select(.up)] | length' "$j")" = "$want_links" ] ||
    fail "$sc $src: $(jq '[.links[] | select(.up)] | length' "$j") links up, want $want_links"
  # every truth link, by its two ends, is a link the analyzer found
  jq -r '.topology.links[] | [.a.node + "." + .a.ifname, .b.node + "." + .b.ifname] | sort | join(" ")' \
    "$out/truth.json" | sort >"$dir/want"
  jq -r '.links[] | [.a.node + "." + .a.port, .b.node + "." + .b.port] | sort | join(" ")' "$j" | sort >"$dir/got"
  diff -q "$dir/want" "$dir/got" >/dev/null || { diff "$dir/want" "$dir/got" | head -4; fail "$sc $src: links differ"; }
  # node ids are the management addresses, and tiers follow the fabric (map.json only names them)
  jq -r '.topology.nodes[] | "\(.node) \(.node_id) \(.tier)"' "$out/truth.json" | sort >"$dir/want"
  jq -r '.nodes[] | "\(.name) \(.node_id) \(.tier)"' "$j" | sort >"$dir/got"
  diff -q "$dir/want" "$dir/got" >/dev/null || { diff "$dir/want" "$dir/got" | head -4; fail "$sc $src: nodes differ"; }
  # the MTU mismatch the scenario injected, on its link, and no other
  jq -r '.events[] | select(.kind=="MtuMismatch") | .place.link | [.a.node + "." + .a.ifname, .b.node + "." + .b.ifname] | sort | join(" ")' \
    "$out/truth.json" | sort >"$dir/want"
  jq -r '.events[] | select(.kind=="MtuMismatch") | [.a.node + "." + .a.port, .b.node + "." + .b.port] | sort | join(" ")' "$j" |
    sort >"$dir/got"
  diff -q "$dir/want" "$dir/got" >/dev/null || { echo "want: $(cat "$dir/want") got: $(cat "$dir/got")"; fail "$sc $src: MtuMismatch differs"; }
  [ "$(jq '[.events[] | select(.kind=="OneSidedNeighbor" or .kind=="PfcMismatch" or .kind=="DuplicateChassisId")] | length' "$j")" = 0 ] ||
    fail "$sc $src: unexpected check events"
}

for sc in mtu-mismatch fat-tree-mix; do
  out=$dir/$sc
  "$gen" scenario "$sc" --write-records --out "$out" --quiet || fail "$sc: generator failed"
  "$an" topology --lldp "$out/lldp.pcap" --map "$out/map.json" --jsonl "$out/records.jsonl" --json-out "$dir/p.json" \
    --quiet || fail "$sc: analyzer failed on lldp.pcap"
  check "$sc" "$out" "$dir/p.json" lldp.pcap
  [ "$(jq '.placement.unplaced' "$dir/p.json")" = 0 ] && [ "$(jq '.placement.placed' "$dir/p.json")" -gt 0 ] ||
    fail "$sc: INT ports unplaced: $(jq -c '.placement | del(.unplaced_ports)' "$dir/p.json")"
  "$an" topology --lldpd-json "$out/lldp" --map "$out/map.json" --json-out "$dir/d.json" --quiet ||
    fail "$sc: analyzer failed on the json0 dumps"
  check "$sc" "$out" "$dir/d.json" lldpd-json
  echo "ok $sc: the analyzer finds $(jq '.nodes | length' "$dir/d.json") nodes, $(jq '.links | length' "$dir/d.json") links and the MTU mismatch in the capture and in the dumps"
done

# link-down: the capture shows the link leaving (TTL 0) and coming back
out=$dir/ld
"$gen" scenario link-down --out "$out" --quiet || fail "link-down: generator failed"
"$an" topology --lldp "$out/lldp.pcap" --json-out "$dir/l.json" --quiet || fail "link-down: analyzer failed"
link=$(jq -r '.events[0].place.link | [.a.node + "." + .a.ifname, .b.node + "." + .b.ifname] | sort | join(" ")' "$out/truth.json")
got=$(jq -r '.events[] | select(.kind=="LinkDown") | [.a.node + "." + .a.port, .b.node + "." + .b.port] | sort | join(" ")' "$dir/l.json" | sort -u)
[ "$got" = "$link" ] || fail "link-down: LinkDown on '$got', want '$link'"
echo "ok link-down: LinkDown on $link"
