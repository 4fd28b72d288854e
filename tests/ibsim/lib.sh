# Shared helpers of the ibsim tests; sourced, not run. POSIX sh.
#
# Each test gets its own directory, ibsim socket name (IBSIM_SOCKNAME),
# OpenSM cache and temporary directories, log and dump directory, so tests
# can run in parallel (make -j check) without seeing each other's fabric or
# a stale guid2lid. Every process runs under a timeout and is killed with
# SIGKILL after a grace period; the EXIT trap cleans up. The test directory
# is kept when the test fails (or with CR_KEEP=1) and its path printed.
#
# Environment: top_builddir and top_srcdir (set by make check; default: the
# tree this file is in, built in place). CR_TEST_TIMEOUT: seconds one
# opensm run may take (default 60). CR_LOG_FLAGS: opensm -D (default 0x43;
# OpenSM writes its dump files only with 0x40). CR_KEEP=1: keep the test
# directory. CR_IBSIM_WAIT: seconds ibsim may take to start (default 30).
# CR_OSM_VERSION (make check-upstream): every `opensm -o` run must log
# this OpenSM version.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

CR_TIMEOUT=${CR_TEST_TIMEOUT:-60}
CR_LOG_FLAGS=${CR_LOG_FLAGS:-0x43}
CR_GRACE=5
CROUTE=$top_builddir/src/cli/croute
CR_PLUGIN_DIR=$top_builddir/.libs
# dlopen("libcroute.so") finds the uninstalled plugin first.
CR_LIBPATH=$CR_PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

CR_DIR=
CR_IBSIM_PID=
CR_OSM_PID=
CR_STATUS=1

cr_log() {
	echo "[$(date +%H:%M:%S)] $*"
}

cr_skip() {
	echo "SKIP: $*"
	CR_STATUS=77
	exit 77
}

cr_fail() {
	echo "FAIL: $*"
	exit 1
}

# Skips the test (exit 77) when a program it needs is not installed.
cr_need() {
	for prog in "$@"; do
		command -v "$prog" >/dev/null 2>&1 ||
			cr_skip "$prog is not installed"
	done
}

