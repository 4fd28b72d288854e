#!/bin/sh
# Where a failure's incremental path goes in croute resilience: perf's
# cpu-clock samples (2,000 a second) of a CR_SAMPLE-cable run less a
# 1-cable run (the setup cancels), by the stage the sample's stack is in,
# per failure. Needs perf and call stacks: build with
#   ../configure CFLAGS="-g -O2 -fno-omit-frame-pointer"
#   bench/resilience/stages.sh [FABRIC...]   (clos24 tree512)
# CROUTE (top_builddir's), CR_SAMPLE (24), CR_ARGS as run.sh.
set -eu
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
croute=${CROUTE:-$top_builddir/src/cli/croute}
args=${CR_ARGS:---phases 32 --orders 2}
sample=${CR_SAMPLE:-24}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cr-stages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Samples by stage: the first stage whose function is on the stack.
stages() {
	perf script -i "$1" -F ip,sym 2>/dev/null | awk '
	function flush() {
		if (stack == "") return;
		c = "other (team threads, libc)";
		if (stack ~ / (cr_resil_inc_new|cr_resil_new) /) c = "setup";
		else if (stack ~ / cr_maxmin_solve_shares /) c = "max-min solves";
		else if (stack ~ / cr_est_walk / && stack ~ / cr_est_inc_try_part /)
			c = "estimate: moved flows walked";
		else if (stack ~ / cr_est_inc_try_part /)
			c = "estimate: moved flows found, phases copied";
		else if (stack ~ / cr_resil_inc_score /)
			c = "estimate: changed entries";
		else if (stack ~ / cr_credit_loop_any / && stack ~ / route_chain /)
			c = "repair: credit-loop search";
		else if (stack ~ / route_chain /) c = "repair: the rest";
		else if (stack ~ / cr_resil_check_cable /) c = "check";
		else if (stack ~ / churn /) c = "churn";
		else if (stack ~ / apply /) c = "fabric copied less the cable";
		else if (stack ~ / worker /) c = "the rest of the failure";
		print c;
		stack = "";
	}
	/^$/ { flush(); next }
	{ stack = stack " " $2 " " }
	END { flush() }' | sort | uniq -c
}

[ $# -gt 0 ] || set -- clos24 tree512
for f in "$@"; do
	case $f in
	clos24) "$croute" gen fat-tree 24 --lmc 0 -o "$tmp/t" ;;
	tree512) "$croute" gen ktree 8 3 --lmc 0 -o "$tmp/t" ;;
	esac
	# the sample as run.sh takes it: every k-th switch cable
	awk '/^Switch/ { me = substr($3, 4, 16) }
	     /^\[/ && /"S-/ { split($0, a, /[][]/); r = substr($2, 4, 16);
		split($2, b, /[][]/);
		if (me < r) print "0x" me, a[2], "0x" r, b[2] }' \
		"$tmp/t" >"$tmp/all"
	awk -v t="$(wc -l <"$tmp/all")" -v n="$sample" \
		'NR % int(t / n) == 1' "$tmp/all" | head -n "$sample" >"$tmp/n"
	head -n 1 "$tmp/n" >"$tmp/1"
	for k in 1 n; do
		# shellcheck disable=SC2086
		nice perf record -q -F 2000 -g -o "$tmp/p$k" "$croute" \
			resilience -t "$tmp/t" -e updn $args --threads 1 \
			--incremental --faults "$tmp/$k" -o /dev/null \
			>/dev/null 2>&1
		stages "$tmp/p$k" >"$tmp/s$k"
	done
	awk -v f="$f" -v n="$(wc -l <"$tmp/n")" '
	{ c = $1; $1 = ""; sub(/^ /, "") }
	NR == FNR { one[$0] = c; next }
	{ d[$0] = c - one[$0]; tot += c - one[$0] }
	END {
		printf "%s: %.1f samples a failure\n", f, tot / (n - 1);
		for (k in d)
			if (k != "setup")
				printf "  %6.1f  %4.1f %%  %s\n", d[k] / (n - 1),
					100 * d[k] / tot, k | "sort -rn"
		close("sort -rn")
	}' "$tmp/s1" "$tmp/sn"
done
