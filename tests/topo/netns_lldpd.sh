# Sourced by tests that run Debian's lldpd in network namespaces (tests/topo/leafspine.sh,
# tests/ops/topology_reload.sh): the checks that skip without root or tools, and the cleanup.
# Before sourcing: P (the namespaces' prefix, unique per run), NODES (their names after "$P-"), W (a work
# folder), and optionally PIDS (background processes of the test to stop first).

# need_tools TOOL...: exit 77 (skip) without root or without one of the tools
need_tools() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
	done
}

# every process of the test and in the namespaces stopped (lldpd's privilege-separated children too),
# the namespaces, lldpd's sockets and (unless KEEP is set) W removed
netns_cleanup() {
	local pid n left
	for pid in ${PIDS[@]+"${PIDS[@]}"}; do kill "$pid" 2>/dev/null; done
	for n in $NODES; do
		for pid in $(ip netns pids "$P-$n" 2>/dev/null); do kill "$pid" 2>/dev/null; done
	done
	for _ in $(seq 50); do
		left=$(for n in $NODES; do ip netns pids "$P-$n" 2>/dev/null; done)
		[ -z "$left" ] && break
		sleep 0.1
	done
	for n in $NODES; do
		for pid in $(ip netns pids "$P-$n" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
		ip netns del "$P-$n" 2>/dev/null
	done
	rm -f /run/$P-*.sock
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
