#!/bin/sh
# make check-mutations: each mutation below is a regression the tests must
# catch. It is applied to a scratch copy of the tree (never to the tree
# itself), built there, and the named tests run: at least one must fail.
# A mutation that no test catches, or that no longer applies (the code
# moved: update its pattern here), fails this script. Not in make check:
# it builds the tree once more and takes a few minutes.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
scratch=${CR_MUTATION_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/croute-mutations.XXXXXX")}
keep=${CR_KEEP:-0}
[ "$keep" = 1 ] || trap 'rm -rf "$scratch"' EXIT
status=0

echo "mutations: scratch copy in $scratch"
(cd "$top_srcdir" && git ls-files -z 2>/dev/null | xargs -0 tar cf - ||
	tar cf - --exclude='./build*' .) | (mkdir -p "$scratch/src" &&
	cd "$scratch/src" && tar xf -) || exit 1
cd "$scratch/src" && autoreconf -fi >/dev/null 2>&1 || exit 1
mkdir -p "$scratch/build" && cd "$scratch/build" &&
	../src/configure -q --disable-fuzzing >/dev/null || exit 1
make -j"$(nproc)" >/dev/null 2>&1 || { echo "FAIL: scratch build"; exit 1; }

# run_test T: runs one test of the scratch build (see mutate); its status.
run_test() {
	case $1 in
	fuzz:*)
		"./tests/fuzz/replay_${1#fuzz:}" \
			"$scratch/src/tests/fuzz/corpus/${1#fuzz:}"
		;;
	*.sh)
		top_srcdir=$scratch/src top_builddir=$scratch/build \
			bash "$scratch/src/$1"
		;;
	*) "./$1" ;;
	esac
}

# The tests must build and pass unmutated: a failure below is then the
# mutation's doing, not a test that cannot run.
make -j"$(nproc)" check TESTS= >/dev/null 2>&1 ||
	{ echo "FAIL: the scratch build's tests do not build"; exit 1; }
for t in tests/unit/test_lash tests/unit/test_minhop tests/unit/test_updn \
	tests/unit/test_estimate fuzz:route; do
	run_test "$t" >"$scratch/baseline.log" 2>&1 ||
		{ echo "FAIL: $t fails unmutated"; exit 1; }
done

# mutate NAME FILE PERL-SUBSTITUTION TESTS...: TESTS are programs of the
# build (run directly), test scripts (tests/cli/*.sh, run on the scratch
# build) or "fuzz:TARGET" (the replay driver on its corpus).
mutate() {
	name=$1 file=$2 subst=$3
	shift 3
	src=$scratch/src/$file
	cp "$src" "$src.orig"
	perl -0pi -e "$subst" "$src"
	if cmp -s "$src" "$src.orig"; then
		echo "FAIL: $name: the mutation does not apply to $file"
		status=1
		mv "$src.orig" "$src"
		return
	fi
	caught=
	if ! make -j"$(nproc)" check TESTS= >"$scratch/$name.build" 2>&1; then
		caught="the build"
	fi
	for t in "$@"; do
		[ -n "$caught" ] && break
		run_test "$t" >"$scratch/$name.log" 2>&1 || caught=$t
	done
	if [ -n "$caught" ]; then
		echo "ok: $name: caught by $caught"
	else
		echo "FAIL: $name: no test fails ($*)"
		status=1
	fi
	mv "$src.orig" "$src"
	touch "$src"
}

mutate lash-own-layer-first src/core/route/lash.c \
	's/first = l->mode == LASH_OWN_FIRST \|\| l->mode == LASH_BALANCED/first = l->mode == LASH_BALANCED/' \
	tests/unit/test_lash
mutate minhop-no-spread src/core/route/minhop.c \
	's/ \| CR_PS_SPREAD//g' \
	tests/unit/test_minhop tests/unit/test_updn
mutate minhop-loops src/core/route/minhop.c \
	's/di\] == h - 1\)/di] <= h)/; s/adj_sw\[k\]\] == h - 1\)/adj_sw[k]] <= h)/g' \
	fuzz:route tests/unit/test_minhop
mutate sorting-always src/core/route/portsel.c \
	's/!po && o->remote_guid_sorting && i < np/!po \&\& i < np/' \
	tests/unit/test_updn tests/unit/test_portsel
mutate text-report-min src/core/estimate/est_report.c \
	's/(injection, %.3f Gb\/s\\n",\n\t\t)res->min_frac, res->min_gbps/$1res->avg_frac, res->avg_gbps/' \
	tests/unit/test_estimate
mutate json-report-flows src/core/estimate/est_report.c \
	's/res->flows, res->unrouted, res->avg_frac/res->unrouted, res->flows, res->avg_frac/' \
	tests/unit/test_estimate
mutate temporary-pending-late src/core/io/file.c \
	's/\t\tpending_add\(tmp\);\n(\t\tfd = open)/$1/; s/(\t\*tmp_path = tmp;\n\treturn fp;)/\tpending_add(tmp);\n$1/' \
	tests/cli/exits.sh
exit $status