cr_find_umad2sim() {
	CR_UMAD2SIM=
	if command -v dpkg >/dev/null 2>&1; then
		CR_UMAD2SIM=$(dpkg -L libumad2sim0 2>/dev/null |
			grep '/libumad2sim\.so$' | head -n 1)
	fi
	if [ -z "$CR_UMAD2SIM" ]; then
		for f in /usr/lib/*/umad2sim/libumad2sim.so \
			/usr/lib64/umad2sim/libumad2sim.so \
			/usr/local/lib/umad2sim/libumad2sim.so; do
			[ -f "$f" ] && CR_UMAD2SIM=$f && break
		done
	fi
	[ -n "$CR_UMAD2SIM" ] && [ -f "$CR_UMAD2SIM" ] ||
		cr_skip "no libumad2sim.so (apt-get install libumad2sim0)"
}

# cr_children PID: the processes whose parent is PID (pgrep -P, or /proc
# where procps is not installed, as in minimal containers).
cr_children() {
	if command -v pgrep >/dev/null 2>&1; then
		pgrep -P "$1"
		return 0
	fi
	for f in /proc/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		# "pid (comm) state ppid ...": comm may hold blanks.
		rest=${line##*) }
		ppid=${rest#* }
		ppid=${ppid%% *}
		if [ "$ppid" = "$1" ]; then
			f=${f#/proc/}
			echo "${f%/stat}"
		fi
	done
	return 0
}

# Kills a process we started, by its id: SIGTERM, then SIGKILL (it and its
# direct children, e.g. the program under timeout(1)) after the grace time.
cr_kill() {
	pid=$1
	[ -n "$pid" ] || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt $((CR_GRACE * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		for c in $(cr_children "$pid"); do
			kill -KILL "$c" 2>/dev/null
		done
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

cr_cleanup() {
	rc=$?
	[ "$CR_STATUS" = 77 ] && rc=77
	trap - EXIT INT TERM HUP
	cr_kill "$CR_OSM_PID"
	cr_kill "$CR_IBSIM_PID"
	exec 9>&-
	if [ -n "$CR_DIR" ] && [ -d "$CR_DIR" ]; then
		failed=
		[ "$rc" != 0 ] && [ "$rc" != 77 ] && failed=1
		if [ -n "$failed" ] || [ -n "${CR_KEEP:-}" ]; then
			[ -n "$failed" ] && cr_dump_logs
			echo "test directory kept: $CR_DIR"
		else
			rm -rf "$CR_DIR"
		fi
	fi
	exit "$rc"
}

# Prints the end of the logs, for a failed test's .log file.
cr_dump_logs() {
	for f in "$CR_DIR"/opensm*.log "$CR_DIR"/ibsim.log; do
		[ -f "$f" ] || continue
		echo "--- last lines of $f"
		tail -n 30 "$f"
	done
}

# cr_init NAME: checks the tools and sets up the test directory and traps.
cr_init() {
	cr_need opensm ibsim timeout mkfifo
	cr_find_umad2sim
	[ -x "$CROUTE" ] || cr_fail "$CROUTE is not built"
	[ -f "$CR_PLUGIN_DIR/libcroute.so" ] ||
		cr_fail "$CR_PLUGIN_DIR/libcroute.so is not built"
	CR_DIR=$(mktemp -d "${TMPDIR:-/tmp}/croute-$1.XXXXXX") ||
		cr_fail "cannot create a temporary directory"
	trap cr_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	mkdir -p "$CR_DIR/cache" "$CR_DIR/tmp" "$CR_DIR/dump"
	# Unique per test and per run: the name of an abstract socket.
	IBSIM_SOCKNAME="cr-$1-$$"
	OSM_CACHE_DIR=$CR_DIR/cache
	OSM_TMP_DIR=$CR_DIR/tmp
	# croute_fail_engine is accepted only with this (a test hook).
	CROUTE_TEST_HOOKS=1
	export IBSIM_SOCKNAME OSM_CACHE_DIR OSM_TMP_DIR CROUTE_TEST_HOOKS
	CR_CONF=$CR_DIR/opensm.conf
	CR_DUMP=$CR_DIR/dump
	CR_GUID2LID=$OSM_CACHE_DIR/guid2lid
	CR_RUN=0
}

# cr_gen FILE ARGS...: a fabric from `croute gen ARGS`.
cr_gen() {
	out=$1
	shift
	"$CROUTE" gen "$@" >"$out" ||
		cr_fail "croute gen $* failed"
}

# Sizes ibsim's tables for the fabric (its defaults: 2048 nodes, 256
# switches, 13312 ports, LIDs below 30720; a LID each for a switch and a
# CA port, so larger fabrics get every unicast LID, up to 0xBFFF).
cr_ibsim_limits() {
	awk '
	/^Switch[ \t]/ { sw++; n++; p += $2 + 1; lids++ }
	/^(Ca|Hca|Rt)[ \t]/ { n++; p += $2; lids += $2 }
	END {
		n += 16; sw += 16; p += 256
		printf "-N %d -S %d -P %d", (n > 2048 ? n : 2048),
		    (sw > 256 ? sw : 256), (p > 13312 ? p : 13312)
		if (lids + 64 > 30720) printf " -L 49152"
	}' "$1"
}

# cr_ibsim_start TOPO: starts ibsim on TOPO with its console on a fifo
# (cr_ibsim_cmd writes to it), waits until the simulated fabric is up.
cr_ibsim_start() {
	topo=$1
	limits=$(cr_ibsim_limits "$topo")
	# The previous ibsim's log goes first: the new one truncates it only
	# once started, and a poll before that would read the old file's size
	# as the new log's offset and skip its "ready" line.
	rm -f "$CR_DIR/ibsim.in" "$CR_DIR/ibsim.log"
	mkfifo "$CR_DIR/ibsim.in" || cr_fail "cannot create the console fifo"
	# Read-write: neither side blocks, and ibsim never sees end of file.
	exec 9<>"$CR_DIR/ibsim.in"
	# shellcheck disable=SC2086
	timeout -k "$CR_GRACE" 3600 ibsim -s $limits "$topo" \
		<&9 >"$CR_DIR/ibsim.log" 2>&1 &
	CR_IBSIM_PID=$!
	cr_wait_log "$CR_DIR/ibsim.log" "Network simulator ready" 1 \
		"${CR_IBSIM_WAIT:-30}" \
		"$CR_IBSIM_PID" ||
		cr_fail "ibsim did not start"
}

cr_ibsim_cmd() {
	cr_log "ibsim console: $*"
	echo "$*" >&9
}

cr_ibsim_stop() {
	cr_kill "$CR_IBSIM_PID"
	CR_IBSIM_PID=
	exec 9>&-
}

# cr_wait_log FILE PATTERN COUNT SECONDS [PID]: waits until FILE has COUNT
# lines matching the extended regular expression PATTERN; gives up early
# when process PID (one we started) is gone. Each poll reads only the
# complete lines FILE gained since the last: an opensm log at 27,648
# hosts is hundreds of MB, and reading it whole ten times a second took
# a core from the opensm the benchmarks time.
cr_wait_log() {
	i=0
	n=0
	cr_wl_off=0
	cr_wl_tmp="${CR_DIR:-${TMPDIR:-/tmp}}/.cr_wait_log.$$"
	while :; do
		[ -f "$1" ] && cr_wait_log_read "$1" "$2"
		if [ "$n" -ge "$3" ]; then
			rm -f "$cr_wl_tmp"
			return 0
		fi
		if [ $i -ge $(($4 * 10)) ] ||
			{ [ -n "${5:-}" ] && ! kill -0 "$5" 2>/dev/null; }; then
			rm -f "$cr_wl_tmp"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# cr_wait_log_read FILE PATTERN: adds to n the matches in FILE's complete
# lines from byte cr_wl_off on, and moves cr_wl_off past them (a file
# that shrank, as one written anew, is read from its start).
cr_wait_log_read() {
	cr_wl_size=$(wc -c <"$1")
	if [ "$cr_wl_size" -lt "$cr_wl_off" ]; then
		cr_wl_off=0
		n=0
	fi
	[ "$cr_wl_size" -gt "$cr_wl_off" ] || return 0
	tail -c +$((cr_wl_off + 1)) "$1" |
		head -c $((cr_wl_size - cr_wl_off)) >"$cr_wl_tmp"
	cr_wl_len=$((cr_wl_size - cr_wl_off))
	# A line still being written waits for the next poll.
	if [ -n "$(tail -c 1 "$cr_wl_tmp" | tr -d '\n')" ]; then
		cr_wl_len=$((cr_wl_len - $(tail -n 1 "$cr_wl_tmp" | wc -c)))
	fi
	[ "$cr_wl_len" -gt 0 ] || return 0
	n=$((n + $(head -c "$cr_wl_len" "$cr_wl_tmp" | grep -E -c -- "$2")))
	cr_wl_off=$((cr_wl_off + cr_wl_len))
}

# cr_conf [LINES...]: writes the opensm.conf of the next runs: the plugin,
# a flushed log, then each argument as a line.
cr_conf() {
	{
		echo "event_plugin_name croute"
		echo "force_log_flush TRUE"
		echo "dump_files_dir $CR_DUMP"
		for line in "$@"; do
			echo "$line"
		done
	} >"$CR_CONF"
}

# The environment opensm runs in: ibsim's umad, the uninstalled plugin. An
# empty CR_LIBPATH (tests/pkg/deb.sh): no LD_LIBRARY_PATH at all.
cr_osm_env() {
	if [ -n "$CR_LIBPATH" ]; then
		env LD_PRELOAD="$CR_UMAD2SIM${CR_PRELOAD:+ $CR_PRELOAD}" \
			LD_LIBRARY_PATH="$CR_LIBPATH" "$@"
	else
		env -u LD_LIBRARY_PATH \
			LD_PRELOAD="$CR_UMAD2SIM${CR_PRELOAD:+ $CR_PRELOAD}" "$@"
	fi
}

# cr_opensm_once ARGS...: one opensm sweep (-o) with the plugin; the log is
# $CR_LOG (opensm-N.log, N counting the runs of this test). Fails the test
# when opensm does not exit in time or exits non-zero.
cr_opensm_once() {
	CR_RUN=$((CR_RUN + 1))
	CR_LOG=$CR_DIR/opensm-$CR_RUN.log
	rm -f "$CR_DUMP"/opensm*
	cr_log "opensm -o $*"
	cr_osm_env timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
		opensm -o -F "$CR_CONF" -f "$CR_LOG" -D "$CR_LOG_FLAGS" \
		--dump_files_dir "$CR_DUMP" "$@" \
		>"$CR_DIR/opensm-$CR_RUN.out" 2>&1
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] &&
		cr_fail "opensm did not finish within $CR_TIMEOUT s"
	[ $rc = 0 ] || cr_fail "opensm exited with status $rc"
	[ -f "$CR_DUMP/opensm-lfts.dump" ] ||
		cr_fail "opensm wrote no opensm-lfts.dump"
	# make check-upstream: the opensm that ran is the one built for it.
	if [ -n "${CR_OSM_VERSION:-}" ]; then
		grep -q "OpenSM $CR_OSM_VERSION\$" "$CR_LOG" ||
			cr_fail "the opensm that ran is not OpenSM $CR_OSM_VERSION"
	fi
}

# cr_opensm_start ARGS...: opensm in the background (for re-sweeps);
# CR_OSM_WRAP (e.g. "valgrind ...") runs in front of it.
cr_opensm_start() {
	CR_RUN=$((CR_RUN + 1))
	CR_LOG=$CR_DIR/opensm-$CR_RUN.log
	cr_log "opensm $*"
	# Not through a shell function: $! must be timeout(1) itself.
	# shellcheck disable=SC2086
	env LD_PRELOAD="$CR_UMAD2SIM${CR_PRELOAD:+ $CR_PRELOAD}" \
		LD_LIBRARY_PATH="$CR_LIBPATH" timeout -k "$CR_GRACE" 3600 ${CR_OSM_WRAP:-} \
		opensm -F "$CR_CONF" -f "$CR_LOG" -D "$CR_LOG_FLAGS" \
		--dump_files_dir "$CR_DUMP" "$@" \
		>"$CR_DIR/opensm-$CR_RUN.out" 2>&1 &
	CR_OSM_PID=$!
}

# The opensm under timeout(1). Signal it, never timeout: timeout takes any
# signal it gets as an order to stop the command, and sends SIGKILL after
# the grace time.
cr_opensm_pid() {
	cr_children "$CR_OSM_PID" | head -n 1
}

# cr_opensm_stop [SECONDS]: SIGTERM, wait, SIGKILL; returns opensm's status.
cr_opensm_stop() {
	pid=$(cr_opensm_pid)
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	i=0
	while kill -0 "$CR_OSM_PID" 2>/dev/null &&
		[ $i -lt $((${1:-$CR_TIMEOUT} * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$CR_OSM_PID" 2>/dev/null; then
		cr_log "opensm ignores SIGTERM: SIGKILL"
		cr_kill "$CR_OSM_PID"
		CR_OSM_PID=
		return 137
	fi
	wait "$CR_OSM_PID"
	rc=$?
	CR_OSM_PID=
	return $rc
}

# cr_lfts_norm FILE: an LFT dump as sorted "switch-guid lid port" lines
# (hex GUID and LID in lower case, port in decimal), no-path entries left
# out, so dumps written by opensm and by croute compare line by line.
cr_lfts_norm() {
	awk '
	/^Unicast lids/ {
		sw = ""
		for (i = 1; i <= NF; i++)
			if ($i == "guid") sw = tolower($(i + 1))
		next
	}
	/^0x[0-9a-fA-F]+[ \t]+[0-9]+/ {
		if ($2 + 0 != 255) print sw, tolower($1), $2 + 0
	}' "$1" | LC_ALL=C sort
}

# cr_lids GUID: "base top" LIDs of a port GUID from OpenSM's guid2lid.
cr_lids() {
	awk -v g="$1" 'tolower($1) == tolower(g) { print $2 + 0, $3 + 0 }' \
		"$CR_GUID2LID"
}

# cr_host_lids SUBNET_LST: the CA ports of opensm-subnet.lst as decimal
# LIDs, one a line, hosts in natural order of their descriptions (leaf
# order for `croute gen` fabrics): the host order bench/updn/shiftload.awk
# counts shifts in.
cr_host_lids() {
	awk '
	/^\{ CA / {
		match($0, /\{[^{}]*\} LID:[0-9A-Fa-f]+/)
		s = substr($0, RSTART + 1, RLENGTH - 1)
		d = s; sub(/\} LID:.*/, "", d)
		l = s; sub(/.*LID:/, "", l)
		print d "\t" l
	}' "$1" | sort -V | awk -F '\t' '{
		v = 0; s = tolower($2)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		print v
	}'
}

