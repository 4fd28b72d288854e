#!/bin/bash
# Fabrics at the edges through the command, every engine: `croute route`
# must route (exit 0, and `croute check` then runs: 0 or 1) or refuse with
# a message: exit 1, a finding about a fabric of the engine's kind, or
# exit 2 when the engine says the fabric is not of its kind ("cannot
# route"); a signal or any other status fails. In the sanitizer
# build this runs croute under ASan and UBSan. tests/unit/test_edges.c
# covers the same shapes (and LFT capacity) through the core.
. "$(dirname "$0")/lib.sh"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# One switch, four hosts.
{
	echo 'Switch 8 "sw"'
	for h in 1 2 3 4; do echo "[$h] \"h$h\"[1]"; done
	for h in 1 2 3 4; do echo "Ca 1 \"h$h\""; done
} >"$tmp/single.topo"

# Two 254-port switches with 253 hosts each, one cable between them.
{
	for s in a b; do
		echo "Switch 254 \"$s\""
		for p in $(seq 1 253); do echo "[$p] \"$s$p\"[1]"; done
		echo "[254] \"$([ $s = a ] && echo b || echo a)\"[254]"
	done
	for s in a b; do
		for p in $(seq 1 253); do echo "Ca 1 \"$s$p\""; done
	done
} >"$tmp/ports254.topo"

# A tree plus a switch cabled to nothing.
"$croute" gen two-level --leaves 2 --hosts 2 --uplinks 2 --spines 2 \
	-o "$tmp/isolated.topo" || failed=1
printf '\nSwitch 4 "lonely"\n' >>"$tmp/isolated.topo"

# A CA with its two ports on different switches.
cat >"$tmp/dualport.topo" <<'TOPO'
Switch 4 "a"
[1] "b"[1]
[2] "dual"[1]
[3] "h1"[1]
Switch 4 "b"
[2] "dual"[2]
[3] "h2"[1]
Ca 2 "dual"
Ca 1 "h1"
Ca 1 "h2"
TOPO

# LIDs at the top of the unicast range, one port with LMC 7.
cat >"$tmp/toplids.topo" <<'TOPO'
Switch 4 "a" # "a" lid 1
[1] "b"[1]
[2] "h1"[1]
Switch 4 "b" # "b" lid 0xBF00
[2] "h2"[1]
[3] "h3"[1]
Ca 1 "h1"
[1] "a"[2] # lid 0xBFFE
Ca 1 "h2"
[1] "b"[2] # lid 0xBFFF
Ca 1 "h3"
[1] "b"[3] # lid 0xBE80 lmc 7
TOPO

# A ring of switches, no CAs.
{
	for i in 0 1 2 3 4; do
		echo "Switch 2 \"s$i\""
		echo "[1] \"s$(((i + 1) % 5))\"[2]"
	done
} >"$tmp/ring.topo"

# LMC 7 on a small tree (--lmc: assigned by croute route).
"$croute" gen two-level --leaves 3 --hosts 2 --uplinks 2 --spines 2 \
	-o "$tmp/lmc7.topo" || failed=1

for topo in single ports254 isolated dualport toplids ring lmc7; do
	args=(-t "$tmp/$topo.topo")
	[ $topo = lmc7 ] && args+=(--lmc 7)
	for e in minhop updn ftree lash; do
		# lash also writes its layer files (ibdmchk -c and -d).
		layers=()
		[ $e = lash ] &&
			layers=(--lash-sl "$tmp/sl" --lash-sl2vl "$tmp/sl2vl")
		rm -f "$tmp/sl" "$tmp/sl2vl"
		"$croute" route "${args[@]}" -e $e -q -o "$tmp/lfts" \
			"${layers[@]}" 2>"$tmp/err"
		status=$?
		result=routed
		if [ $status -eq 0 ] && [ $e = lash ] &&
			! { [ -s "$tmp/sl" ] && [ -s "$tmp/sl2vl" ]; }; then
			result="no layer files"
		elif [ $status -eq 0 ]; then
			"$croute" check "${args[@]}" --lfts "$tmp/lfts" \
				>"$tmp/check" 2>>"$tmp/err"
			status=$?
			result="routed, check $(sed -n 's/^result: *//p' \
				"$tmp/check")"
			[ $status -le 1 ] || result="check exit $status"
		elif [ $status -eq 1 ] && [ -s "$tmp/err" ]; then
			result="refused: $(head -n 1 "$tmp/err")"
		elif [ $status -eq 2 ] &&
			grep -q "^croute: error: cr-$e cannot route" "$tmp/err"; then
			result="refused, not its kind: $(head -n 1 "$tmp/err")"
		else
			result="exit $status"
		fi
		echo "$topo $e: $result"
		case $result in
		routed* | refused*) ;;
		*)
			failed=1
			cat "$tmp/err"
			;;
		esac
	done
done
exit $failed
