#!/bin/sh
# croute --live against the files: on an ibsim fabric routed by opensm
# (OpenSM's updn and dfsssp, each cr-* engine, and updn with LMC 1),
# `croute estimate --live` and `croute check --live` (libibnetdisc +
# libibmad through umad2sim) print the same figures as --dump-dir (opensm's
# opensm-subnet.lst + opensm-lfts.dump, and opensm.fdbs) and as --topo
# <ibnetdiscover> --lfts <dump_fts>. A port that does not exist and a CA
# that does not exist are errors (exit 2).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init live
cr_need ibnetdiscover dump_fts
"$CROUTE" check --live --help >/dev/null 2>&1 ||
	cr_skip "croute was built without --live"
if "$CROUTE" check --live -C none 2>&1 | grep -q "built without"; then
	cr_skip "croute was built without libibnetdisc/libibmad"
fi

topo=$CR_DIR/tree.topo
cr_gen "$topo" two-level --leaves 4 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 3
cr_ibsim_start "$topo"
cr_conf

# figures FILE: a report without its '#' header lines and run times, and
# without check's note that it assumed one VL (--live-sl none reads no
# SLs, while --dump-dir reads cr-lash's: on this tree both find no credit
# loop).
figures() {
	grep -v '^#' "$1" | sed -e 's/ ([0-9.]* s)$//' \
		-e 's/ (one VL assumed: [^)]*)$//'
}

# same NAME CMD: croute CMD from each source gives the same figures.
same() {
	name=$1
	cmd=$2
	shift 2
	d=$CR_DIR/$name.$cmd
	# opensm -o has exited: no SA to ask path SLs (tests/ibsim/live_sl.sh)
	cr_osm_env timeout -k "$CR_GRACE" 120 "$CROUTE" "$cmd" --live \
		--live-sl none "$@" >"$d.live" 2>"$d.live.err"
	rc=$?
	[ $rc -le 1 ] || cr_fail "$name: croute $cmd --live: exit $rc: $(cat "$d.live.err")"
	"$CROUTE" "$cmd" --dump-dir "$CR_DUMP" "$@" >"$d.dd" 2>"$d.dd.err"
	[ $? = $rc ] || cr_fail "$name: $cmd --dump-dir exit status differs"
	"$CROUTE" "$cmd" --topo "$CR_DUMP/opensm-subnet.lst" \
		--lfts "$CR_DUMP/opensm.fdbs" "$@" >"$d.fdbs" 2>&1
	[ $? = $rc ] || cr_fail "$name: $cmd with opensm.fdbs exit status differs"
	"$CROUTE" "$cmd" --topo "$d.ibnet" --lfts "$d.fts" "$@" \
		>"$d.ib" 2>&1
	[ $? = $rc ] || cr_fail "$name: $cmd with dump_fts exit status differs"
	grep -q '(libibnetdisc), LFTs from the switches (libibmad)$' "$d.live" ||
		cr_fail "$name: --live header: $(head -n 1 "$d.live")"
	figures "$d.live" >"$d.live.fig"
	[ -s "$d.live.fig" ] || cr_fail "$name: $cmd --live printed nothing"
	for src in dd fdbs ib; do
		figures "$d.$src" >"$d.$src.fig"
		cr_same "$d.live.fig" "$d.$src.fig" 20 \
			"$name: croute $cmd --live and from $src differ"
	done
}

for run in updn dfsssp cr-minhop cr-updn cr-ftree cr-lash:-Q updn:-l1; do
	engine=${run%%:*}
	opt=
	[ "$run" != "$engine" ] && opt=${run#*:}
	name=$engine$opt
	cr_log "=== $name"
	rm -f "$CR_GUID2LID"
	# shellcheck disable=SC2086
	cr_opensm_once -R "$engine" $opt
	cr_osm_env timeout 30 ibnetdiscover >"$CR_DIR/$name.ibnet" \
		2>/dev/null || cr_fail "$name: ibnetdiscover failed"
	for c in check estimate; do
		cp "$CR_DIR/$name.ibnet" "$CR_DIR/$name.$c.ibnet"
	done
	cr_osm_env timeout 30 dump_fts >"$CR_DIR/$name.fts" 2>/dev/null ||
		cr_fail "$name: dump_fts failed"
	for c in check estimate; do
		cp "$CR_DIR/$name.fts" "$CR_DIR/$name.$c.fts"
	done
	same "$name" estimate --pattern shift,bisect:2
	same "$name" check
	# Min-hop routes do not avoid credit loops (switch-to-switch paths
	# here), and dfsssp breaks them with SLs, which only its SA knows
	# (live_sl.sh asks it): only the others are expected clean.
	case $engine in dfsssp | cr-minhop) continue ;; esac
	grep -q "^result: *OK" "$CR_DIR/$name.check.live" ||
		cr_fail "$name: the live check found problems"