# cr_check_lfts TOPO OUT MESSAGE [croute check options...]: `croute check`
# on the LFTs opensm installed (its last dump, with its guid2lid), the
# report in OUT; on problems shows the report and fails with MESSAGE.
cr_check_lfts() {
	_topo=$1
	_out=$2
	_msg=$3
	shift 3
	"$CROUTE" check --topo "$_topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" "$@" >"$_out" 2>&1 || {
		cat "$_out"
		cr_fail "$_msg"
	}
}

# cr_same EXPECTED ACTUAL LINES MESSAGE: fails with MESSAGE unless the two
# files are equal, showing the first LINES lines of their diff.
cr_same() {
	cmp -s "$1" "$2" || {
		diff "$1" "$2" | head -n "$3"
		cr_fail "$4"
	}
}

# cr_expect_log PATTERN [MESSAGE]: the last opensm log has PATTERN.
cr_expect_log() {
	grep -E -q -- "$1" "$CR_LOG" ||
		cr_fail "${2:-opensm log lacks: $1} ($CR_LOG)"
}

cr_reject_log() {
	if grep -E -q -- "$1" "$CR_LOG"; then
		grep -E -- "$1" "$CR_LOG" | head -n 5
		cr_fail "${2:-opensm log has: $1} ($CR_LOG)"
	fi
}

