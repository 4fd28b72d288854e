#!/bin/sh
# Faults on a running fabric: one opensm per engine (not -o) routes a fat
# tree while ibsim's console takes a link down, a host away, a switch out,
# splits the fabric in two, adds a link that makes the tree no tree and
# cuts the SM's switch off from everything; after each fault the fabric is
# repaired. For cr-ftree, MADs are also lost at random for a while. After
# every change and the re-sweep it brings, the installed tables are
# checked against the fabric as ibnetdiscover sees it then:
#   - every CA reaches every LID it can reach (croute check), no loops;
#   - no entry leads into a port without a link or routes a LID that is
#     gone; every entry has its hop count;
#   - they are what `croute route` computes offline for that fabric;
#   - no credit loops: croute check, and ibdmchk -M (multicast included),
#     for the engines that promise it (cr-updn, cr-ftree, cr-lash);
#   - an engine that cannot route the new shape fails cleanly and the next
#     one of -R routes it (cr-ftree,cr-updn on the tree with a loop, or
#     with no CA left);
# and after each repair the tables and the hop counts are exactly the
# original ones. The LFT entries each fault changed are counted against
# those that had to (churn table; reported, not asserted: no engine
# promises a bound). Last, cr-lash with -Q on a small torus: a link and a
# switch go and come back, then a link flaps while saquery asks for paths
# (cr-lash's path_sl answers on SA threads while the routing changes).
#
# CR_FAULTS_ENGINES: the -R lists to run on the tree (default all three;
# when set, the torus is left out). CR_FAULTS_LMC: the tree's LMC (0).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_need ibnetdiscover
cr_init faults

# dead_add ID PORT: records the link at port PORT of node ID as failed.
dead_add() {
	cr_link_ends "$LINKS" "$1" "$2" >>"$DEAD"
}

# --- Checks of one state ---------------------------------------------------

# verify STATE ENGINE: the tables of the last sweep, which ENGINE must
# have installed, on the fabric as it is now.
verify() {
	state=$1
	want=$2
	base=${want#cr-}
	d=$CR_DIR/$TAG-$state
	used=$(cr_engine_used)
	[ "$used" = "$want" ] ||
		cr_fail "$TAG $state: $used installed the tables, not $want"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$d.norm"
	[ -s "$d.norm" ] || cr_fail "$TAG $state: empty LFT dump"
	# Every entry has its hop count (OpenSM's multicast code reads them).
	cp "$CR_DUMP/opensm.fdbs" "$d.fdbs"
	if grep -q UNKNOWN "$d.fdbs"; then
		cr_fail "$TAG $state: opensm.fdbs has entries without hops"
	fi
	cr_discover "$d.topo"

	cr_dead_routes "$d.topo" "$d.norm" >"$d.dead"
	if [ -s "$d.dead" ]; then
		head -n 5 "$d.dead"
		cr_fail "$TAG $state: routes into dead ports or to gone LIDs"
	fi

	# cr-minhop promises no deadlock freedom; cr-lash's layers are not
	# in the LFTs (checked offline below).
	loops=
	case $base in minhop | lash) loops=--skip-credit-loops ;; esac
	# shellcheck disable=SC2086
	cr_check_lfts "$d.topo" "$d.check" \
		"$TAG $state: croute check found problems" $loops
	grep -q "unreachable: *0$" "$d.check" ||
		cr_fail "$TAG $state: unreachable LIDs"

	"$CROUTE" route --topo "$d.topo" --lids "$CR_GUID2LID" -e "$base" \
		-o "$d.offline" 2>"$d.route.err" ||
		cr_fail "$TAG $state: croute route: $(cat "$d.route.err")"
	cr_lfts_norm "$d.offline" | cmp -s - "$d.norm" || {
		cr_lfts_norm "$d.offline" | diff "$d.norm" - | head -n 6
		cr_fail "$TAG $state: opensm's LFTs differ from croute route's"
	}

	if [ "$base" = lash ]; then
		# The layers are only known offline (equal tables, see above).
		"$CROUTE" check --topo "$d.topo" --lids "$CR_GUID2LID" \
			-e lash >"$d.check-sl" 2>&1 || {
			cat "$d.check-sl"
			cr_fail "$TAG $state: credit loops in cr-lash's layers"
		}
		verdict="croute check: $(grep 'credit loops' "$d.check-sl")"
	elif ! grep -q '^Ca' "$d.topo"; then
		verdict="no CA left: ibdmchk skipped"
	elif command -v ibdmchk >/dev/null 2>&1; then
		verdict=$(cr_ibdm_verdict "$CR_DUMP")
		rc=$?
		cp "$CR_DUMP/ibdmchk.out" "$d.ibdmchk"
		if [ "$base" != minhop ] && [ $rc != 0 ]; then
			cr_fail "$TAG $state: ibdmchk -M: $verdict"
		fi
		verdict="ibdmchk -M: $verdict"
	else
		verdict="no ibdmchk"
	fi
	cr_log "$TAG $state: $used, $(wc -l <"$d.norm") entries," \
		"$(grep -c '^Switch' "$d.topo") switches; $verdict: OK"
}

