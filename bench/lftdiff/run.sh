#!/bin/sh
# Routing results of two croute builds, side by side: every engine with its
# toggles (cr-auto with its defaults, with and without --qos), at LMC 0
# and 1, on the five bench fabrics (bench/auto/run.sh)
# and the fabrics of tests/fabrics, plus two that tell the switch roles
# apart (a management host on a spine; a leaf with two hosts where the
# others have twelve), with root, cn and io GUID files where an engine
# reads them. Each case writes the LFTs (and cr-lash's SL and SL2VL files)
# with both binaries and compares them byte for byte. Refusals are
# compared too (the exit status and whether a dump was written).
#
# usage: bench/lftdiff/run.sh OLD_CROUTE NEW_CROUTE [OUTDIR] [FABRIC...]
# Prints one line per case that differs ("DIFF fabric case" with the
# number of differing LFT lines) and a summary; exit 1 when any differs.
# Fabrics are generated once, with OLD_CROUTE, so both route the same
# files. Takes 1.5 to 5 minutes on 2 cores, and about 5 GB in OUTDIR
# (cr-lash's SL files at LMC 1): delete it afterwards.
set -u
[ $# -ge 2 ] || {
	echo "usage: $0 OLD_CROUTE NEW_CROUTE [OUTDIR] [FABRIC...]" >&2
	exit 2
}
old=$1
new=$2
out=${3:-$(mktemp -d)}
shift 2
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out/fab" "$out/old" "$out/new" || exit 2
[ $# -gt 0 ] || set -- random torus prod-tree director ktree-1 two-level \
	other mgmt sparse

# add_host TOPO SWITCH_DESC NAME GUID: cables a new one-port CA (port GUID
# GUID + 1) to a new last port of the switch (croute gen's format).
add_host() {
	awk -v sw="$2" -v name="$3" -v guid="$4" '
	BEGIN { RS = ""; ORS = "\n\n"; FS = "\n" }
	{
		if ($0 ~ /\nSwitch/ && index($0, "# \"" sw "\" base")) {
			match($0, /Switch\t[0-9]+/)
			port = substr($0, RSTART + 7, RLENGTH - 7) + 1
			sub(/Switch\t[0-9]+/, "Switch\t" port)
			match($0, /"S-[0-9a-f]*"/)
			sid = substr($0, RSTART, RLENGTH)
			$0 = $0 "\n[" port "]\t\"H-" guid "\"[1](" pg() \
			     ") \t\t# \"" name "\" lid 0 4xQDR"
		}
		print
	}
	function pg() { return substr(guid, 1, 15) sprintf("%x", \
		index("0123456789abcdef", substr(guid, 16, 1))) }
	END {
		print "sysimgguid=0x" guid "\ncaguid=0x" guid "\nCa\t1 \"H-" \
		      guid "\"\t\t# \"" name "\"\n[1](" pg() ") \t" sid \
		      "[" port "]\t\t# lid 0 lmc 0 \"" sw "\" lid 0 4xQDR"
	}' "$1"
}

# drop_hosts TOPO FIRST LAST: removes hosts hFIRST..hLAST (4 digits) and
# their cables.
drop_hosts() {
	awk -v a="$2" -v b="$3" '
	BEGIN { RS = ""; ORS = "\n\n"; FS = "\n" }
	function dropped(s,   n) {
		if (!match(s, /"h[0-9][0-9][0-9][0-9]/))
			return 0
		n = substr(s, RSTART + 2, 4) + 0
		return n >= a && n <= b
	}
	{
		if ($0 ~ /\nCa\t/ && dropped($0))
			next
		out = ""
		for (i = 1; i <= NF; i++)
			if (!($i ~ /^\[/ && dropped($i)))
				out = out (out == "" ? "" : "\n") $i
		print out
	}' "$1"
}

make_fabric() {
	f=$out/fab/$1.topo
	case $1 in
	random) "$old" gen -q random --switches 64 --links 8 --hosts 4 \
		--seed 1 -o "$f" ;;
	torus) "$old" gen -q torus 6 6 6 --hosts 2 -o "$f" ;;
	prod-tree) cp "$top/tests/fabrics/prod-tree.topo" "$f" ;;
	director) "$old" gen -q two-level --leaves 36 --hosts 18 --uplinks 18 \
		--spines 18 --scramble 1 -o "$f" ;;
	ktree-1)
		"$old" gen -q ktree 8 3 -o "$f.full" &&
			awk -v desc=sw-l0-00 -f "$top/bench/auto/drop-switch.awk" \
				"$f.full" >"$f" ;;
	two-level | other)
		cp "$top/tests/fabrics/$1/ibnetdiscover.topo" "$f" ;;
	mgmt)
		"$old" gen -q two-level --leaves 8 --hosts 12 --uplinks 6 \
			--spines 6 -o "$f.base" &&
			add_host "$f.base" spine-2 mgmt-1 0002c90300ff0000 \
				>"$f" ;;
	sparse)
		"$old" gen -q two-level --leaves 8 --hosts 12 --uplinks 6 \
			--spines 6 -o "$f.base" &&
			drop_hosts "$f.base" 1 10 >"$f" ;;
	*) echo "unknown fabric $1" >&2; return 1 ;;
	esac
}

