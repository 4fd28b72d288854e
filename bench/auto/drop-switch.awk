# Removes one switch from a topology file (ibnetdiscover format): its
# block and every port line cabled to it.
# usage: awk -v desc=NAME -f drop-switch.awk in.topo > out.topo
#   NAME: the switch's description as written ("sw-l0-00")
BEGIN { RS = ""; ORS = "\n\n"; FS = "\n" }
{
	for (i = 1; i <= NF; i++)
		if ($i ~ /^Switch/ && index($i, "# \"" desc "\"")) {
			match($i, /"[^"]*"/)
			id = substr($i, RSTART, RLENGTH)
		}
	blocks[NR] = $0
}
END {
	if (id == "") {
		print "drop-switch.awk: no switch \"" desc "\"" > "/dev/stderr"
		exit 1
	}
	for (b = 1; b <= NR; b++) {
		n = split(blocks[b], line, "\n")
		skip = 0
		for (i = 1; i <= n; i++)
			if (line[i] ~ /^Switch/ && index(line[i], id))
				skip = 1
		if (skip)
			continue
		out = ""
		for (i = 1; i <= n; i++)
			if (!(line[i] ~ /^\[/ && index(line[i], id "[")))
				out = out (out == "" ? "" : "\n") line[i]
		print out
	}
}
