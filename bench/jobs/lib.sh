# Shared by bench/jobs/run.sh and ceiling.sh: the fabrics by name, and
# where a fabric's files go. Needs top, CROUTE, OUT and OSM set.

# topo_of NAME FILE: the fabric NAME of bench/auto (bench/lib.sh's
# bench_fabric), written to FILE with CROUTE, outside an ibsim run.
top_srcdir=${top_srcdir:-$top}
. "$top/bench/lib.sh"
cr_gen() {
	out=$1
	shift
	"$CROUTE" gen "$@" >"$out"
}
cr_fail() {
	echo "$*" >&2
	exit 2
}
topo_of() {
	bench_fabric "$1" "$2"
}

# fabric_dir NAME: d, NAME's directory under OUT; t, its topology
# (OpenSM's copy when OSM has the fabric); LIDS, --lids of OpenSM's
# guid2lid or nothing; osm, OpenSM's directory of the fabric or nothing.
fabric_dir() {
	d=$OUT/$1
	mkdir -p "$d"
	t=$d/topo
	LIDS=
	osm=
	if [ -n "$OSM" ] && [ -f "$OSM/$1/guid2lid" ]; then
		cp "$OSM/$1/topo" "$t"
		LIDS="--lids $OSM/$1/guid2lid"
		osm=$OSM/$1
	else
		topo_of "$1" "$t" >/dev/null 2>&1
	fi
}
