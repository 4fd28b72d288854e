#!/bin/bash
# A battery of damaged and mistaken inputs for every reader, made from
# real captures (tests/fabrics) and generated fabrics: every file cut at
# each line and inside each line, each line deleted, doubled, swapped
# with the next and with a digit changed, and whole-file damage (CRLF,
# NUL, bytes that are not UTF-8, a very long line, gzip, a folder, files
# of other kinds). The oracle needs no list of answers: a case must give
# the answer of the undamaged file (the damage did not matter, e.g. a
# comment) or exit 2 with a message that names the file; a crash, a hang,
# or another answer without an error or a warning naming the file is a
# failure. Cases whose damage
# changes the fabric itself (a cable line deleted from both ends, ...)
# are not generated.
#
# BATTERY_VERBOSE=1 lists every case; BATTERY_ONLY=LABEL runs one group;
# BATTERY_STRIDE=N damages every N-th of the lines it would (whole-file
# damage stays): scripts/check's sanitizer build, where each case costs
# several times as much, runs every fifth, the plain build all of them.
. "$(dirname "$0")/lib.sh"

stride=${BATTERY_STRIDE:-1}
case $stride in
'' | *[!0-9]* | 0*)
	echo "BATTERY_STRIDE: '$stride' is not a whole number from 1" >&2
	exit 99 ;;
esac

fab=$top_srcdir/tests/fabrics
two=$fab/two-level
m=$tmp/m
mkdir -p "$m"
cases=0
bad=0
conf_key=/

# What is compared: not names in quotes (a digit changed in a
# description changes only the name), times, or the name of the LFT
# format read.
norm() {
	sed -E "s/'[^']*'/''/g; s/[0-9]+\.[0-9]+ s\b/T s/g; s/^(# croute .*LFTs from [^ ]*) \(.*\)$/\1/"
}

# One case: the damaged file is at $target; run the command, judge it.
judge() {
	label=$1
	kind=$2
	shift 2
	cases=$((cases + 1))
	timeout 30 "${@//@T/$target}" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	verdict=
	if [ $rc = 124 ]; then
		verdict=HANG
	elif [ $rc -ge 128 ] ||
		grep -q -E 'Sanitizer|runtime error|Assertion' "$tmp/e"; then
		verdict=CRASH
	elif [ $rc = 2 ]; then
		grep -q -F -e "$(basename "$target")" -e "<stdin>" \
			-e "$conf_key" "$tmp/e" || verdict=VAGUE
	elif [ $rc != "$base_rc" ] ||
		! norm <"$tmp/o" | cmp -s - "$tmp/base.n"; then
		# Another answer is fine when a warning names the file.
		grep -q -F "$(basename "$target"):" "$tmp/e" &&
			grep -q "warning: " "$tmp/e" || verdict=WRONG
	fi
	# A list (roots, hosts, flows, ...) with a line cut, deleted, doubled,
	# moved or naming another node is another list: only crashes, hangs
	# and vague errors count (a GUID not in the fabric must be named).
	[ -n "${list:-}" ] && [ "$verdict" = WRONG ] &&
		case $kind in cut\ after* | line\ * | *swapped | empty)
			verdict= ;;
		esac
	[ -n "${BATTERY_VERBOSE:-}" ] &&
		echo "case $label $kind: exit $rc ${verdict:-ok}"
	[ -z "$verdict" ] && return 0
	bad=$((bad + 1))
	fail "$verdict: $label, $kind: exit $rc (undamaged: $base_rc)"
	sed 's/^/  | /' "$tmp/e" | head -n 4
	[ $verdict = WRONG ] &&
		diff "$tmp/base" "$tmp/o" | head -n 6 | sed 's/^/  > /'
	return 0
}

# The command's answer on the undamaged file, at the same path.
baseline() {
	"${@//@T/$target}" >"$tmp/base" 2>"$tmp/base.err"
	base_rc=$?
	norm <"$tmp/base" >"$tmp/base.n"
	[ $base_rc -le 1 ] || {
		fail "baseline of $label exits $base_rc: $*"
		sed 's/^/  | /' "$tmp/base.err" | head -n 4
	}
}

