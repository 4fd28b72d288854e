# Shift-pattern link load of a routing, from OpenSM's dumps alone: the
# fallback of bench/updn/run.sh when `croute estimate` is not there.
#
# usage: awk -f shiftload.awk HOSTS opensm-subnet.lst opensm-lfts.dump
#   HOSTS: one CA port LID (decimal) a line, in host order.
#
# Phase k = 1..N-1: host i sends to host (i + k) mod N. Counts the flows
# on every directed link per phase and prints the worst link load, the
# mean over phases of the most loaded link, the phases with a shared link,
# and the mean over flows of 1 / (load of the flow's busiest link), a
# lower bound of the shift bandwidth as a fraction of the injection rate
# (1.000: every flow of every shift has its links to itself).

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		v = v * 16 + c - 1
	}
	return v
}

# One end of a link in opensm-subnet.lst: sets G (node GUID), T (CA or
# SW), L (LID) and P (port).
function endpoint(s,    t) {
	T = s ~ /^[ {]*CA/ ? "CA" : "SW"
	match(s, /NodeGUID:[0-9a-fA-F]+/)
	G = substr(s, RSTART + 9, RLENGTH - 9)
	match(s, /\} LID:[0-9a-fA-F]+ PN:[0-9a-fA-F]+/)
	t = substr(s, RSTART, RLENGTH)
	match(t, /LID:[0-9a-fA-F]+/)
	L = hex(substr(t, RSTART + 4, RLENGTH - 4))
	match(t, /PN:[0-9a-fA-F]+/)
	P = hex(substr(t, RSTART + 3, RLENGTH - 3))	# hex, like the LID
}

FILENAME == ARGV[1] {
	host[n++] = $1 + 0
	next
}

FILENAME == ARGV[2] {
	i = index($0, " } { ")
	if (!i)
		next
	endpoint(substr($0, 1, i + 2))
	g1 = G; t1 = T; l1 = L; p1 = P
	endpoint(substr($0, i + 3))
	rem[g1 SUBSEP p1] = G SUBSEP P
	rem[G SUBSEP P] = g1 SUBSEP p1
	type[g1] = t1
	type[G] = T
	if (t1 == "CA")
		port_of[l1] = g1 SUBSEP p1
	if (T == "CA")
		port_of[L] = G SUBSEP P
	next
}

/^Unicast lids/ {
	for (i = 1; i <= NF; i++)
		if ($i == "guid")
			sw = tolower(substr($(i + 1), 3))
	next
}

/^0x[0-9a-fA-F]+ [0-9]+/ {
	lft[sw SUBSEP hex($1)] = $2 + 0
}

END {
	worst = 0
	sum_max = 0
	bad = 0
	sum_rate = 0
	flows = 0
	lost = 0
	for (k = 1; k < n; k++) {
		split("", load)
		for (i = 0; i < n; i++) {
			d = host[(i + k) % n]
			path[i] = ""
			at = port_of[host[i]]
			for (hop = 0; hop < 64; hop++) {
				load[at]++
				path[i] = path[i] " " at
				split(rem[at], e, SUBSEP)
				if (type[e[1]] == "CA")
					break
				out = lft[tolower(e[1]) SUBSEP d]
				if (out == "" || out == 255 || out == 0)
					break
				at = tolower(e[1]) SUBSEP out
			}
			if (rem[at] != port_of[d])
				lost++
		}
		phase_max = 0
		for (l in load)
			if (load[l] > phase_max)
				phase_max = load[l]
		for (i = 0; i < n; i++) {
			m = split(path[i], links, " ")
			b = 0
			for (j = 1; j <= m; j++)
				if (load[links[j]] > b)
					b = load[links[j]]
			sum_rate += 1 / b
			flows++
		}
		if (phase_max > worst)
			worst = phase_max
		sum_max += phase_max
		bad += phase_max > 1
	}
	printf "worst %d mean-max %.2f shared-phases %d/%d bw>=%.3f lost %d\n", \
	       worst, sum_max / (n - 1), bad, n - 1, sum_rate / flows, lost
}
