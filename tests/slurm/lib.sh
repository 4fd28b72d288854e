# shellcheck shell=sh
# A real Slurm on this machine for croute's tests; sourced, not run. POSIX
# sh.
#
# Debian 12's slurmctld and slurmd (22.05) with munge: one slurmd -N hNNNN
# per node (Debian's slurmd is built with multiple-slurmd support), every
# node at 127.0.0.1 on a port of its own, so Slurm's node names are the
# fabric's host names (croute gen --host-names, tests/ibsim/names.sh).
# Everything lives under one directory: its own munge key and socket, its
# own slurm.conf (SLURM_CONF, exported), ports derived from the shell's
# PID so that tests run in parallel; nothing in /etc is read or edited. No
# systemd, no cgroups. Every daemon started here is stopped by its PID at
# exit (slurm_stop, from the EXIT trap), and its logs shown when the test
# failed.
#
# Use:
#   . "$top_srcdir/tests/slurm/lib.sh"
#   slurm_init NAME          # after cr_init, if tests/ibsim/lib.sh is used
#   slurm_start 8            # h0001..h0008 (up to 399), all idle on return
#   jid=$(slurm_sbatch -w h0001,h0003 --wrap 'sleep 5')
#   slurm_wait_state "$jid" RUNNING 20
#   slurm_wait_idle 30
#
# PrologSlurmctld and EpilogSlurmctld: SLURM_HOOK when set (a program),
# else croute-slurm from the source tree through a wrapper that gives it
# CROUTE_OPENSM_CONF=$SLURM_OSM_CONF (Slurm passes the hook none of its own
# environment) and CROUTE_SLURM_SYSLOG=$SLURM_DIR/syslog.sock; syslog
# lines sent there land in $SLURM_SYSLOG (slurm_syslog_start).
#
# Environment: top_srcdir (set by make check). SLURM_HOOK_TIMEOUT:
# PrologEpilogTimeout (default 30).

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"

SLURM_DIR=
SLURM_NODES=0
SLURM_SYSLOG_PID=
SLURM_STATUS=1

slurm_log() {
	echo "[$(date +%H:%M:%S)] $*"
}

slurm_fail() {
	echo "FAIL: $*"
	exit 1
}

slurm_skip() {
	echo "SKIP: $*"
	SLURM_STATUS=77
	exit 77
}

# slurm_wait SECONDS CMD...: polls CMD every 0.1 s until it succeeds; 1 if
# it never did.
slurm_wait() {
	sw_n=$(($1 * 10))
	shift
	while ! "$@" 2>/dev/null; do
		sw_n=$((sw_n - 1))
		[ "$sw_n" -gt 0 ] || return 1
		sleep 0.1
	done
	return 0
}

# Installs the Slurm packages when missing, as root (the only case the
# tests skip: they cannot be had). scripts/deps installs them before the
# tests; this is for a test run by hand. Tests running in parallel take
# turns (flock), so that no apt-get finds another's lock. Postinst
# scripts start no service.
slurm_packages() {
	for p in slurmctld slurmd sbatch squeue sinfo munged; do
		command -v "$p" >/dev/null 2>&1 && continue
		[ "$(id -u)" = 0 ] || slurm_skip "$p missing and not root"
		command -v apt-get >/dev/null 2>&1 ||
			slurm_skip "$p missing and no apt-get"
		if [ -z "${SLURM_PKG_LOCKED:-}" ] &&
		   command -v flock >/dev/null 2>&1; then
			exec 8>/run/croute-slurm-packages.lock &&
				flock -w 900 8 ||
				slurm_skip "another test installs Slurm"
			SLURM_PKG_LOCKED=1
			slurm_packages
			exec 8>&-
			return
		fi
		policy=
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
			chmod 755 /usr/sbin/policy-rc.d
			policy=1
		fi
		slurm_log "installing slurmctld slurmd slurm-client munge"
		nice apt-get update -q >/dev/null 2>&1
		DEBIAN_FRONTEND=noninteractive nice apt-get \
			-o DPkg::Lock::Timeout=300 install -y -q \
			--no-install-recommends slurmctld slurmd slurm-client \
			munge >/dev/null 2>&1
		rc=$?
		[ -n "$policy" ] && rm -f /usr/sbin/policy-rc.d
		[ $rc = 0 ] || slurm_skip "cannot install the Slurm packages"
		break
	done
	# slurmd runs jobs as their users and binds its ports: root.
	[ "$(id -u)" = 0 ] || slurm_skip "Slurm's daemons need root"
}

