#!/usr/bin/env bash
# The Debian package and `meson install`: builds hopwatch_*.deb from a copy of the source tree, lintian
# (no errors), its file list, its units verified by systemd-analyze inside the unpacked package, the
# demo pipeline (collector, topology, analyzer) on data/samples/incast from the unpacked paths, the
# dissector loaded by tshark and a program built against hopwatch.pc from there; and that
# `meson install --destdir` of a prefix /usr build installs the same file set as the package; then
# deb_clean_root.sh installs the .deb into a clean Debian root (skipped, 77, when the mirror is unreachable).
# Usage: deb_install.sh SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
src=$(cd "$1" && pwd)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) || skip "dpkg-architecture (dpkg-dev) not installed"
for t in dpkg-buildpackage dh dh_installsysusers lintian help2man fakeroot meson ninja; do
  command -v $t >/dev/null || skip "$t not installed (tools/deps.sh installs it)"
done
dir=$(mktemp -d)
mb_pid=
trap '[ -n "$mb_pid" ] && kill -- -"$mb_pid" 2>/dev/null; rm -rf "$dir"' EXIT

# a copy of the tree, so that the package build leaves nothing in the source tree: the files git
# tracks or would track (not what .gitignore names: build folders, demo output), else all but those
mkdir "$dir/src"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -cf - -T - 2>/dev/null) | tar -xf - -C "$dir/src"
else
  tar -C "$src" --exclude-vcs --exclude='./build*' --exclude=./out --exclude='./fuzz/corpus-*' --exclude='./obj-*' \
    --exclude=./debian/.debhelper --exclude=./debian/hopwatch -cf - . | tar -xf - -C "$dir/src"
fi
[ -f "$dir/src/debian/rules" ] || fail "cannot copy $src"
(cd "$dir/src" && nice dpkg-buildpackage -b -us -uc) >"$dir/build.log" 2>&1 ||
  { tail -40 "$dir/build.log"; fail "dpkg-buildpackage -b -us -uc"; }
debs=("$dir"/hopwatch_*.deb)
[ -f "${debs[0]}" ] || fail "dpkg-buildpackage made no hopwatch_*.deb: $(ls "$dir")"
deb=${debs[0]}
echo "ok dpkg-buildpackage: $(basename "$deb")"

# meson install --destdir of its own prefix /usr build, compared with the package at the end: configured,
# built and installed in the background (its own process group, for the EXIT trap) while lintian, the
# checks below and the clean root (mostly network and dpkg) run.  Unoptimised: the installed file set
# does not depend on the optimisation level, and it compiles in half the time.
set -m
(meson setup "$dir/mb" "$dir/src" --prefix=/usr -Dtests=disabled -Ddpdk=enabled -Dman=enabled -Doptimization=0 &&
  nice ninja -C "$dir/mb" && DESTDIR="$dir/dest" meson install -C "$dir/mb" --no-rebuild --quiet) >"$dir/mb.txt" 2>&1 &
mb_pid=$!
set +m

nice lintian "$dir"/hopwatch_*.changes >"$dir/lintian.txt" 2>&1
grep '^W:' "$dir/lintian.txt"
grep '^E:' "$dir/lintian.txt" && fail "lintian reports errors"
echo "ok lintian: no errors, $(grep -c '^W:' "$dir/lintian.txt") warnings"

root=$dir/root
dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
(cd "$root" && find . ! -type d | sed 's|^\./||' | sort) >"$dir/deb.list"
# what an installed host needs, each named here by hand
need=(usr/bin/hopwatch-collector usr/bin/hopwatch-analyzer usr/bin/hopwatch-gen usr/bin/hopwatch-records
  usr/lib/sysusers.d/hopwatch.conf usr/lib/tmpfiles.d/hopwatch.conf etc/hopwatch/collector.json
  etc/hopwatch/analyzer.json "usr/lib/$multiarch/wireshark/plugins/hopwatch.lua"
  usr/share/hopwatch/grafana/dashboards/fabric-overview.json usr/share/hopwatch/prometheus/hopwatch-rules.yml
  usr/share/hopwatch/alertmanager/alertmanager.yml usr/share/hopwatch/clickhouse/schema.sql
  usr/include/hopwatch/wire.h usr/include/hopwatch/record.h "usr/lib/$multiarch/libhopwatch.a"
  "usr/lib/$multiarch/pkgconfig/hopwatch.pc" usr/share/doc/hopwatch/README.md usr/share/doc/hopwatch/copyright
  usr/share/man/man1/hopwatch-collector.1.gz usr/share/man/man1/hopwatch-analyzer.1.gz
  usr/share/man/man1/hopwatch-gen.1.gz usr/share/man/man1/hopwatch-records.1.gz)