# restored STATE ENGINE: the tables are the original ones again.
restored() {
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$TAG-$1.norm"
	# A repair of several cables (a switch's every port) sends as many
	# traps; on a busy machine the last may come after the sweep waited
	# for. One more heavy sweep sees the whole fabric: then the tables
	# must be the original ones.
	if ! cmp -s "$CR_DIR/$TAG-orig.norm" "$CR_DIR/$TAG-$1.norm"; then
		cr_log "$TAG $1: not the original tables yet: one more sweep"
		cr_resweep
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$TAG-$1.norm"
	fi
	used=$(cr_engine_used)
	[ "$used" = "$2" ] ||
		cr_fail "$TAG $1: $used installed the tables, not $2"
	cr_same "$CR_DIR/$TAG-orig.norm" "$CR_DIR/$TAG-$1.norm" 10 \
		"$TAG $1: the LFTs did not return to the original"
	# The hop counts too: nothing of the faulty fabric's lingers.
	cr_same "$CR_DIR/$TAG-orig.fdbs" "$CR_DUMP/opensm.fdbs" 10 \
		"$TAG $1: the hop counts did not return to the original"
	cr_log "$TAG $1: back to the original tables: OK"
}

# No croute error since line $MARK of the log, but those matching $1.
no_errors_since() {
	tail -n +"$((MARK + 1))" "$CR_LOG" | grep "croute: ERR" |
		grep -E -v -- "${1:-^$}" >"$CR_DIR/errors"
	if [ -s "$CR_DIR/errors" ]; then
		head -n 5 "$CR_DIR/errors"
		cr_fail "$TAG: unexpected croute errors"
	fi
}

# fault NAME ENGINE FAULT-COMMANDS... -- REPAIR-COMMANDS...: applies the
# fault, verifies, repairs, checks the original tables are back; ENGINE is
# the engine expected to route the faulty fabric. $DEAD lists the failed
# ports; $ALLOWED, croute errors expected in this case (extended regular
# expression).
fault() {
	name=$1
	during=$2
	shift 2
	MARK=$(wc -l <"$CR_LOG")
	n=$(cr_count "$CR_DONE")
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cr_ibsim_cmd "$1"
		shift
	done
	shift
	cr_settle "$n"
	verify "$name" "$during"
	n=$(cr_count "$CR_DONE")
	for cmd in "$@"; do
		cr_ibsim_cmd "$cmd"
	done
	cr_settle "$n"
	restored "$name-repaired" "$FIRST"
	if [ "$during" = "$FIRST" ]; then
		no_errors_since "$ALLOWED"
	else
		# Only the refusal of the first engine, and its fall-through.
		no_errors_since "ERR CR[0-9A-F]{2}: ${FIRST}[: ]${ALLOWED:+|$ALLOWED}"
		tail -n +"$((MARK + 1))" "$CR_LOG" |
			grep -q "croute: ERR CR0[7A]: $FIRST failed after" ||
			cr_fail "$TAG $name: no clean failure of $FIRST logged"
	fi
	# The repair changes the same entries back (the tables are the
	# original ones again): one count for both.
	set -- $(cr_churn "$CR_DIR/$TAG-orig.norm" \
		"$CR_DIR/$TAG-$name.norm" "$DEAD")
	printf '%-18s %-7s %7d %7d %7d %8d %8s\n' "$TAG" "$name" "$1" "$3" \
		"$2" "$4" "$(awk -v u="$4" -v n="$1" -v f="$3" \
		'BEGIN { printf "%.1f%%", (n > f ? 100 * u / (n - f) : 0) }')" \
		>>"$CR_DIR/churn"
	: >"$DEAD"
}

# --- The tree --------------------------------------------------------------