# slurm_init NAME: checks the packages, sets up the directory (inside
# CR_DIR when tests/ibsim/lib.sh's cr_init ran first) and the EXIT trap.
slurm_init() {
	slurm_packages
	if [ -n "${CR_DIR:-}" ]; then
		SLURM_DIR=$CR_DIR/slurm
		mkdir -p "$SLURM_DIR" || slurm_fail "cannot create $SLURM_DIR"
	else
		SLURM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/croute-$1.XXXXXX") ||
			slurm_fail "cannot create a temporary directory"
		trap 'exit 130' INT TERM HUP
	fi
	trap slurm_cleanup EXIT
	# munged wants every directory above its socket world-executable.
	chmod 755 "$SLURM_DIR" "${CR_DIR:-$SLURM_DIR}"
	mkdir -p "$SLURM_DIR/etc" "$SLURM_DIR/state" "$SLURM_DIR/log" \
		"$SLURM_DIR/run" "$SLURM_DIR/bin" "$SLURM_DIR/out" \
		"$SLURM_DIR/spool" || slurm_fail "cannot populate $SLURM_DIR"
	# munged wants its socket directory world-executable, its key 0400.
	install -d -m 755 "$SLURM_DIR/munge"
	SLURM_CONF=$SLURM_DIR/etc/slurm.conf
	export SLURM_CONF
	SLURM_OSM_CONF=${SLURM_OSM_CONF:-${CR_CONF:-$SLURM_DIR/opensm.conf}}
	SLURM_SYSLOG=$SLURM_DIR/syslog
	# Private ports, different for tests run side by side: the
	# controller's, then one per node.
	SLURM_CTLD_PORT=$((20000 + ($$ % 100) * 400))
}

slurm_cleanup() {
	rc=$?
	[ "$SLURM_STATUS" = 77 ] && rc=77
	trap - EXIT
	slurm_stop
	slurm_kill python3 "$SLURM_SYSLOG_PID"
	SLURM_SYSLOG_PID=
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "$SLURM_DIR" ]; then
		for f in "$SLURM_DIR"/log/slurmctld.log "$SLURM_SYSLOG"; do
			[ -f "$f" ] || continue
			echo "--- last lines of $f"
			tail -n 20 "$f"
		done
	fi
	# tests/ibsim/lib.sh's cleanup owns the directory when it made it.
	if command -v cr_cleanup >/dev/null 2>&1 && [ -n "${CR_DIR:-}" ]; then
		(exit "$rc")
		cr_cleanup
	fi
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] || [ -n "${CR_KEEP:-}" ]; then
		echo "test directory kept: $SLURM_DIR"
	else
		rm -rf "$SLURM_DIR"
	fi
	exit "$rc"
}

# slurm_kill NAME PID: SIGTERM to PID if it is still the process NAME we
# started (a PID file may outlive its process), SIGKILL after 10 s.
slurm_kill() {
	sk_pid=$2
	[ -n "$sk_pid" ] || return 0
	[ "$(cat "/proc/$sk_pid/comm" 2>/dev/null)" = "$1" ] || return 0
	kill -TERM "$sk_pid" 2>/dev/null || return 0
	sk_n=100
	while kill -0 "$sk_pid" 2>/dev/null; do
		sk_n=$((sk_n - 1))
		[ "$sk_n" = 0 ] && kill -KILL "$sk_pid" 2>/dev/null
		sleep 0.1
	done
}

# slurm_hook_wrapper: the PrologSlurmctld/EpilogSlurmctld to configure.
slurm_hook_wrapper() {
	if [ -n "${SLURM_HOOK:-}" ]; then
		echo "$SLURM_HOOK"
		return 0
	fi
	cat >"$SLURM_DIR/bin/hook" <<EOF
#!/bin/sh
CROUTE_OPENSM_CONF='$SLURM_OSM_CONF'
CROUTE_SLURM_SYSLOG='$SLURM_DIR/syslog.sock'
export CROUTE_OPENSM_CONF CROUTE_SLURM_SYSLOG
exec '$top_srcdir/contrib/croute-slurm'
EOF
	chmod 755 "$SLURM_DIR/bin/hook"
	echo "$SLURM_DIR/bin/hook"
}

# slurm_syslog_start: a syslog socket at $SLURM_DIR/syslog.sock whose
# messages are appended to $SLURM_SYSLOG, one a line (python3; 1 when it
# is not installed).
slurm_syslog_start() {
	command -v python3 >/dev/null 2>&1 || return 1
	: >"$SLURM_SYSLOG"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(8192).decode("utf-8", "replace").rstrip("\n") + "\n")
        out.flush()
' "$SLURM_DIR/syslog.sock" "$SLURM_SYSLOG" </dev/null >/dev/null 2>&1 &
	SLURM_SYSLOG_PID=$!
	slurm_wait 10 test -S "$SLURM_DIR/syslog.sock" ||
		slurm_fail "the syslog socket did not appear"
	# The shell's $! may be a pyenv shim that exec'd python3.
	[ "$(cat "/proc/$SLURM_SYSLOG_PID/comm" 2>/dev/null)" = python3 ] ||
		slurm_fail "the syslog listener is not python3"
}