for f in "$src"/docs/*.md; do need+=("usr/share/doc/hopwatch/$(basename "$f")"); done
for f in "$src"/deploy/systemd/*.service "$src"/deploy/systemd/*.timer; do need+=("lib/systemd/system/$(basename "$f")"); done
for f in "${need[@]}"; do grep -qxF "$f" "$dir/deb.list" || fail "the package lacks $f"; done
[ -x "$root/usr/share/hopwatch/clickhouse/retention.sh" ] || fail "retention.sh is installed without its x bit"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/hopwatch/collector.json || fail "/etc/hopwatch/collector.json is no conffile"
grep -q '^u hopwatch ' "$root/usr/lib/sysusers.d/hopwatch.conf" || fail "sysusers.d creates no hopwatch user"
grep -q '^d /var/lib/hopwatch/lldp ' "$root/usr/lib/tmpfiles.d/hopwatch.conf" || fail "tmpfiles.d makes no /var/lib/hopwatch/lldp"
dpkg-deb -e "$deb" "$dir/control"
grep -q 'systemd-sysusers.*hopwatch.conf' "$dir/control/postinst" || fail "postinst does not create the hopwatch user"
echo "ok file list: ${#need[@]} required paths among $(wc -l <"$dir/deb.list") files"

# what the postinst runs, inside the unpacked package: the user, then its folders
mkdir -p "$root/etc"
systemd-sysusers --root="$root" hopwatch.conf >"$dir/su.txt" 2>&1 || { cat "$dir/su.txt"; fail "systemd-sysusers --root"; }
uid=$(awk -F: '$1 == "hopwatch" && $7 ~ /nologin$/ {print $3}' "$root/etc/passwd")
[ -n "$uid" ] || { cat "$root/etc/passwd"; fail "no hopwatch system user without a login shell"; }
systemd-tmpfiles --root="$root" --create hopwatch.conf >"$dir/tf.txt" 2>&1 || { cat "$dir/tf.txt"; fail "systemd-tmpfiles --root"; }
[ "$(stat -c %u "$root/var/lib/hopwatch/lldp")" = "$uid" ] || fail "/var/lib/hopwatch/lldp is not the hopwatch user's"
echo "ok the hopwatch user (uid $uid) and its /var/lib/hopwatch/lldp"

# systemd-analyze verify inside the unpacked package (the units' /usr/bin/hopwatch-* are its own): the
# host's units (targets) and /bin/sh, /bin/kill of the units' commands are laid beside them
cp -rn /lib/systemd/system/. "$root/lib/systemd/system/"
mkdir -p "$root/bin" && cp /bin/sh /bin/kill "$root/bin/"
units=()
for f in "$src"/deploy/systemd/*.service "$src"/deploy/systemd/*.timer; do
  u=$(basename "$f"); units+=("${u/@./@eth1.}")
done
systemd-analyze verify --man=no --root="$root" "${units[@]}" >"$dir/verify.txt" 2>&1
grep . "$dir/verify.txt" && fail "systemd-analyze verify --root (the unpacked package)"
echo "ok systemd-analyze verify: ${#units[@]} units"

# the demo pipeline from the unpacked paths, on the bundled sample
S=$src/data/samples/incast
bin=$root/usr/bin
"$bin/hopwatch-collector" diagnose --config "$root/etc/hopwatch/collector.json" --only config >"$dir/d.txt" 2>&1 ||
  { cat "$dir/d.txt"; fail "the installed collector.json does not load"; }
"$bin/hopwatch-analyzer" diagnose --config "$root/etc/hopwatch/analyzer.json" --only config >"$dir/d.txt" 2>&1 ||
  { cat "$dir/d.txt"; fail "the installed analyzer.json does not load"; }
"$bin/hopwatch-collector" --pcap "$S/reports.pcap" --json "$dir/records.jsonl" 2>"$dir/col.txt" ||
  { cat "$dir/col.txt"; fail "installed hopwatch-collector on the sample"; }
recs=$(count records "$dir/col.txt")
[ "$recs" -gt 0 ] && [ "$(wc -l <"$dir/records.jsonl")" -eq "$recs" ] ||
  fail "the collector counted $recs records and wrote $(wc -l <"$dir/records.jsonl") lines"
"$bin/hopwatch-analyzer" topology --lldpd-json "$S/lldp" --map "$S/map.json" --svg "$dir/topology.svg" \
  --quiet >"$dir/topo.txt" 2>&1 || { cat "$dir/topo.txt"; fail "installed hopwatch-analyzer topology"; }
grep -q '<svg' "$dir/topology.svg" || fail "no SVG topology"
"$bin/hopwatch-analyzer" run --json "$dir/records.jsonl" --lldpd-json "$S/lldp" --map "$S/map.json" \
  --config "$S/analyzer.json" --events "$dir/events.jsonl" --quiet >"$dir/run.txt" 2>&1 ||
  { cat "$dir/run.txt"; fail "installed hopwatch-analyzer run"; }
# the sample injects one incast (data/samples/README.md): the detectors must name it
grep -q '"event":"Incast","state":"firing"' "$dir/events.jsonl" || { head -5 "$dir/events.jsonl"; fail "no Incast event"; }
echo "ok demo from the unpacked paths: $recs records, $(wc -l <"$dir/events.jsonl") events, Incast among them"

if command -v tshark >/dev/null; then
  lua=$root/"usr/lib/$multiarch/wireshark/plugins/hopwatch.lua"
  tshark -X "lua_script:$lua" -r "$S/reports.pcap" -c 1 -T fields -e hopwatch.report.node >"$dir/ts.txt" 2>"$dir/ts.err" &&
    grep -q '^[0-9]' "$dir/ts.txt" || { cat "$dir/ts.err"; fail "tshark with the installed dissector"; }
  echo "ok tshark loads the installed dissector"
fi

cat >"$dir/use.c" <<'EOF'
#include <stdio.h>
#include <hopwatch/wire.h>
int main(void)
{
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	puts(hw_profile_name(cfg.profile));
	return 0;
}
EOF
# hopwatch.pc from the unpacked tree; what it requires (libcrypto, for the stream's HMAC) from the system
export PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_LIBDIR=$root/usr/lib/$multiarch/pkgconfig:/usr/lib/$multiarch/pkgconfig:/usr/share/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$dir/use.c" $(pkg-config --cflags --libs hopwatch) -o "$dir/use" 2>"$dir/cc.txt" ||
  { cat "$dir/cc.txt"; fail "a program against the installed hopwatch.pc"; }
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
# the default profile is the standard one (docs/collector.md: --profile, default standard)
[ "$("$dir/use")" = standard ] || fail "the program built on libhopwatch.a printed $("$dir/use")"
echo "ok a program builds and runs against hopwatch.pc and libhopwatch.a"

# the package installed by dpkg and apt into a clean Debian root: its Depends, maintainer scripts,
# units and removal (its status is the test's last, since it skips with 77 when the Debian mirror is unreachable)
"$here/deb_clean_root.sh" "$deb" "$src"
clean_rc=$?

# meson install --destdir (started above) against the package: the same files but for what debhelper adds
# (copyright, changelog) and compresses (man pages)
wait "$mb_pid" || { tail -30 "$dir/mb.txt"; fail "meson setup/ninja/install --destdir"; }
mb_pid=
(cd "$dir/dest" && find . ! -type d | sed 's|^\./||' | sort) >"$dir/meson.list"
grep -v -x -e usr/share/doc/hopwatch/copyright -e usr/share/doc/hopwatch/changelog.gz "$dir/deb.list" |
  sed 's|^\(usr/share/man/.*\)\.gz$|\1|' >"$dir/deb-norm.list"
diff -u "$dir/meson.list" "$dir/deb-norm.list" || fail "meson install --destdir and the package install other files"
echo "ok meson install --destdir installs the package's $(wc -l <"$dir/meson.list") files"
exit $clean_rc
