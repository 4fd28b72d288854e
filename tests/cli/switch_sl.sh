#!/bin/sh
# croute route's SL files: with -e auto they are written whatever cr-auto
# picks (an unlayered routing: SL 0 everywhere, every SL on VL 0, exit 0);
# the compact form (--switch-sl, SLs per source and destination switch)
# reads back through croute check --sl to the same verdict as the per-LID
# form, and a wrong SL in it shows as a credit loop.

. "$(dirname "$0")/lib.sh"

# --- cr-auto picks an engine without layers --------------------------------
"$croute" gen two-level --leaves 4 --hosts 2 --uplinks 2 --spines 2 \
	-o "$tmp/s.topo" || fail "croute gen"
expect_exit 0 route --topo "$tmp/s.topo" -e auto --lash-sl "$tmp/a.sl" \
	--lash-sl2vl "$tmp/a.sl2vl" --switch-sl "$tmp/a.ssl" -o "$tmp/a.lfts"
grep -q 'no layers.*SL 0' "$tmp/err" || fail "no note: $(cat "$tmp/err")"
for f in a.sl a.ssl; do
	[ -s "$tmp/$f" ] || fail "$f not written"
	awk '!/^#/ && $3 != 0 { bad = 1 } !/^#/ { n++ }
	     END { exit bad || !n }' "$tmp/$f" || fail "$f: not SL 0 throughout"
done
awk '!/^#/ { for (i = 4; i <= NF; i++) if ($i != "0x00") bad = 1; n++ }
     END { exit bad || !n }' "$tmp/a.sl2vl" || fail "SL2VL not all VL 0"
for f in a.sl a.ssl; do
	expect_exit 0 check --topo "$tmp/s.topo" --lfts "$tmp/a.lfts" \
		--sl "$tmp/$f" --sl2vl "$tmp/a.sl2vl"
done

# --- the compact form against the per-LID form ------------------------------
"$croute" gen torus 4 4 -o "$tmp/t.topo" || fail "croute gen"
expect_exit 0 route --topo "$tmp/t.topo" -e lash --lash-sl "$tmp/l.sl" \
	--lash-sl2vl "$tmp/l.sl2vl" --switch-sl "$tmp/l.ssl" -o "$tmp/l.lfts"
[ "$(grep -vc '^#' "$tmp/l.ssl")" = 256 ] || fail "not 16 x 16 switch lines"
awk '!/^#/ && $3 != 0 { n++ } END { exit !n }' "$tmp/l.ssl" ||
	fail "lash on a torus used one layer: the test proves nothing"
expect_exit 0 check --topo "$tmp/t.topo" --lfts "$tmp/l.lfts" \
	--sl "$tmp/l.sl" --sl2vl "$tmp/l.sl2vl"
cp "$tmp/out" "$tmp/full"
expect_exit 0 check --topo "$tmp/t.topo" --lfts "$tmp/l.lfts" \
	--sl "$tmp/l.ssl" --sl2vl "$tmp/l.sl2vl"
cmp -s "$tmp/out" "$tmp/full" || fail "compact and per-LID SLs differ"
sed 's/ [1-9]$/ 0/' "$tmp/l.ssl" >"$tmp/z.ssl"
expect_exit 1 check --topo "$tmp/t.topo" --lfts "$tmp/l.lfts" \
	--sl "$tmp/z.ssl" --sl2vl "$tmp/l.sl2vl"
grep -q 'credit loop' "$tmp/out" || fail "one layer: no credit loop found"
# A switch the topology lacks: file and line named, exit 2.
sed '2s/^0x[0-9a-f]* 0x[0-9a-f]*/0x1 0x2/' "$tmp/l.ssl" >"$tmp/bad.ssl"
expect_exit 2 check --topo "$tmp/t.topo" --lfts "$tmp/l.lfts" \
	--sl "$tmp/bad.ssl"
grep -q 'bad.ssl:2:' "$tmp/err" || fail "no file:line: $(cat "$tmp/err")"

# --- dfp: the compact form of a two-VL engine --------------------------------
"$croute" gen dragonfly-plus --groups 4 --leaves 2 --spines 2 --hosts 2 \
	--global 2 -o "$tmp/d.topo" || fail "croute gen"
expect_exit 0 route --topo "$tmp/d.topo" -e dfp --switch-sl "$tmp/d.ssl" \
	--lash-sl2vl "$tmp/d.sl2vl" -o "$tmp/d.lfts"
expect_exit 0 check --topo "$tmp/d.topo" --lfts "$tmp/d.lfts" \
	--sl "$tmp/d.ssl" --sl2vl "$tmp/d.sl2vl"
exit $failed
