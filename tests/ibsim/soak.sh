#!/bin/sh
# Soak: one opensm with the plugin through many re-sweeps of a fabric of a
# few hundred nodes whose links flap at random (seeded: a failure can be
# replayed). Each step takes a link down or brings one back (at most
# CR_SOAK_MAXDOWN down at once), now and then a SIGHUP with no change or a
# storm (four links toggled at once, so the fabric changes while OpenSM
# sweeps, then a clean SIGHUP sweep), and waits for the re-sweep. Checked:
#   - the same fabric state always gets the same LFTs (normalised LFT
#     recorded per state);
#   - opensm's RSS stays flat once warmed up (the first 10% of the steps,
#     at least 5): at the end, at most 5% (and 1 MB) above the warm level;
#   - every CR_SOAK_CHECK steps (10), the tables are checked against the
#     fabric as ibnetdiscover sees it: no entry into a dead port or to a
#     gone LID, every CA reaches every LID, no loops (croute check);
#   - no croute error but cr-ftree's refusals, opensm never goes away;
#   - under valgrind (CR_SOAK_VALGRIND=1; RSS not checked then), no error
#     or leak whose stack goes through croute's code.
#
# Knobs: CR_SOAK_STEPS (default 20; `make soak` runs 300), CR_SOAK_SEED
# (1), CR_SOAK_MAXDOWN (3), CR_SOAK_ENGINES (cr-ftree,cr-updn),
# CR_SOAK_FABRIC (croute gen arguments; default a two-level tree with 216
# hosts and 24 switches), CR_SOAK_OSM_ARGS (more opensm arguments: -Q for
# cr-lash, with e.g. CR_SOAK_FABRIC="torus 6 6 --hosts 2").

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

STEPS=${CR_SOAK_STEPS:-20}
SEED=${CR_SOAK_SEED:-1}
MAXDOWN=${CR_SOAK_MAXDOWN:-3}
ENGINES=${CR_SOAK_ENGINES:-cr-ftree,cr-updn}
FABRIC=${CR_SOAK_FABRIC:-two-level --leaves 18 --hosts 12 --uplinks 6 \
--spines 6 --scramble 4}

[ -n "${CR_SOAK_VALGRIND:-}" ] && cr_need valgrind
cr_init soak
cr_need ibnetdiscover
CHECK=${CR_SOAK_CHECK:-10}
[ -n "${CR_SOAK_VALGRIND:-}" ] && CR_TIMEOUT=${CR_TEST_TIMEOUT:-300}

topo=$CR_DIR/fabric.topo
# shellcheck disable=SC2086
cr_gen "$topo" $FABRIC
nodes=$(grep -c -E '^(Switch|Ca)' "$topo")

# The links that flap: every link, seen from its switch end (switch-switch
# links once), but those of the SM's switch (ibsim attaches opensm to the
# first node of the file; cut off, it would see nothing else).
sm=$(awk '/^Switch/ { split($0, q, "\""); print q[2]; exit }' "$topo")
awk -v sm="$sm" '
/^(Switch|Ca)[ \t]/ { split($0, q, "\""); id = q[2]; sw = /^Switch/; next }
/^\[/ && sw {
	p = substr($1, 2, index($1, "]") - 2) + 0
	split($0, q, "\"")
	r = q[2]
	if (id == sm || r == sm || (r ~ /^S-/ && r < id))
		next
	print id, p
}' "$topo" >"$CR_DIR/links"
nlinks=$(wc -l <"$CR_DIR/links")
[ "$nlinks" -ge 2 ] || cr_fail "no links to flap in $topo"

# The plan: STEPS lines "down|up|hup LINK-INDEX STATE", STATE naming the
# links down after the step (sorted), "-" for none.
awk -v steps="$STEPS" -v seed="$SEED" -v maxdown="$MAXDOWN" \
	-v n="$nlinks" '
function state(   i, s) {
	s = ""
	for (i = 1; i <= n; i++)
		if (down[i])
			s = s (s == "" ? "" : ",") i
	return s == "" ? "-" : s
}
BEGIN {
	srand(seed)
	nd = 0
	for (k = 1; k <= steps; k++) {
		r = rand()
		if (r < 0.1) {
			print "hup 0", state()
			continue
		}
		if (r < 0.15) {
			# A storm: four links toggle at once, some down and
			# back before OpenSM has swept.
			s = ""
			for (j = 0; j < 4; j++) {
				i = int(rand() * n) + 1
				if (down[i]) {
					down[i] = 0
					nd--
					s = s (s == "" ? "" : ",") "+" i
				} else if (nd < maxdown) {
					down[i] = 1
					nd++
					s = s (s == "" ? "" : ",") "-" i
				}
			}
			print "storm", (s == "" ? "0" : s), state()
			continue
		}
		if (nd > 0 && (nd >= maxdown || r < 0.55)) {
			j = int(rand() * nd) + 1
			for (i = 1; i <= n; i++)
				if (down[i] && --j == 0)
					break
			down[i] = 0
			nd--
			print "up", i, state()
		} else {
			do
				i = int(rand() * n) + 1
			while (down[i])
			down[i] = 1
			nd++
			print "down", i, state()
		}
	}
}' >"$CR_DIR/plan"

cr_ibsim_start "$topo"
cr_conf "sweep_interval 1"
if [ -n "${CR_SOAK_VALGRIND:-}" ]; then
	CR_OSM_WRAP="valgrind --leak-check=full --show-leak-kinds=all
	--errors-for-leak-kinds=definite,indirect --num-callers=40
	--log-file=$CR_DIR/valgrind.log"
fi
# shellcheck disable=SC2086
cr_opensm_start -R "$ENGINES" ${CR_SOAK_OSM_ARGS:-}
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_quiet
pid=$(cr_opensm_pid)

rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null
}