K=3
topo=$CR_DIR/tree.topo
cr_gen "$topo" ktree $K 3
LINKS=$CR_DIR/tree.links
cr_topo_links "$topo" >"$LINKS"
DEAD=$CR_DIR/dead
: >"$DEAD"
echo "fabric             fault   entries  forced changed unforced unforced%" \
	>"$CR_DIR/churn"

# ibsim attaches opensm to the first node of the file: a top switch.
sm=$(awk '/^Switch/ { split($0, q, "\""); print q[2]; exit }' "$topo")
top2=$(cr_topo_id "$topo" sw-l0-1)
# The last leaf: its first uplink, its first host, the middle switch at
# the other end of that uplink, and its pod (the middle switches above it,
# and their links up).
leaf=$(cr_topo_id "$topo" "sw-l2-$((K * K - 1))")
[ -n "$sm" ] && [ -n "$top2" ] && [ -n "$leaf" ] ||
	cr_fail "unexpected node names in $topo"
up=$((K + 1))
set -- $(awk -v id="$leaf" -v p=$up '$1 == id && $2 == p { print $3 }' \
	"$LINKS")
mid=$1
pod=$(awk -v id="$leaf" '$1 == id && $3 ~ /^S-/ { print $3 }' "$LINKS")
[ -n "$mid" ] && [ -n "$pod" ] || cr_fail "no uplinks of $leaf in $topo"
[ "$mid" != "$sm" ] || cr_fail "the SM sits on the switch the test removes"
tops=" $(awk '/^Switch/ && /# "sw-l0-/ { split($0, q, "\""); print q[2] }' \
	"$topo" | tr '\n' ' ')"

cr_ibsim_start "$topo"
cr_conf "sweep_interval 1" "lmc ${CR_FAULTS_LMC:-0}"
ALLOWED=

for engines in ${CR_FAULTS_ENGINES:-cr-minhop cr-updn cr-ftree,cr-updn}; do
	FIRST=${engines%%,*}
	TAG="ktree$K:$FIRST"
	cr_log "=== $TAG (-R $engines)"
	cr_opensm_start -R "$engines"
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$TAG: opensm did not route"
	cr_quiet
	MARK=0
	verify orig "$FIRST"
	no_errors_since

	dead_add "$leaf" $up
	fault link "$FIRST" "Unlink \"$leaf\"[$up]" -- "ReLink \"$leaf\"[$up]"

	dead_add "$leaf" 1
	fault host "$FIRST" "Unlink \"$leaf\"[1]" -- "ReLink \"$leaf\"[1]"

	for p in $(awk -v id="$mid" '$1 == id { print $2 }' "$LINKS"); do
		dead_add "$mid" "$p"
	done
	fault switch "$FIRST" "Unlink \"$mid\"" -- "ReLink \"$mid\""

	# The pod's middle switches lose their links to the top: the SM's
	# side keeps the rest. ibsim drops them one by one.
	set -- split "$FIRST"
	for m in $pod; do
		for p in $(awk -v id="$m" -v tops="$tops" '
			$1 == id && index(tops, " " $3 " ") { print $2 }' \
			"$LINKS"); do
			set -- "$@" "Unlink \"$m\"[$p]"
			dead_add "$m" "$p"
		done
	done
	set -- "$@" --
	for m in $pod; do
		set -- "$@" "ReLink \"$m\""
	done
	fault "$@"

	# A link between two top switches (their upper ports are free): no
	# longer a fat tree.
	fault loop "$(case $engines in cr-ftree,*) echo cr-updn ;; \
		*) echo "$FIRST" ;; esac)" \
		"Link \"$sm\"[$up] \"$top2\"[$up]" -- "Unlink \"$sm\"[$up]"

	# The SM's switch cut off from everything: a fabric of one switch
	# and no CA (the contention estimate has no hosts to say anything
	# about, and says so).
	ALLOWED="needs at least two hosts|no contention estimate"
	set -- isolated "$(case $engines in cr-ftree,*) echo cr-updn ;; \
		*) echo "$FIRST" ;; esac)" "Unlink \"$sm\""
	ports=$(awk -v id="$sm" '$1 == id { print $2 }' "$LINKS")
	for p in $ports; do
		dead_add "$sm" "$p"
	done
	set -- "$@" --
	# Port by port: ReLink of the whole switch would also bring back the
	# link of the loop case, which ibsim remembers.
	for p in $ports; do
		set -- "$@" "ReLink \"$sm\"[$p]"
	done
	fault "$@"
	ALLOWED=

	# MADs lost at random: 60% of those through two middle switches
	# fail. Sweeps see partial fabrics that change from one sweep to
	# the next; each must route what it found, without croute errors.
	# Once the errors stop, the original tables return.
	case $engines in
	cr-ftree,*)
		MARK=$(wc -l <"$CR_LOG")
		runs0=$(cr_count "$CR_DONE")
		for m in $pod; do
			cr_ibsim_cmd "Error \"$m\" 60"
		done
		for k in 1 2 3 4; do
			cr_hup
			sleep 2
		done
		for m in $pod; do
			cr_ibsim_cmd "Error \"$m\" 0"
		done
		cr_resweep
		sizes=$(tail -n +"$((MARK + 1))" "$CR_LOG" |
			sed -n 's/.*: routed \([0-9]*\) switches.*/\1/p' |
			sort -n -u | tr '\n' ' ')
		cr_log "$TAG errors: $(($(cr_count "$CR_DONE") - runs0))" \
			"routing runs over ${sizes}switches"
		restored errors-cleared "$FIRST"
		no_errors_since
		;;
	esac

	cr_opensm_stop 10 || cr_fail "$TAG: opensm exited with status $?"