# battery LABEL FILE STEP CMD...: CMD reads @T, a damaged copy of FILE;
# every STEP-th line is damaged. Lines matching $keep (a regex) are not
# deleted (deleting them changes the fabric, not the file's form).
battery() {
	label=$1
	src=$2
	step=$3
	shift 3
	case "${BATTERY_ONLY:-$label}" in "$label") ;; *) return 0 ;; esac
	target=$m/$(basename "$src")
	rm -rf "$target"
	cp "$src" "$target"
	baseline "$@"
	n=$(wc -l <"$src")
	step=$((step * stride))
	for ((k = 0; k < n; k += step)); do
		head -n $k "$src" >"$target"
		judge "$label" "cut after line $k" "$@"
		l=$((k + 1))
		off=$(head -n $k "$src" | wc -c)
		len=$(sed -n "${l}p" "$src" | wc -c)
		if [ "$len" -gt 3 ]; then
			head -c $((off + len / 2)) "$src" >"$target"
			judge "$label" "cut inside line $l" "$@"
		fi
		if [ -z "${keep:-}" ] ||
			! sed -n "${l}p" "$src" | grep -q -E "$keep"; then
			sed "${l}d" "$src" >"$target"
			judge "$label" "line $l deleted" "$@"
		fi
		sed "${l}p" "$src" >"$target"
		judge "$label" "line $l doubled" "$@"
		[ $l -lt "$n" ] && {
			sed -n "1,$((l - 1))p;$((l + 1))p;${l}p;$((l + 2)),\$p" \
				"$src" >"$target"
			judge "$label" "lines $l and $((l + 1)) swapped" "$@"
		}
		# The line's last digit, then its first after column 2.
		awk -v l=$l 'NR == l && match($0, /[0-9][^0-9]*$/) {
			d = substr($0, RSTART, 1)
			$0 = substr($0, 1, RSTART - 1) (d + 1) % 10 \
				substr($0, RSTART + 1) } { print }' \
			"$src" >"$target"
		cmp -s "$src" "$target" ||
			judge "$label" "line $l: last digit changed" "$@"
		awk -v l=$l 'NR == l && match(substr($0, 3), /[0-9]/) {
			p = RSTART + 2; d = substr($0, p, 1)
			$0 = substr($0, 1, p - 1) (d + 7) % 10 \
				substr($0, p + 1) } { print }' \
			"$src" >"$target"
		cmp -s "$src" "$target" ||
			judge "$label" "line $l: a digit changed" "$@"
	done
	whole "$label" "$src" "$@"
	cp "$src" "$target"
}

# Damage to the whole file.
whole() {
	label=$1
	src=$2
	shift 2
	sed 's/$/\r/' "$src" >"$target"
	judge "$label" "CRLF line ends" "$@"
	half=$(($(wc -c <"$src") / 2))
	{
		head -c $half "$src"
		printf '\0'
		tail -c +$((half + 1)) "$src"
	} >"$target"
	judge "$label" "a NUL byte inside" "$@"
	{
		head -c $half "$src"
		printf '\377\376'
		tail -c +$((half + 1)) "$src"
	} >"$target"
	judge "$label" "bytes that are not UTF-8" "$@"
	: >"$target"
	judge "$label" "empty" "$@"
	{
		cat "$src"
		head -c 300000 /dev/zero | tr '\0' 7
		echo
	} >"$target"
	judge "$label" "a 300 KB line at the end" "$@"
	gzip -c "$src" >"$target"
	judge "$label" "gzip'd" "$@"
	gzip -c "$src" | head -c $(($(gzip -c "$src" | wc -c) - 9)) >"$target"
	judge "$label" "gzip'd, cut short" "$@"
	rm -f "$target"
	mkdir "$target"
	judge "$label" "a folder" "$@"
	rmdir "$target"
	judge "$label" "missing" "$@"
	for other in "$two/ibnetdiscover.topo" "$two/opensm-lfts.dump" \
		"$tmp/names.map" "$tmp/guid2lid" "$fab/lash/croute-lash-sl.dump" \
		"$fab/lash/opensm-sl2vl.dump" "$tmp/hosts" "$two/opensm-subnet.lst"; do
		[ "$(basename "$other")" = "$(basename "$src")" ] && continue
		# Another fabric is a right input with another answer.
		[ -n "${fabric:-}" ] && case $other in *.topo | *.lst) continue ;; esac
		cp "$other" "$target"
		judge "$label" "$(basename "$other") instead" "$@"
	done
}