# toggle LINK-INDEX -|+: takes the link down or brings it back.
toggle() {
	set -- $(sed -n "${1}p" "$CR_DIR/links") "$2"
	if [ "$3" = - ]; then
		echo "Unlink \"$1\"[$2]" >&9
	else
		echo "ReLink \"$1\"[$2]" >&9
	fi
}

# check: the tables against the fabric as it is now.
check() {
	d=$CR_DIR/check
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$d.norm"
	cr_discover "$d.topo"
	cr_dead_routes "$d.topo" "$d.norm" >"$d.dead"
	if [ -s "$d.dead" ]; then
		head -n 5 "$d.dead"
		cr_fail "step $k: routes into dead ports or to gone LIDs"
	fi
	cr_check_lfts "$d.topo" "$d.out" "step $k: croute check found problems" \
		--skip-credit-loops
	CHECKS=$((CHECKS + 1))
}

# record STATE: the tables of STATE must be those it had before.
record() {
	sum=$(cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" | cksum |
		awk '{ print $1 "-" $2 }')
	[ "$sum" != "4294967295-0" ] || cr_fail "step $k: empty LFT dump"
	old=$(awk -v s="$1" '$1 == s { print $2; exit }' "$CR_DIR/states")
	if [ -z "$old" ]; then
		echo "$1 $sum" >>"$CR_DIR/states"
	elif [ "$old" != "$sum" ]; then
		cr_fail "step $k: other LFTs for links down $1 than before" \
			"($(cr_engine_used))"
	fi
	[ -n "$old" ] && REVISITS=$((REVISITS + 1))
}

: >"$CR_DIR/states"
REVISITS=0
CHECKS=0
warm=$((STEPS / 10))
[ $warm -lt 5 ] && warm=5
k=0
record -
rss_start=$(rss)
rss_warm=
cr_log "soak: $nodes nodes, $nlinks links flapping, $STEPS steps," \
	"seed $SEED, -R $ENGINES; RSS $rss_start kB"
while read -r what li st; do
	k=$((k + 1))
	n=$(cr_count "$CR_DONE")
	case $what in
	hup)
		cr_hup
		;;
	storm)
		for t in $(echo "$li" | tr ',' ' '); do
			[ "$t" = 0 ] && continue
			toggle "${t#?}" "$(echo "$t" | cut -c 1)"
		done
		;;
	down)
		toggle "$li" -
		;;
	up)
		toggle "$li" +
		;;
	esac
	cr_settle "$n"
	# After a storm, a clean sweep: the last trap may have been handled
	# while the fabric was still changing.
	[ "$what" = storm ] && cr_resweep
	record "$st"
	[ $((k % CHECK)) = 0 ] && check
	[ $k = $warm ] && rss_warm=$(rss)
	echo "$k $what $li $st $(cr_engine_used) $(rss)" >>"$CR_DIR/steps"
	[ $((k % 10)) = 0 ] &&
		cr_log "step $k/$STEPS: $(wc -l <"$CR_DIR/states") states," \
			"RSS $(rss) kB"
done <"$CR_DIR/plan"
[ -n "$rss_warm" ] || rss_warm=$(rss)
rss_end=$(rss)
sweeps=$(cr_count "$CR_DONE")
# cr-ftree refuses some shapes (cr-updn follows): its errors are expected.
tail -n +2 "$CR_LOG" | grep "croute: ERR" | grep -E -v "ERR CR[0-9A-F]{2}: cr-ftree" \
	>"$CR_DIR/errors"
[ -s "$CR_DIR/errors" ] && {
	head -n 5 "$CR_DIR/errors"
	cr_fail "croute errors during the soak"
}
engines_used=$(awk '{ print $5 }' "$CR_DIR/steps" | sort | uniq -c |
	awk '{ printf "%s%s x%d", s, $2, $1; s = ", " }')

cr_opensm_stop 30 || cr_fail "opensm exited with status $? at the end"
cr_ibsim_stop

cr_log "soak: $STEPS steps, $sweeps routing runs ($engines_used)," \
	"$(wc -l <"$CR_DIR/states") fabric states, $REVISITS revisits with" \
	"equal LFTs, $CHECKS states checked"
cr_log "RSS of opensm: $rss_start kB at start, $rss_warm kB after $warm" \
	"steps, $rss_end kB at the end"

if [ -n "${CR_SOAK_VALGRIND:-}" ]; then
	vlog=$CR_DIR/valgrind.log
	cr_valgrind_ours "$vlog"
	grep -E "ERROR SUMMARY|definitely lost:|in use at exit" "$vlog"
	cr_log "valgrind: nothing in croute's code: OK"
else
	[ "$rss_end" -le $((rss_warm + rss_warm / 20 + 1024)) ] ||
		cr_fail "opensm's RSS grew from $rss_warm to $rss_end kB"
fi
cr_log "all OK"
exit 0
