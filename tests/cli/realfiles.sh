#!/bin/bash
# Files that subnet managers and diagnostics write (captured from opensm
# and infiniband-diags under ibsim: tests/fabrics/capture.sh): one fabric
# read as opensm-subnet.lst + opensm-lfts.dump (--dump-dir), opensm-subnet.lst
# + opensm.fdbs, ibnetdiscover + dump_fts and ibnetdiscover + dump_lfts
# gives the same check and estimate figures, with each format named in the
# report header. Bad input (a cut subnet.lst, another fabric's tables,
# garbage in a table) exits 2 naming the file and line.
. "$(dirname "$0")/lib.sh"
fab=$top_srcdir/tests/fabrics
T=$fab/two-level

# run NAME WANT ARGS...: croute ARGS exits WANT; output in $tmp/NAME.
run() {
	name=$1
	want=$2
	shift 2
	"$croute" "$@" >"$tmp/$name" 2>&1
	got=$?
	if [ "$got" != "$want" ]; then
		fail "$name: exit $got, expected $want: croute $*"
		sed 's/^/  | /' "$tmp/$name" | head -n 5
	fi
}

# The figures of a report: everything but '#' headers and run times.
figures() {
	grep -v '^#' "$1" | sed 's/ ([0-9.]* s)$//'
}

i=0
for src in "--dump-dir $T" \
	"--topo $T/opensm-subnet.lst --lfts $T/opensm.fdbs" \
	"--topo $T/ibnetdiscover.topo --lfts $T/dump_fts.out" \
	"--topo $T/ibnetdiscover.topo --lfts $T/dump_lfts.out"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	run est$i 0 estimate $src --pattern shift,bisect:3
	# shellcheck disable=SC2086
	run check$i 0 check $src
	figures "$tmp/est$i" >"$tmp/est$i.fig"
	figures "$tmp/check$i" >"$tmp/check$i.fig"
	grep -q '^shift  *3/3  *12 ' "$tmp/est$i.fig" ||
		fail "estimate $src: no shift summary"
	grep -q '^pairs checked: *28$' "$tmp/check$i.fig" ||
		fail "check $src: not 28 pairs"
	if [ $i -gt 1 ]; then
		cmp -s "$tmp/est1.fig" "$tmp/est$i.fig" ||
			fail "estimate $src differs from --dump-dir"
		cmp -s "$tmp/check1.fig" "$tmp/check$i.fig" ||
			fail "check $src differs from --dump-dir"
	fi
done
grep -q '^# croute estimate: .*opensm-subnet.lst (opensm-subnet.lst), LFTs from .*opensm-lfts.dump (opensm-lfts.dump)$' \
	"$tmp/est1" || fail "estimate header of --dump-dir: $(head -n 1 "$tmp/est1")"
grep -q '(opensm.fdbs)$' "$tmp/check2" || fail "check header: no opensm.fdbs"
grep -q '(ibnetdiscover), LFTs from .* (dump_fts)$' "$tmp/check3" ||
	fail "check header: no ibnetdiscover, dump_fts"
grep -q '(dump_lfts)$' "$tmp/est4" || fail "estimate header: no dump_lfts"

# --- bad input ---------------------------------------------------------------
# A subnet.lst cut in the middle of a line, and one cut at a line end.
head -c 3000 "$T/opensm-subnet.lst" >"$tmp/cut.lst"
run cut 2 check --topo "$tmp/cut.lst" --lfts "$T/opensm.fdbs"
grep -q "cut.lst:9: .*truncated" "$tmp/cut" || fail "cut: $(cat "$tmp/cut")"
head -n 12 "$T/opensm-subnet.lst" >"$tmp/short.lst"
run short 2 check --topo "$tmp/short.lst" --lfts "$T/opensm.fdbs"
grep -q "short.lst:[0-9]*: the link .* is not listed from that end" \
	"$tmp/short" || fail "short: $(cat "$tmp/short")"
# Tables of another fabric, in each format.
for f in opensm.fdbs opensm-lfts.dump dump_fts.out dump_lfts.out; do
	run other-$f 2 check --topo "$T/opensm-subnet.lst" \
		--lfts "$fab/other/$f"
	grep -q "other/$f:[0-9]*: switch 0x0002c9ab.* is not in the topology" \
		"$tmp/other-$f" || fail "other $f: $(cat "$tmp/other-$f")"
done
# Garbage in the tables and in the topology.
sed '5s/.*/0x0003 : garbage/' "$T/opensm.fdbs" >"$tmp/bad.fdbs"
run badfdbs 2 check --topo "$T/opensm-subnet.lst" --lfts "$tmp/bad.fdbs"
grep -q "bad.fdbs:5: bad port number" "$tmp/badfdbs" ||
	fail "bad fdbs: $(cat "$tmp/badfdbs")"
sed '3s/PHY=4x/PHY=3x/' "$T/opensm-subnet.lst" >"$tmp/bad.lst"
run badlst 2 estimate --topo "$tmp/bad.lst" --engine minhop
grep -q "bad.lst:3: bad link width" "$tmp/badlst" ||
	fail "bad lst: $(cat "$tmp/badlst")"
# A dump directory without tables.
mkdir "$tmp/dd"
cp "$T/opensm-subnet.lst" "$tmp/dd/"
run nolfts 2 check --dump-dir "$tmp/dd"
grep -q "neither opensm-lfts.dump nor opensm.fdbs" "$tmp/nolfts" ||
	fail "no lfts: $(cat "$tmp/nolfts")"
