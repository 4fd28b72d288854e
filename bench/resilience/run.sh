#!/bin/sh
# croute resilience's cost per failure: the incremental path (the repair
# of croute_incremental, the estimate re-solving only the phases a failure
# changes) against a full route and a full estimate, on the same sample
# of switch cables; then a sample shard of a large fabric, projected to
# every cable. CPU seconds (user + sys) of the process: the machine is
# shared, wall time says more about the others' load than about croute.
#   bench/resilience/run.sh [FABRIC...]   (default: clos24 tree512)
# FABRIC: clos24 (croute gen fat-tree 24), tree512 (ktree 8 3), clos48
# (fat-tree 48, 27,648 hosts: a 1-cable and a CR_SAMPLE-cable task, the
# array time projected from them).
# CR_ENGINE (updn), CR_ARGS (--phases 32 --orders 2), CR_SAMPLE (24
# cables), CR_THREADS (1).
set -eu
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
croute=${CROUTE:-$top_builddir/src/cli/croute}
eng=${CR_ENGINE:-updn}
args=${CR_ARGS:---phases 32 --orders 2}
sample=${CR_SAMPLE:-24}
threads=${CR_THREADS:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cr-resil.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cpu() { # cpu OUT CMD...: CPU seconds of CMD into OUT
	out=$1
	shift
	/usr/bin/time -f "%U %S" -o "$tmp/time" nice "$@" >/dev/null
	awk '{ printf "%.2f\n", $1 + $2 }' "$tmp/time" >"$out"
}

gen() {
	case $1 in
	clos24) "$croute" gen fat-tree 24 --lmc 0 -o "$tmp/$1.topo" ;;
	tree512) "$croute" gen ktree 8 3 --lmc 0 -o "$tmp/$1.topo" ;;
	clos48) "$croute" gen fat-tree 48 --lmc 0 -o "$tmp/$1.topo" ;;
	esac
}

# The sample: every k-th switch cable (from its lower GUID's end), as
# `--faults FILE` lines.
cables() {
	awk '/^Switch/ { me = substr($3, 4, 16) }
	     /^\[/ && /"S-/ { split($0, a, /[][]/); r = substr($2, 4, 16);
		split($2, b, /[][]/);
		if (me < r) print "0x" me, a[2], "0x" r, b[2] }' \
		"$tmp/$1.topo" >"$tmp/all"
	total=$(wc -l <"$tmp/all")
	awk -v t="$total" -v n="$2" 'NR % int(t / n) == 1' "$tmp/all" |
		head -n "$2" >"$tmp/sample"
	head -n 1 "$tmp/sample" >"$tmp/one"
}

per_failure() { # per_failure FABRIC LABEL OPTIONS...: CPU a failure
	f=$1
	shift
	# shellcheck disable=SC2086
	cpu "$tmp/t1" "$croute" resilience -t "$tmp/$f.topo" -e "$eng" $args \
		--threads "$threads" --faults "$tmp/one" "$@"
	# shellcheck disable=SC2086
	cpu "$tmp/tn" "$croute" resilience -t "$tmp/$f.topo" -e "$eng" $args \
		--threads "$threads" --faults "$tmp/sample" "$@"
	awk -v a="$(cat "$tmp/t1")" -v b="$(cat "$tmp/tn")" \
		-v n="$(wc -l <"$tmp/sample")" \
		'BEGIN { printf "%.3f\n", (b - a) / (n - 1) }'
}

# The 27,648-host Clos: a 1-cable and an N-cable task measured, their
# difference gives the cost a cable and the setup every task pays (the
# intact route, check and estimate, the repair's base, est_inc's phases);
# the array's CPU time for T tasks is T x setup + cables x per cable.
project() { # project FABRIC CABLES
	per=$(per_failure "$1" --incremental)
	setup=$(awk -v a="$(cat "$tmp/t1")" -v p="$per" \
		'BEGIN { printf "%.1f", a - p }')
	echo "$1: 1-cable task $(cat "$tmp/t1") CPU s," \
		"$(wc -l <"$tmp/sample")-cable task $(cat "$tmp/tn") CPU s:" \
		"setup $setup, a cable $per"
	for tasks in 64 256 1024; do
		echo "$1: all $2 cables in $tasks tasks: $(awk -v s="$setup" \
			-v p="$per" -v n="$2" -v t="$tasks" \
			'BEGIN { printf "%.0f CPU s, %.0f a task", \
			t * s + n * p, s + n * p / t }')"
	done
}

for fab in ${*:-clos24 tree512}; do
	gen "$fab"
	cables "$fab" "$sample"
	n=$(wc -l <"$tmp/all")
	if [ "$fab" = clos48 ]; then
		project "$fab" "$n"
		continue
	fi
	inc=$(per_failure "$fab" --incremental)
	full=$(per_failure "$fab" --full-estimate)
	echo "$fab: $n switch cables; CPU s a failure: incremental" \
		"$inc, full route + estimate $full" \
		"($(awk -v a="$inc" -v b="$full" \
			'BEGIN { printf "%.2f", a / b }') of it)"
	# one shard of the whole list, as a job array task would run it
	parts=$(( (n + sample - 1) / sample ))
	# shellcheck disable=SC2086
	cpu "$tmp/shard.cpu" "$croute" resilience -t "$tmp/$fab.topo" -e "$eng" \
		$args --incremental --threads "$threads" --faults cables \
		--shard "1/$parts" -o "$tmp/shard"
	echo "$fab: shard 1/$parts ($(grep -c '^row' "$tmp/shard") cables):" \
		"$(cat "$tmp/shard.cpu") CPU s; all $n cables: $(awk \
		-v s="$(cat "$tmp/shard.cpu")" -v p="$parts" \
		'BEGIN { printf "%.0f", s * p }') CPU s projected"
done