slurm_write_conf() {
	last=$(printf %04d "$1")
	port0=$((SLURM_CTLD_PORT + 1))
	cat >"$SLURM_CONF" <<EOF
ClusterName=croute
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$SLURM_CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge/munge.socket
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd-%n.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
SchedulerParameters=bf_interval=1
PrologSlurmctld=$2
EpilogSlurmctld=$2
PrologEpilogTimeout=${SLURM_HOOK_TIMEOUT:-30}
NodeName=h[0001-$last] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$port0-$((port0 + $1 - 1))] CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=fabric Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# slurm_start NODES: munged, slurmctld and one slurmd per node h0001..,
# returns once every node is idle.
slurm_start() {
	if [ "$1" -lt 1 ] || [ "$1" -gt 399 ]; then
		slurm_fail "slurm_start: 1 to 399 nodes"
	fi
	SLURM_NODES=$1
	hook=$(slurm_hook_wrapper)
	slurm_write_conf "$1" "$hook"
	i=1
	while [ "$i" -le "$1" ]; do
		mkdir -p "$SLURM_DIR/spool/h$(printf %04d "$i")"
		i=$((i + 1))
	done
	dd if=/dev/urandom of="$SLURM_DIR/munge/munge.key" bs=1024 count=1 \
		status=none
	chmod 400 "$SLURM_DIR/munge/munge.key"
	munged --socket="$SLURM_DIR/munge/munge.socket" \
		--key-file="$SLURM_DIR/munge/munge.key" \
		--log-file="$SLURM_DIR/munge/munged.log" \
		--pid-file="$SLURM_DIR/munge/munged.pid" \
		--seed-file="$SLURM_DIR/munge/munged.seed" ||
		slurm_fail "munged did not start"
	slurmctld -i || slurm_fail "slurmctld did not start"
	i=1
	while [ "$i" -le "$1" ]; do
		slurmd -N "h$(printf %04d "$i")" ||
			slurm_fail "slurmd -N h$(printf %04d "$i") did not start"
		i=$((i + 1))
	done
	slurm_wait_idle 60 || {
		sinfo
		slurm_fail "the $1 nodes are not idle"
	}
	slurm_log "Slurm up: slurmctld on port $SLURM_CTLD_PORT, $1 slurmd"
}

slurm_all_idle() {
	[ "$(sinfo -h -t idle -o %D 2>/dev/null)" = "$SLURM_NODES" ] &&
		[ -z "$(squeue -h 2>/dev/null)" ]
}

# slurm_wait_idle SECONDS: until no job is listed and every node is idle.
slurm_wait_idle() {
	slurm_wait "$1" slurm_all_idle
}

# slurm_sbatch ARGS...: sbatch --parsable, output discarded; prints the
# job ID.
slurm_sbatch() {
	(cd "$SLURM_DIR/out" && sbatch --parsable -o /dev/null "$@") ||
		slurm_fail "sbatch $* failed"
}

# slurm_state JOBID: the job's state (RUNNING, COMPLETED...).
slurm_state() {
	scontrol show job "$1" 2>/dev/null |
		sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
}

slurm_in_state() {
	[ "$(slurm_state "$1")" = "$2" ]
}

# slurm_wait_state JOBID STATE SECONDS
slurm_wait_state() {
	slurm_wait "$3" slurm_in_state "$1" "$2"
}

# slurm_nodelist JOBID: the job's node list as Slurm gives it to hooks.
slurm_nodelist() {
	squeue -h -j "$1" -o %N 2>/dev/null
}

# slurm_stop: cancels the jobs, then stops every slurmd, slurmctld (and
# its slurmscriptd) and munged by their PIDs.
slurm_stop() {
	[ -n "$SLURM_DIR" ] || return 0
	ctld=$(cat "$SLURM_DIR/run/slurmctld.pid" 2>/dev/null)
	if [ -n "$ctld" ] && kill -0 "$ctld" 2>/dev/null; then
		squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
		slurm_wait 30 sh -c '[ -z "$(squeue -h 2>/dev/null)" ]' ||
			slurm_log "jobs still listed at shutdown"
	fi
	kills=
	for f in "$SLURM_DIR"/run/slurmd-*.pid; do
		[ -s "$f" ] || continue
		slurm_kill slurmd "$(cat "$f")" &
		kills="$kills $!"
	done
	for p in $kills; do
		wait "$p"
	done
	scriptd=
	if [ -n "$ctld" ]; then
		for f in /proc/[0-9]*/stat; do
			{ read -r line <"$f"; } 2>/dev/null || continue
			rest=${line##*) }
			ppid=${rest#* }
			ppid=${ppid%% *}
			if [ "$ppid" = "$ctld" ]; then
				f=${f#/proc/}
				scriptd="$scriptd ${f%/stat}"
			fi
		done
	fi
	slurm_kill slurmctld "$ctld"
	for p in $scriptd; do
		slurm_kill slurmscriptd "$p"
	done
	slurm_kill munged "$(cat "$SLURM_DIR/munge/munged.pid" 2>/dev/null)"
	rm -f "$SLURM_DIR"/run/*.pid
}
