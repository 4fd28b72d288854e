#!/bin/bash
# Determinism against input order: the same fabric with its node records
# shuffled (three seeds) routes to byte-identical LFTs, for every engine
# and with the port-selection toggles. LIDs are written into the
# topology (gen --lmc 0), so only the order of the records changes.
. "$(dirname "$0")/lib.sh"

# shuffle SEED < topo > topo: the header, then the blank-line separated
# node records in an order drawn from SEED.
shuffle() {
	awk -v seed="$1" '
		BEGIN { RS = ""; srand(seed) }
		/^#/ && NR == 1 { print $0 "\n"; next }
		{ rec[n++] = $0 }
		END {
			for (i = n - 1; i > 0; i--) {
				j = int(rand() * (i + 1))
				t = rec[i]; rec[i] = rec[j]; rec[j] = t
			}
			for (i = 0; i < n; i++)
				print rec[i] "\n"
		}'
}

gen() {
	local name=$1
	shift
	"$croute" gen "$@" --lmc 0 -o "$tmp/$name.topo" ||
		fail "croute gen $*"
}
gen ktree ktree 4 3
gen scrambled two-level --leaves 6 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 2
gen torus torus 4 4 --hosts 2
gen random random --switches 12 --links 4 --hosts 2 --seed 3

runs=0
for fab in ktree scrambled torus random; do
	for seed in 1 2 3; do
		shuffle "$seed" <"$tmp/$fab.topo" >"$tmp/$fab.$seed.topo"
		cmp -s "$tmp/$fab.topo" "$tmp/$fab.$seed.topo" &&
			fail "$fab: seed $seed left the file as it was"
	done
	for e in minhop updn ftree lash; do
		for t in "" --port-shifting --remote-guid-sorting; do
			tag=$fab.$e$t
			"$croute" route -q -t "$tmp/$fab.topo" -e "$e" $t \
				-o "$tmp/$tag.lfts" 2>/dev/null
			rc=$?
			for seed in 1 2 3; do
				"$croute" route -q -t "$tmp/$fab.$seed.topo" \
					-e "$e" $t -o "$tmp/$tag.$seed.lfts" \
					2>/dev/null
				r=$?
				[ $r = $rc ] ||
					fail "$tag: exit $r shuffled ($seed), $rc not"
				[ $rc = 0 ] || continue
				cmp -s "$tmp/$tag.lfts" "$tmp/$tag.$seed.lfts" ||
					fail "$tag: shuffle $seed changes the LFTs"
				runs=$((runs + 1))
			done
		done
	done
done
# ftree refuses tori and random fabrics, the others route everything:
# at least 4 fabrics x 3 engines x 3 toggles x 3 seeds compared.
[ "$runs" -ge 108 ] || fail "only $runs routings compared"
echo "permute: $runs shuffled routings compared"
exit $failed
