#!/bin/bash
# Link rates: every width and speed reaches the estimator at its data rate,
# and a rate the reader does not know is an error naming the file and line,
# never the file's default rate.
. "$(dirname "$0")/lib.sh"

# shift_gbps TOPO: the average rate of a shift, in Gb/s.
shift_gbps() {
	"$croute" estimate --topo "$1" -e ftree --gbps --pattern shift 2>&1 |
		awk '$1 == "shift" && $2 ~ /\// { print $4 }'
}

# A congestion-free shift runs at the link rate: 4x XDR is 800 Gb/s.
"$croute" gen ktree 2 2 --speed XDR >"$tmp/xdr" || fail "gen --speed XDR"
grep -q "4xXDR" "$tmp/xdr" || fail "gen --speed XDR writes no 4xXDR"
got=$("$croute" gen ktree 2 2 --speed XDR |
	"$croute" estimate --topo - -e ftree --gbps --pattern shift 2>&1 |
	awk '$1 == "shift" && $2 ~ /\// { print $4 }')
[ "$got" = "800.0000" ] || fail "4x XDR shift: $got Gb/s, not 800"

# Every width at NDR (100 Gb/s a lane) and XDR (200), read back from the
# file gen writes.
for speed in NDR:100 XDR:200; do
	for w in 1 2 4 8 12; do
		"$croute" gen ktree 2 2 --speed "${speed%:*}" --width $w \
			-o "$tmp/t" || fail "gen $speed $w"
		grep -q "${w}x${speed%:*}\$" "$tmp/t" ||
			fail "gen ${w}x${speed%:*}: no such rate in the file"
		want=$((w * ${speed#*:})).0000
		got=$(shift_gbps "$tmp/t")
		[ "$got" = "$want" ] ||
			fail "${w}x${speed%:*} shift: $got Gb/s, not $want"
	done
done

# A rate word no link runs at is an error naming the line, not 4x SDR.
"$croute" gen ktree 2 2 -o "$tmp/q" || exit 1
line=$(grep -n "4xQDR" "$tmp/q" | head -n 1 | cut -d: -f1)
for bad in 4xQDX 3xQDR 4xSDRX 16xEDR; do
	sed "${line}s/4xQDR/$bad/" "$tmp/q" >"$tmp/bad"
	expect 2 "bad:$line:.*unknown link rate \"$bad\"" "rate $bad" \
		"$croute" route -q -t "$tmp/bad" -e minhop
	expect 2 "bad:$line:.*$bad" "rate $bad (estimate)" \
		"$croute" estimate -t "$tmp/bad" -e minhop
done
# ibnetdiscover prints "4x???" for a speed it cannot name: the far end's
# rate stands.
sed "${line}s/4xQDR/4x???/" "$tmp/q" >"$tmp/unk"
expect 0 "" "rate 4x???" "$croute" route -q -t "$tmp/unk" -e minhop
got=$(shift_gbps "$tmp/unk")
[ "$got" = "32.0000" ] || fail "4x??? with a 4xQDR far end: $got Gb/s"

# opensm-subnet.lst: both ends of a link must tell one rate.
lst=$top_srcdir/tests/fabrics/two-level/opensm-subnet.lst
expect 0 "" "opensm-subnet.lst" "$croute" route -q -t "$lst" -e minhop
for change in "s/PHY=4x LOG=ACT SPD=10\$/PHY=4x LOG=ACT SPD=14/" \
	"s/PHY=4x LOG=ACT SPD=10\$/PHY=1x LOG=ACT SPD=10/"; do
	# The link of the file's first line, on the line of its far end.
	far=$(awk 'NR > 1 && /{spine-0} LID:0001 PN:01 }/ { print NR; exit }' \
		"$lst")
	[ -n "$far" ] || fail "no far end of line 1 in $lst"
	sed "${far}${change}" "$lst" >"$tmp/lst"
	expect 2 "lst:$far:.*contradicts.*line 1" "lst ends disagree: $change" \
		"$croute" route -q -t "$tmp/lst" -e minhop
done
# Those rates, on both ends, are fine.
sed 's/SPD=10$/SPD=100/' "$lst" >"$tmp/ndr.lst"
[ "$(shift_gbps "$tmp/ndr.lst")" = "400.0000" ] ||
	fail "opensm-subnet.lst SPD=100: not 4x NDR"
sed 's/SPD=10$/SPD=200/' "$lst" >"$tmp/xdr.lst"
[ "$(shift_gbps "$tmp/xdr.lst")" = "800.0000" ] ||
	fail "opensm-subnet.lst SPD=200: not 4x XDR"

exit $failed
