#!/bin/sh
# tshark decodes hopwatch-gen's outer Ethernet/IPv4/UDP: right ports, IP and UDP lengths agree with
# the frame.  Usage: gen_tshark.sh PATH-TO-hopwatch-gen.  Exit 77 (skip) without tshark.
set -eu
gen=$1
command -v tshark >/dev/null 2>&1 || { echo "tshark not installed: skipping"; exit 77; }
dir=$(mktemp -d /tmp/hopwatch-gen-tshark-XXXXXX)
trap 'rm -rf "$dir"' EXIT

check() { # name expected_sport expected_dport count -- generator args
	name=$1 sport=$2 dport=$3 count=$4
	shift 5
	"$gen" reports --out "$dir/$name.pcap" "$@" 2>/dev/null
	tshark -r "$dir/$name.pcap" -T fields -E separator=' ' \
		-e frame.len -e ip.len -e ip.hdr_len -e udp.srcport -e udp.dstport -e udp.length \
		>"$dir/$name.txt" 2>/dev/null
	n=$(wc -l <"$dir/$name.txt")
	[ "$n" -eq "$count" ] || { echo "$name: $n frames, want $count"; exit 1; }
	awk -v name="$name" -v sport="$sport" -v dport="$dport" '
		{ split($4, s, ","); split($5, d, ","); split($6, u, ","); split($2, l, ",")
		  if (l[1] + 14 != $1) { print name ": frame " NR ": ip.len " l[1] " + 14 != frame.len " $1; bad = 1 }
		  if (u[1] != l[1] - $3) { print name ": frame " NR ": udp.length " u[1] " != ip payload"; bad = 1 }
		  if (sport != "*" && s[1] != sport) { print name ": frame " NR ": sport " s[1]; bad = 1 }
		  if (d[1] != dport) { print name ": frame " NR ": dport " d[1]; bad = 1 } }
		END { exit bad }' "$dir/$name.txt"
	echo "$name: $n frames ok"
}

check tr20 '*' 32766 30 -- --count 30
check tr20c '*' 32766 10 -- --count 30 --coalesce 3 --in-type eth --ip mix --last-len-ff
check tr10 '*' 32766 30 -- --count 30 --format tr1.0
check tr05 0 32766 30 -- --count 30 --format tr0.5 --drop-rate 0.3
check tr20p 7000 9999 30 -- --count 30 --collector 192.0.2.1 --dst-port 9999 --src-port 7000
check int21port '*' 5000 30 -- --count 30 --format int --int-detect port --int-port 5000
check gpe '*' 4790 30 -- --count 30 --format int --encap vxlan-gpe
check geneve '*' 6081 30 -- --count 30 --format int --encap geneve --int-version 1.0
