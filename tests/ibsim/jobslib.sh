# Shared by the tests of the plugin's jobs file; sourced after lib.sh.

# jobs_fabric LEAVES HOSTS UPLINKS SPINES: a two-level fabric (topo) of
# hosts h0001... (Slurm's node names) under ibsim; JOBS, the jobs file
# in a directory of its own, and STATE, the plugin's state file.
jobs_fabric() {
	topo=$CR_DIR/tree.topo
	cr_gen "$topo" two-level --leaves "$1" --hosts "$2" --uplinks "$3" \
		--spines "$4"
	jobs_ibsim
}

# jobs_ibsim: as jobs_fabric, on the fabric already in topo.
jobs_ibsim() {
	cr_ibsim_start "$topo"
	mkdir -p "$CR_DIR/jobs"
	JOBS=$CR_DIR/jobs/jobs
	STATE=$JOBS.state
}

# state_key KEY: the value of the state file's KEY line.
state_key() {
	sed -n "s/^$1 //p" "$STATE" 2>/dev/null
}

# state_lists ID: the state file lists job ID.
state_lists() {
	sed -n 's/^jobs//p' "$STATE" 2>/dev/null | tr ' ' '\n' | grep -qx "$1"
}