run nodir 2 estimate --dump-dir "$tmp/none"
grep -q "none/opensm-subnet.lst" "$tmp/nodir" || fail "no dir: $(cat "$tmp/nodir")"
# --- node names ----------------------------------------------------------------
# Every HCA with one description, as on many clusters: report lines name
# nodes with their GUID (and LID), and --node-name-map names them.
sed 's/{h[0-9]* HCA-1}/{MT25408 ConnectX Mellanox Technologies}/g' \
	"$T/opensm-subnet.lst" >"$tmp/same.lst"
# Switch 0x...02 loses its route to LID 6: two unreachable lines.
awk '/Switch 0x0002c90200000002/ { s = 1 } /Switch 0x0002c90200000003/ { s = 0 }
	s && /^0x0006 / { print "0x0006 : UNREACHABLE"; next } { print }' \
	"$T/opensm.fdbs" >"$tmp/hole.fdbs"
run same 1 check --topo "$tmp/same.lst" --lfts "$tmp/hole.fdbs"
run samee 0 estimate --topo "$tmp/same.lst" --lfts "$T/opensm.fdbs"
# A CA by its port GUID (0x...03, as opensm-lfts.dump names LID 6), a
# switch by its node GUID, each said.
grep -q "^0x0006 .*portguid 0x0002c90300000003:" "$T/opensm-lfts.dump" ||
	fail "the fixture's LID 6 is not port GUID 0x0002c90300000003"
grep -q "^unreachable: from 'leaf-0' (node GUID 0x0002c90200000002 LID 4) to LID 6 ('MT25408 ConnectX Mellanox Technologies' (port GUID 0x0002c90300000003 LID 6))$" \
	"$tmp/same" || fail "unreachable line: $(grep unreach "$tmp/same")"
# A line that quotes a name and has no GUID after it names a node ambiguously.
for f in same samee; do
	if grep "'[^']*'" "$tmp/$f" | grep -v '^#' |
		grep -v "'[^']*' (\(node\|port\) GUID 0x[0-9a-f]\{16\}\( LID [0-9]*\)\?)" |
		grep -q .; then
		fail "$f: a node named without its GUID"
	fi
done
awk '{ n = split($0, w, " ")
	  for (i = 1; i <= n; i++) if (w[i] ~ /^NodeGUID:/) {
		g = substr(w[i], 10); if (!(g in seen)) { seen[g] = 1
		printf "0x%s \"node-%s\"\n", g, substr(g, 13) } } }' \
	"$T/opensm-subnet.lst" >"$tmp/names.map"
echo "# a comment" >>"$tmp/names.map"
run named 1 check --topo "$tmp/same.lst" --lfts "$tmp/hole.fdbs" \
	--node-name-map "$tmp/names.map"
grep -q "^unreachable: from 'node-0002' (node GUID 0x0002c90200000002 LID 4) to LID 6 ('node-0002' (port GUID 0x0002c90300000003 LID 6))$" \
	"$tmp/named" || fail "named: $(grep unreach "$tmp/named")"
run namede 0 estimate --dump-dir "$T" --node-name-map "$tmp/names.map"
grep -q "'node-" "$tmp/namede" || fail "estimate does not use the map"
grep -q "'leaf-\|'h0" "$tmp/namede" && fail "estimate uses descriptions"
for cmd in route check estimate compare; do
	{ head -n 2 "$tmp/names.map"; echo "garbage here"; } >"$tmp/bad.map"
	e="-e minhop"
	[ $cmd = compare ] && e="--engines minhop"
	# shellcheck disable=SC2086
	run badmap-$cmd 2 $cmd --dump-dir "$T" --node-name-map "$tmp/bad.map" \
		$e
	grep -q "bad.map:3: expected" "$tmp/badmap-$cmd" ||
		fail "bad map ($cmd): $(cat "$tmp/badmap-$cmd")"
done

# The topology alone routes like ibnetdiscover's.
run r1 0 route --topo "$T/opensm-subnet.lst" -e updn -o "$tmp/r1.lfts"
run r2 0 route --topo "$T/ibnetdiscover.topo" -e updn -o "$tmp/r2.lfts"
cmp -s "$tmp/r1.lfts" "$tmp/r2.lfts" ||
	fail "routing subnet.lst and ibnetdiscover output differ"
# A cr-lash sweep under QoS (lash/): OpenSM's own opensm-sl2vl.dump, whose
# CA tables are headed "Channel Adapter" with a port GUID, reads as
# croute's SL2VL dump does.
L=$fab/lash
run lash-osm 0 check --topo "$L/opensm-subnet.lst" --lfts "$L/opensm-lfts.dump" \
	--sl "$L/croute-lash-sl.dump" --sl2vl "$L/opensm-sl2vl.dump"
run lash-cr 0 check --topo "$L/opensm-subnet.lst" --lfts "$L/opensm-lfts.dump" \
	--sl "$L/croute-lash-sl.dump" --sl2vl "$L/croute-lash-sl2vl.dump"
run lash-dd 0 check --dump-dir "$L"
grep -q "one VL assumed" "$tmp/lash-osm" "$tmp/lash-dd" &&
	fail "lash: SLs given, yet one VL assumed"
figures "$tmp/lash-osm" >"$tmp/lash-osm.fig"
for x in cr dd; do
	figures "$tmp/lash-$x" | cmp -s - "$tmp/lash-osm.fig" ||
		fail "lash: check with opensm-sl2vl.dump and lash-$x differ"
done
exit $failed