done
# LMC 1: every LID of the ranges was checked, from the files as live.
n=$(awk '/^pairs checked:/ { print $3 }' "$CR_DIR/updn-l1.check.live")
m=$(awk '/^pairs checked:/ { print $3 }' "$CR_DIR/updn.check.live")
[ "$n" -gt "$m" ] || cr_fail "LMC 1: $n pairs checked, not more than $m"

# croute export --slurm --live: the Slurm topology of ibnetdiscover's view.
cr_osm_env timeout 30 "$CROUTE" export --slurm --live -o "$CR_DIR/slurm.live" \
	2>"$CR_DIR/slurm.err" || cr_fail "export --live: $(cat "$CR_DIR/slurm.err")"
"$CROUTE" export --slurm --topo "$CR_DIR/updn-l1.ibnet" \
	-o "$CR_DIR/slurm.ibnet" || cr_fail "export --topo ibnetdiscover output"
sed 1,2d "$CR_DIR/slurm.live" >"$CR_DIR/slurm.live.body"
sed 1,2d "$CR_DIR/slurm.ibnet" | cmp -s - "$CR_DIR/slurm.live.body" ||
	cr_fail "export --slurm --live differs from ibnetdiscover's"
grep -q '^SwitchName=.* Nodes=' "$CR_DIR/slurm.live.body" ||
	cr_fail "export --slurm --live: no leaf switch"

# croute compare --live: the tables in place are the "installed" row, with
# the figures --dump-dir gives them; the engines' rows follow.
cr_osm_env timeout 120 "$CROUTE" compare --live --engines updn,lash \
	--pattern shift >"$CR_DIR/compare.live" 2>"$CR_DIR/compare.err" ||
	cr_fail "compare --live: $(cat "$CR_DIR/compare.err")"
"$CROUTE" compare --dump-dir "$CR_DUMP" --engines updn,lash --pattern shift \
	>"$CR_DIR/compare.dd" 2>&1 || cr_fail "compare --dump-dir failed"
grep '^installed ' "$CR_DIR/compare.live" >"$CR_DIR/compare.live.row"
grep '^installed ' "$CR_DIR/compare.dd" >"$CR_DIR/compare.dd.row"
[ -s "$CR_DIR/compare.live.row" ] || cr_fail "compare --live: no installed row"
cr_same "$CR_DIR/compare.live.row" "$CR_DIR/compare.dd.row" 5 \
	"compare: the installed rows of --live and --dump-dir differ"
grep -q '^updn ' "$CR_DIR/compare.live" || cr_fail "compare --live: no updn row"

# --- errors ----------------------------------------------------------------
cr_osm_env timeout 30 "$CROUTE" estimate --live -P 250 \
	>"$CR_DIR/badport.out" 2>&1
rc=$?
[ $rc = 2 ] || cr_fail "a port that does not exist: exit $rc"
grep -q "croute: error: live: .*port 250" "$CR_DIR/badport.out" ||
	cr_fail "bad port: $(cat "$CR_DIR/badport.out")"
cr_osm_env timeout 30 "$CROUTE" check --live -C nosuch \
	>"$CR_DIR/badca.out" 2>&1
rc=$?
[ $rc = 2 ] || cr_fail "a CA that does not exist: exit $rc"
grep -q "cannot open CA nosuch" "$CR_DIR/badca.out" ||
	cr_fail "bad CA: $(cat "$CR_DIR/badca.out")"
"$CROUTE" check --live --topo "$topo" >"$CR_DIR/both.out" 2>&1
[ $? = 2 ] || cr_fail "--live with --topo is not a usage error"
CR_STATUS=0