done
cr_ibsim_stop

# --- cr-lash on a torus ----------------------------------------------------

if [ -z "${CR_FAULTS_ENGINES:-}" ]; then
	topo=$CR_DIR/torus.topo
	cr_gen "$topo" torus 4 4 --hosts 1
	LINKS=$CR_DIR/torus.links
	cr_topo_links "$topo" >"$LINKS"
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$topo"
	cr_conf "sweep_interval 1" "qos TRUE"
	FIRST=cr-lash
	TAG="torus4x4:cr-lash"
	cr_log "=== $TAG (-Q -R cr-lash)"
	cr_opensm_start -Q -R cr-lash
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$TAG: opensm did not route"
	cr_quiet
	MARK=0
	verify orig cr-lash
	no_errors_since
	a=$(cr_topo_id "$topo" sw-2-2)
	b=$(cr_topo_id "$topo" sw-3-3)
	ap=$(awk -v id="$a" '$1 == id && $3 ~ /^S-/ { print $2; exit }' \
		"$LINKS")
	dead_add "$a" "$ap"
	fault link cr-lash "Unlink \"$a\"[$ap]" -- "ReLink \"$a\"[$ap]"
	for p in $(awk -v id="$b" '$1 == id { print $2 }' "$LINKS"); do
		dead_add "$b" "$p"
	done
	fault switch cr-lash "Unlink \"$b\"" -- "ReLink \"$b\""

	# SA path queries (path_sl, on SA threads) while flaps re-route:
	# cr-lash replaces the SLs it answers with under their feet.
	if command -v saquery >/dev/null 2>&1; then
		MARK=$(wc -l <"$CR_LOG")
		# The first and the last host's LIDs, as discovered.
		set -- $(sed -n 's/.*# lid \([0-9]*\) lmc.*/\1/p' \
			"$CR_DIR/$TAG-orig.topo" | sed -n '1p;$p')
		[ $# = 2 ] || cr_fail "$TAG: no host LIDs"
		(
			q=0
			while [ ! -f "$CR_DIR/sa.stop" ]; do
				cr_osm_env timeout 10 saquery -p --slid "$1" \
					--dlid "$2" >/dev/null 2>&1 &&
					q=$((q + 1))
			done
			echo "$q"
		) >"$CR_DIR/sa.count" 2>&1 &
		sapid=$!
		for r in 1 2 3; do
			cr_ibsim_cmd "Unlink \"$a\"[$ap]"
			sleep 1.5
			cr_ibsim_cmd "ReLink \"$a\"[$ap]"
			sleep 1.5
		done
		: >"$CR_DIR/sa.stop"
		wait "$sapid"
		cr_quiet
		restored sa-flaps cr-lash
		no_errors_since
		q=$(cat "$CR_DIR/sa.count")
		[ "$q" -gt 0 ] || cr_fail "$TAG: no SA path query succeeded"
		cr_log "$TAG: $q path queries answered during" \
			"$(tail -n +"$((MARK + 1))" "$CR_LOG" |
			grep -c -E -- "$CR_DONE") routing runs: OK"
	fi
	cr_opensm_stop 10 || cr_fail "$TAG: opensm exited with status $?"
	cr_ibsim_stop
fi

echo "--- LFT entries each fault changed (and its repair changed back):"
echo "--- forced: they pointed into a failed port, or their LID or switch left;"
echo "--- unforced%: of the entries that did not have to change"
cat "$CR_DIR/churn"
cr_log "all OK"
exit 0
