#!/bin/bash
# infiniband-diags' port listings as topologies (captured under ibsim:
# tests/fabrics/capture.sh): `ibnetdiscover -p` and iblinkinfo give the
# figures ibnetdiscover's own output gives with the same tables; the
# listings that lack what a topology needs (iblinkinfo -l: no node types;
# ibnetdiscover -l: no links) are named, with what to give instead; a cut
# or edited listing exits 2 naming the file and line.
. "$(dirname "$0")/lib.sh"
T=$top_srcdir/tests/fabrics/two-level

# The figures of a report, without '#' headers, run times and CA GUIDs
# (the listings give CA port GUIDs only: a CA takes its port's).
figures() {
	grep -v '^#' "$1" | sed 's/ ([0-9.]* s)$//; s/0x0002c903[0-9a-f]*//g'
}

"$croute" check -t "$T/ibnetdiscover.topo" --lfts "$T/dump_fts.out" \
	>"$tmp/check.ref" 2>&1 || fail "check of ibnetdiscover's output failed"
"$croute" estimate -t "$T/ibnetdiscover.topo" --lfts "$T/dump_fts.out" \
	>"$tmp/est.ref" 2>&1 || fail "estimate of ibnetdiscover's output failed"
for f in ibnetdiscover-p iblinkinfo; do
	case $f in
	ibnetdiscover-p) fmt="ibnetdiscover -p" ;;
	*) fmt=iblinkinfo ;;
	esac
	expect 0 "$f.out \\($fmt\\), LFTs" "check of $f" \
		"$croute" check -t "$T/$f.out" --lfts "$T/dump_fts.out"
	figures "$tmp/out" >"$tmp/a"
	figures "$tmp/check.ref" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || fail "check of $f differs from ibnetdiscover"
	expect 0 "" "estimate of $f" \
		"$croute" estimate -t "$T/$f.out" --lfts "$T/dump_fts.out"
	figures "$tmp/out" >"$tmp/a"
	figures "$tmp/est.ref" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || {
		diff "$tmp/a" "$tmp/b" | head -n 6
		fail "estimate of $f differs from ibnetdiscover"
	}
done
expect 0 "result: +OK" "ibnetdiscover -p on standard input" \
	sh -c "\"$croute\" check -t - --lfts \"$T/dump_fts.out\" \
	<\"$T/ibnetdiscover-p.out\""

# Ports without a cable are listed too: a switch's port count.
{
	cat "$T/ibnetdiscover-p.out"
	printf 'SW     5  5 0x0002c90200000003 4x QDR%36s%s\n' "" "'leaf-1'"
} >"$tmp/p-spare.out"
expect 0 "result: +OK" "a port without a cable" \
	"$croute" check -t "$tmp/p-spare.out" --lfts "$T/dump_fts.out"
{
	cat "$T/iblinkinfo.out"
	printf '%11s1 %4s[  ] ==(%14s%6s/%8s)==>%13s[  ] "" ( )\n' \
		"" 3 "" Down Polling ""
} >"$tmp/li-down.out"
expect 0 "result: +OK" "iblinkinfo: a port that is down" \
	"$croute" check -t "$tmp/li-down.out" --lfts "$T/dump_fts.out"

# Cut and edited listings.
sed 1d "$T/ibnetdiscover-p.out" >"$tmp/p-cut.out"
expect 2 "p-cut.out:[0-9]+: .*does not list this link" "-p without a line" \
	"$croute" check -t "$tmp/p-cut.out" --lfts "$T/dump_fts.out"
sed '1s/4x QDR/4x DDR/' "$T/ibnetdiscover-p.out" >"$tmp/p-rate.out"
expect 2 "p-rate.out:[0-9]+: rate 4xDDR contradicts 4xQDR" \
	"-p: the ends of a link disagree" \
	"$croute" check -t "$tmp/p-rate.out" --lfts "$T/dump_fts.out"
sed '3s/QDR/XYZ/' "$T/ibnetdiscover-p.out" >"$tmp/p-bad.out"
expect 2 "p-bad.out:3: expected .*ibnetdiscover -p" "-p: a bad speed" \
	"$croute" check -t "$tmp/p-bad.out" --lfts "$T/dump_fts.out"
sed '/h0003/{/CA: /!d}' "$T/iblinkinfo.out" >"$tmp/li-cut.out"
expect 2 "li-cut.out:[0-9]+: .*does not list this link" \
	"iblinkinfo without a port line" \
	"$croute" check -t "$tmp/li-cut.out" --lfts "$T/dump_fts.out"
sed -E 's/^( +(0x[0-9a-f]+ +)?)[0-9]+( +[0-9]+\[)/\10\3/;
	s/==> +[0-9]+ /==>       0 /' "$T/iblinkinfo.out" >"$tmp/li-nolid.out"
expect 2 "li-nolid.out:[0-9]+: .*no SM has given LIDs" \
	"iblinkinfo of a fabric without LIDs" \
	"$croute" check -t "$tmp/li-nolid.out" --lfts "$T/dump_fts.out"

# Listings that cannot make a topology.
expect 2 "iblinkinfo-l.out:1: this is iblinkinfo -l output" "iblinkinfo -l" \
	"$croute" check -t "$T/iblinkinfo-l.out" --lfts "$T/dump_fts.out"
expect 2 "ibnetdiscover-l.out:1: this is a node list" "ibnetdiscover -l" \
	"$croute" check -t "$T/ibnetdiscover-l.out" --lfts "$T/dump_fts.out"
exit $failed
