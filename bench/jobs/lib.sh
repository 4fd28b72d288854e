# Shared by bench/jobs/run.sh and ceiling.sh: the fabrics by name, and
# where a fabric's files go. Needs top, CROUTE, OUT and OSM set.

# topo_of NAME FILE: the fabric NAME, written to FILE.
topo_of() {
	case $1 in
	random) "$CROUTE" gen random --switches 64 --links 8 --hosts 4 \
		--seed 1 -o "$2" ;;
	torus) "$CROUTE" gen torus 6 6 6 --hosts 2 -o "$2" ;;
	prod-tree) cp "$top/tests/fabrics/prod-tree.topo" "$2" ;;
	director) "$CROUTE" gen two-level --leaves 36 --hosts 18 \
		--uplinks 18 --spines 18 --scramble 1 -o "$2" ;;
	*) echo "unknown fabric $1" >&2; exit 2 ;;
	esac
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