# GUID files: the top switches (spine-N, sw-l0-NN) as roots, the
# management host as an I/O node.
guid_files() {
	f=$out/fab/$1.topo
	awk '/^Switch/ && /# "(spine|sw-l0-|.*[Ss]pine)/ {
		match($0, /"S-[0-9a-f]*"/)
		print "0x" substr($0, RSTART + 3, RLENGTH - 4) }' "$f" \
		>"$out/fab/$1.roots"
	awk '/^Ca/ && /# "mgmt/ {
		match($0, /"H-[0-9a-f]*"/)
		print "0x" substr($0, RSTART + 3, RLENGTH - 4) }' "$f" \
		>"$out/fab/$1.io"
}

# run BIN DIR TAG ARGS...: one routing; DIR/TAG.{lfts,sl,sl2vl,rc}
run() {
	bin=$1 dir=$2 tag=$3
	shift 3
	case $tag in
	*.lash.*) set -- "$@" --lash-sl "$dir/$tag.sl" \
		--lash-sl2vl "$dir/$tag.sl2vl" ;;
	esac
	nice "$bin" route -q --threads 2 "$@" -o "$dir/$tag.lfts" \
		>/dev/null 2>"$dir/$tag.err"
	echo $? >"$dir/$tag.rc"
}

cases=0
diffs=0
for fab in "$@"; do
	make_fabric "$fab" || exit 2
	guid_files "$fab"
	t=$out/fab/$fab.topo
	for lmc in 0 1; do
		for e in minhop updn ftree lash auto; do
			set -- "plain:" "ps:--port-shifting" \
				"rgs:--remote-guid-sorting" \
				"both:--port-shifting --remote-guid-sorting" \
				"scatter:--scatter-ports 7"
			[ $e = ftree ] || set -- "$@" "glob:--balance global"
			# cr-auto: its default candidates, and with QoS
			[ $e = auto ] && set -- "plain:" "qos:--qos"
			case $e in
			updn) set -- "$@" "roots:--root-guids $out/fab/$fab.roots" \
				"roots-ps:--port-shifting --root-guids $out/fab/$fab.roots" ;;
			ftree) set -- "$@" "roots:--root-guids $out/fab/$fab.roots" \
				"io:--io-guids $out/fab/$fab.io" ;;
			minhop) [ -s "$out/fab/$fab.io" ] && set -- "$@" \
				"io-ps:--port-shifting --io-guids $out/fab/$fab.io" ;;
			esac
			for c in "$@"; do
				tag=$fab.lmc$lmc.$e.${c%%:*}
				# shellcheck disable=SC2086
				run "$old" "$out/old" "$tag" -t "$t" --lmc $lmc \
					-e $e ${c#*:}
				# shellcheck disable=SC2086
				run "$new" "$out/new" "$tag" -t "$t" --lmc $lmc \
					-e $e ${c#*:}
				cases=$((cases + 1))
				same=1
				for x in rc lfts sl sl2vl; do
					a=$out/old/$tag.$x b=$out/new/$tag.$x
					[ -e "$a" ] || [ -e "$b" ] || continue
					cmp -s "$a" "$b" || same=0
				done
				[ $same = 1 ] && continue
				diffs=$((diffs + 1))
				n=$(diff "$out/old/$tag.lfts" "$out/new/$tag.lfts" \
					2>/dev/null | grep -c '^>')
				echo "DIFF $fab lmc$lmc $e ${c%%:*}: exit" \
					"$(cat "$out/old/$tag.rc") ->" \
					"$(cat "$out/new/$tag.rc"), $n LFT lines differ"
			done
		done
	done
done
echo "lftdiff: $cases cases, $diffs differ (dumps in $out)"
[ $diffs = 0 ]
