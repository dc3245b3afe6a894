#!/usr/bin/env bash
# The Debian package installed into a clean root: mmdebstrap makes a bare Debian of the host's release,
# `dpkg -i` + `apt-get -f install` install hopwatch_*.deb with its Depends from the archive, and in that
# root: the maintainer scripts' user and folders, the conffiles, `systemd-analyze verify` of the
# installed units, the programs from /usr/bin running the demo pipeline as the hopwatch user, then
# `dpkg -r` and `dpkg -P` leaving nothing of the package behind.  Skips (77) when the mirror is
# unreachable.  Usage: deb_clean_root.sh DEB SOURCE_ROOT (deb_install.sh runs it on the .deb it builds)
# Environment: HOPWATCH_DEB_MIRROR (default http://deb.debian.org/debian) and HOPWATCH_DEB_SECURITY
# (default http://deb.debian.org/debian-security), the archive the root is made from.
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
[ $# -eq 2 ] || { echo "usage: deb_clean_root.sh DEB SOURCE_ROOT" >&2; exit 2; }
deb=$(realpath "$1")
src=$(cd "$2" && pwd)
[ -f "$deb" ] || fail "no package $deb"
need_root
for t in mmdebstrap unshare chroot curl python3; do
  command -v $t >/dev/null || skip "clean root: $t not installed (tools/deps.sh installs it)"
done
# the package is built against the host's libraries: the root is the host's Debian release
. /etc/os-release
[ "${ID:-}" = debian ] && [ -n "${VERSION_CODENAME:-}" ] || skip "clean root: the host is no Debian release (${PRETTY_NAME:-?})"
suite=$VERSION_CODENAME
mirror=${HOPWATCH_DEB_MIRROR:-http://deb.debian.org/debian}
security=${HOPWATCH_DEB_SECURITY:-http://deb.debian.org/debian-security}
curl -sfI --max-time 30 "$mirror/dists/$suite/InRelease" >/dev/null ||
  skip "clean root: the Debian mirror $mirror is unreachable (set HOPWATCH_DEB_MIRROR to another one)"

dir=$(mktemp -d)
# --one-file-system: never into a /proc left mounted in the root
trap 'rm -rf --one-file-system "$dir"' EXIT
root=$dir/root
t0=$SECONDS

# a bare root (Essential packages and apt), its sources the same archive as the host's: the host's
# downloaded packages are hard-linked into its apt cache when they can be (same file system), so that
# apt downloads only what the host lacks; apt checks each against the archive's hashes before use.
# dpkg in the root syncs no file to disk one by one (force-unsafe-io): the root is thrown away.
nice mmdebstrap --variant=apt --mode=root --skip=cleanup/apt --dpkgopt=force-unsafe-io \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives" && { cp -l /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true; }' \
  "$suite" "$root" "deb $mirror $suite main" "deb $mirror $suite-updates main" \
  "deb $security $suite-security main" >"$dir/mm.txt" 2>&1 || {
  tail -20 "$dir/mm.txt"
  grep -qE 'Failed to fetch|Temporary failure resolving|Could not connect|Could not resolve|Connection timed out' "$dir/mm.txt" &&
    skip "clean root: mmdebstrap could not reach $mirror"
  fail "mmdebstrap --variant=apt $suite"
}
[ -x "$root/usr/bin/apt-get" ] && [ ! -e "$root/usr/bin/hopwatch-collector" ] || fail "mmdebstrap made no bare root"
# no daemon of a dependency (lldpd) started in the root: "not now" (invoke-rc.d's policy-rc.d)
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
echo "ok a clean $suite root from $mirror in $((SECONDS - t0)) s"

# inroot CMD...: CMD chrooted into the root, in mount and pid namespaces of its own with the root's
# /proc mounted (gone with the namespace; no process outlives it)
inroot() {
  unshare --mount --pid --fork --kill-child -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

t1=$SECONDS
cp "$deb" "$root/tmp/hopwatch.deb"
# the bare root lacks the libraries the package Depends on (libjansson4, libpcap0.8, librte-*): dpkg
# must refuse to configure it, else its Depends are missing
inroot dpkg -i /tmp/hopwatch.deb >"$dir/dpkg-i.txt" 2>&1 && { cat "$dir/dpkg-i.txt"; fail "dpkg -i configured hopwatch in a root without its Depends"; }
grep -q 'dependency problems' "$dir/dpkg-i.txt" || { cat "$dir/dpkg-i.txt"; fail "dpkg -i failed, not for its dependencies"; }
inroot apt-get -f install -y --no-install-recommends >"$dir/apt.txt" 2>&1 || {
  tail -30 "$dir/apt.txt"
  grep -qE 'Temporary failure resolving|Could not connect|Could not resolve|Connection timed out' "$dir/apt.txt" &&
    skip "clean root: apt could not reach $mirror"
  fail "apt-get -f install (the Depends from $mirror)"
}
status=$(inroot dpkg-query -W -f='${db:Status-Abbrev}' hopwatch)
[ "$status" = "ii " ] || { tail -30 "$dir/apt.txt"; fail "hopwatch is '$status' after apt-get -f install, not installed"; }
echo "ok dpkg -i + apt-get -f install: $(grep -c '^Setting up' "$dir/apt.txt") packages set up in $((SECONDS - t1)) s"

# sysusers (postinst): hopwatch.sysusers says `u hopwatch - ... /var/lib/hopwatch`, a system user
# (uid below 1000) without login, its group of the same name
pw=$(inroot getent passwd hopwatch) || fail "postinst made no hopwatch user"
IFS=: read -r _ _ uid gid _ home shell <<<"$pw"
[ "$uid" -lt 1000 ] && [ "$home" = /var/lib/hopwatch ] && [ "${shell##*/}" = nologin ] || fail "hopwatch user: $pw"
[ "$(inroot getent group hopwatch | cut -d: -f3)" = "$gid" ] || fail "no hopwatch group of gid $gid"
# tmpfiles (postinst): hopwatch.tmpfiles asks 0755, 0755, 0750, each hopwatch:hopwatch
for want in "/var/lib/hopwatch 755" "/var/lib/hopwatch/lldp 755" "/var/lib/hopwatch/records 750"; do
  got=$(inroot stat -c '%n %a %U:%G' "${want% *}") || fail "postinst made no ${want% *}"
  [ "$got" = "$want hopwatch:hopwatch" ] || fail "$got, not $want hopwatch:hopwatch"
done
echo "ok postinst: system user hopwatch ($uid:$gid, nologin), /var/lib/hopwatch{,/lldp,/records}"

# the two configs are conffiles, installed as the tree's deploy/systemd/*.json
inroot dpkg-query -W -f='${Conffiles}\n' hopwatch >"$dir/conffiles.txt"
for c in collector analyzer; do
  sum=$(md5sum <"$src/deploy/systemd/$c.json" | cut -d' ' -f1)
  grep -qx " /etc/hopwatch/$c.json $sum" "$dir/conffiles.txt" || { cat "$dir/conffiles.txt"; fail "/etc/hopwatch/$c.json is no conffile of md5 $sum"; }
  [ "$(md5sum <"$root/etc/hopwatch/$c.json" | cut -d' ' -f1)" = "$sum" ] || fail "/etc/hopwatch/$c.json differs from deploy/systemd/$c.json"
done
echo "ok conffiles: /etc/hopwatch/collector.json, analyzer.json"

# the installed units, verified by the root's own systemd (a Depends): the host plays no part
units=()
for f in "$src"/deploy/systemd/*.service "$src"/deploy/systemd/*.timer; do
  u=$(basename "$f"); units+=("${u/@./@eth1.}")
done
inroot sh -c 'cd /lib/systemd/system && SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no "$@"' sh "${units[@]}" >"$dir/verify.txt" 2>&1 ||
  { cat "$dir/verify.txt"; fail "systemd-analyze verify in the root"; }
grep . "$dir/verify.txt" && fail "systemd-analyze verify in the root complains"
echo "ok systemd-analyze verify in the root: ${#units[@]} units"

for p in collector analyzer gen records; do
  v=$(inroot "/usr/bin/hopwatch-$p" --version 2>&1) || fail "/usr/bin/hopwatch-$p --version: $v"
  [ "$v" = "hopwatch-$p $(dpkg-deb -f "$deb" Version)" ] || fail "/usr/bin/hopwatch-$p --version says '$v'"
done
echo "ok /usr/bin/hopwatch-{collector,analyzer,gen,records} --version"

# the demo pipeline from /usr/bin as the hopwatch user, in the folders the postinst made for it
mkdir "$root/tmp/sample" && cp -r "$src/data/samples/incast/." "$root/tmp/sample/" && chmod -R a+rX "$root/tmp/sample"
asuser() { inroot setpriv --reuid=hopwatch --regid=hopwatch --init-groups sh -c "cd /var/lib/hopwatch && $1"; }
asuser '/usr/bin/hopwatch-collector diagnose --config /etc/hopwatch/collector.json --only config &&
  /usr/bin/hopwatch-analyzer diagnose --config /etc/hopwatch/analyzer.json --only config' >"$dir/diag.txt" 2>&1 ||
  { cat "$dir/diag.txt"; fail "the installed configs do not load"; }
asuser '/usr/bin/hopwatch-collector --pcap /tmp/sample/reports.pcap --json records/records.jsonl' 2>"$dir/col.txt" ||
  { cat "$dir/col.txt"; fail "/usr/bin/hopwatch-collector on the sample"; }
recs=$(count records "$dir/col.txt")
out=$root/var/lib/hopwatch/records
[ "$recs" -gt 0 ] && [ "$(wc -l <"$out/records.jsonl")" -eq "$recs" ] ||
  fail "the collector counted $recs records and wrote $(wc -l <"$out/records.jsonl") lines"
asuser 'cp /tmp/sample/lldp/*.json lldp/ && /usr/bin/hopwatch-analyzer topology --lldpd-json lldp --map /tmp/sample/map.json \
  --svg records/topology.svg --quiet && /usr/bin/hopwatch-analyzer run --jsonl records/records.jsonl --lldpd-json lldp \
  --map /tmp/sample/map.json --config /tmp/sample/analyzer.json --events records/events.jsonl --quiet' >"$dir/run.txt" 2>&1 ||
  { cat "$dir/run.txt"; fail "/usr/bin/hopwatch-analyzer topology / run"; }
grep -q '<svg' "$out/topology.svg" || fail "no SVG topology"
# truth.json's injected incast (data/samples/README.md: 16 senders toward host1): an Incast raised at
# its place (node, port, queue), starting inside its window, naming some of its affected flows
python3 - "$src/data/samples/incast/truth.json" "$out/events.jsonl" <<'PY' || fail "the events miss the sample's incast"
import json, sys
truth = [e for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "Incast"]
events = [json.loads(line) for line in open(sys.argv[2])]
assert truth, "truth.json injects no incast"
for t in truth:
    p, flows = t["place"], {f["flow_hash"] for f in t["affected_flows"]}
    hit = [e for e in events if e["event"] == "Incast" and e["state"] == "firing" and not e.get("update")
           and (e.get("node"), e.get("port"), e.get("queue")) == (p["node"], p["port"], p["queue"])
           and t["start_ns"] <= e["start_ns"] <= t["end_ns"] and flows & set(e["flows"])]
    if not hit:
        sys.exit("no Incast at %s port %d queue %d in [%d, %d]" % (p["node"], p["port"], p["queue"], t["start_ns"], t["end_ns"]))
    print("ok demo from /usr/bin as the hopwatch user: Incast at %s:%s queue %d, as truth.json injects" % (p["node"], p["ifname"], p["queue"]))
PY

# dpkg -r: the programs go, the conffiles and the data stay (status config-files); dpkg -P: all goes
# but the hopwatch user (policy: a package never deletes a system user, whose files may remain)
inroot dpkg-query -L hopwatch >"$dir/files.txt"
inroot dpkg -r hopwatch >"$dir/rm.txt" 2>&1 || { cat "$dir/rm.txt"; fail "dpkg -r hopwatch"; }
[ "$(inroot dpkg-query -W -f='${db:Status-Abbrev}' hopwatch)" = "rc " ] || fail "hopwatch is not in config-files state after dpkg -r"
[ ! -e "$root/usr/bin/hopwatch-collector" ] || fail "dpkg -r left /usr/bin/hopwatch-collector"
[ -f "$root/etc/hopwatch/collector.json" ] && [ -f "$root/etc/hopwatch/analyzer.json" ] || fail "dpkg -r removed the conffiles"
[ -f "$out/records.jsonl" ] || fail "dpkg -r removed /var/lib/hopwatch"
inroot dpkg -P hopwatch >"$dir/purge.txt" 2>&1 || { cat "$dir/purge.txt"; fail "dpkg -P hopwatch"; }
inroot dpkg-query -W hopwatch >/dev/null 2>&1 && fail "dpkg still knows hopwatch after dpkg -P"
while read -r f; do
  [ -d "$root$f" ] && continue # folders shared with others (/usr/bin; /lib, a link to usr/lib)
  [ -e "$root$f" ] || [ -L "$root$f" ] && fail "dpkg -P left $f"
done <"$dir/files.txt"
# anything else named after it: /etc/hopwatch, /var/lib/hopwatch, the units' deb-systemd-helper state
(cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp \) -prune -o -name '*hopwatch*' -print) >"$dir/left.txt"
[ -s "$dir/left.txt" ] && { cat "$dir/left.txt"; fail "dpkg -P left files named after hopwatch"; }
inroot getent passwd hopwatch >/dev/null || fail "dpkg -P deleted the hopwatch user"
echo "ok dpkg -r keeps the conffiles and /var/lib/hopwatch, dpkg -P leaves none of its $(wc -l <"$dir/files.txt") paths"
echo "ok clean root: $((SECONDS - t0)) s in all"