# One routing run has ended: an engine's tables are in, or none could.
CR_DONE=" tables configured on all switches|No routing engine able"

# cr_count PATTERN: lines of the current opensm log matching PATTERN.
cr_count() {
	cr_n=$(grep -E -c -- "$1" "$CR_LOG" 2>/dev/null)
	echo "${cr_n:-0}"
}

cr_hup() {
	cr_pid=$(cr_opensm_pid)
	[ -n "$cr_pid" ] || cr_fail "opensm is gone"
	kill -HUP "$cr_pid"
}

# cr_sweep: SIGHUP (a heavy sweep, and OpenSM and croute re-read their
# configuration), wait until it has routed and no further sweep follows
# (ibsim's traps can start one of their own).
cr_sweep() {
	n=$(cr_count "$CR_DONE")
	cr_hup
	cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" \
		"$CR_OSM_PID" || cr_fail "no routing after SIGHUP"
	while :; do
		n=$(cr_count "$CR_DONE")
		sleep 2
		[ "$(cr_count "$CR_DONE")" = "$n" ] && break
	done
}

# cr_valgrind_start ARGS...: opensm ARGS under valgrind (its log in
# $CR_DIR/valgrind.log), waited for until its first routing.
cr_valgrind_start() {
	CR_OSM_WRAP="valgrind --leak-check=full --show-leak-kinds=all
		--errors-for-leak-kinds=definite,indirect --keep-debuginfo=yes
		--num-callers=40 --log-file=$CR_DIR/valgrind.log"
	cr_opensm_start "$@"
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "opensm under valgrind did not route"
}