# Inputs the captures lack: a name map, a guid2lid file, a host order.
awk '/^Switch|^Ca/ { g = $0; sub(/^[^"]*"/, "", g); sub(/".*/, "", g)
	d = $0; sub(/^[^#]*# "/, "", d); sub(/".*/, "", d)
	print "0x" substr(g, 3), "\"" d "\"" }' \
	"$two/ibnetdiscover.topo" >"$tmp/names.map"
awk 'function pad(g) { return "0x" substr("0000000000000000" g, length(g) + 1) }
/^Switch/ { g = $0; sub(/^[^"]*"S-/, "", g); sub(/".*/, "", g)
	l = $0; sub(/.* lid /, "", l); sub(/ .*/, "", l); print pad(g), l, l }
/^\[/ && /\(/ { g = $0; sub(/.*\(/, "", g); sub(/\).*/, "", g)
	l = $0; sub(/.* lid /, "", l); sub(/ .*/, "", l); print pad(g), l, l }' \
	"$two/ibnetdiscover.topo" | sort -u -k2n >"$tmp/guid2lid"
printf 'h0003\nh0001\nh0004\nh0002\n' >"$tmp/hosts"
printf 'h0001 h0003\nh0002 h0004\n0x0002c90300000005 0x0002c90300000001\n8 6\n' \
	>"$tmp/flows"
printf '0x0002c90200000000\n0x0002c90200000001\n' >"$tmp/roots"
printf '0x0002c90300000001\n0x0002c90300000003\n0x0002c90300000005\n0x0002c90300000007\n' \
	>"$tmp/cns"
printf '0x0002c90200000002 4 3 2 1\n0x0002c90200000003 3 4\n' \
	>"$tmp/portorder"
"$croute" gen two-level --leaves 3 --hosts 3 --uplinks 2 --spines 2 \
	--scramble 5 -o "$tmp/gen.topo" || exit 1
"$croute" gen ktree 2 2 --speed NDR --width 8 --lmc 1 \
	-o "$tmp/lmc.topo" || exit 1
"$croute" route -q -t "$tmp/lmc.topo" -e updn -o "$tmp/lmc.lfts" || exit 1

t=$two/ibnetdiscover.topo
fabric=1
# Lines that carry a cable: deleting one changes the fabric itself.
keep='^\['
battery topo "$t" 2 "$croute" route -q -t @T -e minhop
battery topo-p "$two/ibnetdiscover-p.out" 1 \
	"$croute" route -q -t @T -e minhop
battery iblinkinfo "$two/iblinkinfo.out" 2 \
	"$croute" route -q -t @T -e minhop
keep='PHY='
battery subnet.lst "$two/opensm-subnet.lst" 1 \
	"$croute" route -q -t @T -e minhop
keep='^\['
battery gen "$tmp/gen.topo" 5 "$croute" route -q -t @T -e updn
battery lmc "$tmp/lmc.topo" 5 "$croute" route -q -t @T -e ftree
battery prod "$fab/prod-tree.topo" 23 \
	"$croute" check -q -t @T -e minhop --skip-credit-loops
keep=
fabric=
battery lfts "$two/opensm-lfts.dump" 2 \
	"$croute" check -t "$t" --lfts @T
battery lfts-lmc "$tmp/lmc.lfts" 7 \
	"$croute" check -t "$tmp/lmc.topo" --lfts @T
battery ibroute "$two/dump_lfts.out" 3 \
	"$croute" check -t "$t" --lfts @T
battery guid2lid "$tmp/guid2lid" 1 "$croute" route -q -t "$t" \
	--lids @T -e minhop
lash=$fab/lash
battery sl "$lash/croute-lash-sl.dump" 4 "$croute" check \
	-t "$lash/opensm-subnet.lst" --lfts "$lash/opensm-lfts.dump" \
	--sl @T --sl2vl "$lash/croute-lash-sl2vl.dump"
battery sl2vl "$lash/croute-lash-sl2vl.dump" 4 "$croute" check \
	-t "$lash/opensm-subnet.lst" --lfts "$lash/opensm-lfts.dump" \
	--sl "$lash/croute-lash-sl.dump" --sl2vl @T
battery osm-sl2vl "$lash/opensm-sl2vl.dump" 3 "$croute" check \
	-t "$lash/opensm-subnet.lst" --lfts "$lash/opensm-lfts.dump" \
	--sl "$lash/croute-lash-sl.dump" --sl2vl @T
battery names "$tmp/names.map" 1 "$croute" route -q -t "$t" -e minhop \
	--node-name-map @T
list=1
battery roots "$tmp/roots" 1 "$croute" route -q -t "$tmp/gen.topo" \
	-e updn --root-guids @T
battery cns "$tmp/cns" 1 "$croute" route -q -t "$t" -e ftree \
	--cn-guids @T
battery portorder "$tmp/portorder" 1 "$croute" route -q -t "$t" \
	-e minhop --port-order @T
battery hosts "$tmp/hosts" 1 "$croute" estimate -q -t "$t" -e minhop \
	--hosts @T
battery flows "$tmp/flows" 1 "$croute" estimate -q -t "$t" -e minhop \
	--pattern "flows:@T"

list=
# Standard input, and one file of a dump directory.
battery stdin "$t" 7 sh -c '"$0" route -q -t - -e minhop <"$1"' \
	"$croute" @T
mkdir -p "$tmp/dd"
cp "$two/opensm-subnet.lst" "$two/opensm-lfts.dump" "$tmp/dd/"
fabric=1
battery dumpdir-lst "$two/opensm-subnet.lst" 3 sh -c \
	'cp "$1" "$2/opensm-subnet.lst" 2>/dev/null || rm -rf "$2/opensm-subnet.lst"
	"$0" check --dump-dir "$2"' "$croute" @T "$tmp/dd"
cp "$two/opensm-subnet.lst" "$tmp/dd/"
fabric=
battery dumpdir-lfts "$two/opensm-lfts.dump" 3 sh -c \
	'cp "$1" "$2/opensm-lfts.dump" 2>/dev/null || rm -rf "$2/opensm-lfts.dump"
	"$0" check --dump-dir "$2"' "$croute" @T "$tmp/dd"

# Nonsense values of the opensm.conf keys croute reads: an error that
# names the key, or a value read as OpenSM reads it (booleans: any word
# but TRUE is FALSE, with a warning).
target=$tmp/opensm.conf
for conf_key in croute_auto_budget croute_auto_candidates \
	croute_auto_improve_threshold croute_auto_max_churn \
	croute_auto_objective croute_auto_optimize croute_balance \
	croute_estimate croute_incremental croute_lash_balance \
	croute_optimize croute_optimize_budget croute_optimize_max_extra_hops \
	croute_patterns croute_penalty_factors croute_threads \
	remote_guid_sorting port_shifting lmc qos croute_auto_background \
	croute_fail_engine croute_mcast_trees croute_auto_allow_credit_loops \
	lash_start_vl scatter_ports; do
	for v in -1 99999999999999999999 abc 1e9 nan '"' "$(printf '\377')"; do
		printf 'routing_engine cr-updn,updn\n%s %s\n' "$conf_key" "$v" \
			>"$target"
		cases=$((cases + 1))
		timeout 30 "$croute" route -q -F "$target" -t "$t" -e updn \
			>/dev/null 2>"$tmp/e"
		rc=$?
		case $rc in
		0 | 2) ;;
		*) fail "conf: $conf_key '$v': exit $rc" ;;
		esac
		if grep -q -E 'Sanitizer|runtime error' "$tmp/e"; then
			fail "conf: $conf_key '$v': sanitizer report"
		elif [ $rc = 2 ] && ! grep -q -e "$conf_key" -e "conf:2" "$tmp/e"
		then
			fail "VAGUE: conf: $conf_key '$v'"
		fi
	done
done

echo "battery: $cases cases, $bad failed"
exit $failed
