# Removes spine-to-spine cables between groups from a dragonfly+ topology
# file (ibnetdiscover format, as croute gen dragonfly-plus writes it): the
# first global cable of spine i of group i, for i = 0 .. count - 1, both
# of its port lines.
# usage: awk -v count=N -f drop-global.awk in.topo in.topo > out.topo
function group(desc) { return substr(desc, 1, index(desc, "-") - 1) }
FNR == 1 { pass++ }
/^Switch/ {
	split($0, q, "\"")
	id = q[2]
	desc = q[4]
}
/^Ca/ { id = "" }
pass == 1 && id != "" && /^\[/ {
	split($0, q, "\"")
	far = q[4]
	if (desc !~ /-spine-/ || far !~ /-spine-/ || group(desc) == group(far))
		next
	i = substr(group(desc), 2) + 0
	if (i >= count || substr(desc, index(desc, "-spine-") + 7) + 0 != i ||
	    (desc in done))
		next
	done[desc] = 1
	match($0, /^\[[0-9]+\]/)
	drop[id substr($0, RSTART, RLENGTH)] = 1
	match($0, /"S-[0-9a-f]+"\[[0-9]+\]/)
	far_end = substr($0, RSTART, RLENGTH)
	gsub(/"/, "", far_end)
	drop[far_end] = 1
	next
}
pass == 2 {
	if (id != "" && /^\[/) {
		match($0, /^\[[0-9]+\]/)
		if ((id substr($0, RSTART, RLENGTH)) in drop)
			next
	}
	print
}