# cr_valgrind_end: stops opensm and ibsim; fails unless opensm exited
# cleanly and valgrind reports nothing in croute's code.
cr_valgrind_end() {
	cr_opensm_stop "$CR_TIMEOUT"
	rc=$?
	[ $rc = 0 ] || cr_fail "opensm under valgrind exited with status $rc"
	cr_ibsim_stop
	cr_valgrind_ours "$CR_DIR/valgrind.log"
	grep -E "ERROR SUMMARY|definitely lost|indirectly lost" \
		"$CR_DIR/valgrind.log" | head -n 3
	cr_log "no valgrind report involves croute: OK"
}

# cr_valgrind_ours LOG: fails unless valgrind finished writing LOG and no
# report in it involves croute's code (the plugin's and the core's source
# files, or the library); opensm's own reports are not ours to fix. The
# reports found are left in $CR_DIR/valgrind.ours.
cr_valgrind_ours() {
	grep -q "ERROR SUMMARY" "$1" || cr_fail "valgrind did not finish ($1)"
	_ours=$(cd "$top_srcdir/src" && ls core/*.c core/*/*.c plugin/*.c 2>/dev/null |
		sed 's|.*/||' | tr '\n' '|' | sed 's/\./\\./g; s/|$//')
	awk -v ours="\\((${_ours}):[0-9]+\\)|libcroute" '
		# valgrind separates its reports with an empty "==PID== " line.
		/^==[0-9]+== *$/ {
			if (rec ~ ours && rec !~ /(ERROR|HEAP|LEAK) SUMMARY/)
				print rec
			rec = ""
			next
		}
		{ rec = rec $0 "\n" }
		END { if (rec ~ ours) print rec }
	' "$1" >"$CR_DIR/valgrind.ours"
	if [ -s "$CR_DIR/valgrind.ours" ]; then
		head -n 60 "$CR_DIR/valgrind.ours"
		cr_fail "valgrind reports errors or leaks in croute's code"
	fi
}
